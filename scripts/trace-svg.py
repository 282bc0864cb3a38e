#!/usr/bin/env python3
"""Draws an `ortho --trace_file` trace (Chrome/Perfetto trace-event JSON) as an SVG timeline.

Standard library only (no matplotlib): one row per track (the host threads, then each device's
workers and queues, named by the trace's thread_name metadata), complete events ("ph":"X") as
bars coloured by category, nested events stacked inside their row, instants as ticks.

    python3 scripts/trace-svg.py trace.json trace.svg [--last-invocation]

--last-invocation draws only the time span of the last VM invocation (vm.invoke) in the trace,
e.g. a warm call of `benchmark-module`.
"""
import json
import sys
from html import escape

COLOURS = {
    "vm.invoke": "#4e79a7", "vm.import": "#a0cbe8", "vm.wait": "#bab0ac",
    "hal.queue": "#f28e2b", "hal.dispatch": "#59a14f", "hal.semaphore": "#e15759",
    "hal.allocation": "#b07aa1",
}
ROW, LEFT, WIDTH, TOP = 22, 240, 1100, 40


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    with open(argv[1], encoding="utf-8") as f:
        events = json.load(f)["traceEvents"]
    names, procs, sort = {}, {}, {}
    for e in events:
        if e["ph"] == "M" and e["name"] == "thread_name":
            names[(e["pid"], e["tid"])] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "process_name":
            procs[e["pid"]] = e["args"]["name"]
        elif e["ph"] == "M" and e["name"] == "thread_sort_index":
            sort[(e["pid"], e["tid"])] = e["args"]["sort_index"]
    slices = [e for e in events if e["ph"] in ("X", "i")]
    if "--last-invocation" in argv:
        invokes = [e for e in slices if e.get("cat") == "vm.invoke"]
        if not invokes:
            sys.exit("no vm.invoke event in " + argv[1])
        last = max(invokes, key=lambda e: e["ts"])
        lo, hi = last["ts"], last["ts"] + last["dur"]
        slices = [e for e in slices if e["ts"] < hi and e["ts"] + e.get("dur", 0) > lo]
    else:
        lo = min(e["ts"] for e in slices)
        hi = max(e["ts"] + e.get("dur", 0) for e in slices)
    span = max(hi - lo, 1e-3)
    used = {(e["pid"], e["tid"]) for e in slices}
    # Device tracks always show (idle workers too); host threads only when they did something.
    tracks = sorted((k for k in names if k in used or k[0] != 1),
                    key=lambda k: (k[0], sort.get(k, 0), k[1]))
    x = lambda t: LEFT + (min(max(t, lo), hi) - lo) / span * WIDTH
    out, y = [], TOP
    for track in tracks:
        row = sorted((e for e in slices if (e["pid"], e["tid"]) == track), key=lambda e: (e["ts"], -e.get("dur", 0)))
        stack, placed = [], []
        for e in row:  # depth = how many open slices contain this one
            while stack and stack[-1] <= e["ts"]:
                stack.pop()
            placed.append((e, len(stack)))
            if e["ph"] == "X":
                stack.append(e["ts"] + e["dur"])
        depth = max([d for _, d in placed] + [0]) + 1
        height = ROW * depth
        label = procs.get(track[0], "") + " · " + names[track]
        out.append(f'<text x="{LEFT - 8}" y="{y + 15}" text-anchor="end">{escape(label)}</text>')
        out.append(f'<line x1="{LEFT}" x2="{LEFT + WIDTH}" y1="{y + height}" y2="{y + height}" stroke="#ddd"/>')
        for e, d in placed:
            top = y + d * ROW + 2
            colour = COLOURS.get(e.get("cat"), "#999")
            title = escape(f'{e["name"]} ({e.get("dur", 0):.1f} µs) {json.dumps(e.get("args", {}))}')
            if e["ph"] == "X":
                x0, x1 = x(e["ts"]), x(e["ts"] + e["dur"])
                w = max(x1 - x0, 0.8)
                out.append(f'<rect x="{x0:.2f}" y="{top}" width="{w:.2f}" height="{ROW - 4}" fill="{colour}">'
                           f'<title>{title}</title></rect>')
                if w > 7 * len(e["name"]) * 0.62:
                    out.append(f'<text x="{x0 + 3:.2f}" y="{top + 13}" font-size="10">{escape(e["name"])}</text>')
            else:
                xi = x(e["ts"])
                out.append(f'<line x1="{xi:.2f}" x2="{xi:.2f}" y1="{top}" y2="{top + ROW - 4}" stroke="{colour}">'
                           f'<title>{title}</title></line>')
        y += height
    ticks = []
    for i in range(11):
        t = lo + span * i / 10
        xt = LEFT + WIDTH * i / 10
        ticks.append(f'<line x1="{xt}" x2="{xt}" y1="{TOP - 6}" y2="{y}" stroke="#eee"/>'
                     f'<text x="{xt}" y="{TOP - 10}" text-anchor="middle">{(t - lo) / 1000:.2f} ms</text>')
    legend = "".join(f'<rect x="{LEFT + 150 * i}" y="{y + 12}" width="12" height="12" fill="{c}"/>'
                     f'<text x="{LEFT + 150 * i + 16}" y="{y + 22}">{n}</text>'
                     for i, (n, c) in enumerate(COLOURS.items()))
    height = y + 40
    svg = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{LEFT + WIDTH + 20}" height="{height}" '
           f'font-family="sans-serif" font-size="11">'
           f'<rect width="100%" height="100%" fill="white"/>' + "".join(ticks) + "".join(out) + legend + "</svg>\n")
    with open(argv[2], "w", encoding="utf-8") as f:
        f.write(svg)


if __name__ == "__main__":
    main(sys.argv)
