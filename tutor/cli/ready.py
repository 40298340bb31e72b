"""`python -m tutor ready`: exit 0 when the shared database (`TUTOR_DATABASE_URL`) answers `SELECT 1` within the
policy's `ready_timeout_s`, 1 when it does not, for probes that run a command (the same check as the app's
`GET /ready`, tutor/readiness.py). Without a database it is always ready."""
from __future__ import annotations

import sys


def register(sub) -> None:
    p = sub.add_parser("ready", help="exit 0 when the shared database answers (a readiness probe), 1 when not")
    p.add_argument("--timeout", type=float, default=None,
                   help="seconds to wait (default: the policy's ready_timeout_s)")
    p.set_defaults(fn=cmd_ready)


def cmd_ready(args) -> int:
    from tutor.config import database_url
    from tutor.policy import load_policy
    from tutor.readiness import database_check

    timeout = args.timeout if args.timeout is not None else load_policy().ready_timeout_s
    ok, why = database_check(database_url(), timeout)()
    print(why if ok else f"not ready: {why}", file=sys.stdout if ok else sys.stderr)
    return 0 if ok else 1
