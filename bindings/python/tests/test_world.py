"""World and Entity: lifecycle, components by name, queries, names, errors."""
import pytest

import ecs


def test_create_returns_a_live_entity(world):
    e = world.create()
    assert isinstance(e, ecs.Entity)
    assert world.alive(e)
    assert world.count() == 1
    assert len(world) == 1


def test_destroy_kills_the_entity_and_reports_it(world):
    e = world.create()
    assert world.destroy(e) is True
    assert not world.alive(e)
    assert world.destroy(e) is False
    assert world.count() == 0


def test_entity_fields_equality_and_hash(world):
    a = world.create()
    b = world.create()
    assert a.index != b.index
    assert a.generation >= 1
    same = ecs.Entity(a.index, a.generation)
    assert same == a and not (same != a)
    assert a != b
    assert hash(same) == hash(a)
    assert len({a, b, same}) == 2
    assert a != "not an entity"
    assert repr(a) == f"Entity(index={a.index}, generation={a.generation})"


def test_reused_slot_gets_a_new_generation(world):
    a = world.create()
    world.destroy(a)
    b = world.create()
    assert b.index == a.index
    assert b.generation != a.generation
    assert not world.alive(a)
    assert world.alive(b)


def test_invalid_entity_is_falsy_and_never_alive(world):
    assert not ecs.INVALID_ENTITY
    assert not world.alive(ecs.INVALID_ENTITY)
    assert ecs.Entity() == ecs.INVALID_ENTITY
    assert world.create()


def test_create_with_components(world):
    e = world.create({"Position": {"x": 1.0, "y": 2.0}, "Velocity": None})
    assert world.get(e, "Position") == {"x": 1.0, "y": 2.0, "z": 0.0}
    assert world.get(e, "Velocity") == {"x": 0.0, "y": 0.0, "z": 0.0}


def test_create_with_a_bad_component_creates_nothing(world):
    with pytest.raises(KeyError):
        world.create({"Position": {}, "NoSuchThing": {}})
    assert world.count() == 0


def test_add_defaults_then_fields(world):
    e = world.create()
    world.add(e, "Position")
    assert world.get(e, "Position") == {"x": 0.0, "y": 0.0, "z": 0.0}
    world.add(e, "Color", {"r": 255, "a": 7})
    assert world.get(e, "Color") == {"r": 255, "g": 0, "b": 0, "a": 7}


def test_add_over_an_existing_component_replaces_it(world):
    e = world.create({"Position": {"x": 1, "y": 2, "z": 3}})
    world.add(e, "Position", {"z": 9})
    assert world.get(e, "Position") == {"x": 0.0, "y": 0.0, "z": 9.0}


def test_set_changes_only_the_given_fields(world):
    e = world.create({"Lifetime": {"remaining": 1.5, "total": 2.0}})
    world.set(e, "Lifetime", {"remaining": 0.25})
    assert world.get(e, "Lifetime") == {"remaining": 0.25, "total": 2.0}


def test_remove_and_has(world):
    e = world.create({"Position": None, "Mass": {"value": 3}})
    assert world.has(e, "Mass")
    assert world.remove(e, "Mass") is True
    assert not world.has(e, "Mass")
    assert world.remove(e, "Mass") is False
    assert world.has(e, "Position")


def test_components_lists_names(world):
    e = world.create({"Position": None, "Spin": {"speed": 2}, "Leader": None})
    assert sorted(world.components(e)) == ["Leader", "Position", "Spin"]


def test_tags_are_empty_dicts(world):
    e = world.create({"Leader": None})
    assert world.get(e, "Leader") == {}
    world.add(e, "Dying", {})
    assert world.has(e, "Dying")


def test_query_by_names(world):
    a = world.create({"Position": None, "Velocity": None})
    b = world.create({"Position": None})
    c = world.create({"Velocity": None})
    assert set(world.query("Position")) == {a, b}
    assert world.query("Position", "Velocity") == [a]
    assert set(world.query("Velocity")) == {a, c}
    assert set(world.query()) == {a, b, c}
    assert set(world.entities()) == {a, b, c}
    assert world.query("Orbit") == []


