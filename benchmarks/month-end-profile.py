#!/usr/bin/env python3
"""Where the CPU of a `payrun bench` month-end goes, server and worker, by kind of work.

Runs `payrun bench … --keep-cluster` on the private cluster and samples the whole machine with
`perf record -a -g` from the line announcing the month-end to the line announcing the floor (then
stops the bench), keeping the samples of the cluster's processes (the postmaster and its children,
polled every 0.1 s) and of the bench process. Every sample of the server is put in one class by the
functions on its stack (COPY out: scan / send functions / the rest; COPY in: JSON validation, heap,
indexes, CHECKs, the statement trigger, the rest; other statements; parse; plan; commit), every
sample of the bench process (its job threads and the dispatch threads of `concurrentPerform`) by
the Swift functions on its stack (load, compute, encode, digest). CPU-seconds = samples / frequency.

Usage (from the repository root, after `swift build -c release --product payrun` and a bench store
seeded by an earlier `payrun bench --employees N --keep-cluster`):

    python3 benchmarks/month-end-profile.py .pg-bench/data .build/release/payrun --employees 100000

It samples the bench's first month-end: since session 19 the untimed warm-up on new sessions (as
every bench month-end before); with `--warm` the first timed one, on the sessions the warm-up used.
With `--floor` (anywhere after the script's name) it samples the floor's timed COPYs instead (from
the bench's "floor: timing" line to its "floor: N chunks in" line), to compare the server's work on
the same data: what the month-end spends beyond the floor is what the ratio is made of.

Needs `perf` (Debian: linux-perf) and permission to sample every process (root, or
kernel.perf_event_paranoid ≤ -1). The stacks come from frame pointers: PostgreSQL's Debian build
and Swift code keep them; frames without symbols are not classified by name.
"""
import collections
import os
import re
import signal
import subprocess
import sys
import tempfile
import threading

FREQUENCY = 999

SERVER_CLASSES = [
    # (class, the statement kind it belongs to — a function that must be on the stack, or None —,
    # any of these functions on the stack); the first that matches wins.
    ('autovacuum / analyze', None, {'vacuum', 'analyze_rel', 'do_autovacuum', 'AutoVacWorkerMain'}),
    ('COPY in: statement trigger', 'CopyFrom', {'AfterTriggerEndQuery', 'AfterTriggerFireDeferred', 'ExecCallTriggerFunc'}),
    ('COPY in: JSON validation', 'CopyFrom', {'json_recv', 'jsonb_recv'}),
    ('COPY in: index inserts', 'CopyFrom', {'ExecInsertIndexTuples'}),
    ('COPY in: heap inserts', 'CopyFrom', {'heap_multi_insert', 'CopyMultiInsertBufferFlush'}),
    ('COPY in: CHECK constraints', 'CopyFrom', {'ExecConstraints', 'ExecRelCheck'}),
    ('COPY in: other', 'CopyFrom', {'CopyFrom'}),
    ('COPY out: send functions', 'DoCopyTo', {'SendFunctionCall'}),
    ('COPY out: scan', 'DoCopyTo', {'ExecScan', 'index_getnext_slot', 'ExecIndexScan', 'heap_getnextslot'}),
    ('COPY out: other', 'DoCopyTo', {'DoCopyTo'}),
    ('commit', None, {'CommitTransactionCommand', 'CommitTransaction', 'XLogFlush'}),
    ('plan', None, {'pg_plan_queries', 'planner', 'standard_planner'}),
    ('parse / analyze', None, {'pg_parse_query', 'raw_parser', 'parse_analyze_fixedparams', 'parse_analyze_varparams',
                               'pg_analyze_and_rewrite_fixedparams', 'pg_analyze_and_rewrite_varparams'}),
    ('other statements', None, {'standard_ExecutorRun', 'ExecutorRun', 'standard_ProcessUtility'}),
    ('background (WAL writer, checkpointer, …)', None, {'WalWriterMain', 'CheckpointerMain', 'BackgroundWriterMain'}),
]

WORKER_CLASSES = [
    ('digest (SHA-256 of inputs)', ('InputDigest', 'SHA256', 'sha256')),
    ('encode / write (lines, COPY in)', ('PayslipLineJSON', 'PayslipWriter', 'PayslipJSON', 'copyIn', 'BinaryCopyWriter')),
    ('load (decode, build, validate)', ('ChunkLoader', 'copyOut', 'BinaryCopyRowV', 'GroupedRows')),
    ('compute (PayrollRules, BatchCalculator)', ('BatchCalculator', '12PayrollRules', '13PayrollEngine')),
    ('libpq', ('PQ', 'pqSocket', 'pqsecure')),
]


def classify_server(frames):
    present = set(frames)
    for name, within, functions in SERVER_CLASSES:
        if (within is None or within in present) and present & functions:
            return name
    return 'other (process start/exit, memory, unresolved)'


def classify_worker(frames):
    text = ' '.join(frames)
    for name, needles in WORKER_CLASSES:
        if any(n in text for n in needles):
            return name
    leaf = frames[0] if frames else ''
    if any(n in leaf for n in ('malloc', 'free', 'swift_retain', 'swift_release', 'swift_arrayDestroy', 'StorageCfD')):
        return 'memory (malloc/free, retain/release) outside the above'
    return 'other (kernel, threads, unresolved)'


