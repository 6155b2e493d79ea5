#!/usr/bin/env python3
"""The month-end alone, repeated and alternated between payrun builds: CPU-seconds of the server
and of the worker, without the floor, the SQL baseline and the compute-scaling steps of `payrun bench`.

Usage (from the repository root, on a store an earlier `payrun bench --employees N --keep-cluster` left):

    URL="postgresql://postgres@localhost:$(cat .pg-bench/port)/payrun_bench_e100000?host=$PWD/.pg-bench"
    python3 benchmarks/month-end-ab.py .pg-bench/data "$URL" --pairs 6 /tmp/payrun-before .build/release/payrun

Several stores (database URLs, told from builds by their `://`) alternate too, to compare store
sizes in the same minutes instead of minutes or hours apart, e.g. linear growth from 100k to 1M:

    python3 benchmarks/month-end-ab.py .pg-bench/data "$URL100K" "$URL1M" --warm --pairs 4 .build/release/payrun

Every (store, build) runs once per pair, the order reversed every other pair; each run also prints
employees/s (the payslips it wrote over its wall), and at the end, per build and store after the
first, the pairs' employees/s over the first store's in the same pair, and their median.
`--server-stats` prints per run what the server wrote over its span (pg_stat_wal, pg_stat_bgwriter):
WAL bytes and full-page images, buffers written by backends, the background writer and checkpoints,
buffers allocated, checkpoints started.

A build given as `PATH@ROLE` runs its worker as ROLE: `options=-c role=ROLE` is added to the
worker's URL (as `payrun bench --worker-role ROLE`), e.g. `.build/release/payrun@payrun_worker` for
production's role, under row-level security; the schedule step keeps the URL's role.

For each pair and each build in turn (the order alternates between pairs): TRUNCATE what a
month-end writes (as `payrun bench` does before its month-end), wait until no autovacuum worker
runs, VACUUM ANALYZE, CHECKPOINT; start
`<build> worker --threads 2` (PAYRUN_CHUNK_EMPLOYEES_MAX=2000, as the bench); after 1 s, `<build>
schedule month-end --period 2026-10` and wait (one psql session asking every 20 ms whether a job is
left in the queue, then reading the runs once) until every run is calculated. Printed per run: wall, CPU-seconds of the cluster (postmaster, its children and
reaped children) and of the worker process over that span, and the whole machine's idle (+ iowait)
and steal core-seconds over it (/proc/stat: on a quiet machine, the idle is what the month-end
left of the cores); at the end the mean per build.

With `--warm` each build's worker is started once and kept for all its runs (stopped with SIGSTOP
while the other builds run, continued with SIGCONT for its own), after one untimed warm-up
month-end: the month-ends of a running worker, as `payrun bench` measures them since session 19.
Without it every run starts a new worker, whose sessions are new. With `--new-and-kept` each
build runs both ways in every pair (its kept worker stopped while a new one runs): what a running
worker's sessions save, measured in the same minutes.

Autovacuum is off on the tables a month-end writes while the script runs (set back at the end), as
`payrun bench` has it for its measurements (since session 21; before, a worker could vacuum
`payslips` in the middle of a run).

The worker's own periodic month-end task (at its start, then every minute) would schedule the
seeded month by itself once its `month_end_day` is due, and the run would then start before the
clock: the script sets every `month_end_day` to NULL for the runs (the task skips such
workplaces, whatever the date) and restores the values at the end. Each run also checks, just
before the clock starts, that the store holds no run and no job: a month-end some worker began by
itself stops the script instead of being timed short. (Until session 25 the script set the day to
28, which held the task off only until 28 November 2026 in Korea: see benchmarks/RESULTS.md,
session 25.)
Standard library, Linux /proc and `psql`.
"""
import os
import signal
import subprocess
import sys
import time

HZ = os.sysconf('SC_CLK_TCK')


def stat(pid):
    with open(f'/proc/{pid}/stat') as f:
        s = f.read()
    f = s[s.rindex(')') + 2:].split()
    return int(f[1]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14])


def cluster_cpu(pgdata):
    with open(os.path.join(pgdata, 'postmaster.pid')) as f:
        postmaster = int(f.readline())
    _, own, reaped = stat(postmaster)
    total = own + reaped
    for pid in os.listdir('/proc'):
        if not pid.isdigit():
            continue
        try:
            ppid, t, _ = stat(pid)
            if ppid == postmaster:
                total += t
        except Exception:
            pass
    return total / HZ


