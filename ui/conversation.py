"""The Ask page's conversations: one chat per class and subject, kept server-side beside the audit log under an id in
the page's URL (`?chat=…&class=…&subject=…`), so a reload (or the same link later) finds it on the shelf it was on;
"New conversation" clears that shelf's.

Session state and query parameters only; the store is tutor/audit/log.py's `keep_turn`/`turns`/`forget_turns`.
"""
from __future__ import annotations

from typing import Any

import streamlit as st

from tutor.conversation import (
    new_conversation_id,
    new_turn_id,
    turn_from_dict,
    turn_to_dict,
    valid_conversation_id,
)
from tutor.store.shelf import ShelfKey
from tutor.types import TutorAnswer
from ui.layout import shelf_picker
from ui.resources import ASK_CHATS, CHAT_ID, KLASS, SUBJECT, SUGGESTED, audit_log

URL_PARAM, URL_CLASS, URL_SUBJECT = "chat", "class", "subject"


def conversation_id() -> str:
    """This student's conversation id: the URL's (a reload or a saved link), else the session's, else a new one;
    written back into the URL so that a reload carries it."""
    ss = st.session_state
    cid = valid_conversation_id(st.query_params.get(URL_PARAM)) or valid_conversation_id(ss.get(CHAT_ID))
    cid = cid or new_conversation_id()
    if ss.get(CHAT_ID) != cid:  # another conversation's link: its chats, not the ones this session held
        ss[CHAT_ID], ss[ASK_CHATS] = cid, {}
    if st.query_params.get(URL_PARAM) != cid:
        st.query_params[URL_PARAM] = cid
    return cid


def pick_shelf(keys: list[ShelfKey]) -> ShelfKey:
    """The class and subject pickers (ui/layout.py), starting a new session (a reload) on the shelf named in the URL,
    which then names the one picked: a reload comes back to the chat the student was in."""
    ss = st.session_state
    named = ShelfKey(str(st.query_params.get(URL_CLASS, "")), str(st.query_params.get(URL_SUBJECT, "")))
    if KLASS not in ss and named in keys:
        ss[KLASS], ss[SUBJECT] = named.klass, named.subject
    shelf = shelf_picker(keys)
    if (st.query_params.get(URL_CLASS), st.query_params.get(URL_SUBJECT)) != (shelf.klass, shelf.subject):
        st.query_params[URL_CLASS], st.query_params[URL_SUBJECT] = shelf.klass, shelf.subject
    return shelf


def _shelf(shelf: ShelfKey) -> str:
    return f"{shelf.klass}/{shelf.subject}"


def turns(shelf: ShelfKey) -> list[dict[str, Any]]:
    """The chat on this shelf: held in the session, read from the store the first time this session opens it."""
    cid = conversation_id()
    chats = st.session_state.setdefault(ASK_CHATS, {})
    if _shelf(shelf) not in chats:
        kept = (turn_from_dict(d) for d in audit_log().turns(cid, shelf.klass, shelf.subject))
        chats[_shelf(shelf)] = [t for t in kept if t is not None]
    return chats[_shelf(shelf)]


def add(shelf: ShelfKey, answer: TutorAnswer) -> dict[str, Any]:
    """Append a reply to the shelf's chat and keep it server-side; returns the turn (an over-long question is kept
    cut short, as the tutor read it)."""
    turn = {"id": new_turn_id(), "question": answer.question, "answer": answer}
    turns(shelf).append(turn)
    audit_log().keep_turn(conversation_id(), shelf.klass, shelf.subject, turn_to_dict(turn))
    return turn


def clear(shelf: ShelfKey) -> None:
    """"New conversation" on this shelf: its turns go from the session and from the store."""
    turns(shelf).clear()
    audit_log().forget_turns(conversation_id(), shelf.klass, shelf.subject)


def suggest(question: str) -> None:
    """Ask `question` as if typed (a suggestion's button): picked up by `suggested` on the next run of the page."""
    st.session_state[SUGGESTED] = question


def suggested() -> str | None:
    """The question a suggestion's button asked, once."""
    return st.session_state.pop(SUGGESTED, None)
