#!/usr/bin/env bash
# benchmarks/payslip-insert-callgrind.sh — instructions per payslip row (and per statement) of the
# month-end's direct COPY into tables like payrun.payslips, counted by callgrind in a single-user
# backend: exact figures where CPU time on a shared machine is too noisy (payslip-insert-cpu.sh).
#
#   URL=postgresql://…/payrun_bench_e10000 benchmarks/payslip-insert-callgrind.sh [SETUP.sql TABLE…]
#
# On a store whose month-end has run (`payrun bench --employees 10000 --keep-cluster`), as root or the
# superuser owning nothing else (it starts a second private cluster with ops/pg). Steps: exports the
# store's payslips as binary COPY files of ≤ 1,700 rows of one tenant and 4 one-row files per
# tenant; makes a scratch cluster (PAYRUN_PG_DIR=$dir/pg) with the store's payrun schema and the
# data of its employees, workplaces and runs (pg_dump -n payrun without the large tables' data);
# creates `s3x.bare` (the floor's table: LIKE payrun.payslips INCLUDING DEFAULTS, INDEXES,
# COMPRESSION), `s3x.checks` (INCLUDING ALL) and `s3x.full` (checks + payslips' AFTER INSERT
# triggers), then runs SETUP.sql if given (more tables, e.g. trigger variants in schema s3x); stops
# the cluster and, per table, runs `postgres --single` under
# `valgrind --tool=callgrind --toggle-collect=CopyFrom` (triggers fire inside CopyFrom) with
# `BEGIN; COPY; ROLLBACK; VACUUM` per file. Per row = (2 passes − 1 pass) / rows (the first pass
# pays the session's one-time costs); per statement = (3 − 1 passes of the one-row files) / files.
# Without the VACUUM every pass would cost more than the last (the unique index's dead entries).
# Needs valgrind; takes ≈ 1–2 minutes per table. The scratch directory is removed at the end.
set -euo pipefail
URL=${URL:?set URL to the store database}
setup=${1:-}
shift || true
extra=("$@")
repo=$(cd "$(dirname "$0")/.." && pwd)
dir=/tmp/payslip-insert-callgrind.$$
cols="tenant_id, run_id, employee_id, run_version, rule_set, input_digest, worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes, holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes, gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won, earnings, deductions, warnings, error"
q() { psql "$URL" -qAt -v ON_ERROR_STOP=1 "$@"; }
export PAYRUN_PG_DIR=$dir/pg
mkdir -p "$dir/rows" "$dir/one"; chmod 755 "$dir"; chmod 777 "$dir/rows" "$dir/one"
trap '"$repo/ops/pg" remove >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT

rows=$(q -c "SELECT count(*) FROM payrun.payslips")
[[ "$rows" -gt 0 ]] || { echo "no payslips in this store: run a month-end first" >&2; exit 1; }
q -c "SELECT DISTINCT tenant_id || ' ' || (row_number() OVER (PARTITION BY tenant_id ORDER BY run_id, employee_id) - 1) / 1700 FROM payrun.payslips" |
while read -r t p; do
    q -c "COPY (SELECT $cols FROM (SELECT *, (row_number() OVER (ORDER BY run_id, employee_id) - 1) / 1700 AS part
                                    FROM payrun.payslips WHERE tenant_id = $t) s WHERE part = $p ORDER BY run_id, employee_id)
          TO '$dir/rows/t$t-$p.bin' (FORMAT binary)"
    if [[ "$p" == 0 ]]; then
        for k in 0 1 2 3; do
            q -c "COPY (SELECT $cols FROM payrun.payslips WHERE tenant_id = $t ORDER BY run_id, employee_id OFFSET $((k * 50)) LIMIT 1)
                  TO '$dir/one/t$t-$k.bin' (FORMAT binary)"
        done
    fi
done
ones=$(ls "$dir/one" | wc -l)

scratch=$("$repo/ops/pg" start)
scratch=${scratch/\/postgres\?/\/cg?}
psql "${scratch/\/cg\?/\/postgres?}" -qAt -c "CREATE DATABASE cg"
pg_dump "$URL" -n payrun --no-owner --no-privileges --exclude-table-data=payrun.shifts --exclude-table-data=payrun.contracts \
    --exclude-table-data=payrun.absences --exclude-table-data=payrun.payslips --exclude-table-data=payrun.jobs \
    --exclude-table-data=payrun.run_chunks | psql "$scratch" -q >/dev/null 2>"$dir/restore.log" || true
psql "$scratch" -q -v ON_ERROR_STOP=1 <<SQL
VACUUM ANALYZE payrun.employees;
VACUUM ANALYZE payrun.payroll_runs;
CREATE SCHEMA s3x;
CREATE TABLE s3x.bare (LIKE payrun.payslips INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING COMPRESSION);
CREATE TABLE s3x.checks (LIKE payrun.payslips INCLUDING ALL);
CREATE TABLE s3x.full (LIKE payrun.payslips INCLUDING ALL);
DO \$\$
DECLARE d text;
BEGIN
    FOR d IN SELECT pg_get_triggerdef(oid) FROM pg_trigger
              WHERE tgrelid = 'payrun.payslips'::regclass AND NOT tgisinternal AND tgtype & 4 <> 0 LOOP  -- INSERT
        EXECUTE replace(d, ' ON payrun.payslips ', ' ON s3x.full ');
    END LOOP;
END \$\$;
SQL
[[ -n "$setup" ]] && psql "$scratch" -q -v ON_ERROR_STOP=1 -f "$setup" >/dev/null
"$repo/ops/pg" stop >/dev/null 2>&1
data=$(grep -o '"-D" "[^"]*"' "$dir/pg/data/postmaster.opts" 2>/dev/null | cut -d'"' -f4 || true)
[[ -n "$data" ]] || data=$dir/pg/data

count() {  # count TABLE FILE-DIR PASSES -> instructions inside CopyFrom
    local script=$dir/run.sql out=$dir/cg.out
    { for _ in $(seq "$3"); do for f in "$2"/*.bin; do
        echo "BEGIN"; echo "COPY $1 ($cols) FROM '$f' (FORMAT binary)"; echo "ROLLBACK"; echo "VACUUM $1"
      done; done; } > "$script"
    chmod 644 "$script"; rm -f "$out"; touch "$out"; chmod 666 "$out"
    (cd / && runuser -u payrun-pg -- valgrind --tool=callgrind --callgrind-out-file="$out" --toggle-collect=CopyFrom \
        /usr/lib/postgresql/15/bin/postgres --single -D "$data" -c jit=off -c autovacuum=off cg < "$script" >/dev/null 2>&1)
    awk '/^(summary|totals):/ { print $2; exit }' "$out"
}
echo "$(date -u +%FT%TZ), $rows rows in $(ls "$dir/rows" | wc -l) files of ≤ 1,700, $ones one-row files" >&2
echo '| table | instructions per row | per one-row statement |'
echo '|---|---:|---:|'
for t in s3x.bare s3x.checks s3x.full "${extra[@]}"; do
    a=$(count "$t" "$dir/rows" 1); b=$(count "$t" "$dir/rows" 2)
    c=$(count "$t" "$dir/one" 1); d=$(count "$t" "$dir/one" 3)
    echo "| $t | $(( (b - a) / rows )) | $(( (d - c) / (2 * ones) )) |"
done
