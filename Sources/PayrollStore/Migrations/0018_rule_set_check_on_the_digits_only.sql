-- 0018_rule_set_check_on_the_digits_only.sql — the payslip rule_set CHECK with less per-character work.
--
-- Why. 0017's `translate(rule_set, '0123456789', '0000000000') = 'kr-0000.00'` was still the most
-- expensive CHECK of payrun.payslips (≈ 0.15 server CPU-s of a 100,000-employee month-end, ≈ 1.0–1.5 µs
-- per row). perf of an INSERT of 1,000,000 `kr-YYYY.MM` values into a one-column table with that
-- CHECK: `translate` 12 %, `pg_utf_mblen` 11 %, `pg_mblen_range` 10 %, `memcmp` 6 % of the statement.
-- translate walks the ten-character `from` string for every character of the value (with a
-- character-length call and a memcmp per step) and then the `to` string up to the match: for
-- 'kr-2026.10' about 130 such calls, 80 of them for the four characters that are not digits, each
-- of which is compared with all ten digits.
--
-- What changes. `rule_set LIKE 'kr-____.__'` checks the fixed characters and the length in one
-- byte-wise pass (no per-character calls, no allocation), and translate then sees only the seven
-- characters after `kr-`, with '.' first in `from` and the digits deleted (an empty `to` position
-- ends the walk of `to` at once): about 50 calls. Measured on 1,000,000 values (INSERT … SELECT,
-- backend CPU from /proc/self/schedstat, 6 alternated runs, median, load 3.5–8.4): no CHECK 0.74–0.84
-- µs per row, 0017's 1.81 (+1.07), this one 1.51–1.52 (+0.70 to +0.78); 0001's regex 2.44 (+1.70).
-- On the 9,901 payslip rows of a 10,000-employee store (benchmarks/payslip-insert-cpu.sh with a
-- fourth table carrying this check; 4 and 8 reps, load 13): all payslip CHECKs together 2.76 → 2.35
-- and 2.54 → 2.17 µs per row, ≈ −0.04 server CPU-s per 100,000-employee month-end.
--
-- The same set of strings as 0001's `rule_set ~ '^kr-[0-9]{4}\.[0-9]{2}$'` (and 0017's check):
-- * LIKE 'kr-____.__' (no escape character in the pattern; `_` is exactly one character, also a
--   multibyte one; case-sensitive; the column's collation is deterministic) holds exactly for the
--   ten-character strings `kr-`, four characters, `.`, two characters.
-- * right(rule_set, -3) is the last seven of them. translate(…, '.0123456789', '.') keeps '.',
--   deletes the ten ASCII digits and keeps every other character, so it is '.' exactly when the six
--   characters around that '.' are ASCII digits (any other character, a second '.' included, would
--   remain). Fullwidth or Arabic-Indic digits stay, as [0-9] does not match them either.
-- * NULL stays allowed: LIKE, right and translate are strict, so NULL AND NULL is NULL, and a CHECK
--   passes on NULL, as `NULL ~ …` did. A non-NULL value never gives NULL.
-- Same constraint name (payslips_rule_set_check). Re-adding it checks every existing payslip once
-- (≈ 0.7 µs each plus reading the table), under ALTER TABLE's ACCESS EXCLUSIVE lock.
ALTER TABLE payrun.payslips
    DROP CONSTRAINT payslips_rule_set_check,
    ADD CONSTRAINT payslips_rule_set_check
        CHECK (rule_set LIKE 'kr-____.__' AND translate(right(rule_set, -3), '.0123456789', '.') = '.');
