import Testing
@Test func placeholder_PayrollRulesTests() { #expect(Bool(true)) }
