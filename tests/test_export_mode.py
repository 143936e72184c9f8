"""Atomically written files get the mode the umask gives an ordinary ``open`` (not mkstemp's 0600)."""

import os
import stat
import sys

import pytest

from problems.export import atomic_write_text

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX permission bits")


@pytest.mark.parametrize("mask", [0o022, 0o077, 0o002])
def test_atomic_write_respects_umask(tmp_path, mask):
    old = os.umask(mask)
    try:
        path = atomic_write_text(tmp_path / "f.txt", "x")
        plain = tmp_path / "plain.txt"
        plain.write_text("x")
    finally:
        os.umask(old)
    mode = stat.S_IMODE(path.stat().st_mode)
    assert mode == 0o666 & ~mask
    assert mode == stat.S_IMODE(plain.stat().st_mode)
    assert os.umask(old) == old  # the umask is restored
    os.umask(old)


def test_overwrite_keeps_umask_mode(tmp_path):
    old = os.umask(0o022)
    try:
        atomic_write_text(tmp_path / "g.txt", "1")
        path = atomic_write_text(tmp_path / "g.txt", "2")
    finally:
        os.umask(old)
    assert path.read_text() == "2"
    assert stat.S_IMODE(path.stat().st_mode) == 0o644