def watch_cluster(pgdata, pids, stop):
    """Collects the pids of the cluster's postmaster and its children until `stop` (other
    clusters on the machine — tests, other worktrees — are other postgres processes)."""
    with open(os.path.join(pgdata, 'postmaster.pid')) as f:
        postmaster = f.readline().strip()
    pids.add(int(postmaster))
    while not stop.is_set():
        children = subprocess.run(['ps', '-o', 'pid=', '--ppid', postmaster], capture_output=True, text=True).stdout
        pids.update(int(p) for p in children.split())
        stop.wait(0.1)


def end_bench_statements(pgdata):
    """Ends the statements the interrupted bench left running on the cluster (a backend goes on
    with its statement after its client is gone: e.g. the SQL baseline's INSERT … SELECT, which
    would take the CPU of the next profile)."""
    with open(os.path.join(pgdata, 'postmaster.pid')) as f:
        lines = f.read().splitlines()
    port, socket_dir = lines[3].strip(), lines[4].strip()
    subprocess.run(['psql', '-XAtq', '-h', socket_dir, '-p', port, '-U', 'postgres', '-d', 'postgres', '-c',
                    "SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE backend_type = 'client backend' "
                    "AND pid <> pg_backend_pid() AND datname LIKE 'payrun_bench%'"],
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)


def samples(perf_data):
    """Yields (command, pid, [function names, leaf first]) per sample."""
    script = subprocess.Popen(['perf', 'script', '-i', perf_data, '-F', 'comm,pid,ip,sym'], stdout=subprocess.PIPE,
                              stderr=subprocess.DEVNULL, text=True, errors='replace')
    command, pid, frames = None, None, []
    for line in script.stdout:
        line = line.rstrip('\n')
        if not line.strip():
            if command is not None:
                yield command, pid, frames
            command, pid, frames = None, None, []
            continue
        if command is None and not line[:1].isspace():
            header = line.split()
            command, pid = header[0], int(header[1]) if len(header) > 1 and header[1].isdigit() else None
            continue
        parts = line.split()
        if len(parts) >= 2:
            frames.append(parts[1].split('+')[0])
    if command is not None:
        yield command, pid, frames
    script.wait()


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    args = sys.argv[1:]
    # --floor: sample the floor's timed COPYs (from its "floor: timing" line to the line that
    # reports them) instead of the month-end, to compare the server's work on the same data.
    floor = '--floor' in args
    if floor:
        args.remove('--floor')
    # --warm: sample the first timed month-end (or floor), on the sessions the bench's warm-up
    # used, instead of the warm-up itself (new sessions, as every bench month-end before session 19).
    warm = '--warm' in args
    if warm:
        args.remove('--warm')
    warmed_up = not warm
    pgdata, payrun = args[0], args[1]
    bench = [payrun, 'bench', '--keep-cluster'] + args[2:]
    start = re.compile(r'floor: timing') if floor else re.compile(r'month-end')
    end = re.compile(r'floor: \d+ chunks in') if floor else re.compile(r'\bfloor\b|month-end done')
    perf_data = os.path.join(tempfile.mkdtemp(prefix='payrun-profile-'), 'perf.data')
    process = subprocess.Popen(bench, stderr=subprocess.PIPE, stdout=subprocess.DEVNULL, text=True, start_new_session=True)
    perf = None
    cluster_pids, stop = set(), threading.Event()
    for line in process.stderr:
        sys.stderr.write(line)
        if not warmed_up:
            warmed_up = 'warm-up:' in line
            continue
        if perf is None and start.search(line):
            perf = subprocess.Popen(['perf', 'record', '-a', '-g', '-F', str(FREQUENCY), '-o', perf_data],
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            watcher = threading.Thread(target=watch_cluster, args=(pgdata, cluster_pids, stop), daemon=True)
            watcher.start()
        elif perf is not None and end.search(line):
            stop.set()
            perf.send_signal(signal.SIGINT)
            perf.wait()
            os.killpg(process.pid, signal.SIGINT)
            break
    process.wait()
    end_bench_statements(pgdata)
    if perf is None or not os.path.exists(perf_data):
        sys.exit('the bench ended before its month-end step; nothing sampled')

    server, worker = collections.Counter(), collections.Counter()
    others = 0
    for command, pid, frames in samples(perf_data):
        if pid in cluster_pids:
            server[classify_server(frames)] += 1
        elif pid == process.pid:
            worker[classify_worker(frames)] += 1
        else:
            others += 1

    def table(title, counter):
        total = sum(counter.values())
        print(f'\n{title}: {total / FREQUENCY:.2f} CPU-s')
        for name, count in counter.most_common():
            print(f'  {name:58s} {count / FREQUENCY:6.2f}  {100 * count / max(total, 1):5.1f} %')

    print(f'{"floor" if floor else "month-end"} profile ({" ".join(args[2:])}), perf -g at {FREQUENCY} Hz; pgdata {pgdata}; '
          f'samples in {perf_data}')
    table('PostgreSQL server (all backends and helpers)', server)
    table('payrun (job threads and compute threads)', worker)
    print(f'\nother processes and idle: {others / FREQUENCY:.2f} CPU-s (high when the machine was not quiet)')


if __name__ == '__main__':
    main()
