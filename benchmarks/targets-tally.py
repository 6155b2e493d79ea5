#!/usr/bin/env python3
"""Issue 5's targets at one store size, tallied over many `payrun bench --json` files.

One `payrun bench` run gives one figure per target; on this VM the same build's figures move with
the machine (benchmarks/RESULTS.md), so whether a target is met "reliably" is a question about
many runs. This script reads the JSON of as many runs as it is given and prints, per run, the
figures the bench printed for that size, then per role of the workers (the bench's own role, or
`--worker-role`) and per kind of sessions (since session 19 the bench keeps its workers' and the
floor's sessions between measurements, after an untimed warm-up on new ones; before, and with
`--cold`, every measurement had new sessions — the warm-up's month-end/floor pair is counted with
those, as one more pair, not as a run):

- how many runs met each target with the bench's headline figure (the ratio of the medians);
- every single month-end/floor pair and month-end/baseline pair pooled: their median, quartiles,
  and the share that met the target;
- how sure the median is: a 90 % interval of the median run (the runs resampled with replacement,
  10,000 times, a fixed seed — runs are the independent unit; pairs within one run share its
  minutes of the VM), for each group and for all kept-session runs of both roles together (their
  month-ends alternated take the same time: RESULTS.md, session 19);
- whether the two roles' kept-session runs differ: their median runs' difference, for the floor
  and the baseline ratios, with a two-sided permutation p (the runs dealt at random into two
  groups of the same sizes, 10,000 times, a fixed seed).

    python3 benchmarks/targets-tally.py [--employees 100000] FILE.json ...

The files given are the selection (say which builds they come from). A file without that size,
or without a floor or a baseline, adds nothing to the targets it lacks. Python 3 standard
library only.
"""
import json
import random
import statistics
import sys

FLOOR_MAX = 1.5      # payrun wall ≤ 1.5 × the floor
BASELINE_MIN = 5.0   # payrun at least 5 × faster than the SQL baseline
COMPUTE_MIN = 1.7    # compute employees/s at 2 threads ≥ 1.7 × at 1 thread


def quartiles(values):
    if len(values) < 2:
        return (values[0], values[0], values[0]) if values else (None, None, None)
    q = statistics.quantiles(values, n=4, method='inclusive')
    return q[0], statistics.median(values), q[2]


def median_interval(values, level=0.90, rounds=10_000, seed=5):
    """The median of `values` and a percentile-bootstrap interval of it (resampling `values`)."""
    if not values:
        return None, None, None
    rng = random.Random(seed)
    medians = sorted(statistics.median(rng.choices(values, k=len(values))) for _ in range(rounds))
    low = medians[int((1 - level) / 2 * rounds)]
    high = medians[min(rounds - 1, int((1 + level) / 2 * rounds))]
    return statistics.median(values), low, high


def permutation_p(a, b, rounds=10_000, seed=7):
    """Two-sided permutation p of the difference of medians, median(b) − median(a): how often the
    runs, dealt at random into groups of the same sizes, differ by at least as much."""
    observed = abs(statistics.median(b) - statistics.median(a))
    pool = list(a) + list(b)
    rng = random.Random(seed)
    hits = 0
    for _ in range(rounds):
        rng.shuffle(pool)
        if abs(statistics.median(pool[len(a):]) - statistics.median(pool[:len(a)])) >= observed - 1e-12:
            hits += 1
    return hits / rounds


def fmt(x, digits=2):
    return '–' if x is None else f'{x:.{digits}f}'


