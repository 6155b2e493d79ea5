-- 0006_cheaper_payslip_checks.sql — keep the payslip checks that matter, at a price a month-end
-- run can pay.
--
-- Measured over 100,000 payslips of 3 earnings and 6 deduction lines: 0001's
-- payslip_lines_valid (object, code, amount, method with types, via jsonpath) cost ≈ 22 µs per
-- row and payslip_lines_total_won (Σ deduction amounts) ≈ 28 µs: together more than the insert
-- itself, at tens of thousands of payslips per second. Payslips are written only by payrun
-- workers, from Swift types whose lines always have a code, an amount and a method, and the rules
-- engine asserts that the deductions add up. What stays here is the legal one (근로기준법 시행령
-- §27의2: every line states its 계산방법): every line has a `method`, ≈ 2.7 µs per row.

ALTER TABLE payrun.payslips
    DROP CONSTRAINT payslips_lines_have_method,
    DROP CONSTRAINT payslips_deductions_add_up,
    ADD CONSTRAINT payslips_lines_have_method CHECK (
        jsonb_typeof(earnings) = 'array' AND jsonb_typeof(deductions) = 'array'
        AND NOT (earnings @? '$[*] ? (!exists(@.method))')
        AND NOT (deductions @? '$[*] ? (!exists(@.method))'));

DROP FUNCTION payrun.payslip_lines_valid(jsonb);
DROP FUNCTION payrun.payslip_lines_total_won(jsonb);
