import PostgresClient

/// Bulk-load mode of a seed: inside the seed's transaction, drop what costs most per row and put it
/// back, identical (same names, same definitions, read from the catalog), before the commit.
///
/// Measured per shift row on the project machine (223,000 shifts, 2 cores, load ≈ 5): heap ≈ 2.4 µs,
/// CHECKs ≈ 1.2 µs, the two btree indexes ≈ 6.7 µs, the foreign-key trigger ≈ 16 µs (one SPI
/// query per row). Rebuilding the indexes and validating the foreign keys once (one anti-join)
/// cost ≈ 4 µs per row instead of ≈ 23. Contracts: the GiST exclusion constraint costs ≈ 75 µs
/// per row inserted, ≈ 33 µs built at once.
///
/// What is dropped and restored:
/// - every foreign key **of** the seeded child tables (employees, contracts, shifts, absences);
///   restoring validates them over all rows with one query per key;
/// - when the seed at least doubles `shifts`: its primary key and other indexes; and the exclusion
///   constraints of `contracts` (rebuilt over all rows, so a small seed into a large store keeps
///   the incremental path).
///
/// The DDL takes ACCESS EXCLUSIVE locks on these tables until the seed commits: other sessions
/// wait for the seed. A failed seed rolls the DDL back with the rows.
enum SeedBulkLoad {
    static let childTables = ["employees", "contracts", "shifts", "absences"]

    /// One structure to put back: its name (constraint or index) and the statement that restores it.
    struct Restore {
        var name: String
        var statement: String
    }

    /// Drops the structures, returns what restores them, in order.
    static func prepare(rebuildIndexes: Bool, on connection: PostgresConnection) throws -> [Restore] {
        let tableList = childTables.map { "'payrun.\($0)'::regclass" }.joined(separator: ", ")
        // Lock before reading the catalog: a concurrent seed drops and re-creates these constraints
        // and indexes, and pg_get_constraintdef/pg_get_indexdef read the catalog caches, not this
        // statement's snapshot ("cache lookup failed" if they ran between its drop and its commit).
        // With the lock taken first, the second seed waits here and then reads the restored state.
        try connection.execute("LOCK TABLE \(childTables.map { "payrun.\($0)" }.joined(separator: ", ")) IN ACCESS EXCLUSIVE MODE")
        var drops: [String] = []
        var restores: [Restore] = []
        if rebuildIndexes {
            // Primary key and exclusion constraints of shifts and contracts (nothing references
            // them), then the other indexes of shifts.
            for row in try connection.query("""
                SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname),
                       format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)), conname::text
                  FROM pg_catalog.pg_constraint c
                 WHERE ((conrelid = 'payrun.shifts'::regclass AND contype = 'p')
                        OR (conrelid = 'payrun.contracts'::regclass AND contype = 'x'))
                   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint f
                                    WHERE f.contype = 'f' AND f.confrelid = c.conrelid AND f.conindid = c.conindid)
                 ORDER BY contype, conname
                """) {
                drops.append(try row.string(at: 0))
                restores.append(Restore(name: try row.string(at: 2), statement: try row.string(at: 1)))
            }
            for row in try connection.query("""
                SELECT format('DROP INDEX %s', i.indexrelid::regclass), pg_catalog.pg_get_indexdef(i.indexrelid),
                       (SELECT relname::text FROM pg_catalog.pg_class WHERE oid = i.indexrelid)
                  FROM pg_catalog.pg_index i
                 WHERE i.indrelid = 'payrun.shifts'::regclass
                   AND NOT EXISTS (SELECT 1 FROM pg_catalog.pg_constraint c WHERE c.conindid = i.indexrelid)
                 ORDER BY i.indexrelid::regclass::text
                """) {
                drops.append(try row.string(at: 0))
                restores.append(Restore(name: try row.string(at: 2), statement: try row.string(at: 1)))
            }
        }
        for row in try connection.query("""
            SELECT format('ALTER TABLE %s DROP CONSTRAINT %I', conrelid::regclass, conname),
                   format('ALTER TABLE %s ADD CONSTRAINT %I %s', conrelid::regclass, conname, pg_get_constraintdef(oid)), conname::text
              FROM pg_catalog.pg_constraint
             WHERE contype = 'f' AND conrelid IN (\(tableList))
             ORDER BY conrelid::regclass::text, conname
            """) {
            drops.append(try row.string(at: 0))
            restores.append(Restore(name: try row.string(at: 2), statement: try row.string(at: 1)))
        }
        for statement in drops { try connection.execute(statement) }
        return restores
    }

    /// Runs the restore statements, each timed as phase `restore <name>` (index builds get more
    /// sort memory).
    static func restore(_ restores: [Restore], phases: inout SeedPhaseClock, on connection: PostgresConnection) throws {
        try connection.execute("SET LOCAL maintenance_work_mem = '512MB'")
        for r in restores { try phases.measure("restore " + r.name) { _ = try connection.execute(r.statement) } }
    }
}
