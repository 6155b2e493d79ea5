#!/usr/bin/env bash
# payslip-insert-faults.sh — minor page faults and CPU of one backend COPYing payslip rows into
# `payrun.payslips`-like tables, one BEGIN; COPY; ROLLBACK per statement, with and without the
# once-per-session `PayslipWriter.reserveCaptureMemorySQL` (session 10, helper server4).
#
#   URL='postgresql://postgres@localhost:<port>/payrun_bench_e100000?host=<repo>/.pg-bench' \
#       benchmarks/payslip-insert-faults.sh [ROWS] [STATEMENTS] [ROUNDS]
#
# As root or any user whose psql reaches the cluster as a superuser (COPY to and from a server
# file). Exports ROWS (default 1700, one chunk job's worth) payslips of the tenant with the most,
# creates `s4f.full` (LIKE payrun.payslips INCLUDING ALL, with the insert trigger and its transition
# table) and `s4f.bare` (the floor's table: no CHECKs, no trigger), and for ROUNDS (default 3) rounds
# runs STATEMENTS (default 15) COPYs per session in four sessions: full, full after the reservation,
# bare, bare after the reservation. Prints per variant the median minor faults
# (/proc/self/stat) and CPU ms (/proc/self/schedstat) of the backend per statement, the first three
# statements of each session left out (the session's one-time costs). Removes what it made.
set -euo pipefail
: "${URL:?set URL to the bench database}"
rows=${1:-1700}; statements=${2:-15}; rounds=${3:-3}
psql=(psql "$URL" -XAtq -v ON_ERROR_STOP=1)
columns="tenant_id, run_id, employee_id, run_version, rule_set, input_digest, worked_minutes, regular_minutes, overtime_minutes, part_time_excess_minutes, night_minutes, holiday_minutes, holiday_over8_minutes, weekly_allowance_minutes, paid_holiday_minutes, gross_won, non_taxable_won, taxable_won, total_deductions_won, net_won, earnings, deductions, warnings, error"
dir=$(mktemp -d /tmp/payslip-faults.XXXXXX); chmod 777 "$dir"; file="$dir/payslips.bin"
trap '"${psql[@]}" -c "DROP SCHEMA IF EXISTS s4f CASCADE" >/dev/null 2>&1 || true; rm -rf "$dir"' EXIT
tenant=$("${psql[@]}" -c "SELECT tenant_id FROM payrun.payslips GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
"${psql[@]}" -c "COPY (SELECT $columns FROM payrun.payslips WHERE tenant_id = $tenant ORDER BY run_id, employee_id LIMIT $rows) TO '$file' (FORMAT binary)"
"${psql[@]}" <<SQL
DROP SCHEMA IF EXISTS s4f CASCADE; CREATE SCHEMA s4f;
CREATE TABLE s4f.full (LIKE payrun.payslips INCLUDING ALL);
CREATE TRIGGER payslips_references_on_insert AFTER INSERT ON s4f.full REFERENCING NEW TABLE AS changed_new
    FOR EACH STATEMENT EXECUTE FUNCTION payrun.payslips_check_references();
CREATE TABLE s4f.bare (LIKE payrun.payslips INCLUDING DEFAULTS INCLUDING INDEXES INCLUDING COMPRESSION);
SQL
reserve=$(sed -n 's/.*static let reserveCaptureMemorySQL = "\(.*\)"$/\1/p' "$(dirname "$0")/../Sources/PayrollStore/Payroll/PayslipWriter.swift")
session() {  # table, setup statement (or empty)
    { [[ -n "$2" ]] && echo "$2;"
      for _ in $(seq "$statements"); do
        echo "SELECT 'S|' || split_part(pg_read_file('/proc/self/stat'), ' ', 10) || '|' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1);"
        echo "BEGIN; SET LOCAL payrun.tenant_id = '$tenant'; COPY s4f.$1 ($columns) FROM '$file' (FORMAT binary); ROLLBACK;"
        echo "SELECT 'S|' || split_part(pg_read_file('/proc/self/stat'), ' ', 10) || '|' || split_part(pg_read_file('/proc/self/schedstat'), ' ', 1);"
      done; } | "${psql[@]}" | grep '^S|' | python3 -c "
import sys
v = [list(map(int, l.strip().split('|')[1:])) for l in sys.stdin]
for a, b in list(zip(v[0::2], v[1::2]))[3:]: print('$1${2:+ reserved}', b[0] - a[0], (b[1] - a[1]) / 1e6)"
}
for _ in $(seq "$rounds"); do
    session full ""; session full "$reserve"; session bare ""; session bare "$reserve"
done | python3 -c "
import sys, statistics, collections
d = collections.defaultdict(list)
for l in sys.stdin:
    *name, faults, ms = l.split(); d[' '.join(name)].append((int(faults), float(ms)))
for name, v in d.items():
    print(f'{name:14s} statements {len(v):3d}  minor faults median {statistics.median(f for f, _ in v):7.0f}  CPU ms median {statistics.median(m for _, m in v):6.1f}  mean {statistics.mean(m for _, m in v):6.1f}')
"
echo "($rows rows of tenant $tenant per statement; reservation: $reserve)"
