#!/usr/bin/env python3
"""Compare two ecs_bench JSON runs (before, after) benchmark by benchmark.

    python3 bench/compare.py before.json after.json [--limit 1.05]

Reads the median ns per item of every benchmark present in both files (ns/item = 1e9 /
items_per_second, the figure bench/summarize.py prints) and prints after / before, slowest first,
marking the ones beyond --limit. Exits 0 whatever it finds: the judgement is the reader's (machines
are noisy; rerun the flagged ones before believing them).
"""
import argparse
import json
import sys


def medians(path):
    with open(path) as f:
        data = json.load(f)
    out = {}
    for b in data["benchmarks"]:
        if b.get("aggregate_name", "median") != "median" or "items_per_second" not in b:
            continue
        out[b.get("run_name", b["name"])] = 1e9 / b["items_per_second"]
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("before")
    ap.add_argument("after")
    ap.add_argument("--limit", type=float, default=1.05)
    args = ap.parse_args()
    before, after = medians(args.before), medians(args.after)
    rows = sorted(((after[k] / before[k], k) for k in before if k in after), reverse=True)
    print("| benchmark | before ns/item | after ns/item | after / before |")
    print("|---|---:|---:|---:|")
    for ratio, name in rows:
        flag = " **slower**" if ratio > args.limit else ""
        print(f"| {name} | {before[name]:.3f} | {after[name]:.3f} | {ratio:.2f}x{flag} |")
    slower = sum(1 for ratio, _ in rows if ratio > args.limit)
    print(f"\n{len(rows)} benchmarks in both runs, {slower} beyond {args.limit:.2f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
