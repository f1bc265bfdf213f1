#!/usr/bin/env python3
"""A bundle's points.csv as a table: one column per value of the sweep's first axis, one row
per combination of the others (zipped axes move together), each cell the column `--value`
(default lat_mean) of that point; "-" where a point is missing or has no value, and the
mean where several points share a cell (repeats, a search's copies).
Usage: bench/points_table.py BUNDLE/points.csv [--value lat_mean]"""
import argparse
import csv


def axes_of(row):
    return [tuple(kv.split("=", 1)) for kv in row["axes"].split("; ") if "=" in kv]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("points")
    ap.add_argument("--value", default="lat_mean")
    a = ap.parse_args()
    rows = [r for r in csv.DictReader(open(a.points)) if r.get("status") == "ok"]
    if not rows:
        raise SystemExit(f"{a.points}: no completed point")
    # The first axis names the columns; the rest (zipped axes move together) the rows.
    cols, table, order = [], {}, []
    for r in rows:
        ax = axes_of(r)
        col = "=".join(ax[0]) if ax else "value"
        key = "; ".join("=".join(kv) for kv in ax[1:]) or "-"
        if col not in cols:
            cols.append(col)
        if key not in table:
            table[key] = {}
            order.append(key)
        v = r.get(a.value, "")
        if v not in ("", None):
            table[key].setdefault(col, []).append(float(v))
    print(f"| {a.value} | " + " | ".join(cols) + " |")
    print("| --- |" + " --- |" * len(cols))
    for key in order:
        cells = [sum(table[key][c]) / len(table[key][c]) if table[key].get(c) else None for c in cols]
        print(f"| {key} | " + " | ".join("-" if v is None else f"{v:.1f}" for v in cells) + " |")


if __name__ == "__main__":
    main()
