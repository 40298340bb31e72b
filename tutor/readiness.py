"""The readiness probe a load balancer asks before it sends students to this app process: `GET /ready` answers 200
while the shared database answers `SELECT 1` within the policy's `ready_timeout_s`, 503 (with the reason) while it
does not. Streamlit's own `/_stcore/health` says `ok` whenever the web server runs, database or not.

Started once per process by the app (ui/resources.py, on the policy's `ready_port`, `TUTOR_READY_PORT`), on a
thread of its own beside Streamlit's server; `python -m tutor ready` asks the same question from a shell (exit 0 or
1) for probes that run a command. A probe that finds the database back also writes the audit log's spooled questions
into it, so questions asked during an outage reach the log even before the next student asks.
"""
from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

Check = Callable[[], tuple[bool, str]]  # (ready, why): what one probe found
_log = logging.getLogger(__name__)


def database_check(url: str | None, timeout_s: float, audit=None) -> Check:
    """The probe of the shared database `url` (none: always ready, the local files need no server); with `audit` (an
    AuditLog) a probe that finds the database answering replays the spool into it."""

    def check() -> tuple[bool, str]:
        if not url:
            return True, "ready (no shared database)"
        from tutor.store.pg_pool import database_answers

        ok, why = database_answers(url, timeout_s)
        if not ok:
            return False, why
        if audit is not None and audit.spooled():
            from tutor.audit.log import AuditUnavailable

            with contextlib.suppress(AuditUnavailable):  # the next probe or the next question tries again
                return True, f"ready; {audit.replay()} spooled question(s) written to the audit log"
        return True, "ready"

    return check


class _Handler(BaseHTTPRequestHandler):
    check: Check

    def do_GET(self) -> None:  # noqa: N802 - the name http.server calls
        if self.path.split("?")[0] not in ("/ready", "/"):
            self._answer(404, "not found: ask /ready")
            return
        try:
            ok, why = self.check()
        except Exception as e:  # noqa: BLE001 - a probe that fails is an answer: not ready
            ok, why = False, f"{type(e).__name__}: {e}"
        self._answer(200 if ok else 503, why if ok else f"not ready: {why}")

    def _answer(self, status: int, text: str) -> None:
        body = (text + "\n").encode()
        self.send_response(status)
        self.send_header("Content-Type", "text/plain; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args) -> None:  # noqa: A002 - a probe every few seconds is not news
        pass


def serve(port: int, check: Check, host: str = "0.0.0.0") -> ThreadingHTTPServer:
    """Answer `GET /ready` on `host:port` with `check`, on a daemon thread (it ends with the process); returns the
    server (`server_address` says the port when 0 asked for any free one; `shutdown()` stops it)."""
    handler = type("ReadinessHandler", (_Handler,), {"check": staticmethod(check)})
    server = ThreadingHTTPServer((host, port), handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name=f"readiness:{server.server_address[1]}", daemon=True).start()
    _log.info("readiness probe on http://%s:%s/ready", host, server.server_address[1])
    return server
