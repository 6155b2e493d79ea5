// swift-tools-version: 6.1
// Benchmarks for payrun: a separate package so that benchmark-only code and release builds stay
// out of the main package's `swift test`. It depends on the root package by path.
import Foundation
import PackageDescription

// SwiftPM names a path dependency after its folder, which differs between clones (payrun, main …).
let rootPackage = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().lastPathComponent

let package = Package(
    name: "payrun-benchmarks",
    dependencies: [
        .package(path: ".."),
    ],
    targets: [
        .executableTarget(
            name: "rules-throughput",
            dependencies: [
                .product(name: "PayrollRules", package: rootPackage),
                .product(name: "PayrollEngine", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "compute-scaling",
            dependencies: [
                .product(name: "PayrollRules", package: rootPackage),
                .product(name: "PayrollEngine", package: rootPackage),
                .product(name: "PayrollStore", package: rootPackage),
                .product(name: "PostgresClient", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "load-encode",
            dependencies: [
                .product(name: "PayrollRules", package: rootPackage),
                .product(name: "PayrollEngine", package: rootPackage),
                .product(name: "PayrollStore", package: rootPackage),
                .product(name: "PostgresClient", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "copy-throughput",
            dependencies: [
                .product(name: "PostgresClient", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "queue-throughput",
            dependencies: [
                .product(name: "JobQueue", package: rootPackage),
                .product(name: "PostgresClient", package: rootPackage),
                .product(name: "PayrollStore", package: rootPackage),
            ]
        ),
        .executableTarget(
            name: "recalc-throughput",
            dependencies: [
                .product(name: "JobQueue", package: rootPackage),
                .product(name: "PostgresClient", package: rootPackage),
                .product(name: "PayrollStore", package: rootPackage),
                .product(name: "PayrunWorker", package: rootPackage),
            ]
        ),
    ]
)
