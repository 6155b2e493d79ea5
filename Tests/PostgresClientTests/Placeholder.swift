import Testing
@Test func placeholder_PostgresClientTests() { #expect(Bool(true)) }
