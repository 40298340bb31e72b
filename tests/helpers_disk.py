"""A small real filesystem that a test can fill (a tmpfs, where this machine lets a test mount one), for the full-disk
tests of issue 35: `small_disk(folder)` yields whether it is real; `fill(folder)` writes until ENOSPC."""
from __future__ import annotations

import errno
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def small_disk(where: Path, size: str = "1m") -> Iterator[bool]:
    """Mount a tmpfs of `size` on the folder `where` for the block; yields False (nothing mounted) where not allowed."""
    where.mkdir(parents=True, exist_ok=True)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(where)],
                             capture_output=True).returncode == 0
    try:
        yield mounted
    finally:
        if mounted:
            subprocess.run(["umount", str(where)], check=False, capture_output=True)


def fill(where: Path) -> Path:
    """Write a ballast file in `where` until the disk is full; returns it (delete it to free the space)."""
    ballast = where / "ballast"
    try:
        with open(ballast, "wb") as fh:
            while True:
                fh.write(b"\0" * 4096)
                fh.flush()
    except OSError as e:
        assert e.errno == errno.ENOSPC, e
    return ballast
