import CLibPQ

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// One libpq connection to PostgreSQL.
///
/// **One thread at a time.** The class is deliberately not `Sendable`: the compiler refuses to
/// capture it in `@Sendable` closures or pass it between tasks, so it cannot be used from two
/// threads at once. Open one connection per worker thread. Calls block the calling thread;
/// do not call it from the Swift concurrency pool's threads in a hot path (wrap the work in
/// its own `Thread` instead).
///
/// Every statement is sent with bind parameters (`$1`, `$2`, ...) through the extended query
/// protocol, so values are never spliced into SQL text. `executeScript` is the one exception:
/// it runs several parameterless statements (migrations).
public final class PostgresConnection {
    /// The libpq handle; nil after `close()`.
    var handle: OpaquePointer?
    /// The connection string we were opened with (after `DATABASE_URL` resolution).
    public let connectionString: String
    /// Channels we LISTEN on; replayed after `reconnect()`.
    var listenedChannels: [String] = []
    /// Counter for generated cursor names.
    var cursorSerial = 0
    /// Statements prepared on this session by `executePrepared`: key (parameter types + SQL) → name.
    var preparedStatementNames: [String: String] = [:]
    /// The number in the last generated prepared-statement name (names are never reused on a connection).
    var preparedStatementSerial = 0
    /// Round trips to the server this object made: statements run, prepared, COPYs started,
    /// scripts sent (for tests and diagnostics: a statement merged into another shows here).
    public internal(set) var roundTrips = 0
    /// Transactions `transaction()` began on this connection object (the serial of the latest).
    var transactionSerial = 0
    /// The serial of the transaction `transaction()` has open; nil outside one.
    public internal(set) var openTransactionSerial: Int?
    /// The serial of the last transaction `transaction()` committed (its COMMIT succeeded with the
    /// transaction still open and unaborted up to it); 0 before any.
    public internal(set) var committedTransactionSerial = 0
    /// Statements `executeOncePerSession` ran: key → the backend process they ran in.
    var sessionStatementBackends: [String: Int32] = [:]

    /// Connects. `url` is a libpq connection string or URI (`postgresql://user@host:port/db?...`).
    /// With `url == nil`, `DATABASE_URL` is used if set, otherwise libpq's environment variables
    /// (`PGHOST`, `PGPORT`, `PGDATABASE`, `PGUSER`, ...) and defaults.
    public init(url: String? = nil) throws(PostgresError) {
        let resolved: String
        if let url {
            resolved = url
        } else if let environment = getenv("DATABASE_URL") {
            resolved = String(cString: environment)
        } else {
            resolved = ""
        }
        connectionString = resolved
        handle = try Self.open(resolved)
    }

    deinit {
        if let handle { PQfinish(handle) }
    }

    /// Closes the connection. Further calls throw `.invalidUsage`. Safe to call twice.
    public func close() {
        if let handle { PQfinish(handle) }
        handle = nil
        preparedStatementNames = [:]
        sessionStatementBackends = [:]
    }

    /// True if libpq considers the connection usable (it only learns it is broken when a call fails).
    public var isOpen: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server process id of this connection (for `pg_terminate_backend`, logs).
    public var backendPID: Int32 {
        guard let handle else { return 0 }
        return PQbackendPID(handle)
    }

    /// The server version as an integer, e.g. 150018.
    public var serverVersion: Int {
        guard let handle else { return 0 }
        return Int(PQserverVersion(handle))
    }

    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool {
        guard let handle else { return false }
        let status = PQtransactionStatus(handle)
        return status == PQTRANS_INTRANS || status == PQTRANS_INERROR || status == PQTRANS_ACTIVE
    }

    /// Drops the current connection and opens a new one with the same connection string, then
    /// LISTENs again on the channels this connection listened on. Session state (temporary
    /// tables, `SET` values, an open transaction) is lost.
    public func reconnect() throws(PostgresError) {
        if let handle { PQfinish(handle) }
        handle = nil
        preparedStatementNames = [:]  // they lived in the old session
        sessionStatementBackends = [:]
        handle = try Self.open(connectionString)
        let channels = listenedChannels
        listenedChannels = []
        for channel in channels { try listen(channel) }
    }

    /// Opens a connection and prepares the session: UTF-8, ISO dates, NOTICEs dropped.
    static func open(_ connectionString: String) throws(PostgresError) -> OpaquePointer {
        guard let handle = PQconnectdb(connectionString) else {
            throw PostgresError.fromConnection(nil, kind: .connectionFailed)
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let error = PostgresError.fromConnection(handle, kind: .connectionFailed)
            PQfinish(handle)
            throw error
        }
        payrun_pg_silence_notices(handle)
        // Strings are UTF-8 both ways; decoding of dates/timestamps relies on the ISO style.
        if let result = PQexec(handle, "SET client_encoding TO 'UTF8'; SET DateStyle TO ISO, YMD") {
            let ok = PQresultStatus(result) == PGRES_COMMAND_OK
            let error = ok ? nil : PostgresError.from(result: result, connection: handle)
            PQclear(result)
            if let error {
                PQfinish(handle)
                throw error
            }
        }
        return handle
    }

    /// The open handle, or `.invalidUsage` after `close()`.
    func requireHandle() throws(PostgresError) -> OpaquePointer {
        guard let handle else { throw .invalidUsage("the connection is closed") }
        return handle
    }
}
