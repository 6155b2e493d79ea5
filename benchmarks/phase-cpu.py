#!/usr/bin/env python3
"""CPU seconds per phase of a command that prints one line per phase on stderr (e.g. payrun bench).

Usage: python3 benchmarks/phase-cpu.py <pgdata> <command> [args...]
  e.g. python3 benchmarks/phase-cpu.py .pg-bench/data .build/release/payrun bench --employees 100000

Before each stderr line of the command it prints the wall time and the CPU seconds (utime+stime)
used since the previous line by the PostgreSQL cluster whose data directory is <pgdata>
(postmaster, its live children and its reaped children) and by the command itself.
Standard library only; Linux /proc.
"""
import subprocess, sys, os, time
HZ = os.sysconf('SC_CLK_TCK')
pgdata = sys.argv[1]
def stat(pid):
    with open(f'/proc/{pid}/stat') as f: s = f.read()
    f = s[s.rindex(')')+2:].split()
    return int(f[1]), int(f[11]) + int(f[12]), int(f[13]) + int(f[14])
def cpu(child):
    pg = 0
    try:
        pm = int(open(os.path.join(pgdata, 'postmaster.pid')).readline())
        _, own, reaped = stat(pm); pg = own + reaped
        for pid in os.listdir('/proc'):
            if not pid.isdigit(): continue
            try:
                ppid, t, _ = stat(pid)
                if ppid == pm: pg += t
            except Exception: pass
    except Exception: pass
    try: pr = stat(child)[1]
    except Exception: pr = 0
    return pg / HZ, pr / HZ
p = subprocess.Popen(sys.argv[2:], stderr=subprocess.PIPE, text=True)
last = None
for line in p.stderr:
    pg, pr = cpu(p.pid); t = time.time()
    if last: print(f"  [{t-last[2]:6.2f}s wall, postgres {pg-last[0]:6.2f} cpu-s, payrun {pr-last[1]:6.2f} cpu-s]", file=sys.stderr)
    print(line.rstrip()[:160], file=sys.stderr)
    last = (pg, pr, t)
p.wait()
