import Testing
@Test func placeholder_PayrunWorkerTests() { #expect(Bool(true)) }
