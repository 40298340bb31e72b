"""The password gate for the staff pages and its login throttle.

Passwords come from st.secrets or the environment; wrong passwords are throttled per account and client address, in
the audit database (tutor/audit/sign_in.py), so neither a restart nor a client's `clear_cache` message resets them.
"""

from __future__ import annotations

import hashlib
import hmac

import streamlit as st

from tutor.config import audit_db_path
from tutor.errors import TutorError
from tutor.throttle import client_address, sign_in_key
from ui import resources


def _fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def password_gate(secret_name: str, state_key: str, role: str) -> None:
    """Stop the page unless the user signed in with the password in st.secrets[secret_name]."""
    try:
        expected = st.secrets.get(secret_name)
    except Exception:  # noqa: BLE001 - no secrets file at all is the same as no password set
        expected = None
    if not expected:
        with st.container(border=True):
            st.markdown(f"#### :material/lock: The {role} page is not set up yet")
            st.markdown(
                f"No password is configured for this page, so it stays locked. Whoever runs this server can add "
                f"`{secret_name}` to `.streamlit/secrets.toml` (see `.streamlit/secrets.toml.example`) and "
                "restart the app."
            )
        st.stop()
    expected = str(expected)
    try:
        throttle = login_throttle()
    except TutorError as e:  # e.g. a mistyped TUTOR_TRUSTED_PROXIES: the page says which, and stays locked
        st.error(f"The sign-in cannot start: {e}", icon=":material/error:")
        st.stop()
    keys = (_login_key(secret_name, throttle.trusted),)
    if hmac.compare_digest(st.session_state.get(state_key, ""), _fingerprint(expected)):
        if st.sidebar.button("Sign out", icon=":material/logout:", key=f"{state_key}_signout"):
            st.session_state.pop(state_key, None)
            st.rerun()
        return
    # a wrong try draws a new, empty field (a new key), so the next try does not append to the wrong password; what
    # went wrong is said on that redrawn page
    tries_key, said_key = f"{state_key}_tries", f"{state_key}_said"
    tries = st.session_state.get(tries_key, 0)
    with st.form(f"{state_key}_form", border=True, width=420):
        st.markdown(f"#### :material/lock: {role.capitalize()} sign-in")
        pw = st.text_input("Password", type="password", key=f"{state_key}_password_{tries}")
        submitted = st.form_submit_button("Sign in", type="primary")
    said = st.session_state.pop(said_key, None)
    if submitted:
        wait = throttle.wait_s(*keys)
        if wait > 0:  # not even checked: a guess made while held back tells the guesser nothing
            said = (wait, throttle.locked(*keys))
        elif hmac.compare_digest(pw.encode("utf-8"), expected.encode("utf-8")):
            throttle.succeeded(*keys)
            st.session_state[state_key] = _fingerprint(expected)
            st.rerun()
        else:
            wait = throttle.failed(*keys)
            said = (wait, throttle.locked(*keys))
        st.session_state[tries_key], st.session_state[said_key] = tries + 1, said
        st.rerun()
    if said is not None:
        wait, locked = said
        if wait > 0:
            _throttled_message(wait, locked)
        else:
            st.error("That password is not right. Please try again.", icon=":material/error:")
    st.stop()


@st.cache_resource
def _login_throttle(audit_path: str, url: str | None):
    from tutor.audit.sign_in import AuditThrottleStore
    from tutor.policy import load_policy
    from tutor.throttle import LoginThrottle

    return LoginThrottle.from_policy(load_policy(), store=AuditThrottleStore(resources.get_audit(audit_path, url)))


def login_throttle():
    """The throttle of this server's audit database. The object is cached, the records are not: they are rows in the
    database, so clearing Streamlit's caches (which any client can ask for) does not reset a single one."""
    return _login_throttle(str(audit_db_path()), resources.db_url())


def _login_key(account: str, trusted) -> str:
    """The key an attempt counts against: the account and the client's address (X-Forwarded-For believed only from
    a `trusted` proxy: the policy's trusted_proxies, TUTOR_TRUSTED_PROXIES)."""
    try:
        peer = st.context.ip_address
        forwarded = st.context.headers.get("X-Forwarded-For")
    except Exception:  # noqa: BLE001 - no request context
        peer, forwarded = None, None
    # Streamlit gives None for a loopback client (and a test harness a stand-in object)
    peer = peer if isinstance(peer, str) and peer else None
    forwarded = forwarded if isinstance(forwarded, str) else None
    return sign_in_key(account, client_address(peer, forwarded, trusted))


def _throttled_message(wait: float, locked: bool) -> None:
    seconds = max(1, int(wait + 0.999))
    when = f"{seconds // 60} minute(s)" if seconds >= 120 else f"{seconds} second(s)"
    if locked:
        st.error(f"Too many wrong passwords: sign-in is locked for {when}.", icon=":material/lock_clock:")
    else:
        st.error(f"That password is not right. Wait {when} before trying again.", icon=":material/hourglass_top:")
