#!/usr/bin/env bash
# benchmarks/payslip-insert-cpu.sh — server CPU per payslip row of the month-end's direct COPY, split into
# what the bench floor's table pays, what the CHECKs add and what the insert triggers add.
#
#   URL=postgresql://…/payrun_bench_e10000 benchmarks/payslip-insert-cpu.sh [reps]
#
# On a store whose month-end has run (`payrun bench --employees 10000 --keep-cluster` leaves one in
# <repo>/.pg-bench), as a superuser (server-side files, pg_read_file of /proc). It exports the store's
# payslips as binary COPY files of ≤ 1,500 rows of one tenant (a packed chunk job writes up to
# 2,000), creates in a scratch schema
#   bare     LIKE payrun.payslips INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING COMPRESSION (the floor's table)
#   checks   LIKE payrun.payslips INCLUDING ALL (+ the CHECK constraints)
#   full     checks + payrun.payslips' AFTER INSERT triggers (same functions, pg_get_triggerdef)
# then, reps times, COPYs every file into each table in turn (BEGIN; COPY; ROLLBACK; VACUUM and one
# unmeasured warm-up COPY per table and rep, since VACUUM invalidates the triggers' cached plans),
# reading the backend's CPU time (/proc/self/schedstat, ns) just before and after each COPY.
# Interleaving the tables chunk by chunk keeps the load of a shared machine out of the differences.
# payrun.payslips itself is not written. The scratch schema and files are removed at the end.
set -euo pipefail
URL=${URL:?set URL to the store database}
reps=${1:-6}
schema=payslip_insert_cpu
dir=/tmp/payslip-insert-cpu.$$
cols="tenant_id, run_id, employee_id, run_version, rule_set, input_digest, worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes, holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes, gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won, earnings, deductions, warnings, error"
q() { psql "$URL" -qAt -v ON_ERROR_STOP=1 "$@"; }
mkdir -p "$dir"; chmod 777 "$dir"
trap 'rm -rf "$dir"; q -c "DROP SCHEMA IF EXISTS $schema CASCADE" >/dev/null 2>&1 || true' EXIT

rows=$(q -c "SELECT count(*) FROM payrun.payslips")
[[ "$rows" -gt 0 ]] || { echo "no payslips in this store: run a month-end first" >&2; exit 1; }
q -c "SELECT DISTINCT tenant_id || ' ' || (row_number() OVER (PARTITION BY tenant_id ORDER BY run_id, employee_id) - 1) / 1500 FROM payrun.payslips" |
while read -r t p; do
    q -c "COPY (SELECT $cols FROM (SELECT *, (row_number() OVER (ORDER BY run_id, employee_id) - 1) / 1500 AS part
                                    FROM payrun.payslips WHERE tenant_id = $t) s WHERE part = $p ORDER BY run_id, employee_id)
          TO '$dir/t$t-$p.bin' (FORMAT binary)"
done
q <<SQL
DROP SCHEMA IF EXISTS $schema CASCADE;
CREATE SCHEMA $schema;
CREATE TABLE $schema.bare (LIKE payrun.payslips INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING COMPRESSION);
CREATE TABLE $schema.checks (LIKE payrun.payslips INCLUDING ALL);
CREATE TABLE $schema.full (LIKE payrun.payslips INCLUDING ALL);
DO \$\$
DECLARE d text;
BEGIN
    FOR d IN SELECT pg_get_triggerdef(oid) FROM pg_trigger
              WHERE tgrelid = 'payrun.payslips'::regclass AND NOT tgisinternal AND tgtype & 4 <> 0 LOOP  -- INSERT
        EXECUTE replace(d, ' ON payrun.payslips ', ' ON $schema.full ');
    END LOOP;
END \$\$;
SQL
echo "insert triggers copied: $(q -c "SELECT string_agg(tgname, ', ' ORDER BY tgname) FROM pg_trigger WHERE tgrelid = '$schema.full'::regclass")" >&2

targets=($schema.bare $schema.checks $schema.full)
files=("$dir"/t*.bin)
script=$dir/run.sql
{ echo '\set ON_ERROR_STOP 1'
  for r in $(seq "$reps"); do
      for t in "${targets[@]}"; do
          echo "VACUUM $t;"
          echo "BEGIN; COPY $t ($cols) FROM '${files[0]}' (FORMAT binary); ROLLBACK;"
      done
      for f in "${files[@]}"; do
          for t in "${targets[@]}"; do
              echo "BEGIN; SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1) AS a \\gset"
              echo "COPY $t ($cols) FROM '$f' (FORMAT binary);"
              echo "SELECT split_part(pg_read_file('/proc/self/schedstat'), ' ', 1) AS b \\gset"
              echo "ROLLBACK;"
              echo "\\echo cpu $t :a :b"
          done
      done
  done; } > "$script"
echo "$(date -u +%FT%TZ), load $(cut -d' ' -f1-3 /proc/loadavg), $rows rows in ${#files[@]} chunks, $reps reps" >&2
q -f "$script" | python3 -c "
import sys
total = {}
for line in sys.stdin:
    if line.startswith('cpu '):
        _, table, a, b = line.split()
        total[table] = total.get(table, 0) + int(b) - int(a)
per_row = {t: ns / 1000 / ($rows * $reps) for t, ns in total.items()}
base = per_row['$schema.bare']
print('| table | server CPU µs per payslip row | over bare |')
print('|---|---:|---:|')
for t, us in per_row.items():
    print('| %s | %.2f | %+.2f |' % (t.split('.')[1], us, us - base))
"