def machine_times():
    """(idle + iowait, steal) core-seconds of the whole machine so far (/proc/stat)."""
    with open('/proc/stat') as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    return (fields[3] + fields[4]) / HZ, (fields[7] if len(fields) > 7 else 0) / HZ


def psql(url, sql):
    return subprocess.run(['psql', url, '-XAtq', '-c', sql], capture_output=True, text=True, check=True).stdout


def with_role(url, role):
    """`url` with `-c role=ROLE` in its libpq options (a plain role name, as the bench's)."""
    setting = f'-c%20role%3D{role}'
    if '?' not in url:
        return f'{url}?options={setting}'
    base, query = url.split('?', 1)
    parameters = query.split('&')
    for k, p in enumerate(parameters):
        if p.startswith('options='):
            parameters[k] = p + '%20' + setting
            break
    else:
        parameters.append('options=' + setting)
    return base + '?' + '&'.join(parameters)


# --warm: the running worker of each build (spec as given) on each store (URL), kept between its runs.
WARM_WORKERS = {}

# --server-stats: what the server wrote, from its cumulative statistics.
SERVER_STATS_SQL = ('SELECT w.wal_bytes, w.wal_fpi, b.buffers_backend, b.buffers_clean, b.buffers_checkpoint, '
                    'b.buffers_alloc, b.checkpoints_req + b.checkpoints_timed FROM pg_stat_wal w, pg_stat_bgwriter b')


def server_stats(url):
    return [int(x) for x in psql(url, SERVER_STATS_SQL).strip().split('|')]


def start_worker(build, worker_url):
    env = dict(os.environ, PAYRUN_CHUNK_EMPLOYEES_MAX='2000')
    return subprocess.Popen([build, 'worker', '--database-url', worker_url, '--threads', '2', '--log-level', 'error',
                             '--poll-seconds', '1'], env=env)


# The tables a month-end writes: autovacuum is off on them while the script runs, as `payrun bench`
# does for its measurements (BenchHousekeeping): emptied before each run, they cross autovacuum's
# thresholds within its first seconds, and a worker vacuuming `payslips` in the middle of a run
# (seen in session 21: a 1M month-end took 91 s against 38–47 s) measures the housekeeping.
WRITTEN_TABLES = ['payrun.jobs', 'payrun.payroll_runs', 'payrun.run_chunks', 'payrun.payslips',
                  'payrun.pending_corrections']


def set_autovacuum(url, enabled):
    for table in WRITTEN_TABLES:
        psql(url, f'ALTER TABLE {table} RESET (autovacuum_enabled, toast.autovacuum_enabled)' if enabled else
                  f'ALTER TABLE {table} SET (autovacuum_enabled = false, toast.autovacuum_enabled = false)')


def wait_for_autovacuum_workers(url, seconds=60):
    """Until no autovacuum worker runs on the server (in any database), or `seconds` have passed."""
    deadline = time.time() + seconds
    while time.time() < deadline and int(psql(
            url, "SELECT count(*) FROM pg_stat_activity WHERE backend_type = 'autovacuum worker'").strip()) > 0:
        time.sleep(0.2)


def hold_own_scheduling(url):
    """Keeps the workers' periodic month-end task from scheduling anything while the script runs:
    every workplace's `month_end_day` saved, then set to NULL (`MonthEndScheduler` reads only
    workplaces with a day). A table left by an interrupted run keeps the values saved first."""
    psql(url, 'CREATE SCHEMA IF NOT EXISTS payrun_bench; '
              'CREATE TABLE IF NOT EXISTS payrun_bench.month_end_day_saved AS '
              'SELECT tenant_id, id, month_end_day FROM payrun.workplaces')
    psql(url, 'UPDATE payrun.workplaces SET month_end_day = NULL WHERE month_end_day IS NOT NULL')


def restore_own_scheduling(url):
    psql(url, 'UPDATE payrun.workplaces w SET month_end_day = s.month_end_day FROM payrun_bench.month_end_day_saved s '
              'WHERE s.tenant_id = w.tenant_id AND s.id = w.id; DROP TABLE payrun_bench.month_end_day_saved')


