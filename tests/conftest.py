"""Shared fixtures; factories live in :mod:`problems.testing`."""

import pytest

from problems import DatabaseSpace


@pytest.fixture
def space32() -> DatabaseSpace:
    return DatabaseSpace(3, 2)
