import PostgresClient
import PostgresTestSupport

/// Fresh empty databases on the test cluster (PostgresTestSupport), one per test so tests can run
/// in parallel. Databases left at the end are dropped when the test process exits.
enum StoreTestDatabase {
    /// A new empty database; returns its URL.
    static func createEmpty(_ label: String) throws -> String {
        try TestDatabase.create("store_" + label).url
    }

    /// A connection to a new empty database.
    static func connectToEmpty(_ label: String) throws -> PostgresConnection {
        try PostgresConnection(url: try createEmpty(label))
    }
}