def nothing_scheduled_yet(url, build):
    """Stops the script if the store holds a run or a job before the script schedules the month:
    a month-end some worker began by itself would be timed from a later point and read short."""
    runs, jobs = (int(x) for x in psql(url, 'SELECT (SELECT count(*) FROM payrun.payroll_runs), '
                                            '(SELECT count(*) FROM payrun.jobs)').strip().split('|'))
    if runs or jobs:
        sys.exit(f'{build}: {runs} run(s) and {jobs} job(s) exist before the month-end was scheduled: a worker '
                 f'scheduled work by itself, and the run would be timed short. Is a workplace\'s month_end_day '
                 f'set again, or another worker running on this store?')


def month_end(pgdata, url, spec, warm=False, stats=False):
    path, at, role = spec.rpartition('@')
    if at and '/' not in role:
        build = path
    else:
        build, role = spec, ''
    worker_url = with_role(url, role) if role else url
    psql(url, 'TRUNCATE payrun.payslips, payrun.payslip_staging, payrun.run_chunks, payrun.pending_corrections, '
              'payrun.payroll_runs, payrun.jobs CASCADE')
    wait_for_autovacuum_workers(url)
    psql(url, 'VACUUM ANALYZE')
    psql(url, 'CHECKPOINT')
    # Only this run's worker may claim: every other kept worker is stopped (for a run on a new
    # worker, the same build's kept one too).
    for other, kept in WARM_WORKERS.items():
        if (other != (spec, url) or not warm) and kept.poll() is None:
            kept.send_signal(signal.SIGSTOP)
    if warm:
        worker = WARM_WORKERS.get((spec, url))
        if worker is None or worker.poll() is not None:
            worker = WARM_WORKERS[(spec, url)] = start_worker(build, worker_url)
        else:
            worker.send_signal(signal.SIGCONT)
    else:
        worker = start_worker(build, worker_url)
    poll = subprocess.Popen(['psql', url, '-XAtq'], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)
    try:
        time.sleep(1.0)
        nothing_scheduled_yet(url, build)
        s0 = server_stats(url) if stats else None
        pg0, w0, m0, t0 = cluster_cpu(pgdata), stat(worker.pid)[1] / HZ, machine_times(), time.time()
        subprocess.run([build, 'schedule', 'month-end', '--database-url', url, '--period', '2026-10'], check=True,
                       stdout=subprocess.DEVNULL)
        # Every 20 ms the queue (a few hundred rows) is asked whether a job is left: a job's state
        # changes in the transaction that stores its results. Only when none is left are the runs
        # read (11,000 rows at 1M employees: reading them every 100 ms, as before session 10, was
        # most of the store's sequential scans and ended the clock up to 100 ms late).
        def ask(sql):
            poll.stdin.write(sql + '\n')
            return [int(x) for x in poll.stdout.readline().strip().split('|')]
        while True:
            left, total = ask("SELECT count(*) FILTER (WHERE state IN ('pending', 'running')), count(*) FROM payrun.jobs;")
            if total > 0 and left == 0:
                runs_left, runs = ask("SELECT count(*) FILTER (WHERE status NOT IN ('calculated', 'calculated_with_errors')), "
                                      "count(*) FROM payrun.payroll_runs;")
                if runs > 0 and runs_left == 0:
                    # Durable too: one synchronous commit (an xid, so a commit record) flushes the
                    # WAL past the last chunk job's commit (chunk jobs do not wait for the flush
                    # since session 11), as `payrun bench` does before it stops its clock.
                    ask("SELECT txid_current() % 1, 0;")
                    break
                sys.exit(f'{build}: no job is left but {runs_left} of {runs} runs are not calculated')
            if worker.poll() is not None:
                sys.exit(f'{build} worker exited with status {worker.returncode}')
            time.sleep(0.02)
        m1 = machine_times()
        result = (time.time() - t0, cluster_cpu(pgdata) - pg0, stat(worker.pid)[1] / HZ - w0,
                  m1[0] - m0[0], m1[1] - m0[1])
        if stats:
            # The statistics collector takes up to 0.5 s (PGSTAT_MIN_INTERVAL) to publish a backend's counts.
            time.sleep(0.6)
            d = [b - a for a, b in zip(s0, server_stats(url))]
            print(f'  server wrote: WAL {d[0] / 2**20:.0f} MiB ({d[1]} full-page images); buffers written by '
                  f'backends {d[2]}, background writer {d[3]}, checkpoints {d[4]}; buffers allocated {d[5]}; '
                  f'checkpoints started {d[6]}', flush=True)
        return result
    finally:
        poll.stdin.close()
        poll.wait()
        if not warm:
            worker.send_signal(signal.SIGTERM)
            worker.wait()


