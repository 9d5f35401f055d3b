"""Snapshots to bytes and back."""
import pytest

import ecs


def make_world(tag_name=None):
    w = ecs.World()
    es = []
    for i in range(50):
        comps = {"Position": {"x": float(i), "y": -float(i)}}
        if i % 2:
            comps["Velocity"] = {"x": 1.0}
        if i % 5 == 0:
            comps["Leader"] = None
        es.append(w.create(comps))
    for e in es[::7]:
        w.destroy(e)
    return w, es


def test_round_trip_keeps_handles_and_values():
    w, es = make_world()
    data = w.serialize()
    assert isinstance(data, bytes) and data[:4] == b"ECS\0"
    copy = ecs.World()
    copy.deserialize(data)
    assert copy.count() == w.count()
    for e in es:
        assert copy.alive(e) == w.alive(e)
        if w.alive(e):
            assert copy.get(e, "Position") == w.get(e, "Position")
            assert copy.has(e, "Velocity") == w.has(e, "Velocity")
            assert copy.has(e, "Leader") == w.has(e, "Leader")
    assert copy.create() == w.create()  # same free list
    assert copy.check_invariants()


def test_load_and_from_bytes():
    w, _ = make_world()
    data = w.serialize()
    assert ecs.load(data).count() == w.count()
    assert ecs.World.from_bytes(data).count() == w.count()


def test_deserialize_into_a_non_empty_world_raises_runtime_error():
    w, _ = make_world()
    data = w.serialize()
    with pytest.raises(RuntimeError, match="must be empty"):
        w.deserialize(data)


def test_bad_snapshots_raise_value_error_and_leave_the_world_empty():
    w, _ = make_world()
    data = w.serialize()
    target = ecs.World()
    for bad in (b"", b"nope", data[: len(data) // 2], data[:-1], b"ECS\0" + b"\xff" * 40):
        with pytest.raises(ValueError):
            target.deserialize(bad)
        assert target.count() == 0
        assert target.check_invariants()
    flipped = bytearray(data)
    flipped[len(flipped) // 2] ^= 0x10
    with pytest.raises(ValueError, match="checksum"):
        target.deserialize(bytes(flipped))
    target.deserialize(data)  # still usable
    assert target.count() == w.count()


def test_python_components_round_trip(unique_name):
    name = unique_name("Inventory")
    ecs.register_component(name, {"owner": "entity", "gold": "uint32", "title": "string", "slots": "int16[4]"})
    w = ecs.World()
    owner = w.create()
    items = []
    for i in range(30):
        items.append(w.create({name: {"owner": owner, "gold": i * 10, "title": "t" * i, "slots": [i, -i, 0, 1]}}))
    loaded = ecs.load(w.serialize())
    for i, e in enumerate(items):
        assert loaded.get(e, name) == {"owner": owner, "gold": i * 10, "title": "t" * i, "slots": [i, -i, 0, 1]}


def test_snapshot_of_hierarchy_components():
    w = ecs.World()
    root = w.create({"ecs::LocalTransform": None, "ecs::WorldTransform": None})
    kids = [w.create({"ecs::Parent": {"entity": root}}) for _ in range(3)]
    w.add(root, "ecs::Children", {"entities": kids})
    loaded = ecs.load(w.serialize())
    assert loaded.get(root, "ecs::Children") == {"entities": kids}
    assert all(loaded.get(k, "ecs::Parent") == {"entity": root} for k in kids)
