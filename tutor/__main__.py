"""Command line: `python -m tutor ingest|search|ask|eval|calibrate|bench ...`.

Each sub-command is a thin wrapper over the package's Python API; the output is for people, `--json` for tools.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

from tutor.config import index_dir


def _progress_bar():
    from tqdm import tqdm

    bars: dict[str, tqdm] = {}

    def on(p) -> None:
        if p.stage == "done":
            for b in bars.values():
                b.close()
            return
        bar = bars.get(p.stage)
        if bar is None or bar.total != p.total:
            if bar is not None:
                bar.close()
            bar = bars[p.stage] = tqdm(total=p.total, desc=p.stage, unit="file" if p.stage != "embed" else "chunk", leave=False)
        bar.n = p.done
        bar.set_postfix_str(p.file[-30:] if p.file else "")
        bar.refresh()

    return on


def cmd_ingest(args: argparse.Namespace) -> int:
    import resource

    from tutor.embedding import default_embedder
    from tutor.ingest import discover, ingest
    from tutor.shelf import ShelfStore

    items = discover(args.paths, args.klass, args.subject)
    if args.chapter:
        if len(items) != 1:
            print("--chapter names one chapter: give exactly one PDF", file=sys.stderr)
            return 2
        from dataclasses import replace

        items = [replace(items[0], chapter=args.chapter)]
    store = ShelfStore(args.index_dir)
    report = ingest(items, store, default_embedder(), progress=None if args.quiet else _progress_bar(), workers=args.workers)
    for f in report.files:
        line = f"{f.status:9} {f.shelf.klass}/{f.shelf.subject}/{f.file}"
        if f.status == "refused":
            line += f"  REFUSED: {f.error}"
        else:
            line += f"  {f.pages_used}/{f.pages} pages, {f.chunks} chunks  ({f.chapter})"
        print(line)
        for page, reason in f.skipped:
            print(f"          skipped page {page}: {reason}")
        for note in f.notes:
            print(f"          note: {note}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"\n{len(report.files)} file(s): {report.pages} pages and {report.chunks} chunks ingested, "
        f"{len(report.refused)} refused, in {report.seconds:.1f}s; peak memory {peak_mb:.0f} MB "
        f"(extraction workers {children_mb:.0f} MB)"
    )
    return 1 if report.refused and args.strict else 0


def cmd_search(args: argparse.Namespace) -> int:
    from tutor.retrieval import Library

    lib = Library(args.index_dir)
    hits = lib.search(args.question, args.klass, args.subject, k=args.k)
    print("score = cosine similarity of unit vectors: higher is closer, in [-1, 1]")
    for h in hits:
        c = h.chunk
        flag = "" if c.is_evidence else f" [{c.section_kind}: not evidence]"
        print(f"{h.rank + 1}. {h.score:.3f}  {c.chapter} (p. {c.page_start}{'-' + str(c.page_end) if c.page_end != c.page_start else ''}){flag}")
        print(f"   {c.text[:240]}{'…' if len(c.text) > 240 else ''}")
    if args.all_shelves:
        print("\nbest score per shelf:")
        for s in lib.shelf_scores(args.question):
            print(f"  {s.best:.3f}  class {s.key.klass} {s.key.subject}")
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tutor", description="The textbook tutor's command line.")
    ap.add_argument("--index-dir", type=Path, default=None, help="where shelves live (default: data/index or $TUTOR_INDEX_DIR)")
    sub = ap.add_subparsers(dest="cmd", required=True)

    p = sub.add_parser("ingest", help="ingest chapter PDFs into shelves")
    p.add_argument("paths", nargs="+", help="PDF files or folders (class-<class>/<subject>/<file>.pdf needs no flags)")
    p.add_argument("--class", dest="klass", help="class, e.g. 10")
    p.add_argument("--subject", help="subject, e.g. science")
    p.add_argument("--chapter", help="chapter title (one file only); detected from the PDF otherwise")
    p.add_argument("--workers", type=int, default=None, help="extraction processes (default: one per core)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--strict", action="store_true", help="exit 1 when any file is refused")
    p.set_defaults(fn=cmd_ingest)

    p = sub.add_parser("search", help="top-k chunks of a shelf for a question")
    p.add_argument("question")
    p.add_argument("--class", dest="klass", required=True)
    p.add_argument("--subject", required=True)
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--all-shelves", action="store_true", help="also print the best score on every shelf")
    p.set_defaults(fn=cmd_search)

    try:
        from tutor import cli_more

        cli_more.register(sub)
    except ImportError:
        pass

    args = ap.parse_args(argv)
    args.index_dir = args.index_dir or index_dir()
    from tutor.errors import TutorError

    try:
        return int(args.fn(args) or 0)
    except TutorError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
