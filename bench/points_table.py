#!/usr/bin/env python3
"""A bundle's points.csv as a table: one row per value of the sweep's last axis, one column
per value of the others, each cell the column `--value` (default lat_mean) of that point.
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
        table[key][col] = float(r[a.value])
    print(f"| {a.value} | " + " | ".join(cols) + " |")
    print("| --- |" + " --- |" * len(cols))
    for key in order:
        print(f"| {key} | " + " | ".join(f"{table[key][c]:.1f}" if c in table[key] else "-" for c in cols) + " |")


if __name__ == "__main__":
    main()
