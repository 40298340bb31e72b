"""The Maintainers page's Release and Withdraw buttons beside each held-back sentence of a chapter on a shelf.

Drawn only on that page, after its password gate: a student never sees them. A release is written to the audit
database (tutor/audit/releases.py, with the name the maintainer typed) and read back into this process's held-back
check at once; other app processes read it within the policy's `release_refresh_s`.
"""
from __future__ import annotations

import time

import streamlit as st

from tutor import presentation as pres
from tutor.audit import releases
from tutor.audit.log import AuditLog
from tutor.errors import TutorError
from tutor.safety.vocabulary import releasable, release_digest
from tutor.store.shelf import ShelfKey
from ui import resources

NAME = "m_release_by"  # the maintainer's name, recorded with each release or withdrawal
KEPT_NAME = "release_name"  # the same, kept for the session (a widget's own state goes when the page is left)


def standing(audit: AuditLog) -> dict[str, releases.Release] | None:
    """The standing releases by sentence digest; None (said on the page) when the audit database cannot be read."""
    try:
        return {r.digest: r for r in releases.releases(audit)}
    except TutorError as e:
        st.error(f"Released sentences cannot be read, so none can be released or withdrawn now: {e}",
                 icon=":material/error:")
        return None


def name_field() -> str:
    """The name a release is recorded under (required before any button works), kept for the session."""
    name = st.text_input("Your name, recorded with each release or withdrawal", key=NAME, placeholder="e.g. Asha Rao",
                         value=st.session_state.get(KEPT_NAME, "")).strip()
    st.session_state[KEPT_NAME] = name
    return name


def button_key(action: str, key: ShelfKey, file: str, page: int, sentence: str) -> str:
    return f"m_{action}_{key.klass}_{key.subject}_{file}_{page}_{release_digest(sentence)[:12]}"


def controls(audit: AuditLog, key: ShelfKey, file: str, flagged: list[tuple[int, str]],
             now_standing: dict[str, releases.Release], name: str) -> None:
    """One row per held-back sentence of a chapter: the sentence, whether it is released and by whom, and the button
    that releases or withdraws it (none for the kinds never released)."""
    for page, sentence in flagged:
        text, action = st.columns([5, 1], vertical_alignment="center")
        text.markdown(f"page {page}: {pres.md(sentence)}")
        r = now_standing.get(release_digest(sentence))
        if r is not None:
            text.caption(f"Released by {pres.md(r.released_by)} on "
                         f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime(r.released_at))}: quoted to students.")
        if not releasable(sentence):
            action.caption("Never released")
        elif r is not None:
            if action.button("Withdraw", icon=":material/undo:", key=button_key("withdraw", key, file, page, sentence),
                             disabled=not name, help="Type your name above first" if not name else None):
                _done(audit, lambda: releases.withdraw(audit, sentence, name), "Withdrawn: held back again")
        elif action.button("Release", icon=":material/lock_open:", key=button_key("release", key, file, page, sentence),
                           disabled=not name, help="Type your name above first" if not name else
                           "Let the tutor quote this sentence: you checked the address it carries"):
            _done(audit, lambda: releases.release(audit, sentence, key.klass, key.subject, file, page, name),
                  "Released: the tutor quotes it from now on")


def _done(audit: AuditLog, act, said: str) -> None:
    """Do a release or withdrawal, read the released set again in this process, and say how it went."""
    try:
        act()
        releases.ReleaseSync(audit, 0).refresh()
        st.session_state[resources.MAINT_NOTICE] = ("ok", f"{said}.")
    except TutorError as e:
        st.session_state[resources.MAINT_NOTICE] = ("error", str(e))
    st.rerun()
