"""The staff sign-in throttle: wrong passwords earn a growing wait, and too many lock the sign-in for a while.

Pure bookkeeping over string keys (the app passes one per browser session and one per client address) and an
injectable clock, so a test can drive it without waiting. Nothing here sleeps: a caller asks how long to wait and
refuses the attempt until then, so a guessing script holds no server thread.
"""
from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass


@dataclass
class _Record:
    failures: int = 0
    wait_until: float = 0.0


class LoginThrottle:
    """`free_failures` wrong passwords cost nothing; each further one makes the next attempt wait `delay_s`,
    doubling each time; `max_failures` lock the key for `lockout_s`, after which it starts afresh."""

    MAX_KEYS = 10_000  # a flood of new sessions cannot grow the table without bound

    def __init__(self, free_failures: int, delay_s: float, max_failures: int, lockout_s: float,
                 clock: Callable[[], float] = time.monotonic):
        self.free_failures, self.delay_s = free_failures, delay_s
        self.max_failures, self.lockout_s, self.clock = max_failures, lockout_s, clock
        self._records: dict[str, _Record] = {}
        self._lock = threading.Lock()

    @classmethod
    def from_policy(cls, policy, clock: Callable[[], float] = time.monotonic) -> LoginThrottle:
        return cls(policy.login_free_failures, policy.login_delay_s, policy.login_max_failures,
                   policy.login_lockout_s, clock)

    def wait_s(self, *keys: str) -> float:
        """Seconds before any of these keys may try again (0: now)."""
        now = self.clock()
        with self._lock:
            return max([0.0] + [r.wait_until - now for k in keys if (r := self._records.get(k))])

    def locked(self, *keys: str) -> bool:
        """Whether any of these keys is in its lockout window (not merely waiting out a delay)."""
        now = self.clock()
        with self._lock:
            return any(r.failures >= self.max_failures and r.wait_until > now
                       for k in keys if (r := self._records.get(k)))

    def failed(self, *keys: str) -> float:
        """Record a wrong password for every key; returns the wait it earned."""
        now = self.clock()
        with self._lock:
            self._prune(now)
            waits = []
            for k in keys:
                r = self._records.setdefault(k, _Record())
                if r.failures >= self.max_failures and r.wait_until <= now:
                    r.failures = 0  # the lockout is over: start afresh
                r.failures += 1
                if r.failures >= self.max_failures:
                    r.wait_until = now + self.lockout_s
                elif r.failures > self.free_failures:
                    r.wait_until = now + self.delay_s * 2 ** (r.failures - self.free_failures - 1)
                waits.append(max(0.0, r.wait_until - now))
            return max(waits, default=0.0)

    def succeeded(self, *keys: str) -> None:
        with self._lock:
            for k in keys:
                self._records.pop(k, None)

    def _prune(self, now: float) -> None:
        if len(self._records) < self.MAX_KEYS:
            return
        # drop what no longer holds anyone back (a lockout over, or delays spent), oldest first
        for k in [k for k, r in self._records.items() if r.wait_until <= now]:
            del self._records[k]
            if len(self._records) < self.MAX_KEYS // 2:
                break
