import Testing
@Test func placeholder_PayrunCLITests() { #expect(Bool(true)) }
