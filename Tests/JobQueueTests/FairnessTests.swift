import JobQueue
import PostgresClient
import PostgresTestSupport
import Testing

/// Fairness, precisely: within one claim, no tenant gets its (r+1)-th job while another tenant
/// that still had a claimable r-th job does not get it ("water filling"). Consequences checked
/// here: a claim of k ≥ T (tenants with due jobs) includes every tenant's first job, and a claim
/// of k takes at most ⌈k/T⌉ jobs from a tenant unless the other tenants ran out of jobs.
@Suite("JobQueue fairness")
struct FairnessTests {
    /// Tenant 1: 2,000 jobs enqueued first; tenants 2…11: one job each, enqueued afterwards.
    static func bigAndSmall(_ label: String) throws -> (TestDatabase, PostgresConnection) {
        let (database, connection) = try QueueFixture.database(label, tenants: 11)
        try JobQueue.enqueue((0..<2000).map { QueueFixture.job("run.chunk", tenant: 1, payload: "{\"chunk\": \($0)}") }, on: connection)
        for tenant in Int64(2)...11 {
            try JobQueue.enqueue(QueueFixture.job("employee.recalc", tenant: tenant), on: connection)
        }
        return (database, connection)
    }

    static func perTenant(_ jobs: [ClaimedJob]) -> [Int64: Int] {
        jobs.reduce(into: [:]) { $0[$1.tenantId, default: 0] += 1 }
    }

    @Test("1 tenant × 2,000 jobs + 10 tenants × 1: the first claim of 20 includes all ten small tenants' jobs")
    func smallTenantsInFirstRound() throws {
        let (database, connection) = try Self.bigAndSmall("fair_first")
        defer { database.drop() }
        let claimed = try JobQueue.claim(on: connection, workerId: "w", limit: 20, leaseSeconds: 30)
        let counts = Self.perTenant(claimed)
        for tenant in Int64(2)...11 { #expect(counts[tenant] == 1, "tenant \(tenant)") }
        // The rest of the round goes to the only tenant with jobs left, up to the per-tenant cap
        // ⌊(2·20+16)/11⌋+1 = 6.
        #expect(counts[1] == 6 && claimed.count == 16)
        // Claiming again serves the big tenant (the only one left).
        let next = try JobQueue.claim(on: connection, workerId: "w", limit: 20, leaseSeconds: 30)
        #expect(next.count == 20 && next.allSatisfy { $0.tenantId == 1 })
    }

    @Test("a claim of k ≤ T takes at most one job per tenant; ⌈k/T⌉ in general while others have jobs")
    func atMostCeilingPerTenant() throws {
        let (database, connection) = try Self.bigAndSmall("fair_ceiling")
        defer { database.drop() }
        let first = try JobQueue.claim(on: connection, workerId: "w", limit: 5, leaseSeconds: 30)
        #expect(first.count == 5 && Self.perTenant(first).values.allSatisfy { $0 == 1 })
        // Tenants are served in order of their most urgent job: the big tenant's oldest job and
        // the four small tenants enqueued first; the next claim continues with the others.
        let second = try JobQueue.claim(on: connection, workerId: "w", limit: 11, leaseSeconds: 30)
        let counts = Self.perTenant(second)
        #expect(first.contains { $0.tenantId == 1 })
        // 7 tenants left: each small one's only job, and the big tenant fills the rest
        // (the small ones ran out; otherwise it would be capped at ⌈11/7⌉ = 2).
        #expect(counts.count == 7 && counts.filter { $0.key != 1 }.values.allSatisfy { $0 == 1 } && counts[1] == 5)
        #expect(Set(first.map(\.tenantId)).union(counts.keys) == Set(1...11))
    }

    @Test("water filling: across many claim sizes, no tenant is two jobs ahead of one that still had jobs")
    func waterFilling() throws {
        let (database, connection) = try QueueFixture.database("fair_water", tenants: 6)
        defer { database.drop() }
        let sizes: [Int64: Int] = [1: 300, 2: 40, 3: 7, 4: 3, 5: 1, 6: 0]
        var jobs: [NewJob] = []
        for (tenant, count) in sizes.sorted(by: { $0.key < $1.key }) {
            jobs += (0..<count).map { _ in QueueFixture.job(tenant: tenant) }
        }
        try JobQueue.enqueue(jobs, on: connection)
        var remaining = sizes
        for limit in [3, 8, 17, 40, 60] {
            let claimed = try JobQueue.claim(on: connection, workerId: "w", limit: limit, leaseSeconds: 30)
            let counts = Self.perTenant(claimed)
            let tenantsWithJobs = remaining.values.filter { $0 > 0 }.count
            #expect(claimed.count <= limit && claimed.count >= min(limit, tenantsWithJobs))
            let cap = min(limit, (2 * limit + 16) / max(tenantsWithJobs, 1) + 1)
            #expect(counts.values.allSatisfy { $0 <= cap })
            for (tenant, got) in counts {
                for (other, otherGot) in remaining where other != tenant && remaining[other]! > (counts[other] ?? 0) {
                    // `other` was left with jobs, so `tenant` may be at most one ahead of it.
                    #expect(got <= (counts[other] ?? 0) + 1, "limit \(limit): tenant \(tenant) got \(got), tenant \(other) got \(counts[other] ?? 0) of \(otherGot)")
                }
            }
            for (tenant, got) in counts { remaining[tenant]! -= got }
            try JobQueue.complete(claimed, on: connection)
        }
    }
}

