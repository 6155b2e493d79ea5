import PayrollRules
import PostgresClient
import Testing
@testable import PayrollStore

/// A chunk's contract, shift and absence reads name their tenant by the transaction's setting
/// (`x.tenant_id = payrun.current_tenant_id()`, the row-level security policy's own qual) and check
/// that setting once (`payrun.tenant_scope_is`, migration 0023). With a literal tenant beside the
/// policy's qual, PostgreSQL 15 plans a one-time filter in a Result node over every row read.
@Suite("Chunk reads scoped by the transaction's tenant")
struct TenantScopedReadsTests {
    typealias F = PayrollDataFixture

    static func reads() -> ChunkLoader.ChildReads {
        ChunkLoader.ChildReads(tenantId: F.tenant, employeeIds: [F.hourly, F.monthly], periodStart: F.periodStart,
                               periodEnd: F.periodEnd, windowStart: F.periodStart.adding(days: -7),
                               windowEnd: F.periodEnd.adding(days: 7))
    }

    static func plan(_ sql: String, on c: PostgresConnection) throws -> String {
        try c.query("EXPLAIN \(sql)").map { try $0.string(at: 0) }.joined(separator: "\n")
    }

    @Test("as payrun_worker, the shift and absence reads have no one-time filter; the contract read's only one is the tenant check")
    func noOneTimeFilterUnderRowLevelSecurity() throws {
        let c = try F.migrated("tenant_scoped_reads_plan")
        try F.seed(c)
        let reads = Self.reads()
        try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c) { c in
            for (name, sql) in [("shifts", reads.shifts), ("absences", reads.absences)] {
                let plan = try Self.plan(sql, on: c)
                #expect(!plan.contains("One-Time Filter"), "\(name): \(plan)")
                #expect(plan.contains("current_setting('payrun.tenant_id'"), "\(name): \(plan)")
            }
            let plan = try Self.plan(reads.contracts, on: c)
            let filters = plan.split(separator: "\n").filter { $0.contains("One-Time Filter") }
            #expect(filters.count == 1 && filters.allSatisfy { $0.contains("tenant_scope_is") }, "contracts: \(plan)")
        }
        // And they read what the same reads with the literal tenant read (as the owner, no policy).
        let all = [reads.contracts, reads.shifts, reads.absences]
        let counts = try StoreFixture.asRole("payrun_worker", tenant: F.tenant, on: c) { c in
            try all.map { sql in
                try #require(try c.queryOne("SELECT count(*) FROM (\(sql)) r")).int64(at: 0)
            }
        }
        let literal = try all.map { sql in
            let named = sql.replacingOccurrences(of: "payrun.tenant_scope_is(\(F.tenant)) AND ", with: "")
                .replacingOccurrences(of: "x.tenant_id = payrun.current_tenant_id()", with: "x.tenant_id = \(F.tenant)")
            #expect(!named.contains("current_tenant_id") && !named.contains("tenant_scope_is"))
            return try #require(try c.queryOne("SELECT count(*) FROM (\(named)) r")).int64(at: 0)
        }
        #expect(counts == literal)
        #expect(literal.allSatisfy { $0 > 0 }, "\(literal)")
    }

    @Test("a chunk loaded in a transaction scoped to another tenant, or to none, fails with 42501 naming both")
    func loadOutsideItsTenantFails() throws {
        let c = try F.migrated("tenant_scoped_reads_guard")
        try F.seed(c)
        let run = try F.run(c)
        for scope in [F.otherTenant, nil] as [Int64?] {
            #expect {
                _ = try c.transaction { c in
                    if let scope { try TenantScope.set(scope, on: c) }
                    return try ChunkLoader.load(run: run, selection: .range(from: F.hourly, to: F.monthly), on: c)
                }
            } throws: { error in
                guard let e = error as? PostgresError, e.sqlState == "42501" else { return false }
                return e.message.contains("tenant scope") && e.message.contains("reads tenant \(F.tenant)")
                    && e.message.contains(scope.map { "is \($0)" } ?? "is unset")
            }
        }
        // In its own tenant's transaction the same load reads both employees.
        let chunk = try c.transaction { c in
            try TenantScope.set(F.tenant, on: c)
            return try ChunkLoader.load(run: run, selection: .range(from: F.hourly, to: F.monthly), on: c)
        }
        #expect(chunk.employees.map(\.employeeId) == [F.hourly, F.monthly])
        #expect(chunk.employees.allSatisfy { (try? $0.input.get()) != nil })
    }
}
