-- 0014_payslip_lines_json.sql — payslip lines are stored as the exact JSON text payrun computed (`json`),
-- not as `jsonb`.
--
-- The month-end writes one payslip row per employee by binary COPY. jsonb input of `earnings` and
-- `deductions` (every number parsed into `numeric`, keys sorted, the binary tree built) cost the
-- server ≈ 38 µs per row, the largest single server cost of the month-end; `json` input only
-- validates the text (≈ 6 µs). The lines are written once and always read whole (임금명세서,
-- `payrun payslip`, the API), never searched by key, so jsonb's indexable structure buys nothing,
-- and a legal document is better stored as exactly the text that was computed. `warnings` and
-- `error` stay jsonb (small, mostly `[]`/NULL).
--
-- `json` has no equality operator: nothing may compare these columns (=, IS DISTINCT FROM,
-- DISTINCT, GROUP BY, UNION, EXCEPT, row comparisons). Compare `::text` if ever needed.
--
-- The CHECK of 0006 used jsonb_typeof and jsonpath (`@?`), which need jsonb: it becomes "both are
-- arrays" (json_typeof reads only the first token). "Every line has a non-empty `method`"
-- (근로기준법 시행령 §27의2: every line states its 계산방법) is asserted by the rules engine
-- (`Payslip.checkInvariants`) before a payslip leaves it, and tested over stored payslips.
--
-- ALTER COLUMN … TYPE rewrites both tables (payslips under ACCESS EXCLUSIVE, with its indexes;
-- ≈ 50 µs per payslip: 0.5 s for 9,901 payslips, so about a minute per million): existing
-- payslips keep their content, as jsonb's normalized text. Nothing else in the schema (views,
-- functions, triggers, indexes, policies) uses these two columns.

ALTER TABLE payrun.payslips DROP CONSTRAINT payslips_lines_have_method;

-- One ALTER TABLE per table, so each is rewritten (and its CHECK validated) once. ALTER COLUMN …
-- TYPE resets a column's compression method (SET COMPRESSION) to the default: a method set on
-- these columns before (0013, or an operator) is set again in the same statement, so the
-- rewritten rows are compressed with it.
DO $$
DECLARE
    t text;
    extra text;
BEGIN
    FOREACH t IN ARRAY ARRAY['payslips', 'payslip_staging'] LOOP
        SELECT coalesce(string_agg(format(', ALTER COLUMN %I SET COMPRESSION %s', attname,
                                          CASE attcompression WHEN 'l' THEN 'lz4' ELSE 'pglz' END), ''), '')
          INTO extra
          FROM pg_attribute
         WHERE attrelid = format('payrun.%I', t)::regclass AND attname IN ('earnings', 'deductions')
           AND attcompression IN ('l', 'p');
        IF t = 'payslips' THEN
            extra := extra || ', ADD CONSTRAINT payslips_lines_are_arrays CHECK ('
                           || 'json_typeof(earnings) = ''array'' AND json_typeof(deductions) = ''array'')';
        END IF;
        EXECUTE format('ALTER TABLE payrun.%I ALTER COLUMN earnings TYPE json USING earnings::json, '
                       'ALTER COLUMN deductions TYPE json USING deductions::json', t) || extra;
    END LOOP;
END $$;

COMMENT ON COLUMN payrun.payslips.earnings IS
    'json (0014): [{code, minutes, rate, multiplier, amount, method}] exactly as computed; no equality operator';
COMMENT ON COLUMN payrun.payslips.deductions IS
    'json (0014): [{code, base, amount, method}] exactly as computed; no equality operator';
