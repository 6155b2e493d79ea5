-- Server time of COPYing ~100,000 realistic payslip rows (binary) into a jsonb-lined vs a json-lined
-- copy of payrun.payslips (same CHECKs and primary key, no foreign keys or triggers); RESULTS.md,
-- "json-lines". Run as a superuser (server-side COPY to/from files) against a bench store after a
-- month-end at 0014 or later (its payslips are the source rows), e.g.
--   psql "postgresql://postgres@localhost:<port>/payrun_bench_e10000?host=$PWD/.pg-bench" \
--        -v dir=/tmp/jl -f benchmarks/json-lines-copy.sql
-- `dir` (default /tmp/jl) must be writable by the server's user; ~170 MB per file.
\set ON_ERROR_STOP on
\if :{?dir}
\else
\set dir /tmp/jl
\endif
\set jsonfile :dir '/json.bin'
\set jsonbfile :dir '/jsonb.bin'
\pset pager off
DROP SCHEMA IF EXISTS jl CASCADE;
CREATE SCHEMA jl;
-- json-lined: payrun.payslips as of 0014.
CREATE TABLE jl.lines_json (LIKE payrun.payslips INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES);
-- jsonb-lined: as before 0014 (0006's CHECK).
CREATE TABLE jl.lines_jsonb (LIKE payrun.payslips INCLUDING DEFAULTS INCLUDING CONSTRAINTS INCLUDING INDEXES);
ALTER TABLE jl.lines_jsonb DROP CONSTRAINT payslips_lines_are_arrays,
    ALTER COLUMN earnings TYPE jsonb USING earnings::jsonb, ALTER COLUMN deductions TYPE jsonb USING deductions::jsonb,
    ADD CONSTRAINT payslips_lines_have_method CHECK (
        jsonb_typeof(earnings) = 'array' AND jsonb_typeof(deductions) = 'array'
        AND NOT (earnings @? '$[*] ? (!exists(@.method))') AND NOT (deductions @? '$[*] ? (!exists(@.method))'));
SELECT count(*) AS stored_payslips, count(*) FILTER (WHERE error IS NULL) AS ok,
       round(avg(octet_length(earnings::text) + octet_length(deductions::text))) AS avg_line_bytes
  FROM payrun.payslips;
-- The rows payrun wrote, 10 times over with shifted employee ids; the lines exactly as stored (payrun's text).
CREATE TEMP VIEW src AS
SELECT tenant_id, run_id, employee_id + g * 100000000 AS employee_id, run_version, rule_set, input_digest,
       worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes,
       holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes,
       gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won,
       convert_to(earnings::text, 'UTF8') AS e, convert_to(deductions::text, 'UTF8') AS d, warnings, error
  FROM payrun.payslips, generate_series(0, 9) AS g;
-- Binary COPY files as payrun sends them: json = the text; jsonb = byte 1, then the same text.
COPY (SELECT tenant_id, run_id, employee_id, run_version, rule_set, input_digest, worked_minutes, regular_minutes,
             overtime_minutes, part_time_excess_minutes, night_minutes, holiday_minutes, holiday_over8_minutes,
             weekly_allowance_minutes, paid_holiday_minutes, gross_won, non_taxable_won, taxable_won,
             total_deductions_won, net_won, e, d, warnings, error FROM src) TO :'jsonfile' (FORMAT binary);
COPY (SELECT tenant_id, run_id, employee_id, run_version, rule_set, input_digest, worked_minutes, regular_minutes,
             overtime_minutes, part_time_excess_minutes, night_minutes, holiday_minutes, holiday_over8_minutes,
             weekly_allowance_minutes, paid_holiday_minutes, gross_won, non_taxable_won, taxable_won,
             total_deductions_won, net_won, '\x01'::bytea || e, '\x01'::bytea || d, warnings, error FROM src)
  TO :'jsonbfile' (FORMAT binary);
\set cols 'tenant_id, run_id, employee_id, run_version, rule_set, input_digest, worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes, holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes, gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won, earnings, deductions, warnings, error'
CHECKPOINT;
\timing on
\echo round 1
COPY jl.lines_jsonb (:cols) FROM :'jsonbfile' (FORMAT binary);
COPY jl.lines_json (:cols) FROM :'jsonfile' (FORMAT binary);
\timing off
TRUNCATE jl.lines_jsonb, jl.lines_json; CHECKPOINT;
\timing on
\echo round 2
COPY jl.lines_json (:cols) FROM :'jsonfile' (FORMAT binary);
COPY jl.lines_jsonb (:cols) FROM :'jsonbfile' (FORMAT binary);
\timing off
TRUNCATE jl.lines_jsonb, jl.lines_json; CHECKPOINT;
\timing on
\echo round 3
COPY jl.lines_jsonb (:cols) FROM :'jsonbfile' (FORMAT binary);
COPY jl.lines_json (:cols) FROM :'jsonfile' (FORMAT binary);
\timing off
TRUNCATE jl.lines_jsonb, jl.lines_json; CHECKPOINT;
\timing on
\echo round 4
COPY jl.lines_json (:cols) FROM :'jsonfile' (FORMAT binary);
COPY jl.lines_jsonb (:cols) FROM :'jsonbfile' (FORMAT binary);
\timing off
SELECT 'jsonb' AS lines, count(*), pg_size_pretty(pg_total_relation_size('jl.lines_jsonb')) FROM jl.lines_jsonb
UNION ALL SELECT 'json', count(*), pg_size_pretty(pg_total_relation_size('jl.lines_json')) FROM jl.lines_json;
-- Same rows read back whole as text (what StoredPayslip does).
\timing on
SELECT sum(octet_length(earnings::text) + octet_length(deductions::text)) FROM jl.lines_jsonb;
SELECT sum(octet_length(earnings::text) + octet_length(deductions::text)) FROM jl.lines_json;
\timing off
DROP SCHEMA jl CASCADE;
