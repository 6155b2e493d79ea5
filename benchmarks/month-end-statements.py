#!/usr/bin/env python3
"""Month-ends alternated between payrun builds, as `month-end-ab.py`, with each run's statements:
pg_stat_statements is reset before each run and read after it, and its exec + plan ms summed by
statement kind (claim, completion, planning, maintenance, ...; see KINDS); the planning phase is
read from `payrun.jobs` (last plan job's end and first chunk job's start after the first job's
start, the plan jobs' durations summed).

Usage (from the repository root, on a store `payrun bench --employees N --keep-cluster` left, whose
server loads pg_stat_statements: `shared_preload_libraries = 'pg_stat_statements'`, then
`CREATE EXTENSION pg_stat_statements` in the bench database, `pg_stat_statements.track = 'all'`,
`pg_stat_statements.track_planning = on`):

    URL="postgresql://postgres@localhost:$(cat .pg-bench/port)/payrun_bench_e100000?host=$PWD/.pg-bench"
    python3 benchmarks/month-end-statements.py .pg-bench/data "$URL" 4 /tmp/payrun-before .build/release/payrun

Prints one line per run and, per build, the means; writes every run to /tmp/month-end-statements.json.
pg_stat_statements' own overhead inflates short and nested statements: compare kinds between builds,
not with the CPU-seconds. Standard library, Linux /proc and `psql`.
"""
import importlib.util, os, sys, json, collections
spec = importlib.util.spec_from_file_location('mab', os.path.join(os.path.dirname(os.path.abspath(__file__)), 'month-end-ab.py'))
mab = importlib.util.module_from_spec(spec); spec.loader.exec_module(mab)
pgdata, url, pairs, builds = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4:]

KINDS = [('copy_in_payslips', r"^COPY payrun\.payslips"), ('plan_employee_ids', r"SELECT workplace_id, id FROM payrun\.employees"),
         ('copy_out', r"^COPY \("),
         ('trigger_payslips', r"inserted\.|pg_advisory_xact_lock_shared"),
         ('complete_chunks', r"^WITH parts AS"), ('count_finalize', r"^WITH s AS|^WITH finish AS"),
         ('claim_calls', r"payrun\.claim_jobs"),  # 0024: the calls; their time includes the claim's own statement (next)
         ('claim', r"^WITH RECURSIVE tenant_keys|^WITH locked AS"), ('ri_checks', r'FROM ONLY "payrun"'),
         ('plan_statements', r"run_chunks \(tenant_id|^UPDATE payrun\.payroll_runs r SET status = \$5|^WITH queued|^INSERT INTO payrun\.jobs|^DELETE FROM payrun\.run_chunks|FOR UPDATE$"),
         ('schedule', r"^INSERT INTO payrun\.payroll_runs|^SELECT workplace_id, id FROM payrun\.payroll_runs|pay_day_of_month"),
         ('job_complete', r"^UPDATE payrun\.jobs j SET state = \$3"),
         ('lease_check', r"^SELECT state, lease_token"),
         ('tenant_scope', r"set_config|^SET LOCAL|^BEGIN|^COMMIT"),
         ('maintenance', r"^WITH expired AS|^SELECT \(SELECT count\(\*\) FROM payrun\.jobs|heartbeat_at = clock_timestamp\(\) FROM unnest"),
         ]
import re
IGNORE = re.compile(r"^(TRUNCATE|VACUUM|CHECKPOINT|SELECT pg_stat_statements_reset|UPDATE payrun\.workplaces|CREATE|DROP|SELECT count\(\*\) FILTER|SELECT calls|SELECT min\(started_at\))")

def stats():
    out = mab.psql(url, "SELECT calls, total_exec_time, total_plan_time, regexp_replace(query, '\\s+', ' ', 'g') FROM pg_stat_statements "
                        "WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())")
    agg = collections.defaultdict(lambda: [0, 0.0, 0.0])
    for line in out.splitlines():
        calls, ex, pl, q = line.split('|', 3)
        if IGNORE.search(q): continue
        if q.startswith('COPY (') and '$' not in q: continue  # a COPY's utility entry: its inner query has the time too
        kind = next((k for k, p in KINDS if re.search(p, q)), 'other')
        a = agg[kind]; a[0] += int(calls); a[1] += float(ex); a[2] += float(pl)
    return agg

results = {b: [] for b in builds}
mab.hold_own_scheduling(url)  # as month-end-ab.py: the worker schedules nothing by itself
mab.set_autovacuum(url, False)  # as month-end-ab.py: no autovacuum worker in a run
try:
    for pair in range(pairs):
        for b in (builds if pair % 2 == 0 else list(reversed(builds))):
            mab.psql(url, 'SELECT pg_stat_statements_reset()')
            wall, server, worker = mab.month_end(pgdata, url, b)[:3]
            agg = stats()
            tl = mab.psql(url, "SELECT extract(epoch from max(finished_at) FILTER (WHERE kind='run.plan') - min(started_at)), "
                               "extract(epoch from min(started_at) FILTER (WHERE kind='run.chunk') - min(started_at)), "
                               "sum(extract(epoch from finished_at-started_at)) FILTER (WHERE kind='run.plan') FROM payrun.jobs").strip().split('|')
            results[b].append(dict(wall=wall, server=server, worker=worker, agg=dict(agg), plan_end=float(tl[0]), first_chunk=float(tl[1]), plan_thread_s=float(tl[2])))
            print(f'{b}: wall {wall:5.2f} server {server:5.2f} worker {worker:5.2f} planEnd {float(tl[0]):.3f} firstChunk {float(tl[1]):.3f} planThread {float(tl[2]):.3f} load {os.getloadavg()[0]:.1f}', flush=True)
finally:
    mab.set_autovacuum(url, True)
    mab.restore_own_scheduling(url)
json.dump(results, open('/tmp/month-end-statements.json', 'w'), indent=1)
for b, runs in results.items():
    n = len(runs)
    print(f'== {b}: n={n} wall {sum(r["wall"] for r in runs)/n:.2f} server {sum(r["server"] for r in runs)/n:.2f} worker {sum(r["worker"] for r in runs)/n:.2f} '
          f'planEnd {sum(r["plan_end"] for r in runs)/n:.3f} firstChunk {sum(r["first_chunk"] for r in runs)/n:.3f} planThread {sum(r["plan_thread_s"] for r in runs)/n:.3f}')
    kinds = sorted({k for r in runs for k in r['agg']})
    for k in kinds:
        c = sum(r['agg'].get(k, [0, 0, 0])[0] for r in runs) / n
        e = sum(r['agg'].get(k, [0, 0, 0])[1] for r in runs) / n
        p = sum(r['agg'].get(k, [0, 0, 0])[2] for r in runs) / n
        print(f'   {k:20s} calls {c:7.1f}  exec {e:8.1f} ms  plan {p:6.1f} ms  sum {e+p:8.1f}')
