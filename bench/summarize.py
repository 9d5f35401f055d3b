#!/usr/bin/env python3
"""Summarise ecs_bench JSON output as a Markdown table of ns per item, with ratios to twins.

Usage:
    ecs_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true \
              --benchmark_format=json > run.json
    python3 bench/summarize.py run.json [--n 1000000] [--targets]

ns/item is 1e9 / items_per_second of the median aggregate (Google Benchmark divides by the manual
time for manually timed benchmarks and by CPU time otherwise). "cv" is the coefficient of variation
of items_per_second over the repetitions: the run's noise.
"""
import argparse
import json
import re
import sys

# benchmark family -> the family it is read against (its raw twin, or the direct path).
TWINS = {
    "BM_Create": "BM_Raw_Create",
    "BM_Destroy": "BM_Raw_Destroy",
    "BM_AddRemove": "BM_Raw_AddRemove",
    "BM_Iterate2_Each": "BM_Raw_Iterate2",
    "BM_Iterate2_EachNoEntity": "BM_Raw_Iterate2",
    "BM_Iterate3Fragmented": "BM_Raw_Iterate3Fragmented",
    "BM_Iterate3Fragmented_Each": "BM_Raw_Iterate3Fragmented",
    "BM_GetRandom": "BM_Raw_GetRandom",
    "BM_DeferredDestroy": "BM_DeferredDestroy_Direct",
    "BM_DeferredDestroy_CommandBuffer": "BM_DeferredDestroy_Direct",
    "BM_DeferredAdd": "BM_DeferredAdd_Direct",
    "BM_DeferredAdd_CommandBuffer": "BM_DeferredAdd_Direct",
    "BM_DeferredRemove": "BM_DeferredRemove_Direct",
    "BM_DeferredRemove_CommandBuffer": "BM_DeferredRemove_Direct",
    "BM_Sort": "BM_Raw_Sort",
    "BM_Serialize": "BM_Raw_SnapshotMemcpy",
    "BM_Deserialize": "BM_Raw_SnapshotMemcpy",
    "BM_PrefabInstantiate": "BM_PrefabCreateWithTwin",
    "BM_PrefabInstantiate_Override": "BM_PrefabCreateWithTwin",
    "BM_PropagateTransforms": "BM_Raw_PropagateTransforms",
}

# Second twins: a family also read against a hand-written baseline of its own design (#20).
SECOND_TWINS = {
    "BM_GetRandom": "BM_Raw_GetRandomTwoLevel",
}

# Targets of issue 20, ratios to the twin at every N listed ("x"), or ns at 1M ("ns").
TARGETS_20 = {
    "BM_Create": ("x", 1.6),
    "BM_GetRandom": ("x", 3.0),
    "BM_AddRemove": ("ns", 15.0),
    "BM_Destroy": ("ns", 6.0),
}

# Targets of issue 7 at N = 1M: absolute ns/item ("ns") or ratio to the twin ("x").
TARGETS = {
    "BM_Create": ("ns", 15.0),
    "BM_Destroy": ("ns", 8.0),
    "BM_Iterate2_Each": ("x", 1.1),
    "BM_Iterate2_EachNoEntity": ("x", 1.1),
    "BM_Iterate3Fragmented": ("x", 1.2),
    "BM_Iterate3Fragmented_Each": ("x", 1.2),
    "BM_AddRemove": ("ns", 20.0),
    "BM_GetRandom": ("ns", 15.0),
    "BM_DeferredDestroy": ("ns", 12.0),
}


def load(paths):
    rows = {}
    for path in paths:
        with open(path) as f:
            data = json.load(f)
        for b in data["benchmarks"]:
            name = b.get("run_name", b["name"])
            m = re.match(r"^(BM_[A-Za-z0-9_]+)/(\d+)", name)
            if not m:
                continue
            key = (m.group(1), int(m.group(2)))
            agg = b.get("aggregate_name", "median" if b.get("run_type") == "iteration" else None)
            if agg not in ("median", "cv"):
                continue
            entry = rows.setdefault(key, {})
            if agg == "median" and "items_per_second" in b:
                entry["ns"] = 1e9 / b["items_per_second"]
                entry["counters"] = {k: v for k, v in b.items() if k.endswith("per_cmd")}
            elif agg == "cv" and "items_per_second" in b:
                entry["cv"] = b["items_per_second"]
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("json", nargs="+")
    ap.add_argument("--n", type=int, default=None, help="only this N")
    ap.add_argument("--targets", action="store_true", help="add issue 7's targets (N = 1M rows)")
    ap.add_argument("--issue20", action="store_true", help="with --targets: issue 20's targets instead")
    args = ap.parse_args()
    rows = load(args.json)
    header = "| benchmark | N | ns/item (median) | cv | twin | twin ns/item | ratio |"
    if args.targets:
        header += " target | met |"
    print(header)
    print("|" + "---|" * (header.count("|") - 1))
    items = []
    for (family, n), r in sorted(rows.items()):
        items.append((family, n, r, TWINS.get(family)))
        if family in SECOND_TWINS:
            items.append((family, n, r, SECOND_TWINS[family]))
    for family, n, r, twin in items:
        if args.n is not None and n != args.n or "ns" not in r:
            continue
        twin_ns = rows.get((twin, n), {}).get("ns") if twin else None
        ratio = r["ns"] / twin_ns if twin_ns else None
        cv = f"{100 * r['cv']:.1f}%" if "cv" in r else ""
        line = (f"| {family} | {n} | {r['ns']:.2f} | {cv} | {twin or ''} | "
                f"{'' if twin_ns is None else f'{twin_ns:.2f}'} | {'' if ratio is None else f'{ratio:.2f}x'} |")
        if args.targets:
            target, met = "", ""
            goal = TARGETS_20.get(family) if args.issue20 else TARGETS.get(family)
            if args.issue20 and family in SECOND_TWINS and twin == SECOND_TWINS[family]:
                goal = None
            if goal is not None:
                kind, value = goal
                target = f"<= {value:g} {'ns' if kind == 'ns' else 'x'}"
                got = r["ns"] if kind == "ns" else ratio
                met = "" if got is None else ("yes" if got <= value else "**no**")
            line += f" {target} | {met} |"
        print(line)
    return 0


if __name__ == "__main__":
    sys.exit(main())
