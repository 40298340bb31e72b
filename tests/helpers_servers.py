"""Real servers the slow tests start on loopback (the app under Streamlit, llama-cpp-python's OpenAI server): a free
port, and a process that is waited for until it answers and always stopped afterwards.
"""
from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@contextmanager
def serving(cmd: list[str], ready: Callable[[], bool], log: Path, *, timeout_s: float, name: str,
            **popen) -> Iterator[subprocess.Popen]:
    """Start `cmd` with its output in `log` (a pipe would fill up and stall the server), wait until `ready()` is true,
    and stop it afterwards. RuntimeError, with the end of the log, when it exits or is not ready within the time."""
    with open(log, "w+b") as out:
        proc = subprocess.Popen(cmd, stdout=out, stderr=subprocess.STDOUT, **popen)
        try:
            deadline = time.monotonic() + timeout_s
            while True:
                try:
                    if ready():
                        break
                except Exception:  # noqa: BLE001 - not listening yet; a server that never answers times out below
                    pass
                if proc.poll() is not None or time.monotonic() > deadline:
                    out.seek(0)
                    why = "exited" if proc.poll() is not None else f"did not start within {timeout_s:g} s"
                    raise RuntimeError(f"{name} {why}:\n{out.read().decode(errors='replace')[-2000:]}")
                time.sleep(0.5)
            yield proc
        finally:
            proc.terminate()
            try:
                proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                proc.kill()
