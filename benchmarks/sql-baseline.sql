-- sql-baseline.sql — the peer of `payrun bench`: a month-end payroll the way a backend team would
-- write it inside PostgreSQL, as ONE set-based INSERT … SELECT over the payrun schema, for every
-- tenant and workplace at once. `payrun bench` runs this file (through PostgresConnection) on the
-- same data right after payrun's own run and reports payrun's wall time as a ratio to it.
--
-- Period: the month starting at the setting payrun_bench.period_start (default 2026-10-01):
--     SET payrun_bench.period_start = '2026-10-01';   -- then run this file, e.g. psql -f
-- Run it as a superuser or a BYPASSRLS role (payrun's tables FORCE row-level security).
-- Result: payrun_bench.sql_baseline_result, one row per employee (dropped and re-created here).
--
-- What it computes, per employee employed during the period (hired on or before its last day, not
-- left before its first) with a contract in force on the reference date (the period's last day,
-- or the leaving day) — the same employees and contract choice as payrun:
--   * worked minutes: each shift [starts_at, ends_at) minus its breaks, clipped to the period's
--     Korea-time days [first day 00:00, day after the last 00:00) — so a shift crossing midnight
--     into or out of the month counts only its minutes inside it, as in payrun. Breaks: explicit
--     `breaks` windows win; else break_minutes, else the contract's default_break_minutes, as one
--     window centred on the shift's midpoint (start = ⌊midpoint⌋ − ⌊b/2⌋), as in payrun;
--   * night minutes: the worked pieces intersected with the 22:00–06:00 Korea-time windows,
--     by range arithmetic (greatest/least over the three windows a ≤ 24 h shift can touch);
--   * base pay: hourly wage × worked minutes / 60; daily wage × days with a shift starting in the
--     period; monthly wage as is; each rounded up to the 원;
--   * night premium (workplaces of five or more, unless the contract says night_allowance =
--     'never'; always when it says 'always'): 50 % of the hourly rate × night minutes, rounded up;
--     hourly rate = the hourly wage, the daily wage / 8, or the monthly wage / 209;
--   * gross = base pay + night premium;
--   * the four insurance deductions on gross, 2026 rates (kr-payroll-rules.md §2.1), each
--     truncated to 10 원: national pension 4.75 %, health 3.595 %, long-term care = health ×
--     9448/71900 (the exact Oct-2026 ratio), employment 0.9 %; skipped when the contract's
--     insures_* flag is off.
--
-- What it LEAVES OUT compared with payrun's rules (so its figures differ from payrun's payslips
-- wherever these apply; worked and night minutes agree):
--   * overtime premiums (daily 8 h / weekly 40 h, 5인 이상 1.5×), part-time excess, holiday work
--     premiums (1.5× / 2× over 8 h) and the holiday calendar altogether;
--   * 주휴수당 (weekly paid holiday) and paid public holidays; absences;
--   * monthly and daily wages: no proration for mid-month hires and leavers, no schedule-based
--     통상시급 (fixed 209 h and 8 h divisors instead); no minimum-wage check;
--   * non-taxable items (meals, car, childcare) and the split of gross into taxable/non-taxable;
--   * 국민연금 기준소득월액: no 1,000-원 truncation of the base and no band (410,000–6,590,000);
--     건강보험: no monthly floor/cap; declared insurance bases; age and 60-hour coverage rules;
--     the 2026-11 change of the long-term-care ratio;
--   * income tax (간이세액표, 3.3 %, daily withholding) and local income tax, hence no net pay;
--   * rounding details beyond "round pay up, deductions down to 10 원" (payrun rounds per line);
--   * validation: overlapping shifts, breaks outside shifts, missing or double contracts are not
--     reported (an employee without a contract in force is simply absent from the result);
--   * the per-line 계산방법 text, warnings, input digests, run bookkeeping, and any transaction
--     or job machinery: it is one statement.

CREATE SCHEMA IF NOT EXISTS payrun_bench;
DROP TABLE IF EXISTS payrun_bench.sql_baseline_result;
CREATE TABLE payrun_bench.sql_baseline_result (
    tenant_id             bigint NOT NULL,
    employee_id           bigint NOT NULL,
    worked_minutes        bigint NOT NULL,
    night_minutes         bigint NOT NULL,
    base_won              bigint NOT NULL,
    night_premium_won     bigint NOT NULL,
    gross_won             bigint NOT NULL,
    national_pension_won  bigint NOT NULL,
    health_won            bigint NOT NULL,
    long_term_care_won    bigint NOT NULL,
    employment_won        bigint NOT NULL,
    total_deductions_won  bigint NOT NULL,
    PRIMARY KEY (tenant_id, employee_id)
);