def main(argv):
    employees = 100000
    files = []
    args = iter(argv)
    for a in args:
        if a == '--employees':
            employees = int(next(args))
        elif a in ('-h', '--help'):
            print(__doc__)
            return 0
        else:
            files.append(a)
    if not files:
        print(__doc__, file=sys.stderr)
        return 2

    groups = {}
    print(f'| file | commit | workers\' role | runs | payrun ÷ floor | pairs | baseline ÷ payrun | pairs | compute rounds median |')
    print('|---|---|---|---:|---:|---|---:|---|---:|')
    for path in files:
        with open(path) as f:
            data = json.load(f)
        for size in data.get('sizes', []):
            if size.get('employees') != employees:
                continue
            payrun = size.get('payrun', {})
            role = payrun.get('workerRole') or "bench's own"
            kept = str(size.get('sessions', '')).startswith('kept')
            empty = {'runs': 0, 'floor': [], 'floor_pairs': [], 'baseline': [], 'baseline_pairs': [], 'compute': []}
            key = f"{role}, {'kept sessions' if kept else 'new sessions'}"
            g = groups.setdefault(key, {k: (v if k == 'runs' else []) for k, v in empty.items()})
            g['runs'] += 1
            warm_up = (size.get('warmUpPayrunWallSeconds'), size.get('warmUpFloorWallSeconds'))
            if kept and warm_up[0] and warm_up[1]:
                cold = groups.setdefault(f"{role}, new sessions", {k: (v if k == 'runs' else []) for k, v in empty.items()})
                cold['floor_pairs'].append(warm_up[0] / warm_up[1])
            floor = size.get('floor') or {}
            baseline = size.get('baseline') or {}
            floor_ratio = floor.get('ratio')
            floor_pairs = floor.get('pairRatios') or ([floor_ratio] if floor_ratio is not None else [])
            # The JSON keeps payrun ÷ baseline (< 1); the target is read as its inverse.
            baseline_speedup = 1 / baseline['ratio'] if baseline.get('ratio') else None
            baseline_pairs = [1 / r for r in baseline.get('pairRatios') or [] if r] or \
                ([baseline_speedup] if baseline_speedup is not None else [])
            compute = ((size.get('computeScaling') or {}).get('perJob') or {}).get('roundSpeedUpMedian')
            if floor_ratio is not None:
                g['floor'].append(floor_ratio)
                g['floor_pairs'].extend(floor_pairs)
            if baseline_speedup is not None:
                g['baseline'].append(baseline_speedup)
                g['baseline_pairs'].extend(baseline_pairs)
            if compute is not None:
                g['compute'].append(compute)
            print(f"| {path.split('/')[-1]} | {data.get('machine', {}).get('commit', '?')} | {role} | "
                  f"{size.get('repetitions', 1)} | {fmt(floor_ratio)} | {', '.join(fmt(x) for x in floor_pairs)} | "
                  f"{fmt(baseline_speedup)} | {', '.join(fmt(x) for x in baseline_pairs)} | {fmt(compute)} |")

    print()
    print(f'Targets at {employees:,} employees, per role of the workers and kind of sessions:')
    print()
    print('| role, sessions | runs | floor ≤ ×1.5: runs met | floor pairs: n, quartiles, share met | '
          'baseline ≥ 5×: runs met | baseline pairs: n, quartiles, share met | compute ≥ 1.7: runs met |')
    print('|---|---:|---|---|---|---|---|')
    for role, g in groups.items():
        def met(values, ok):
            return f'{sum(1 for v in values if ok(v))} of {len(values)}' if values else '–'

        def pooled(values, ok):
            if not values:
                return '–'
            q1, q2, q3 = quartiles(values)
            share = sum(1 for v in values if ok(v)) / len(values)
            return f'{len(values)}, {fmt(q1)} / **{fmt(q2)}** / {fmt(q3)}, {share:.0%}'

        print(f"| {role} | {g['runs']} | {met(g['floor'], lambda v: v <= FLOOR_MAX)} | "
              f"{pooled(g['floor_pairs'], lambda v: v <= FLOOR_MAX)} | "
              f"{met(g['baseline'], lambda v: v >= BASELINE_MIN)} | "
              f"{pooled(g['baseline_pairs'], lambda v: v >= BASELINE_MIN)} | "
              f"{met(g['compute'], lambda v: v >= COMPUTE_MIN)} |")

    kept = {'runs': 0, 'floor': [], 'baseline': []}
    for role, g in groups.items():
        if role.endswith('kept sessions'):
            kept['runs'] += g['runs']
            kept['floor'] += g['floor']
            kept['baseline'] += g['baseline']
    rows = [(role, g) for role, g in groups.items()]
    if kept['runs'] and sum(1 for role in groups if role.endswith('kept sessions')) > 1:
        rows.append(('both roles, kept sessions', kept))
    print()
    print('The median run and a 90 % bootstrap interval of it (runs resampled; the run\'s headline ratio):')
    print()
    print('| role, sessions | runs | payrun ÷ floor: median run [90 % interval] | baseline ÷ payrun: median run [90 % interval] |')
    print('|---|---:|---|---|')
    for role, g in rows:
        def interval(values):
            m, low, high = median_interval(values)
            return '–' if m is None else f'{fmt(m)} [{fmt(low)}, {fmt(high)}]'
        print(f"| {role} | {g['runs']} | {interval(g['floor'])} | {interval(g['baseline'])} |")

    # Do the two roles' runs differ? Pooling them (the row above) assumes they do not.
    own, worker = groups.get("bench's own, kept sessions"), groups.get('payrun_worker, kept sessions')
    if own and worker and len(own['floor']) > 1 and len(worker['floor']) > 1:
        print()
        print('The two roles compared (kept sessions; the runs\' headline ratios; the floor and the baseline run as '
              'the bench\'s role in both, so a difference is the month-end\'s; permutation p: the share of 10,000 '
              'random deals of the runs into two groups of these sizes whose medians differ at least as much):')
        print()
        print("| ratio | bench's own: runs, median | payrun_worker: runs, median | payrun_worker − own | two-sided p |")
        print('|---|---|---|---:|---:|')
        for label, k in (('payrun ÷ floor', 'floor'), ('baseline ÷ payrun', 'baseline')):
            a, b = own[k], worker[k]
            if len(a) > 1 and len(b) > 1:
                print(f'| {label} | {len(a)}, {fmt(statistics.median(a))} | {len(b)}, {fmt(statistics.median(b))} | '
                      f'{statistics.median(b) - statistics.median(a):+.2f} | {permutation_p(a, b):.3f} |')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
