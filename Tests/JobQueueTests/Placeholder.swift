import Testing
@Test func placeholder_JobQueueTests() { #expect(Bool(true)) }