INSERT INTO payrun_bench.sql_baseline_result
WITH period AS (
    SELECT p0::date AS first_day,
           (p0 + interval '1 month' - interval '1 day')::date AS last_day,
           (p0::timestamp AT TIME ZONE 'Asia/Seoul') AS starts,
           ((p0 + interval '1 month')::timestamp AT TIME ZONE 'Asia/Seoul') AS ends
      FROM (SELECT coalesce(nullif(current_setting('payrun_bench.period_start', true), ''), '2026-10-01')::date AS p0) s
),
staff AS (   -- employees of the period with the contract in force on the reference date
    SELECT e.tenant_id, e.id AS employee_id, w.size_class, k.wage_type, k.wage_won, k.default_break_minutes,
           k.night_allowance, k.insures_national_pension, k.insures_health, k.insures_employment
      FROM period p
      JOIN payrun.employees e ON (e.hired_on IS NULL OR e.hired_on <= p.last_day)
                             AND (e.left_on IS NULL OR e.left_on >= p.first_day)
      JOIN payrun.workplaces w ON w.tenant_id = e.tenant_id AND w.id = e.workplace_id
      JOIN payrun.contracts k ON k.tenant_id = e.tenant_id AND k.employee_id = e.id
                             AND k.validity @> least(p.last_day, coalesce(e.left_on, p.last_day))
),
pieces AS (  -- worked pieces of every shift that can reach into the period, clipped to it
    SELECT x.tenant_id, x.employee_id,
           (x.starts_at >= p.starts) AS starts_inside,
           (x.starts_at AT TIME ZONE 'Asia/Seoul')::date AS start_day,
           date_bin('1 day', x.starts_at, p.starts) AS day0,   -- Korea midnight of the start day
           greatest(piece.lo, p.starts) AS lo, least(piece.hi, p.ends) AS hi
      FROM period p
      JOIN payrun.shifts x ON x.starts_at >= p.starts - interval '1 day' AND x.starts_at < p.ends
      JOIN staff s ON s.tenant_id = x.tenant_id AND s.employee_id = x.employee_id
      CROSS JOIN LATERAL (
          SELECT date_bin('1 minute', x.starts_at + (x.ends_at - x.starts_at) / 2, x.starts_at)
                 - make_interval(mins => coalesce(x.break_minutes, s.default_break_minutes, 0) / 2) AS break_start,
                 make_interval(mins => coalesce(x.break_minutes, s.default_break_minutes, 0)) AS break_length
      ) b
      CROSS JOIN LATERAL (
          SELECT lower(r) AS lo, upper(r) AS hi
            FROM unnest(tstzmultirange(tstzrange(x.starts_at, x.ends_at)) - x.breaks) r
           WHERE x.breaks IS NOT NULL
          UNION ALL
          SELECT v.lo, v.hi
            FROM (VALUES (x.starts_at, b.break_start), (b.break_start + b.break_length, x.ends_at)) v (lo, hi)
           WHERE x.breaks IS NULL
      ) piece
),
minutes AS (
    SELECT tenant_id, employee_id,
           (extract(epoch FROM sum(greatest(hi - lo, interval '0'))) / 60)::bigint AS worked_minutes,
           (extract(epoch FROM sum(
                greatest(least(hi, day0 + interval '6 hours')  - greatest(lo, day0 - interval '2 hours'),  interval '0')
              + greatest(least(hi, day0 + interval '30 hours') - greatest(lo, day0 + interval '22 hours'), interval '0')
              + greatest(least(hi, day0 + interval '54 hours') - greatest(lo, day0 + interval '46 hours'), interval '0')
            )) / 60)::bigint AS night_minutes,
           count(DISTINCT start_day) FILTER (WHERE starts_inside) AS days_worked
      FROM pieces
     GROUP BY tenant_id, employee_id
),
pay AS (
    SELECT s.*, coalesce(m.worked_minutes, 0) AS worked_minutes, coalesce(m.night_minutes, 0) AS night_minutes,
           CASE s.wage_type
                WHEN 'hourly' THEN (coalesce(m.worked_minutes, 0) * s.wage_won + 59) / 60
                WHEN 'daily'  THEN coalesce(m.days_worked, 0) * s.wage_won
                ELSE s.wage_won END AS base_won,
           CASE WHEN s.night_allowance = 'never'
                  OR (s.night_allowance = 'statutory' AND s.size_class <> 'five_or_more') THEN 0
                ELSE (coalesce(m.night_minutes, 0) * s.wage_won
                      + CASE s.wage_type WHEN 'hourly' THEN 120 WHEN 'daily' THEN 960 ELSE 25080 END - 1)
                     / CASE s.wage_type WHEN 'hourly' THEN 120 WHEN 'daily' THEN 960 ELSE 25080 END
           END AS night_premium_won
      FROM staff s
      LEFT JOIN minutes m ON m.tenant_id = s.tenant_id AND m.employee_id = s.employee_id
),
gross AS (
    SELECT *, base_won + night_premium_won AS gross_won FROM pay
),
insured AS (
    SELECT g.*,
           CASE WHEN insures_national_pension THEN gross_won * 475 / 100000 * 10 ELSE 0 END AS national_pension_won,
           CASE WHEN insures_health THEN gross_won * 3595 / 1000000 * 10 ELSE 0 END AS health_won,
           CASE WHEN insures_employment THEN gross_won * 9 / 10000 * 10 ELSE 0 END AS employment_won
      FROM gross g
)
SELECT tenant_id, employee_id, worked_minutes, night_minutes, base_won, night_premium_won, gross_won,
       national_pension_won, health_won, health_won * 9448 / 719000 * 10 AS long_term_care_won, employment_won,
       national_pension_won + health_won + health_won * 9448 / 719000 * 10 + employment_won AS total_deductions_won
  FROM insured;
