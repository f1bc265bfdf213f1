#!/usr/bin/env python3
"""Tables of bench/topology_time.sh: per run, every step's kernels, compile, analysis, host
and wall (from the run's topology.json), the totals and wall / kernels; then one row per run
beside the issue's targets. Arguments: the run directories (topology.json, times)."""
import json
import os
import sys

TARGETS = {"cold": 15.0, "warm": 10.0, "fast": 5.0}  # seconds of process wall; and wall <= 1.5 x kernels
RATIO = 1.5


def ms(v):
    return f"{v:9.0f}" if isinstance(v, (int, float)) else f"{'-':>9}"


def table(run):
    with open(os.path.join(run, "topology.json")) as f:
        t = json.load(f)
    with open(os.path.join(run, "times")) as f:
        t0, t1, table_at, rc = f.read().split()
    proc_s, table_s = float(t1) - float(t0), float(table_at) - float(t0)
    tim = t.get("timings", {})
    wall_ms = 1000 * tim.get("wall_s", 0)
    name = os.path.basename(run.rstrip("/"))
    print(f"\n## {name}: {t.get('device', {}).get('name', '?')} ({t.get('selector', '?')}), {t.get('mode', '?')} mode, "
          f"status {t.get('status', '?')}, exit {rc}")
    print(f"{'step':<28} {'kernels':>9} {'compile':>9} {'analysis':>9} {'host':>9} {'wall':>9} {'waited':>9} {'share':>6}"
          "   (ms; analysis runs beside later steps, 'waited' is what a step waited for it)")
    sums = {"kernels": 0.0, "compile": 0.0, "analysis": 0.0, "host": 0.0, "wall": 0.0, "waited": 0.0}
    for e in t.get("experiments", []):
        if "wall_ms" not in e:
            print(f"{e.get('id', '?'):<28} {e.get('status', '?')}")
            continue
        k, c, a, w = (e.get(x, 0.0) or 0.0 for x in ("kernel_ms", "compile_ms", "analysis_ms", "wall_ms"))
        waited = e.get("wait_ms", 0.0)
        host = max(0.0, w - k - c)
        for key, v in (("kernels", k), ("compile", c), ("analysis", a), ("host", host), ("wall", w), ("waited", waited)):
            sums[key] += v
        share = 100 * (w + waited) / wall_ms if wall_ms > 0 else 0
        print(f"{e['id']:<28} {ms(k)} {ms(c)} {ms(a)} {ms(host)} {ms(w)} {ms(waited)} {share:5.1f}%")
    print(f"{'sum of steps':<28} {ms(sums['kernels'])} {ms(sums['compile'])} {ms(sums['analysis'])} {ms(sums['host'])} "
          f"{ms(sums['wall'])} {ms(sums['waited'])}")
    other = wall_ms - sums["wall"] - sums["waited"]
    print(f"topology wall {wall_ms / 1000:.2f} s = steps {sums['wall'] / 1000:.2f} + waiting for analyses "
          f"{sums['waited'] / 1000:.2f} + the rest {other / 1000:.2f} (sizing, spec loading, last analyses: "
          f"{tim.get('analysis_wait_ms', 0) / 1000:.2f} s waited in all); {tim.get('workers', '?')} workers")
    ratio = wall_ms / sums["kernels"] if sums["kernels"] > 0 else float("nan")
    print(f"process wall {proc_s:.2f} s (table printed at {table_s:.2f} s, report {proc_s - table_s:.2f} s); "
          f"kernels {sums['kernels'] / 1000:.2f} s, compile {sums['compile'] / 1000:.2f} s, analysis "
          f"{sums['analysis'] / 1000:.2f} s, host {sums['host'] / 1000:.2f} s; wall / kernels {ratio:.2f}")
    kind = "fast" if name.endswith("fast") else "cold" if name.endswith("cold") else "warm"
    return {"name": name, "kind": kind, "proc": proc_s, "table": table_s, "wall": wall_ms / 1000,
            "kernels": sums["kernels"] / 1000, "compile": sums["compile"] / 1000, "analysis": sums["analysis"] / 1000,
            "waited": tim.get("analysis_wait_ms", 0) / 1000, "ratio": ratio}


def main(runs):
    rows = [table(r) for r in runs]
    print("\n## runs beside the targets (process wall with the report; wall / kernels from topology.json)")
    print(f"{'run':<16} {'process s':>9} {'table s':>8} {'topology s':>10} {'kernels s':>9} {'compile s':>9} "
          f"{'analysis s':>10} {'waited s':>8} {'wall/kern':>9}  target")
    for r in rows:
        target = TARGETS[r["kind"]]
        ok_wall = r["proc"] <= target
        ok_ratio = r["ratio"] <= RATIO
        verdict = (f"<= {target:.0f} s {'yes' if ok_wall else 'NO'}; "
                   f"<= {RATIO} x kernels {'yes' if ok_ratio else 'NO'}")
        print(f"{r['name']:<16} {r['proc']:9.2f} {r['table']:8.2f} {r['wall']:10.2f} {r['kernels']:9.2f} "
              f"{r['compile']:9.2f} {r['analysis']:10.2f} {r['waited']:8.2f} {r['ratio']:9.2f}  {verdict}")


if __name__ == "__main__":
    main(sys.argv[1:])
