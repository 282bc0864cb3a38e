#!/usr/bin/env python3
"""Which path each shared-memory round trip took (bench/README.md, "Shared memory: where the p99 goes").

Reads DIR/roundtrips-PID.txt (RemoteInterleavedRun shm with -Dortho.shm.waitlog=DIR) and the
transport's wait logs DIR/waits-PID.txt of the client and the worker JVM (written at exit), and
prints, for all round trips and for the slow ones (> SLOW_US), how many took each path:
whether the worker's pump slept before it saw the request, whether the client's receiving caller
slept before it saw the reply, and the bell's wake latency (ring to the sleeper's return). Where the
logs name CPUs (native access), the column "same CPU" counts the round trips whose caller and
worker's pump ended their waits on one CPU.

usage: shm-waits.py DIR [SLOW_US]
"""
import bisect
import glob
import os
import sys


def load(path):
    rows = []
    with open(path) as f:
        for line in f:
            if line.startswith('#'):
                continue
            rows.append([int(x) for x in line.split()])
    return rows


def pct(values, p):
    if not values:
        return float('nan')
    values = sorted(values)
    return values[min(len(values) - 1, int(len(values) * p / 100))]


def main():
    d = sys.argv[1]
    slow_us = float(sys.argv[2]) if len(sys.argv) > 2 else 20.0
    rt_files = glob.glob(os.path.join(d, 'roundtrips-*.txt'))
    if len(rt_files) != 1:
        sys.exit('expected one roundtrips-PID.txt in ' + d)
    rts = load(rt_files[0])
    events = []
    for f in glob.glob(os.path.join(d, 'waits-*.txt')):
        events += load(f)
    # kind parent start end spins|who sleeps rung woke
    caller = sorted((e for e in events if e[0] == 0 and e[1] == 1), key=lambda e: e[3])
    wpump = sorted((e for e in events if e[0] == 1 and e[1] == 0), key=lambda e: e[3])
    rings_to_worker_pump = sorted(e[2] for e in events if e[0] == 2 and e[1] == 1 and e[4] == 0)
    rings_to_caller = sorted(e[2] for e in events if e[0] == 2 and e[1] == 0 and e[4] == 1)
    rings_to_client_pump = sorted(e[2] for e in events if e[0] == 2 and e[1] == 0 and e[4] == 0)
    cpump_end = sorted(e[3] for e in events if e[0] == 1 and e[1] == 1)
    refusals = sorted(e[2] for e in events if e[0] == 3 and e[1] == 1)
    moves = [e for e in events if e[0] == 4]
    ring_cost = [(e[3] - e[2]) / 1e3 for e in events if e[0] == 2]
    caller_end = [e[3] for e in caller]
    wpump_end = [e[3] for e in wpump]

    def wake(e, rings):
        """ring -> return of the sleeper's last block, µs (None if not rung)."""
        if e[5] == 0 or e[6] == 0:
            return None
        i = bisect.bisect_right(rings, e[7]) - 1
        return (e[7] - rings[i]) / 1e3 if i >= 0 else None

    def last_in(ends, evs, t0, t1):
        i = bisect.bisect_right(ends, t1) - 1
        return evs[i] if i >= 0 and ends[i] >= t0 else None

    paths = {}
    same_cpu = {}
    wakes = {'worker pump': [], 'caller': []}
    for t0, t1 in rts:
        us = (t1 - t0) / 1e3
        c = last_in(caller_end, caller, t0, t1)
        w = last_in(wpump_end, wpump, t0, t1)
        if c is None:
            key = 'reply not taken by the caller'
        else:
            key = ('worker ' + ('slept' + (' (rung)' if w and w[6] else ' (not rung)') if w and w[5] else 'spun')
                   if w else 'worker ?') + ', caller ' + ('slept' if c[5] else 'spun')
        lo, hi = bisect.bisect_left(rings_to_client_pump, t0), bisect.bisect_right(rings_to_client_pump, t1)
        if hi > lo:
            key += ', client pump rung'
        lo, hi = bisect.bisect_left(cpump_end, t0), bisect.bisect_right(cpump_end, t1)
        if hi > lo:
            key += ', client pump ran'
        lo, hi = bisect.bisect_left(refusals, t0), bisect.bisect_right(refusals, t1)
        if hi > lo:
            key += ', caller refused (role held)'
        paths.setdefault(key, []).append(us)
        if c is not None and w is not None and len(c) > 8 and len(w) > 8 and c[8] >= 0 and c[8] == w[8]:
            same_cpu[key] = same_cpu.get(key, 0) + 1
        if w is not None and wake(w, rings_to_worker_pump) is not None:
            wakes['worker pump'].append((us, wake(w, rings_to_worker_pump)))
        if c is not None and wake(c, rings_to_caller) is not None:
            wakes['caller'].append((us, wake(c, rings_to_caller)))
    n = len(rts)
    slow_n = sum(1 for v in paths.values() for us in v if us > slow_us)
    print(f'{n} round trips, {slow_n} slower than {slow_us:g} µs; p50 {pct([u for v in paths.values() for u in v], 50):.1f}'
          f' p99 {pct([u for v in paths.values() for u in v], 99):.1f} µs')
    print(f'{"path":70} {"all":>8} {"slow":>6} {"p50 µs":>8} {"p99 µs":>8} {"same CPU":>8}')
    for key, v in sorted(paths.items(), key=lambda kv: -len(kv[1])):
        print(f'{key:70} {len(v):8} {sum(1 for u in v if u > slow_us):6} {pct(v, 50):8.1f} {pct(v, 99):8.1f}'
              f' {same_cpu.get(key, 0):8}')
    for who, pairs in wakes.items():
        lat = [w for _, w in pairs]
        print(f'{who} wake-ups by a ring: {len(lat)}; ring -> awake p50 {pct(lat, 50):.1f} p90 {pct(lat, 90):.1f}'
              f' p99 {pct(lat, 99):.1f} max {pct(lat, 100):.1f} µs')
    print(f'rings to the client pump: {len(rings_to_client_pump)}, client pump progress events: {len(cpump_end)},'
          f' callers refused the receiving role: {len(refusals)}')
    if moves:
        cost = [(e[3] - e[2]) / 1e3 for e in moves]
        print(f'worker pump moved off the client\'s CPU: {sum(1 for e in moves if e[5])} times'
              f' ({sum(1 for e in moves if not e[5])} tries failed), a move costs the pump p50 {pct(cost, 50):.1f}'
              f' max {pct(cost, 100):.1f} µs')
    print(f'ring (write) cost: {len(ring_cost)} rings, p50 {pct(ring_cost, 50):.1f} p99 {pct(ring_cost, 99):.1f} µs')
    spun_slow = paths.get('worker spun, caller spun', [])
    print(f'both spun but slow: {sum(1 for u in spun_slow if u > slow_us)} (p99 {pct(spun_slow, 99):.1f} µs)')


if __name__ == '__main__':
    main()
