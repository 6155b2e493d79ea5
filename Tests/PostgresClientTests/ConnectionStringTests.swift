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

    @Test("a startup setting goes into the options of a URI or of a keyword/value string", arguments: [
        ("postgresql://postgres@localhost:5432/db?host=/tmp/pg", "postgresql://postgres@localhost:5432/db?host=/tmp/pg&options=-c%20role%3Dpayrun_worker"),
        ("postgres://u@db/x", "postgres://u@db/x?options=-c%20role%3Dpayrun_worker"),
        ("postgresql://db/x?options=-c%20jit%3Doff&host=/s", "postgresql://db/x?options=-c%20jit%3Doff%20-c%20role%3Dpayrun_worker&host=/s"),
        ("host=/run/postgresql dbname=payrun", "host=/run/postgresql dbname=payrun options='-c role=payrun_worker'"),
    ])
    func addingStartupSetting(input: String, expected: String) {
        #expect(PostgresConnectionString.addingStartupSetting(in: input, name: "role", value: "payrun_worker") == expected)
    }

    @Test("no startup setting where it would be lost or need quoting")
    func addingStartupSettingRefuses() {
        #expect(PostgresConnectionString.addingStartupSetting(in: "host=/s options='-c jit=off'", name: "role", value: "r") == nil)
        #expect(PostgresConnectionString.addingStartupSetting(in: "postgresql://db/x", name: "role", value: "a b") == nil)
        #expect(PostgresConnectionString.addingStartupSetting(in: "postgresql://db/x", name: "role", value: "x'; DROP") == nil)
        #expect(PostgresConnectionString.addingStartupSetting(in: "postgresql://db/x", name: "", value: "r") == nil)
    }
}
