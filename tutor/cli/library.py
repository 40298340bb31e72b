"""`python -m tutor ingest` and `search`: chapter PDFs onto shelves, and the top chunks of a shelf for a question.

Commands import what they use when they run, so `python -m tutor --help` loads no model library.
"""
from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from tutor.cli.options import shelf

if TYPE_CHECKING:
    from tutor.ingest.builder import Progress


def _progress_bar() -> Callable[[Progress], None]:
    """A bar per stage (files read, chunks embedded) under one for the whole ingest: its percentage and time left
    (tutor/ingest/progress.py, the estimate the Maintainers page shows)."""
    from tqdm import tqdm

    from tutor.ingest.progress import eta_text

    bars: dict[str, tqdm] = {}
    overall = tqdm(total=100, desc="estimating…", unit="%", bar_format="overall {percentage:3.0f}%|{bar}| {desc}")

    def on(p: Progress) -> None:
        if p.overall is not None:
            overall.n = round(p.overall * 100)
            overall.set_description_str(eta_text(p.eta_s) if p.stage != "done" else "done")
        if p.stage == "done":
            for b in bars.values():
                b.close()
            overall.close()
            return
        bar = bars.get(p.stage)
        if bar is None or bar.total != p.total:
            if bar is not None:
                bar.close()
            bar = bars[p.stage] = tqdm(total=p.total, desc=p.stage, unit="file" if p.stage != "embed" else "chunk",
                                       leave=False)
        bar.n = p.done
        bar.set_postfix_str(p.file[-30:] if p.file else "")
        bar.refresh()

    return on


def cmd_ingest(args: argparse.Namespace) -> int:
    import resource

    from tutor.config import database_url
    from tutor.ingest.builder import discover, ingest
    from tutor.retrieval.embedding import embedder_by_name
    from tutor.safety.crosslingual import ingest_judge
    from tutor.store.backends import open_store

    items = discover(args.paths, args.klass, args.subject)
    if args.chapter:
        if len(items) != 1:
            print("--chapter names one chapter: give exactly one PDF", file=sys.stderr)
            return 2
        from dataclasses import replace

        items = [replace(items[0], chapter=args.chapter)]
    store = open_store(args.index_dir, database_url())  # the shared database when TUTOR_DATABASE_URL names one
    try:
        embedder = None if args.embedding == "auto" else embedder_by_name(args.embedding)
    except ValueError as e:
        print(f"--embedding: {e}", file=sys.stderr)
        return 2
    report = ingest(items, store, embedder, progress=None if args.quiet else _progress_bar(), workers=args.workers,
                    ocr=not args.no_ocr, cross_judge=ingest_judge())
    if getattr(store, "uploads", None) is not None:  # a database: its PDFs go there too, as an upload's do
        from tutor.ingest.uploads import keep_ingested

        for file in keep_ingested(items, report, store):
            print(f"kept {file} in the database for rebuilds")
    for key, model in report.embedding.items():
        print(f"shelf {key.klass}/{key.subject}: embedded with {model}")
    for key, line in report.cross_lingual.items():
        print(f"shelf {key.klass}/{key.subject}: {line}")
    from tutor.safety.vocabulary import held_back_label

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
        for page, sentence in f.flagged:
            print(f"          HELD BACK page {page}: never quoted ({held_back_label(sentence)}): {sentence}")
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    children_mb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    print(
        f"\n{len(report.files)} file(s): {report.pages} pages and {report.chunks} chunks ingested, "
        f"{len(report.refused)} refused, in {report.seconds:.1f}s; peak memory {peak_mb:.0f} MB "
        f"(extraction workers {children_mb:.0f} MB)"
    )
    if report.refused and not args.allow_refused:
        print(f"exit status 1: {len(report.refused)} file(s) refused (--allow-refused to exit 0 anyway)",
              file=sys.stderr)
        return 1
    return 0


def cmd_search(args: argparse.Namespace) -> int:
    from tutor.config import database_url
    from tutor.retrieval.search import Library
    from tutor.store.backends import open_store

    lib = Library(args.index_dir, store=open_store(args.index_dir, database_url()))
    hits = lib.search(args.question, args.klass, args.subject, k=args.k)
    print("score = cosine similarity of unit vectors: higher is closer, in [-1, 1]")
    for h in hits:
        c = h.chunk
        flag = "" if c.is_evidence else f" [{c.section_kind}: not evidence]"
        pages = f"{c.page_start}{'-' + str(c.page_end) if c.page_end != c.page_start else ''}"
        print(f"{h.rank + 1}. {h.score:.3f}  {c.chapter} (p. {pages}){flag}")
        print(f"   {c.text[:240]}{'…' if len(c.text) > 240 else ''}")
    if args.all_shelves:
        print("\nbest score per shelf:")
        for s in lib.shelf_scores(args.question):
            print(f"  {s.best:.3f}  class {s.key.klass} {s.key.subject}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("ingest", help="ingest chapter PDFs into shelves", parents=[shelf(required=False)])
    p.add_argument("paths", nargs="+", help="PDF files or folders (class-<class>/<subject>/<file>.pdf needs no flags)")
    p.add_argument("--chapter", help="chapter title (one file only); detected from the PDF otherwise")
    p.add_argument("--workers", type=int, default=None, help="extraction processes (default: one per core)")
    p.add_argument("--quiet", action="store_true", help="no progress bar")
    p.add_argument("--allow-refused", action="store_true",
                   help="exit 0 even when some files were refused (by default a refused file makes the exit status 1)")
    p.add_argument("--strict", action="store_true", help=argparse.SUPPRESS)  # the default now; kept for old scripts
    p.add_argument("--embedding", default="auto",
                   help="embedding model of new shelves: auto, multilingual-e5-small or "
                        "sentence-transformers/all-MiniLM-L6-v2; auto: multilingual-e5-small for a shelf with Hindi "
                        "chapters, MiniLM otherwise (an existing shelf keeps its model)")
    p.add_argument("--no-ocr", action="store_true", help="do not OCR damaged Hindi pages (they are left out)")
    p.set_defaults(fn=cmd_ingest)

    p = sub.add_parser("search", help="top-k chunks of a shelf for a question", parents=[shelf(required=True)])
    p.add_argument("question")
    p.add_argument("-k", type=int, default=5)
    p.add_argument("--all-shelves", action="store_true", help="also print the best score on every shelf")
    p.set_defaults(fn=cmd_search)
