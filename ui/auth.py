"""The password gate for the staff pages and its login throttle.

Passwords come from st.secrets or the environment; failed attempts are throttled per client.
"""

from __future__ import annotations

import hashlib
import hmac
import os

import streamlit as st

from tutor.config import data_dir


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
    throttle, keys = login_throttle(), _login_keys()
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
def _login_throttle(data: str):
    from tutor.policy import load_policy
    from tutor.throttle import LoginThrottle

    return LoginThrottle.from_policy(load_policy())


def login_throttle():
    """One throttle per server (per data folder), shared by every session: a guesser cannot reset it by reloading."""
    return _login_throttle(str(data_dir()))


def _login_keys() -> tuple[str, str]:
    """The keys a sign-in attempt counts against: this browser session and the client's address."""
    ss = st.session_state
    if "_login_session" not in ss:
        ss["_login_session"] = os.urandom(12).hex()
    try:
        client = st.context.ip_address
    except Exception:  # noqa: BLE001 - no request context
        client = None
    # Streamlit gives None for a loopback client (and a test harness a stand-in object): one shared "local" key
    client = client if isinstance(client, str) and client else "local"
    return f"session:{ss['_login_session']}", f"client:{client}"


def _throttled_message(wait: float, locked: bool) -> None:
    seconds = max(1, int(wait + 0.999))
    when = f"{seconds // 60} minute(s)" if seconds >= 120 else f"{seconds} second(s)"
    if locked:
        st.error(f"Too many wrong passwords: sign-in is locked for {when}.", icon=":material/lock_clock:")
    else:
        st.error(f"That password is not right. Wait {when} before trying again.", icon=":material/hourglass_top:")
