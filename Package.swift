// swift-tools-version: 6.1
// payrun — multi-tenant batch payroll compute service for Korean employers.
// Targets follow ../shared/design/ARCHITECTURE.md. Benchmark-only dependencies live in the
// separate package under benchmarks/ so that `swift test` here stays fast.
import PackageDescription

let package = Package(
    name: "payrun",
    products: [
        .executable(name: "payrun", targets: ["payrun"]),
        .library(name: "PayrollRules", targets: ["PayrollRules"]),
        .library(name: "PayrollEngine", targets: ["PayrollEngine"]),
        .library(name: "PostgresClient", targets: ["PostgresClient"]),
        .library(name: "PayrollStore", targets: ["PayrollStore"]),
        .library(name: "JobQueue", targets: ["JobQueue"]),
        .library(name: "PayrunWorker", targets: ["PayrunWorker"]),
    ],
    dependencies: [
        .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.0"),
        .package(url: "https://github.com/apple/swift-log", from: "1.16.0"),
        .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
        .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.0"),
    ],
    targets: [
        .systemLibrary(
            name: "CLibPQ",
            path: "Sources/CLibPQ",
            pkgConfig: "libpq",
            providers: [.apt(["libpq-dev"])]
        ),
        // OpenSSL's libcrypto, for its SHA-256 (libssl-dev comes with libpq-dev).
        .systemLibrary(
            name: "CCrypto",
            path: "Sources/CCrypto",
            pkgConfig: "libcrypto",
            providers: [.apt(["libssl-dev"])]
        ),
        .target(name: "PostgresClient", dependencies: ["CLibPQ"]),
        .target(name: "PayrollRules"),
        .target(name: "PayrollEngine", dependencies: ["PayrollRules"]),
        .target(
            name: "PayrollStore",
            dependencies: ["PostgresClient", "PayrollRules", "CCrypto"],
            resources: [.copy("Migrations")]
        ),
        .target(name: "JobQueue", dependencies: ["PostgresClient"]),
        .target(
            name: "PayrunWorker",
            dependencies: [
                "PayrollRules", "PayrollEngine", "PayrollStore", "JobQueue", "PostgresClient",
                .product(name: "Logging", package: "swift-log"),
                .product(name: "Metrics", package: "swift-metrics"),
                .product(name: "Prometheus", package: "swift-prometheus"),
            ]
        ),
        .executableTarget(
            name: "payrun",
            dependencies: [
                "PayrollRules", "PayrollEngine", "PayrollStore", "JobQueue", "PostgresClient", "PayrunWorker",
                .product(name: "ArgumentParser", package: "swift-argument-parser"),
                .product(name: "Logging", package: "swift-log"),
            ]
        ),
        // Starts (or reuses) a private PostgreSQL cluster for tests and hands each suite its own database.
        .target(name: "PostgresTestSupport", dependencies: ["PostgresClient"], path: "Tests/PostgresTestSupport"),
        .testTarget(name: "PayrollRulesTests", dependencies: ["PayrollRules"]),
        .testTarget(name: "PostgresClientTests", dependencies: ["PostgresClient", "PostgresTestSupport"]),
        .testTarget(name: "PayrollStoreTests", dependencies: ["PayrollStore", "PostgresClient", "PostgresTestSupport"]),
        .testTarget(name: "PayrollEngineTests", dependencies: ["PayrollEngine", "PayrollRules"]),
        .testTarget(name: "JobQueueTests", dependencies: ["JobQueue", "PostgresClient", "PayrollStore", "PostgresTestSupport"]),
        .testTarget(
            name: "PayrunWorkerTests",
            dependencies: ["PayrunWorker", "PayrollStore", "JobQueue", "PostgresClient", "PayrollRules", "PostgresTestSupport"]
        ),
        .testTarget(name: "PayrunCLITests", dependencies: ["PostgresTestSupport"]),
    ]
)
