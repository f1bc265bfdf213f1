#!/usr/bin/env python3
"""Whether the L2 partition of a line depends only on its address bits below the page:
reads a bundle of bench/gpu/l2_partition_pages.yaml (every SM over the same lines, every
access timed), labels each line near the first or the second SM group of the bundle's
partition_map finding (the group whose SMs see it sooner), and compares the labels at the
same offset in each page. Usage: bench/l2_partition_pages.py BUNDLE_DIR [--page BYTES]"""
import argparse
import json
import os


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("bundle")
    ap.add_argument("--page", type=int, default=2 << 20)
    ap.add_argument("--line", type=int, default=128)
    a = ap.parse_args()
    findings = json.load(open(os.path.join(a.bundle, "findings.json")))
    groups = None
    for f in findings.get("findings", findings if isinstance(findings, list) else []):
        if f.get("analyzer") == "partition_map" and "sm_groups" in f.get("details", {}):
            groups = f["details"]["sm_groups"]
    if not groups or len(groups) != 2 or not groups[1]:
        raise SystemExit(f"{a.bundle}: the partition_map finding has no two SM groups")
    group_of = {sm: 0 for sm in groups[0]}
    group_of.update({sm: 1 for sm in groups[1]})
    sums = {}  # line -> [sum A, n A, sum B, n B]
    with open(os.path.join(a.bundle, "trace.csv")) as t:
        header = t.readline().rstrip("\n").split(",")
        i_off, i_lat, i_sm = header.index("offset_bytes"), header.index("latency"), header.index("sm_id")
        for row in t:
            c = row.split(",")
            g = group_of.get(int(c[i_sm]))
            if g is None:
                continue
            s = sums.setdefault(int(c[i_off]) // a.line, [0.0, 0, 0.0, 0])
            s[2 * g] += float(c[i_lat])
            s[2 * g + 1] += 1
    label = {}
    for line, (sa, na, sb, nb) in sums.items():
        if na and nb:
            label[line] = 1 if sa / na < sb / nb else 0
    per_page = a.page // a.line
    pages = (max(label) // per_page + 1) if label else 0
    print(f"{len(label)} lines labelled, {pages} pages of {a.page} B, groups of {len(groups[0])} and {len(groups[1])} SMs")
    for p in range(pages):
        ls = [label[l] for l in range(p * per_page, (p + 1) * per_page) if l in label]
        print(f"page {p}: {len(ls)} lines, {100.0 * sum(ls) / max(1, len(ls)):.1f} % near the first group")
    for p in range(1, pages):
        both = [(label[o], label[p * per_page + o]) for o in range(per_page) if o in label and p * per_page + o in label]
        same = sum(1 for x, y in both if x == y)
        print(f"page 0 and page {p}: the same label at {100.0 * same / max(1, len(both)):.1f} % of {len(both)} offsets")
    offsets = [o for o in range(per_page) if all(p * per_page + o in label for p in range(pages))]
    alike = sum(1 for o in offsets if len({label[p * per_page + o] for p in range(pages)}) == 1)
    print(f"one label in all {pages} pages: {100.0 * alike / max(1, len(offsets)):.1f} % of {len(offsets)} offsets")


if __name__ == "__main__":
    main()