def test_query_misuse_raises(world):
    with pytest.raises(KeyError):
        world.query("Position", "NoSuchThing")
    with pytest.raises(ValueError):
        world.query("Position", "Position")
    with pytest.raises(TypeError):
        world.query(3)


def test_names(world):
    e = world.create()
    world.set_name(e, "player")
    assert world.name(e) == "player"
    assert world.lookup("player") == e
    assert world.lookup("nobody") is None
    world.set_name(e, "")
    assert world.name(e) == ""
    assert world.lookup("player") is None


def test_a_taken_name_is_refused(world):
    a = world.create()
    b = world.create()
    world.set_name(a, "boss")
    with pytest.raises(ValueError, match="taken"):
        world.set_name(b, "boss")
    assert world.name(b) == ""
    world.set_name(a, "boss")  # its own name again: fine


def test_dead_entities_raise_value_error(world):
    e = world.create({"Position": None})
    world.destroy(e)
    for call in (
        lambda: world.get(e, "Position"),
        lambda: world.add(e, "Position"),
        lambda: world.set(e, "Position", {}),
        lambda: world.remove(e, "Position"),
        lambda: world.set_name(e, "ghost"),
        lambda: world.name(e),
        lambda: world.components(e),
        lambda: world.to_json(e),
    ):
        with pytest.raises(ValueError, match="not alive"):
            call()
    assert not world.has(e, "Position")


def test_unknown_component_names_raise_key_error(world):
    e = world.create()
    with pytest.raises(KeyError):
        world.add(e, "Nope")
    with pytest.raises(KeyError):
        world.get(e, "Nope")
    with pytest.raises(KeyError):
        world.has(e, "Nope")
    with pytest.raises(KeyError):
        world.remove(e, "Nope")


def test_absent_component_raises_key_error(world):
    e = world.create()
    with pytest.raises(KeyError, match="has no Position"):
        world.get(e, "Position")
    with pytest.raises(KeyError):
        world.set(e, "Position", {"x": 1})


def test_describe_and_json(world):
    e = world.create({"Position": {"x": 1.5}, "Mass": {"value": 2}})
    text = world.describe()
    assert "Position" in text and "Mass" in text
    assert world.to_json(e) == '{"Position":{"x":1.5,"y":0,"z":0},"Mass":{"value":2}}'
    assert world.check_invariants()


def test_many_operations_match_a_model(world):
    import random

    rng = random.Random(7)
    model = {}
    for _ in range(2000):
        op = rng.randrange(5)
        if op == 0 or not model:
            e = world.create()
            model[e] = {}
        else:
            e = rng.choice(list(model))
            if op == 1:
                world.destroy(e)
                del model[e]
            elif op == 2:
                x = float(rng.randrange(1000))
                world.add(e, "Position", {"x": x})
                model[e]["Position"] = x
            elif op == 3:
                world.remove(e, "Position")
                model[e].pop("Position", None)
            else:
                try:
                    world.get(e, "Nope")
                except KeyError:
                    pass
    assert world.count() == len(model)
    for e, comps in model.items():
        assert world.alive(e)
        if "Position" in comps:
            assert world.get(e, "Position")["x"] == comps["Position"]
        else:
            assert not world.has(e, "Position")
    assert set(world.query("Position")) == {e for e, c in model.items() if "Position" in c}
    assert world.check_invariants()


def test_query_text(world):
    a = world.create({"Position": None, "Velocity": None})
    b = world.create({"Position": None})
    c = world.create({"Velocity": None, "Leader": None})
    assert set(world.query("Position, !Velocity")) == {b}
    assert set(world.query("Position|Leader")) == {a, b, c}
    assert set(world.query("[in] Velocity, ?Position")) == {a, c}
    assert world.query("Position, Velocity") == [a]
    assert world.query("Velocity, Leader") == [c]
    world.remove(c, "Leader")
    assert world.query("Velocity, Leader") == []


def test_query_text_errors_name_the_word_and_offset(world):
    with pytest.raises(ValueError, match="NoSuchThing"):
        world.query("Position, NoSuchThing")
    with pytest.raises(ValueError, match="byte 10"):
        world.query("Position, NoSuchThing")
    with pytest.raises(ValueError):
        world.query("Position, !")
    with pytest.raises(ValueError):
        world.query("(Position")
    assert world.count() == 0
