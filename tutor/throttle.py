"""The staff sign-in throttle: wrong passwords earn a growing wait, and too many lock the sign-in for a while.

The rule is a pure step over one key's record (`next_record`) on an injectable wall clock; where the records are kept
is a store: in memory here (`MemoryStore`, for tests and as the fallback), in the audit database for the app
(tutor/audit/sign_in.py), so a server restart or Streamlit's `clear_cache` message cannot reset them. The app keys
each attempt by the account and the client's address (`client_address`, `sign_in_key`): one client's wrong
passwords never hold back another client. Nothing here sleeps: a caller asks how long to wait and refuses the attempt
until then, so a guessing script holds no server thread.
"""
from __future__ import annotations

import ipaddress
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Protocol


@dataclass(frozen=True)
class Record:
    """One key's wrong passwords so far, until when it must wait (wall-clock seconds), and when it last failed."""

    failures: int = 0
    wait_until: float = 0.0
    last_failure: float = 0.0


class ThrottleStore(Protocol):
    """Where the records live: read some keys, change one key atomically, forget keys."""

    def records(self, keys: Iterable[str]) -> dict[str, Record]: ...

    def update(self, key: str, step: Callable[[Record], Record]) -> Record: ...

    def forget(self, keys: Iterable[str]) -> None: ...

    def prune(self, before: float) -> None:
        """Drop records whose last wrong password and wait both ended before `before`."""


class MemoryStore:
    """Records in this process's memory (tests, and the audit store's fallback while its database fails)."""

    MAX_KEYS = 10_000  # a flood of new keys cannot grow the table without bound

    def __init__(self) -> None:
        self._records: dict[str, Record] = {}
        self._lock = threading.Lock()

    def records(self, keys: Iterable[str]) -> dict[str, Record]:
        with self._lock:
            return {k: r for k in keys if (r := self._records.get(k)) is not None}

    def update(self, key: str, step: Callable[[Record], Record]) -> Record:
        with self._lock:
            if len(self._records) >= self.MAX_KEYS:
                self._prune()
            new = self._records[key] = step(self._records.get(key, Record()))
            return new

    def forget(self, keys: Iterable[str]) -> None:
        with self._lock:
            for k in keys:
                self._records.pop(k, None)

    def prune(self, before: float) -> None:
        with self._lock:
            for k in [k for k, r in self._records.items() if r.last_failure < before and r.wait_until < before]:
                del self._records[k]

    def _prune(self) -> None:
        # drop what holds no one back now (a lockout over, or delays spent), oldest first, down to half
        now = time.time()
        idle = sorted((r.last_failure, k) for k, r in self._records.items() if r.wait_until <= now)
        for _, k in idle[: max(0, len(self._records) - self.MAX_KEYS // 2)]:
            del self._records[k]


class LoginThrottle:
    """`free_failures` wrong passwords cost nothing; each further one makes the next attempt wait `delay_s`,
    doubling each time; `max_failures` lock the key for `lockout_s`, after which it starts afresh. A key with no
    wrong password for `lockout_s` starts afresh too (a forgotten password last term does not count today)."""

    def __init__(self, free_failures: int, delay_s: float, max_failures: int, lockout_s: float,
                 clock: Callable[[], float] = time.time, store: ThrottleStore | None = None, trusted=()):
        self.free_failures, self.delay_s = free_failures, delay_s
        self.trusted = tuple(trusted)  # the proxies whose X-Forwarded-For names the client (`client_address`)
        self.max_failures, self.lockout_s, self.clock = max_failures, lockout_s, clock
        self.store: ThrottleStore = store if store is not None else MemoryStore()

    @classmethod
    def from_policy(cls, policy, clock: Callable[[], float] = time.time,
                    store: ThrottleStore | None = None) -> LoginThrottle:
        return cls(policy.login_free_failures, policy.login_delay_s, policy.login_max_failures,
                   policy.login_lockout_s, clock, store, parse_networks(policy.trusted_proxies))

    def wait_s(self, *keys: str) -> float:
        """Seconds before any of these keys may try again (0: now)."""
        now = self.clock()
        return max([0.0] + [r.wait_until - now for r in self.store.records(keys).values()])

    def locked(self, *keys: str) -> bool:
        """Whether any of these keys is in its lockout window (not merely waiting out a delay)."""
        now = self.clock()
        return any(r.failures >= self.max_failures and r.wait_until > now
                   for r in self.store.records(keys).values())

    def failed(self, *keys: str) -> float:
        """Record a wrong password for every key; returns the wait it earned."""
        now = self.clock()
        self.store.prune(now - self.lockout_s)  # a key idle that long starts afresh anyway
        waits = [self.store.update(k, lambda r: self.next_record(r, now)).wait_until - now for k in keys]
        return max([0.0] + waits)

    def succeeded(self, *keys: str) -> None:
        self.store.forget(keys)

    def next_record(self, r: Record, now: float) -> Record:
        """The record after one more wrong password at `now` (pure)."""
        failures = r.failures
        if (failures >= self.max_failures and r.wait_until <= now) or now - r.last_failure > self.lockout_s:
            failures = 0  # the lockout is over, or the last wrong password is long past: start afresh
        failures += 1
        wait_until = r.wait_until if failures > 1 else 0.0
        if failures >= self.max_failures:
            wait_until = now + self.lockout_s
        elif failures > self.free_failures:
            wait_until = now + self.delay_s * 2 ** (failures - self.free_failures - 1)
        return Record(failures, wait_until, now)


# ---------------------------------------------------------------------------------------------- who is asking
def parse_networks(spec: str) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """`TUTOR_TRUSTED_PROXIES`'s value: comma-separated addresses or networks ("127.0.0.1, 10.0.0.0/8");
    ValueError naming the first one that is neither."""
    nets = []
    for part in (p.strip() for p in spec.split(",")):
        if not part:
            continue
        try:
            nets.append(ipaddress.ip_network(part, strict=False))
        except ValueError as e:
            raise ValueError(f"{part!r} is not an IP address or network") from e
    return tuple(nets)


def _ip(text: str):
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def client_address(peer: str | None, forwarded_for: str | None, trusted=()) -> str:
    """The address a sign-in attempt counts against.

    `peer` is the address the connection came from as Streamlit reports it (None: loopback). X-Forwarded-For is read
    only when the connection came from one of the `trusted` proxies: then the client is the right-most address in it
    that is not itself a trusted proxy (what the nearest proxy saw; anything further left is the client's own claim).
    With no trusted proxy configured the header is ignored, so a client cannot pick its own key.

    Streamlit's web server (uvicorn, FORWARDED_ALLOW_IPS) already replaces a loopback connection's address by the
    right-most non-loopback address of its X-Forwarded-For; a peer that is one of the header's addresses is read as
    that loopback connection, before the rule above."""
    loopback = ipaddress.ip_address("127.0.0.1")
    addr = _ip(peer) if peer else loopback
    if addr is None:
        return str(peer)
    hops = [h for h in (_ip(p) for p in (forwarded_for or "").split(",")) if h is not None]
    if addr in hops and not addr.is_loopback and addr == next((h for h in reversed(hops) if not h.is_loopback), None):
        addr = loopback
    while trusted and hops and any(addr in n for n in trusted):
        addr = hops.pop()
    return "loopback" if addr.is_loopback else str(addr)


def sign_in_key(account: str, client: str) -> str:
    """The throttle's key for one account from one client: a lockout holds back only that pair."""
    return f"{account}|client:{client}"
