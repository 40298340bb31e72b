"""The staff sign-in throttle against a running app, spoken to over its real websocket (`/_stcore/stream`) the way
any script can, without a browser: Streamlit's `clear_cache` message from an anonymous client does not reset a
lockout, and behind a trusted proxy one client's lockout does not hold back another client (issue 35, item 4).

Each test starts `streamlit run app.py` on a free loopback port (TUTOR_EMBEDDER=hash, an empty library) with a
throttle that locks after two wrong passwords, and drives the Maintainers page's sign-in form with protobuf BackMsgs
(the widget ids are read from the page the server sent).
"""
from __future__ import annotations

import os
import sys
import urllib.request
from contextlib import contextmanager

import pytest
from helpers_paths import REPO

from helpers_servers import free_port, serving

pytestmark = pytest.mark.slow

ws_client = pytest.importorskip("websockets.sync.client", reason="websockets ships with streamlit")
from streamlit.proto.BackMsg_pb2 import BackMsg  # noqa: E402
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg  # noqa: E402

RIGHT, WRONG = "spanner", "hammer"


@contextmanager
def app_server(tmp, **env_extra):
    secrets = tmp / "secrets.toml"
    secrets.write_text(f'maintainer_password = "{RIGHT}"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("TUTOR_DATABASE_URL", "TUTOR_TRUSTED_PROXIES")}
    env.update(TUTOR_EMBEDDER="hash", TUTOR_READER="false", TUTOR_INDEX_DIR=str(tmp / "index"),
               TUTOR_AUDIT_DB=str(tmp / "audit.sqlite3"), TUTOR_DATA_DIR=str(tmp / "data"),
               TUTOR_LOGIN_FREE_FAILURES="1", TUTOR_LOGIN_MAX_FAILURES="2", TUTOR_LOGIN_LOCKOUT_S="600", **env_extra)
    port = free_port()
    cmd = [sys.executable, "-m", "streamlit", "run", "app.py", "--server.headless", "true", "--server.port", str(port),
           "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false", "--secrets.files", str(secrets)]
    url = f"http://127.0.0.1:{port}"
    with serving(cmd, lambda: urllib.request.urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok",
                 tmp / "streamlit.log", timeout_s=120, name="streamlit", cwd=REPO, env=env):
        yield port


class Client:
    """One browser tab's worth of protocol: a websocket session that runs the Maintainers page and fills its form."""

    def __init__(self, port: int, forwarded_for: str | None = None):
        headers = {"X-Forwarded-For": forwarded_for} if forwarded_for else None
        self._connection = ws_client.connect(f"ws://127.0.0.1:{port}/_stcore/stream", subprotocols=["streamlit"],
                                             additional_headers=headers, open_timeout=30, max_size=None)
        self.elements: list = []

    def __enter__(self) -> Client:
        self.ws = self._connection.__enter__()
        return self

    def __exit__(self, *exc) -> None:
        self._connection.__exit__(*exc)

    def send(self, msg: BackMsg) -> None:
        self.ws.send(msg.SerializeToString())

    def run(self, widget_states=()) -> list:
        """Run the Maintainers page (with these widget values) and return the elements of the run that finished it."""
        msg = BackMsg()
        msg.rerun_script.page_name = "maintainers"
        for w in widget_states:
            msg.rerun_script.widget_states.widgets.append(w)
        self.send(msg)
        elements = []
        while True:
            fwd = ForwardMsg()
            fwd.ParseFromString(self.ws.recv(timeout=120))
            kind = fwd.WhichOneof("type")
            if kind == "new_session":
                elements = []  # a run starts (the form's st.rerun starts another)
            elif kind == "delta" and fwd.delta.WhichOneof("type") == "new_element":
                elements.append(fwd.delta.new_element)
            elif kind == "script_finished" and fwd.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN:
                self.elements = elements
                return elements

    def _id(self, kind: str, label: str) -> str:
        return next(getattr(e, kind).id for e in self.elements
                    if e.WhichOneof("type") == kind and getattr(e, kind).label == label)

    def sign_in(self, password: str) -> str:
        """Type `password`, press Sign in; what the page says afterwards (its alerts and whether the uploader shows)."""
        if not self.elements:
            self.run()
        from streamlit.proto.WidgetStates_pb2 import WidgetState

        pw = WidgetState(id=self._id("text_input", "Password"), string_value=password)
        button = WidgetState(id=self._id("button", "Sign in"), trigger_value=True)
        els = self.run([pw, button])
        said = [e.alert.body for e in els if e.WhichOneof("type") == "alert"]
        if any(e.WhichOneof("type") == "file_uploader" for e in els):
            said.append("SIGNED IN")
        return "\n".join(said)


def lock_out(client: Client) -> None:
    assert "not right. Please try again" in client.sign_in(WRONG)
    assert "sign-in is locked for 10 minute(s)" in client.sign_in(WRONG)


def test_clear_cache_over_the_websocket_does_not_reset_a_lockout(tmp_path):
    with app_server(tmp_path) as port, Client(port) as guesser:
        lock_out(guesser)
        clear = BackMsg()
        clear.clear_cache = True  # what any anonymous client may send; it empties st.cache_resource for everyone
        guesser.send(clear)
        guesser.run()  # the server has handled the message before it runs the page again
        assert "locked" in guesser.sign_in(RIGHT)
        with Client(port) as fresh:  # a new session from the same address, after the cache was cleared
            said = fresh.sign_in(RIGHT)
            assert "sign-in is locked" in said and "SIGNED IN" not in said


def test_behind_a_trusted_proxy_one_clients_lockout_does_not_hold_back_another(tmp_path):
    with app_server(tmp_path, TUTOR_TRUSTED_PROXIES="127.0.0.1,::1") as port, \
            Client(port, "203.0.113.7") as student, Client(port, "198.51.100.2") as teacher:
        lock_out(student)
        said = teacher.sign_in(RIGHT)
        assert "SIGNED IN" in said and "locked" not in said
        with Client(port, "203.0.113.7") as again:  # the student's address stays locked, in a new session too
            assert "locked" in again.sign_in(RIGHT)


def test_without_a_trusted_proxy_the_forwarded_header_cannot_pick_a_fresh_key(tmp_path):
    with app_server(tmp_path) as port, Client(port, "203.0.113.7") as guesser:
        lock_out(guesser)
        with Client(port, "198.51.100.99") as other:  # the same loopback client claiming another address
            said = other.sign_in(RIGHT)
            assert "locked" in said and "SIGNED IN" not in said
