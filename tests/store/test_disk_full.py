"""A full disk (issue 35, item 6): a shelf write that runs out of space is undone and named, the live version keeps
serving, and the command line and the Maintainers page say so in words instead of a traceback.

Where this machine lets a test mount one (root in a container that allows it), the disk is a real 1 MiB tmpfs;
elsewhere the same test sees ENOSPC from a patched write, as a full disk raises it.
"""
from __future__ import annotations

import errno
from pathlib import Path

import helpers_disk
import numpy as np
import pytest

from tutor.errors import DiskFull
from tutor.store.shelf import Manifest, ShelfStore

from helpers_safety import EMB, LIGHT


@pytest.fixture
def small_disk(tmp_path, monkeypatch):
    """A folder on a 1 MiB tmpfs and a function that fills it; (folder, fill, real)."""
    where = tmp_path / "disk"
    with helpers_disk.small_disk(where) as mounted:
        def fill() -> None:
            if mounted:
                helpers_disk.fill(where)
            else:  # no mount here: np.save meets a full disk
                def full(*a, **k):
                    raise OSError(errno.ENOSPC, "No space left on device", str(where))
                monkeypatch.setattr(np, "save", full)

        yield where, fill, mounted


def write(store: ShelfStore, chunks) -> str:
    vecs = np.asarray(EMB.embed([c.text for c in chunks]), dtype=np.float32)
    return store.write(Manifest("10", "science", EMB.name, EMB.dim), list(chunks), vecs)


def test_a_shelf_write_on_a_full_disk_is_undone_and_named_and_the_live_version_serves(small_disk):
    where, fill, real = small_disk
    store = ShelfStore(where / "index")
    live = write(store, LIGHT[:2])
    fill()
    with pytest.raises(DiskFull) as e:
        write(store, LIGHT)
    assert "is full (no space left on device)" in str(e.value) and "science is unchanged" in str(e.value)
    assert store.current_version("10", "science") == live
    assert [p.name for p in (where / "index" / "class-10" / "science").iterdir() if p.name.startswith(".")] == []
    assert len(store.load("10", "science").chunks) == 2  # still whole, checksums and all


def test_the_command_line_says_the_disk_is_full_instead_of_a_traceback(tmp_path, monkeypatch, capsys):
    import tutor.ingest.builder as builder
    from tutor.cli import main

    def full(*a, **k):
        raise OSError(errno.ENOSPC, "No space left on device", str(tmp_path / "index" / "chunks.jsonl"))

    monkeypatch.setattr(builder, "ingest", full)
    pdf = Path(__file__).resolve().parents[2] / "data" / "sample" / "library"
    code = main(["--index-dir", str(tmp_path / "index"), "ingest", str(pdf), "--quiet"])
    err = capsys.readouterr().err
    assert code == 2 and "the disk is full (no space left on device)" in err and "Traceback" not in err
    assert "library is unchanged" in err
