import Testing
@Test func placeholder_PayrollStoreTests() { #expect(Bool(true)) }
