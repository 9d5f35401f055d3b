"""[columnar] World.columns (numpy views of a component's columns) and World.to_records (the
Recorder's columns as numpy arrays). to_records takes comma-separated component names for now."""
import numpy as np
import pytest

import ecs


def make(world, n, with_velocity):
    out = []
    for i in range(n):
        e = world.create({"Position": {"x": float(i), "y": 2.0 * i, "z": -1.0}})
        if with_velocity:
            world.add(e, "Velocity", {"x": 1.0, "y": 0.5, "z": 0.0})
        out.append(e)
    return out


def test_columns_views_one_structured_array_per_table(world):
    make(world, 3, with_velocity=False)
    make(world, 2, with_velocity=True)
    tables = world.columns("Position")
    assert sorted(len(t) for t in tables) == [2, 3]
    for t in tables:
        assert t.dtype.names == ("x", "y", "z")
        assert t.dtype["x"] == np.float32
        assert not t.flags.writeable
    three = next(t for t in tables if len(t) == 3)
    assert list(three["x"]) == [0.0, 1.0, 2.0]
    assert list(three["y"]) == [0.0, 2.0, 4.0]


def test_columns_see_the_worlds_memory(world):
    (e,) = make(world, 1, with_velocity=False)
    (view,) = world.columns("Position")
    world.set(e, "Position", {"x": 42.0})
    assert view["x"][0] == 42.0  # a view, not a copy (valid until the next structural change)


def test_columns_of_a_small_integer_component(world):
    e = world.create({"Color": {"r": 1, "g": 2, "b": 3, "a": 255}})
    (view,) = world.columns("Color")
    assert view.dtype.itemsize == 4
    assert view[0]["a"] == 255 and view.dtype["a"] == np.uint8
    assert world.alive(e)


def test_to_records_names_columns_as_the_recorder(world):
    a = make(world, 2, with_velocity=True)
    make(world, 3, with_velocity=False)
    r = world.to_records("Velocity, Position")
    assert sorted(r) == sorted(["entity_id", "position__x", "position__y", "position__z",
                                "velocity__x", "velocity__y", "velocity__z"])
    assert len(r["entity_id"]) == 2
    ids = sorted(int(v) for v in r["entity_id"])
    assert ids == sorted((e.generation << 32) | e.index for e in a)
    assert r["position__x"].dtype == np.float32
    assert sorted(r["position__x"]) == [0.0, 1.0]
    assert list(r["velocity__y"]) == [0.5, 0.5]
    assert r["position__x"].flags.writeable  # copies
    assert len(world.to_records("Position")["entity_id"]) == 5


def test_to_records_refuses_bad_names(world):
    with pytest.raises(KeyError):
        world.to_records("Nope")
    with pytest.raises(ValueError):
        world.to_records("Position,,Velocity")
    with pytest.raises(ValueError):
        world.to_records("Position, Position")
