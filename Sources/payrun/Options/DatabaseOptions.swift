import ArgumentParser
import Foundation
import PostgresClient

/// `--database-url`, defaulting to `DATABASE_URL`. Shared by every command that talks to PostgreSQL.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: ArgumentHelp(
            "PostgreSQL connection URI or libpq string (default: $DATABASE_URL).",
            discussion: "For example postgresql://payrun@localhost:5432/payrun or 'host=/run/postgresql dbname=payrun'.",
            valueName: "url"))
    var databaseURL: String?

    /// The connection string to use: the option, else `DATABASE_URL`, else the libpq environment
    /// (`PGHOST`, `PGDATABASE`, `PGSERVICE`) when one of those is set.
    func resolvedURL(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        if let databaseURL {
            guard !databaseURL.isEmpty else { throw ValidationError("--database-url is empty") }
            return databaseURL
        }
        if let url = environment["DATABASE_URL"], !url.isEmpty { return url }
        if ["PGHOST", "PGDATABASE", "PGSERVICE"].contains(where: { environment[$0].map { !$0.isEmpty } ?? false }) {
            return ""  // libpq reads its environment variables.
        }
        throw CommandFailure("no database given: pass --database-url or set DATABASE_URL (e.g. postgresql://user@localhost/payrun)")
    }

    /// Opens a connection, with an error that says where it tried to connect.
    func connect() throws -> PostgresConnection {
        let url = try resolvedURL()
        do {
            return try PostgresConnection(url: url)
        } catch {
            throw CommandFailure("cannot connect to PostgreSQL at \(Self.redacted(url)): \(error.message)")
        }
    }

    /// The URL with any password replaced by `***`, for messages.
    static func redacted(_ url: String) -> String {
        if url.isEmpty { return "(libpq environment)" }
        if var components = URLComponents(string: url), components.scheme != nil {
            if components.password != nil { components.password = "***" }
            return components.string ?? url
        }
        // key=value form: hide password=...
        return url.split(separator: " ").map { $0.hasPrefix("password=") ? "password=***" : String($0) }
            .joined(separator: " ")
    }
}

/// An error a command reports to the operator as one line, exiting with status 1.
struct CommandFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
