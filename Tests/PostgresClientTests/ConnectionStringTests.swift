import PostgresClient
import Testing

@Suite("Connection strings")
struct ConnectionStringTests {
    @Test("replacing the database keeps the authority and the query of a URI", arguments: [
        ("postgresql://postgres@localhost:5432/postgres?host=/tmp/pg", "postgresql://postgres@localhost:5432/payrun_x?host=/tmp/pg"),
        ("postgres://u:p@db:5433", "postgres://u:p@db:5433/payrun_x"),
        ("postgresql://localhost/a/b", "postgresql://localhost/payrun_x"),
        ("host=/run/postgresql dbname=payrun", "host=/run/postgresql dbname=payrun dbname=payrun_x"),
    ])
    func replacingDatabase(input: String, expected: String) {
        #expect(PostgresConnectionString.replacingDatabase(in: input, with: "payrun_x") == expected)
    }
}
