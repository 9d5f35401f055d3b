"""pytest configuration: the tests import the built module `ecs` (PYTHONPATH points at it).

An import failure is an error of every test, never a skip: CI must not pass without the module.
"""
import itertools

import pytest

import ecs  # noqa: F401  (fails loudly when the module was not built or PYTHONPATH is wrong)

_counter = itertools.count()


@pytest.fixture
def world():
    return ecs.World()


@pytest.fixture
def unique_name():
    """A component name no other test uses (component types are process-wide)."""

    def make(prefix="Py"):
        return f"{prefix}{next(_counter)}"

    return make
