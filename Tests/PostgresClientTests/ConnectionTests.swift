import PostgresClient
import PostgresTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

@Suite("Connecting")
struct ConnectionTests {
    @Test("connects by URL and reports the server version and backend pid")
    func connectByURL() throws {
        let database = try TestDatabase.create("connect_url")
        defer { database.drop() }
        let connection = try PostgresConnection(url: database.url)
        defer { connection.close() }
        #expect(connection.isOpen)
        #expect(connection.serverVersion >= 150_000)
        let pid = try #require(try connection.queryOne("SELECT pg_backend_pid()")).int64(at: 0)
        #expect(pid == Int64(connection.backendPID))
        let name = try #require(try connection.queryOne("SELECT current_database()")).string(at: 0)
        #expect(name == database.name)
    }

    @Test("connects through DATABASE_URL when no URL is given")
    func connectByEnvironment() throws {
        let database = try TestDatabase.create("connect_env")
        defer { database.drop() }
        // Only this test reads DATABASE_URL through init(); setenv is process-wide, so the
        // variable is set once and overwritten, never unset, to keep concurrent getenv safe.
        setenv("DATABASE_URL", database.url, 1)
        let connection = try PostgresConnection()
        defer { connection.close() }
        let name = try #require(try connection.queryOne("SELECT current_database()")).string(at: 0)
        #expect(name == database.name)
    }

    @Test("a bad URL fails with connectionFailed and libpq's message")
    func connectFailure() throws {
        #expect {
            _ = try PostgresConnection(url: "postgresql://nobody@127.0.0.1:1/none?connect_timeout=2")
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.kind == .connectionFailed && !error.message.isEmpty
        }
    }

    @Test("a closed connection refuses work with invalidUsage")
    func closedConnection() throws {
        let database = try TestDatabase.create("closed")
        defer { database.drop() }
        let connection = try database.connect()
        connection.close()
        connection.close()
        #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
        do {
            try connection.execute("SELECT 1")
        } catch {
            #expect(error.kind == .invalidUsage)
        }
    }
}
