@testable import PayrollEngine
import PayrollRules
import Testing

@Suite("BatchCalculator")
struct BatchCalculatorTests {
    let workforce = SyntheticWorkforce(seed: 7, year: 2026, month: 10)

    @Test("parallel results equal serial results, in input order")
    func parallelEqualsSerial() {
        let inputs = (0..<600).map { workforce.employee($0) }
        let serial = BatchCalculator.calculate(inputs, parallelism: 1)
        let parallel = BatchCalculator.calculate(inputs, parallelism: 4)
        #expect(serial.count == inputs.count)
        #expect(serial == parallel)
        for (i, r) in serial.enumerated() {
            if case .success(let p) = r { #expect(p.employeeId == inputs[i].employee.id) }
        }
    }

    @Test("the synthetic workforce computes without errors and with about 22 shifts each")
    func syntheticWorkforceComputes() throws {
        let inputs = (0..<500).map { workforce.employee($0) }
        let shifts = inputs.reduce(0) { $0 + $1.shifts.count }
        #expect(shifts / inputs.count >= 15 && shifts / inputs.count <= 30)
        for (i, r) in BatchCalculator.calculate(inputs).enumerated() {
            switch r {
            case .success(let p):
                #expect(p.gross > 0, "employee \(i) has zero gross")
                #expect(p.net == p.gross - p.totalDeductions)
            case .failure(let e):
                Issue.record("employee \(i) failed: \(e)")
            }
        }
    }

    @Test("the same seed gives the same workforce")
    func deterministicGenerator() {
        let a = SyntheticWorkforce(seed: 11).employee(123)
        let b = SyntheticWorkforce(seed: 11).employee(123)
        #expect(a.shifts == b.shifts)
        #expect(a.contract.scheduleMinutes == b.contract.scheduleMinutes)
        #expect(a.contract.wageWon == b.contract.wageWon)
    }

    @Test("batches of every size around the slice length give the serial results at 2 and 3 threads",
          arguments: [1, 2, 15, 16, 17, 31, 32, 33, 47, 100])
    func sliceBoundaries(count: Int) {
        let inputs = (0..<count).map { workforce.employee(1_000 + $0) }
        let serial = BatchCalculator.calculate(inputs, parallelism: 1)
        #expect(serial.count == count)
        #expect(BatchCalculator.calculate(inputs, parallelism: 2) == serial)
        #expect(BatchCalculator.calculate(inputs, parallelism: 3) == serial)
    }

    @Test("the slices partition the batch: contiguous, in order, none empty, each at most the slice length")
    func slicePlanPartitions() {
        for total in [0, 1, 15, 16, 17, 1_700, 1_701] {
            for length in [1, 16, 48] {
                let plan = SlicePlan(count: total, sliceEmployees: length)
                var next = 0
                for slice in 0..<plan.count {
                    let bounds = plan.bounds(of: slice)
                    #expect(bounds.lowerBound == next, "slice \(slice) of \(total)/\(length) starts at \(bounds.lowerBound)")
                    #expect(!bounds.isEmpty && bounds.count <= length)
                    next = bounds.upperBound
                }
                #expect(next == total, "\(total)/\(length): the slices end at \(next)")
            }
        }
    }

    @Test("an empty batch gives no results")
    func emptyBatch() { #expect(BatchCalculator.calculate([]).isEmpty) }
}

