"""`python -m tutor release` and `releases`: let the tutor quote a sentence it holds back, and list who released what.

A release is checked against the shelf before it is written: the sentence must be one that ingest held back on that
page of that chapter (as `ingest` lists it, "HELD BACK page N"), so a typo releases nothing. The records live in the
audit database (tutor/audit/releases.py); running app processes pick them up within `release_refresh_s` seconds.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import asdict

from tutor.cli.options import shelf


def _audit():
    from tutor.build import open_audit
    from tutor.config import audit_db_path, database_url

    return open_audit(audit_db_path(), database_url())


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime(ts))


def _held_there(args: argparse.Namespace) -> str:
    """Why the sentence is not held back on that page of that chapter of the shelf ("" when it is)."""
    from tutor.audit.releases import listed
    from tutor.config import database_url
    from tutor.store.backends import open_store

    manifest = open_store(args.index_dir, database_url()).manifest(args.klass, args.subject)
    entry = manifest.chapters.get(args.file) if manifest else None
    if entry is None:
        return f"shelf {args.klass}/{args.subject} has no chapter file {args.file}"
    if listed(entry.flagged, args.page, args.sentence):
        return ""
    here = [f["sentence"] for f in entry.flagged if int(f["page"]) == args.page]
    return (f"{args.file} page {args.page} holds back no such sentence; held back there: "
            + ("; ".join(here) if here else "none"))


def cmd_release(args: argparse.Namespace) -> int:
    from tutor.audit import releases

    audit = _audit()
    if args.withdraw:
        n = releases.withdraw(audit, args.sentence, args.by)
        print(f"withdrew {n} release(s) of that sentence: it is held back again" if n else
              "that sentence has no standing release: nothing withdrawn")
        return 0 if n else 1
    if not (args.klass and args.subject and args.file and args.page):
        print("release: --class, --subject, --file and --page say where the sentence is held back", file=sys.stderr)
        return 2
    problem = _held_there(args)
    if problem:
        print(f"error: not released: {problem}", file=sys.stderr)
        return 2
    r = releases.release(audit, args.sentence, args.klass, args.subject, args.file, args.page, args.by)
    print(f"released by {r.released_by} at {_when(r.released_at)}: {r.sentence}")
    return 0


def cmd_releases(args: argparse.Namespace) -> int:
    from tutor.audit import releases

    found = releases.releases(_audit(), standing_only=not args.all)
    if args.json:
        print(json.dumps([asdict(r) for r in found], ensure_ascii=False, indent=1))
        return 0
    if not found:
        print("no sentence is released: every held-back sentence stays held back")
    for r in found:
        state = "released " if r.active else f"withdrawn by {r.withdrawn_by} at {_when(r.withdrawn_at or 0)}, "
        print(f"{state}by {r.released_by} at {_when(r.released_at)}: {r.klass}/{r.subject}/{r.file} page {r.page}"
              f" ({r.reason}): {r.sentence}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("release", parents=[shelf(required=False)],
                       help="let the tutor quote a sentence it holds back for a web or e-mail address (or --withdraw)")
    p.add_argument("--file", help="the chapter's file on the shelf, as `ingest` names it")
    p.add_argument("--page", type=int, help="the page `ingest` listed the sentence on (HELD BACK page N)")
    p.add_argument("--sentence", required=True, help="the held-back sentence, as `ingest` printed it")
    p.add_argument("--by", required=True, help="the maintainer's name, recorded with the release")
    p.add_argument("--withdraw", action="store_true",
                   help="withdraw the sentence's releases instead (held back again; --class etc. not needed)")
    p.set_defaults(fn=cmd_release)

    p = sub.add_parser("releases", help="list the released sentences: who, when, where")
    p.add_argument("--all", action="store_true", help="withdrawn releases too")
    p.add_argument("--json", action="store_true", help="as JSON")
    p.set_defaults(fn=cmd_releases)
