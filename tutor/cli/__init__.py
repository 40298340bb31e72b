"""The command line: `python -m tutor ingest|search|release|releases|ask|eval|followups|calibrate|recall|hand-check|
bench|bench-reader|bench-concurrency|bench-load|bench-pgvector|bench-pgshelf|llm-model|train-reader|ready ...`. Each
sub-command is a thin wrapper over the package's Python API; the output is for people, `--json` for tools. Options
several commands share are written once, in options.py; the commands live by group in library.py, releases.py
(release, releases), ask.py, evaluation.py, load.py (bench-load, bench-pgvector, bench-pgshelf), reader.py, models.py
and ready.py (the readiness probe).
"""
from __future__ import annotations

import argparse
import sys
from pathlib import Path

from tutor.cli import ask, evaluation, library, load, models, reader, ready, releases, replay
from tutor.config import index_dir


def build_parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser(prog="python -m tutor", description="The textbook tutor's command line.")
    ap.add_argument("--index-dir", type=Path, default=None,
                    help="where shelves live (default: data/index or $TUTOR_INDEX_DIR)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    library.register(sub)  # ingest, search
    releases.register(sub)  # release, releases
    ask.register(sub)
    evaluation.register(sub)  # eval, followups, calibrate, recall, hand-check, bench-reader, bench-concurrency
    models.register(sub)  # llm-model
    reader.register(sub)  # train-reader
    replay.register(sub)  # record-reader, replay-reader
    evaluation.register_bench(sub)
    load.register(sub)  # bench-load
    ready.register(sub)  # ready
    return ap


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    args.index_dir = args.index_dir or index_dir()
    from tutor.errors import TutorError, is_disk_full

    try:
        return int(args.fn(args) or 0)
    except TutorError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except OSError as e:
        if not is_disk_full(e):
            raise
        # shelves and the audit log are swapped in or appended only when complete: nothing was half-changed
        print(f"error: the disk is full (no space left on device) writing {e.filename or 'a file'}: free some space "
              "and run it again; the library is unchanged", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
