#!/usr/bin/env python3
"""Summarises the real-GPU evidence bundles (scripts/gpu_evidence.sh) as Markdown.

Usage: scripts/gpu_summary.py RUNS_DIR   (bundles made by `dissect run -o RUNS_DIR`).
Standard library only. Latencies are cycles: raw = as timed (timer overhead included),
corrected = raw - the timer overhead measured in the same launch.
"""
import csv
import gzip
import io
import json
import os
import statistics
import sys
from collections import defaultdict


def read_trace(d):
    for name in ("trace.csv", "trace.csv.gz"):
        p = os.path.join(d, name)
        if os.path.exists(p):
            f = gzip.open(p, "rt") if name.endswith(".gz") else open(p)
            with f:
                return list(csv.DictReader(f))
    return []


def load(d):
    b = json.load(open(os.path.join(d, "bundle.json")))
    pts = list(csv.DictReader(open(os.path.join(d, "points.csv"))))
    return b, pts


def med(v):
    return statistics.median(v) if v else float("nan")


def fmt(x, nd=1):
    return "nan" if x != x else f"{x:.{nd}f}"


def samples_by_point(trace):
    by = defaultdict(list)
    for r in trace:
        by[r["point_id"]].append(r)
    return by


def pass_medians(rows, app):
    """Median latency of each timed pass (stream 0), to see whether the warm-up warmed."""
    rows = [r for r in rows if r["thread"] == "0"]
    rows.sort(key=lambda r: int(r["seq"]))
    out = []
    for k in range(0, len(rows), app):
        chunk = [float(r["latency"]) for r in rows[k:k + app]]
        if len(chunk) == app:
            out.append(med(chunk))
    return out


def miss_fraction(rows, threshold):
    v = [float(r["latency"]) for r in rows]
    return sum(1 for x in v if x > threshold) / len(v) if v else float("nan")


def section_points(name, b, pts, trace, cols):
    print(f"\n### {name}\n")
    print(f"{b['spec'].get('description', '')}  ")
    t = b.get("timings", {})
    print(f"device: {b['device'].get('name')} ({b['device'].get('arch')}), status {b.get('status')}, "
          f"wall {fmt(t.get('wall_ms', float('nan')))} ms, kernels {fmt(t.get('kernel_ms', float('nan')))} ms, "
          f"compile {fmt(t.get('compile_ms', float('nan')), 2)} ms, {t.get('launches')} launches\n")
    by = samples_by_point(trace)
    print("| " + " | ".join(c[0] for c in cols) + " |")
    print("|" + " --- |" * len(cols))
    for p in pts:
        rows = by.get(p["point_id"], [])
        print("| " + " | ".join(str(c[1](p, rows)) for c in cols) + " |")


def raw(p, rows):
    return fmt(float(p["lat_median"]))


def ovh(p, rows):
    return fmt(float(p["timer_overhead_cycles"]))


def corr(p, rows):
    return fmt(float(p["lat_median"]) - float(p["timer_overhead_cycles"]))


def note(key):
    def f(p, rows):
        for kv in p.get("device_notes", "").split("; "):
            if kv.startswith(key + "="):
                return kv.split("=", 1)[1]
        return ""
    return f


def knee(pts, by, hit, factor=1.5, frac=0.05):
    """Largest N before the first point whose later passes miss (> factor x hit) on > frac of accesses."""
    last_ok = None
    for p in sorted(pts, key=lambda p: int(p["size_bytes"])):
        app = int(p["accesses_per_pass"])
        rows = [r for r in by.get(p["point_id"], []) if int(r["seq"]) >= app]  # skip the first timed pass
        if miss_fraction(rows, factor * hit) > frac:
            return last_ok, int(p["size_bytes"])
        last_ok = int(p["size_bytes"])
    return last_ok, None


def main():
    runs = sys.argv[1]
    bundles = {}
    for d in sorted(os.listdir(runs)):
        full = os.path.join(runs, d)
        if os.path.exists(os.path.join(full, "bundle.json")):
            bundles[d] = full
    print("# dissect on a real GPU: evidence summary\n")
    first = next(iter(bundles.values()), None)
    if first:
        dev = json.load(open(os.path.join(first, "bundle.json")))["device"]
        keys = ["name", "arch", "sm_count", "sm_clock_khz", "sm_clock_khz_now", "memory_clock_khz", "l2_bytes",
                "shared_per_sm_bytes", "shared_per_block_optin_bytes", "shared_reserved_per_block_bytes",
                "memory_bytes", "driver_version", "nvrtc_version", "nvml", "disassembler"]
        print("| device | value |\n| --- | --- |")
        for k in keys:
            print(f"| {k} | {dev.get(k)} |")

    for name, d in bundles.items():
        b, pts = load(d)
        trace = read_trace(d)
        by = samples_by_point(trace)
        spec = b["spec"]["name"]
        base_cols = [("point", lambda p, r: p["point_id"]), ("axes", lambda p, r: p["axes"]),
                     ("sm", lambda p, r: p["sm_id"]), ("samples", lambda p, r: p["samples"]),
                     ("raw median", raw), ("timer overhead", ovh), ("corrected", corr),
                     ("p5", lambda p, r: fmt(float(p["lat_p5"]))), ("p95", lambda p, r: fmt(float(p["lat_p95"])))]
        if spec in ("gpu_paths_fine", "gpu_l1_latency", "gpu_l2_latency", "gpu_dram_latency"):
            cols = base_cols + [("pass medians", lambda p, r: " ".join(
                fmt(x, 0) for x in pass_medians(r, int(p["accesses_per_pass"]))[:4]) if p["timing_mode"] == "per_access" else "")]
            section_points(spec, b, pts, trace, cols)
        elif spec.startswith("gpu_l1_size"):
            cols = [("N", lambda p, r: int(p["size_bytes"]) // 1024), ("sm", lambda p, r: p["sm_id"]),
                    ("median", raw), ("1st timed pass median", lambda p, r: fmt(med(pass_medians(r, int(p["accesses_per_pass"]))[:1]))),
                    ("2nd pass median", lambda p, r: fmt(med(pass_medians(r, int(p["accesses_per_pass"]))[1:2]))),
                    ("launch", note("launch")), ("dyn shared", note("dynamic_shared_bytes")),
                    ("config", note("shared_config_bytes"))]
            section_points(spec, b, pts, trace, cols)
            small = min(pts, key=lambda p: int(p["size_bytes"]))
            hit = float(small["lat_median"])
            ok, bad = knee(pts, by, hit)
            print(f"\nknee ({spec}): hit median {fmt(hit)} cycles; later passes hit up to N = "
                  f"{ok // 1024 if ok else '?'} KiB, miss (>5 % of accesses > 1.5x hit) from N = "
                  f"{bad // 1024 if bad else 'none'} KiB")
        elif spec == "gpu_phases_sharing":
            print(f"\n### {spec}\n")
            print("| B path | 1st measure of A (before B) median | 2nd measure of A (after B) median | 2nd: share > 1.5x 1st |")
            print("| --- | --- | --- | --- |")
            for p in pts:
                rows = by.get(p["point_id"], [])
                m0 = [float(r["latency"]) for r in rows if r["phase"] == "0"]
                m1 = [float(r["latency"]) for r in rows if r["phase"] == "1"]
                share = sum(1 for x in m1 if x > 1.5 * med(m0)) / len(m1) if m1 else float("nan")
                print(f"| {p['axes']} | {fmt(med(m0))} | {fmt(med(m1))} | {fmt(100 * share)} % |")
        else:
            section_points(spec, b, pts, trace, base_cols)


if __name__ == "__main__":
    main()
