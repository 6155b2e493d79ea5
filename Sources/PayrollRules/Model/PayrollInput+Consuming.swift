extension PayrollInput {
    /// `validated()` of an input the caller gives up: the same checks and the same result, but an
    /// input already valid is returned as it is (moved, not copied), and a changed one gets its
    /// two arrays replaced in place. `validated()` on a borrowed input returns a copy, which
    /// retains and later releases each of the input's arrays and texts once more; the batch
    /// loader builds one input per employee and keeps only the validated one.
    public consuming func validatedConsuming() throws(PayrollError) -> PayrollInput {
        guard let changed = try validationChanges() else { return self }
        shifts = changed.shifts
        absences = changed.absences
        return self
    }
}