def stop_kept_workers():
    for kept in WARM_WORKERS.values():
        if kept.poll() is None:
            kept.send_signal(signal.SIGCONT)
            kept.send_signal(signal.SIGTERM)
            kept.wait()


def median(values):
    v = sorted(values)
    return (v[(len(v) - 1) // 2] + v[len(v) // 2]) / 2


def main():
    args = sys.argv[1:]
    pairs = 3
    if '--pairs' in args:
        k = args.index('--pairs')
        pairs = int(args[k + 1])
        del args[k:k + 2]
    warm = '--warm' in args
    if warm:
        args.remove('--warm')
    # --new-and-kept: each build runs twice in every pair, on a new worker and on its kept one.
    both = '--new-and-kept' in args
    if both:
        args.remove('--new-and-kept')
    modes = ['new', 'kept'] if both else ['kept'] if warm else ['new']
    stats = '--server-stats' in args
    if stats:
        args.remove('--server-stats')
    if len(args) < 3:
        sys.exit(__doc__)
    pgdata = args[0]
    stores = [a for a in args[1:] if '://' in a]
    builds = [a for a in args[1:] if '://' not in a]
    if not stores or not builds:
        sys.exit(__doc__)
    runs_of = [(url, build, mode) for url in stores for build in builds for mode in modes]
    name = {url: url.split('?')[0].rsplit('/', 1)[-1] for url in stores}

    def label(url, build, mode=None):
        return (build if len(stores) == 1 else f'{name[url]} {build}') + (f' ({mode} worker)' if both and mode else '')

    for url in stores:
        hold_own_scheduling(url)
        set_autovacuum(url, False)
    results = {r: [] for r in runs_of}
    try:
        for url, build, mode in runs_of:
            if mode == 'kept':
                wall = month_end(pgdata, url, build, warm=True)[0]
                print(f'{label(url, build)}: warm-up month-end (new sessions, not counted) {wall:5.2f} s', flush=True)
        for pair in range(pairs):
            order = runs_of if pair % 2 == 0 else list(reversed(runs_of))
            for url, build, mode in order:
                wall, server, worker, idle, steal = month_end(pgdata, url, build, warm=mode == 'kept', stats=stats)
                # After the clock: how many payslips the month-end wrote (a count of one table).
                payslips = int(psql(url, 'SELECT count(*) FROM payrun.payslips').strip())
                results[(url, build, mode)].append((wall, server, worker, idle, steal, payslips / wall))
                print(f'{label(url, build, mode)}: wall {wall:5.2f} s ({payslips / wall:,.0f} employees/s), postgres {server:5.2f} CPU-s, '
                      f'worker {worker:5.2f} CPU-s, machine idle {idle:4.2f} core-s, steal {steal:4.2f}, '
                      f'load {os.getloadavg()[0]:.1f}', flush=True)
    finally:
        stop_kept_workers()
        for url in stores:
            set_autovacuum(url, True)
            restore_own_scheduling(url)
    for (url, build, mode), runs in results.items():
        n = max(len(runs), 1)
        print(f'mean of {len(runs)} {label(url, build, mode)}: wall {sum(r[0] for r in runs) / n:.2f} s, '
              f'postgres {sum(r[1] for r in runs) / n:.2f} CPU-s, worker {sum(r[2] for r in runs) / n:.2f} CPU-s, '
              f'machine idle {sum(r[3] for r in runs) / n:.2f} core-s, steal {sum(r[4] for r in runs) / n:.2f}')
    for build in builds:
        for mode in modes:
            first = results[(stores[0], build, mode)]
            for url in stores[1:]:
                ratios = [b[5] / a[5] - 1 for a, b in zip(first, results[(url, build, mode)])]
                if ratios:
                    print(f'{build}{f" ({mode} worker)" if both else ""}: employees/s of {name[url]} against {name[stores[0]]}, '
                          'pair by pair: ' + ', '.join(f'{r:+.1%}' for r in ratios) + f'; median {median(ratios):+.1%}')


if __name__ == '__main__':
    main()
