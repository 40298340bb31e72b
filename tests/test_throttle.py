"""The staff sign-in throttle on a fake clock: free failures, a doubling delay, a lockout window per key."""
from __future__ import annotations

from tutor.policy import Policy
from tutor.throttle import LoginThrottle


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def throttle(clock) -> LoginThrottle:
    return LoginThrottle(free_failures=3, delay_s=2.0, max_failures=6, lockout_s=900.0, clock=clock)


def test_free_failures_then_a_doubling_delay_then_a_lockout():
    clock = Clock()
    t = throttle(clock)
    waits = [t.failed("session:a", "client:1.2.3.4") for _ in range(6)]
    assert waits == [0.0, 0.0, 0.0, 2.0, 4.0, 900.0]
    assert t.locked("client:1.2.3.4") and t.wait_s("session:a") == 900.0


def test_a_new_session_from_the_same_client_is_still_held_back():
    clock = Clock()
    t = throttle(clock)
    for _ in range(6):
        t.failed("session:a", "client:9.9.9.9")
    assert t.wait_s("session:fresh", "client:9.9.9.9") == 900.0  # reloading the page does not reset it
    assert t.wait_s("session:other", "client:1.1.1.1") == 0.0  # another client is not locked out


def test_the_wait_runs_out_and_a_success_clears_the_record():
    clock = Clock()
    t = throttle(clock)
    for _ in range(4):
        t.failed("k")
    assert t.wait_s("k") == 2.0
    clock.now += 2.5
    assert t.wait_s("k") == 0.0
    t.succeeded("k")
    assert [t.failed("k") for _ in range(3)] == [0.0, 0.0, 0.0]  # free failures again


def test_after_the_lockout_the_count_starts_afresh():
    clock = Clock()
    t = throttle(clock)
    for _ in range(6):
        t.failed("k")
    clock.now += 901
    assert t.wait_s("k") == 0.0 and not t.locked("k")
    assert t.failed("k") == 0.0


def test_the_shipped_policy_allows_a_handful_of_guesses_where_200_were_made():
    p = Policy()
    clock = Clock()
    t = LoginThrottle.from_policy(p, clock)
    start, guesses = clock.now, 0
    while True:  # a script guessing as fast as the throttle lets it, for the 9.6 s the attack took
        clock.now += t.wait_s("client:x")
        if clock.now - start > 9.6:
            break
        t.failed("client:x")
        guesses += 1
    assert guesses < 10 and guesses <= p.login_max_failures


def test_a_key_idle_for_the_lockout_window_starts_afresh():
    clock = Clock()
    t = throttle(clock)
    for _ in range(3):
        t.failed("k")
    clock.now += 901  # a term later, one more typo is free again rather than a delay
    assert t.failed("k") == 0.0


def test_x_forwarded_for_is_read_only_from_a_trusted_proxy():
    from tutor.throttle import client_address, parse_networks

    proxy = parse_networks("127.0.0.1, 10.0.0.0/8")
    # no proxy configured: the header is ignored, the connection's own address counts
    assert client_address("198.51.100.2", "203.0.113.7") == "198.51.100.2"
    assert client_address(None, "203.0.113.7") == "loopback"
    # a configured proxy: the right-most address its hops did not add themselves
    assert client_address(None, "203.0.113.7", proxy) == "203.0.113.7"
    assert client_address("10.1.2.3", "1.1.1.1, 203.0.113.7, 10.9.9.9", proxy) == "203.0.113.7"
    # a client that is not the proxy cannot choose its key by sending the header
    assert client_address("198.51.100.2", "203.0.113.7", proxy) == "198.51.100.2"
    # Streamlit's server has already put a loopback connection's forwarded address in its place: read it as loopback
    assert client_address("203.0.113.7", "203.0.113.7") == "loopback"
    assert client_address("203.0.113.7", "203.0.113.7, 127.0.0.1") == "loopback"
    assert client_address("203.0.113.7", "203.0.113.7", proxy) == "203.0.113.7"
    # behind the proxy, two clients are two keys: one's lockout is not the other's
    assert client_address(None, "203.0.113.7", proxy) != client_address(None, "203.0.113.8", proxy)


def test_a_trusted_proxy_setting_that_is_not_an_address_is_refused_by_name():
    import pytest

    from tutor.errors import PolicyError
    from tutor.policy import load_policy

    with pytest.raises(PolicyError, match="TUTOR_TRUSTED_PROXIES.*'proxy.local' is not an IP address"):
        load_policy(env={"TUTOR_TRUSTED_PROXIES": "127.0.0.1, proxy.local"})
    assert load_policy(env={"TUTOR_TRUSTED_PROXIES": "::1, 172.16.0.0/12"}).trusted_proxies == "::1, 172.16.0.0/12"
