#!/usr/bin/env python3
"""The spec library's findings on one GPU, beside the topology's figures (issue 17).

Usage: bench/library_table.py BUNDLES TOPOLOGY_JSON [--title T] > results/<gpu>/library.md

BUNDLES: a directory laid out as `make -C specs ... OUT=BUNDLES` (or `bench/gpu_session.sh
library`) leaves it: <family>/<bundle>/findings.json. Each finding becomes a row: its value or
"undetermined" and why, and whether it agrees with the topology's figure for the same structure.
"agrees" needs the topology's figure inside what the finding claims (a knee's bracket, an equal
line, bank count, policy); a finding without a topology counterpart says so. The comparison is
mechanical: the curated README beside the table explains the disagreements.
"""
import argparse
import glob
import json
import os
import re

PATH_TO_CACHE = {"ca": "l1", "ldg": "readonly", "tex": "texture", "cg": "l2", "cv": "l2", "const": "constant_l1"}


def fmt_bytes(b):
    if b is None:
        return "-"
    for unit, size in (("GiB", 1 << 30), ("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= size and b % (size // 1024 if size > 1024 else 1) == 0:
            v = b / size
            return f"{v:g} {unit}"
    return f"{b} B"


def spec_path(bundle_dir):
    """The load path the bundle's expanded spec names (for findings without a series)."""
    try:
        text = json.load(open(os.path.join(bundle_dir, "bundle.json")))["spec"]["expanded"]
    except (OSError, KeyError, ValueError, TypeError):
        return ""
    m = re.search(r"^path: *([a-z]+)", text, re.M)
    return m.group(1) if m else ""


def cache_of(bundle, series):
    path = series.get("path", "")
    key = PATH_TO_CACHE.get(path)
    if key == "constant_l1" and "l15" in bundle:
        key = "constant_l15"
    return key


def compare(bundle, f, topo):
    """(topology figure text, agreement) for one finding."""
    caches = topo.get("caches", {})
    d = f.get("details", {})
    series = d.get("series", {})
    v = f.get("value")
    a = f["analyzer"]
    if a == "cache_size":
        key = cache_of(bundle, series)
        c = caches.get(key, {}) if key else {}
        size = c.get("size_bytes")
        if key is None:
            return "-", "no counterpart"
        if size is None:
            lb = c.get("size_lower_bound_bytes")
            fig = f"{key}: > {fmt_bytes(lb)}" if lb else f"{key}: none"
            if v is None:
                return fig, "both undetermined" if not lb else "consistent (no knee)"
            return fig, "no topology figure"
        fig = f"{key}: {fmt_bytes(size)}"
        if v is None:
            return fig, "undetermined here"
        if f.get("unit") == "lines":
            line = c.get("line_bytes")
            lo, hi = d.get("capacity_lines_bracket", [v, v])
            if not line:
                return fig, "no topology line"
            lines = size / line
            fig += f" = {lines:.0f} lines of {line} B"
            if lo <= lines < hi:
                return fig, "agrees"
            # A stride can reach a subset of the sets only: fewer lines fit, never more.
            return fig, "consistent (fewer lines: a subset of the sets at this stride)" if hi <= lines else "DISAGREES"
        lo, hi = d.get("bracket_bytes", [v, v])
        carveout = series.get("carveout", "-1")
        if key in ("l1", "readonly", "texture") and carveout not in ("-1", "0"):
            # The topology sizes the L1 under the default carveout (all the L1 it can get).
            return fig, f"other carveout ({carveout}% shared)"
        if key == "l2" and lo <= size <= hi + (hi - lo):
            # The topology's L2 knee is where a tenth of the accesses miss
            # (specs/topology/l2_size.yaml): at the onset or one grid step past it.
            return fig, "agrees (topology: 10 % missing)"
        return fig, "agrees" if lo <= size < hi else "DISAGREES"
    if a == "line_size":
        key = cache_of(bundle, series)
        c = caches.get(key, {}) if key else {}
        line, fetch = c.get("line_bytes"), c.get("fetch_bytes")
        fig = f"{key}: line {line}, fetch {fetch}" if key else "-"
        if v is None:
            return fig, "undetermined here"
        if v == line:
            return fig, "agrees (line)"
        if v == fetch:
            return fig, "agrees (fetch granularity)"
        return fig, "DISAGREES" if (line or fetch) else "no topology figure"
    if a == "bank_conflicts":
        sh = caches.get("shared", {})
        banks = sh.get("banks")
        fig = f"{banks} banks x {sh.get('bank_width_bytes')} B" if banks else "-"
        if v is None:
            return fig, "undetermined here"
        return fig, ("agrees" if v == banks else "DISAGREES") if banks else "no topology figure"
    if a == "replacement":
        pol = caches.get("l1", {}).get("replacement")
        fig = f"l1: {pol}" if pol else "l1: not claimed"
        if v is None:
            return fig, "undetermined here"
        return fig, ("agrees" if v == pol else "DISAGREES") if pol else "no topology figure"
    if a == "bandwidth":
        bw = topo.get("bandwidth", {})
        kind = "shared" if "shared" in bundle else "global"
        b = bw.get(kind, {}).get("value")
        fig = f"{kind}: {b:.0f} GB/s" if b else "-"
        if v is None:
            return fig, "undetermined here"
        if not b:
            return fig, "no topology figure"
        if "1 SM only" in f.get("summary", "") and kind == "shared":
            return fig, "not comparable (one SM)"
        return fig, "agrees (within 10%)" if abs(v - b) <= 0.1 * b else "differs (other launch shape)"
    if a == "page_size":
        p = topo.get("tlb", {}).get("page_bytes")
        fig = fmt_bytes(p) if p else "-"
        if v is None:
            return fig, "undetermined here"
        known = v in (4096, 65536, 2 << 20, 512 << 20)
        return fig, ("agrees" if v == p else "DISAGREES") if p else ("a page size NVIDIA uses" if known else "NOT A PAGE SIZE NVIDIA USES")
    if a == "tlb":
        levels = topo.get("tlb", {}).get("levels", [])
        covers = [l.get("coverage_bytes") for l in levels if l.get("coverage_bytes")]
        fig = "no level" if not levels else "coverage " + ", ".join(fmt_bytes(c) for c in covers)
        if v is None:
            top = d.get("max_size_bytes")
            if not levels:
                return fig, "consistent (no level)"
            if top and all(c > top for c in covers):
                return fig, "consistent (every level covers more than the sweep)"
            return fig, "see README"
        return fig, "see README"
    return "-", "no counterpart"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("bundles")
    ap.add_argument("topology")
    ap.add_argument("--title", default="")
    args = ap.parse_args()
    topo = json.load(open(args.topology))
    rows = []
    for fj in sorted(glob.glob(os.path.join(args.bundles, "*", "*", "findings.json"))):
        bundle = os.path.basename(os.path.dirname(fj))
        path = spec_path(os.path.dirname(fj))
        for f in json.load(open(fj)).get("findings", []):
            if f["analyzer"] in ("summary", "latency_levels"):
                continue
            f.setdefault("details", {})
            series = f["details"].setdefault("series", {})
            if "path" not in series and path:
                series["path"] = path
            label = " ".join(f"{k}={series[k]}" for k in ("path", "stride_bytes", "carveout") if k in series)
            v = f.get("value")
            conf = f.get("confidence")
            if v is None:
                val = "undetermined"
            elif f.get("unit") == "B":
                val = fmt_bytes(v)
            else:
                val = f"{v:.4g}" if isinstance(v, float) else str(v)
                val = f"{val} {f.get('unit', '')}".strip()
            fig, agree = compare(bundle, f, topo)
            text = f.get("summary", "").replace("|", "/")
            rows.append((bundle, f["analyzer"], label, val, "-" if v is None or conf is None else f"{conf:.2f}", fig, agree, text))
    print(f"# {args.title or 'Spec library findings'}\n")
    print(f"Generated by `bench/library_table.py` from the spec library's bundles and `{args.topology}`;")
    print("`agrees` means the topology's figure lies inside what the finding claims. The README beside this")
    print("file says how the bundles were measured and explains the rows.\n")
    print("| bundle | analyzer | series | value | conf. | topology | agreement | finding |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        print("| " + " | ".join(r) + " |")


if __name__ == "__main__":
    main()
