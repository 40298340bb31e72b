"""A student's conversation on one shelf, kept beside the audit log so that a reload finds it: its id, and its turns
as plain JSON (the question as typed, the full TutorAnswer) and back.

No Streamlit here: ui/conversation.py keeps the id in the page's URL and the turns in the session.
"""
from __future__ import annotations

import re
import secrets
from typing import Any

from tutor.types import TutorAnswer

_ID = re.compile(r"[0-9a-f]{32}")


def new_conversation_id() -> str:
    """A fresh conversation id: 128 random bits, hex (whoever has the id can read the chat, so it is unguessable)."""
    return secrets.token_hex(16)


def valid_conversation_id(value: object) -> str | None:
    """The id when `value` is one `new_conversation_id` could have made, else None (a hand-edited URL)."""
    return value if isinstance(value, str) and _ID.fullmatch(value) else None


def new_turn_id() -> str:
    """A turn's id, unique within its session: it names the turn's widgets (its sources, its Diagnostics)."""
    return secrets.token_hex(5)


def last_answered(turns: list[dict[str, Any]]) -> TutorAnswer | None:
    """The answer of the last turn the tutor answered: what a follow-up reads against (a refusal does not end the
    conversation: "Give an example." refused, then "Why?" still asks about the answer before it)."""
    return next((t["answer"] for t in reversed(turns) if not t["answer"].was_refusal), None)


def turn_to_dict(turn: dict[str, Any]) -> dict[str, Any]:
    """A chat turn as JSON: its id, the question as shown, and the answer's `to_dict`."""
    return {"id": turn["id"], "question": turn["question"], "answer": turn["answer"].to_dict()}


def turn_from_dict(d: dict[str, Any]) -> dict[str, Any] | None:
    """A kept turn back as the chat holds it; None for a row that cannot be read (kept by another version)."""
    try:
        return {"id": str(d["id"]), "question": str(d["question"]), "answer": TutorAnswer.from_dict(d["answer"])}
    except (KeyError, TypeError, ValueError):
        return None
