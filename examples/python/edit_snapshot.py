#!/usr/bin/env python3
"""Edit a snapshot of the C++ stress harness from Python, and write it back.

    stress_harness --scene churn --entities 2000 --frames 2 --save world.ecs
    PYTHONPATH=build/python/bindings/python python3 examples/python/edit_snapshot.py world.ecs edited.ecs
    stress_harness --load edited.ecs        # C++ reads the result back and checks it

The module `ecs` (bindings/python) knows the harness's component types under the names the harness
registers for its snapshots, so the snapshot loads as it is. The script
  1. inspects the world: entities, how many of each component, a few values;
  2. edits it: moves every Position 1000 units along x, deletes the entities marked Dying and every
     tenth remaining drone (never a member of a hierarchy, which would leave dangling links), and
     gives five drones a Mass;
  3. writes it back, reloads what it wrote to check it, and prints (or writes, with --summary FILE)
     the summary line `stress_harness --load` prints for the same world, so a test can compare them.
"""
import argparse
import math
import sys

import ecs

COMPONENTS = ["Position", "Velocity", "Acceleration", "Mass", "Color", "Rotation", "Spin", "Scale",
              "Lifetime", "Orbit", "Leader", "Dying", "ecs::LocalTransform", "ecs::WorldTransform",
              "ecs::Parent", "ecs::Children"]
HIERARCHY = ("ecs::Parent", "ecs::Children")


def summary(world):
    """The line snapshot_summary() (examples/stress_harness/snapshot_check.hpp) prints."""
    parts = [f"entities={world.count()}"]
    parts += [f"{name}={len(world.query(name))}" for name in COMPONENTS]
    xs = [world.get(e, "Position")["x"] for e in world.query("Position")]
    if xs:
        parts.append(f"min_x={math.floor(min(xs))} max_x={math.floor(max(xs))}")
    else:
        parts.append("min_x=none max_x=none")
    return " ".join(parts)


def inspect(world):
    print(f"entities: {world.count()}")
    for name in COMPONENTS:
        count = len(world.query(name))
        if count:
            print(f"  {name:22} {count}")
    leaders = world.query("Leader")
    if leaders:
        leader = leaders[0]
        kids = world.get(leader, "ecs::Children")["entities"] if world.has(leader, "ecs::Children") else []
        pos = world.get(leader, "Position")
        print(f"a leader: {leader} at ({pos['x']:.2f}, {pos['y']:.2f}) with {len(kids)} members")
    drones = [e for e in world.query("Lifetime", "Velocity") if not world.has(e, "Leader")]
    for e in drones[:3]:
        life = world.get(e, "Lifetime")
        print(f"a drone: {e} lifetime {life['remaining']:.3f}/{life['total']:.3f}, velocity {world.get(e, 'Velocity')}")


def edit(world):
    moved = 0
    for e in world.query("Position"):
        pos = world.get(e, "Position")
        world.set(e, "Position", {"x": pos["x"] + 1000.0})
        moved += 1
    dying = world.query("Dying")
    for e in dying:
        assert not any(world.has(e, h) for h in HIERARCHY), "Dying entities are drones"
        world.destroy(e)
    drones = [e for e in world.query("Lifetime", "Velocity")
              if not world.has(e, "Leader") and not any(world.has(e, h) for h in HIERARCHY)]
    culled = drones[::10]
    for e in culled:
        world.destroy(e)
    heavy = [e for e in drones if world.alive(e)][:5]
    for e in heavy:
        world.add(e, "Mass", {"value": 42.0})
    print(f"edited: moved {moved} positions by +1000 x, deleted {len(dying)} dying and {len(culled)} drones, "
          f"gave {len(heavy)} drones a Mass")


def main(argv):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("snapshot", help="snapshot written by stress_harness --save")
    parser.add_argument("output", help="where to write the edited snapshot")
    parser.add_argument("--summary", help="also write the summary line of the edited world to this file")
    args = parser.parse_args(argv)

    with open(args.snapshot, "rb") as f:
        world = ecs.load(f.read())
    inspect(world)
    edit(world)
    data = world.serialize()
    with open(args.output, "wb") as f:
        f.write(data)

    # Read back what was written: the same world.
    again = ecs.load(data)
    line = summary(world)
    if summary(again) != line or not again.check_invariants():
        print("edit_snapshot: the written snapshot does not read back as the edited world", file=sys.stderr)
        return 1
    print(f"wrote {args.output}: {len(data)} bytes")
    print(f"summary: {line}")
    if args.summary:
        with open(args.summary, "w") as f:
            f.write(line + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
