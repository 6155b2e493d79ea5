import Foundation
import PostgresClient
import PostgresTestSupport
import Testing

@Suite("LISTEN / NOTIFY")
struct NotifyTests {
    @Test("a notification is delivered with channel, payload and sender pid")
    func delivered() throws {
        let database = try TestDatabase.create("notify")
        defer { database.drop() }
        let listener = try database.connect()
        let sender = try database.connect()
        try listener.listen("payrun_jobs")
        try sender.notify("payrun_jobs", payload: "run 42 ✓")
        let notification = try #require(try listener.waitForNotification(timeout: .seconds(5)))
        #expect(notification.channel == "payrun_jobs")
        #expect(notification.payload == "run 42 ✓")
        #expect(notification.senderPID == sender.backendPID)
    }

    @Test("waiting with nothing sent returns nil after the timeout")
    func timeout() throws {
        let database = try TestDatabase.create("notify_timeout")
        defer { database.drop() }
        let listener = try database.connect()
        try listener.listen("payrun_quiet")
        let clock = ContinuousClock()
        let start = clock.now
        let notification = try listener.waitForNotification(timeout: .milliseconds(300))
        let elapsed = start.duration(to: clock.now)
        #expect(notification == nil)
        #expect(elapsed >= .milliseconds(290))
        #expect(elapsed < .seconds(3))
    }

    @Test("a waiting listener wakes when another thread notifies")
    func wakesUp() throws {
        let database = try TestDatabase.create("notify_wake")
        defer { database.drop() }
        let listener = try database.connect()
        try listener.listen("Payrun_Wake")
        let url = database.url
        let sender = TestThread {
            let connection = try PostgresConnection(url: url)
            Thread.sleep(forTimeInterval: 0.2)
            try connection.transaction { tx in try tx.notify("Payrun_Wake", payload: "committed") }
        }
        let clock = ContinuousClock()
        let start = clock.now
        let notification = try listener.waitForNotification(timeout: .seconds(20))
        #expect(sender.join() == nil)
        #expect(notification?.payload == "committed")
        #expect(start.duration(to: clock.now) < .seconds(10))
    }

    @Test("LISTEN survives reconnect()")
    func listenAfterReconnect() throws {
        let database = try TestDatabase.create("notify_reconnect")
        defer { database.drop() }
        let listener = try database.connect()
        let sender = try database.connect()
        try listener.listen("payrun_again")
        try terminateBackend(of: listener, using: sender)
        _ = postgresError { _ = try listener.waitForNotification(timeout: .milliseconds(100)) }
        try listener.reconnect()
        try sender.notify("payrun_again", payload: "after")
        #expect(try listener.waitForNotification(timeout: .seconds(5))?.payload == "after")
    }

    @Test("channel names that are not plain identifiers are refused before anything is sent")
    func invalidChannels() throws {
        let database = try TestDatabase.create("notify_invalid")
        defer { database.drop() }
        let connection = try database.connect()
        for channel in ["", "1abc", "a b", "x\"; DROP TABLE t; --", String(repeating: "a", count: 64), "한글"] {
            #expect(postgresError { try connection.listen(channel) }?.kind == .invalidUsage, "\(channel)")
            #expect(postgresError { try connection.notify(channel) }?.kind == .invalidUsage, "\(channel)")
        }
        try connection.listen("ok_$channel9")
    }
}
