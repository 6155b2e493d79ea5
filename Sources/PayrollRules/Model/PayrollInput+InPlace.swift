extension PayrollInput {
    /// `validated()` done in place: the same checks, and afterwards `self` is what `validated()`
    /// would have returned (an input already valid is left as it is; a changed one gets its two
    /// arrays replaced). On error `self` is unchanged. `validated()` on a borrowed input returns a
    /// copy, which retains and later releases each of the input's arrays and texts once more; the
    /// batch loader builds one input per employee and keeps only the validated one.
    public mutating func validateInPlace() throws(PayrollError) {
        guard let changed = try validationChanges() else { return }
        shifts = changed.shifts
        absences = changed.absences
    }
}
