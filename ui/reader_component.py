"""The reader: a custom Streamlit component that shows one page of a chapter and reports a selection.

Its JavaScript and CSS live beside it in reader.js and reader.css, read at import time.
"""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from tutor.store.chapters import Block, mark_blocks

_HERE = Path(__file__).parent
_READER_CSS = (_HERE / "reader.css").read_text(encoding="utf-8")
_READER_JS = (_HERE / "reader.js").read_text(encoding="utf-8")


_reader_component = st.components.v2.component(
    "tutor_reader", html='<div class="tr-root"></div>', css=_READER_CSS, js=_READER_JS, isolate_styles=False,
)


def reader_view(blocks: list[Block], *, page: int, chapter: str, label: str, highlight: str, key: str) -> str | None:
    """Draw one page of a chapter; returns the text the student just selected with the mouse, if any."""
    data = {
        "page": page, "chapter": chapter, "label": label, "blocks": mark_blocks(blocks, highlight),
        "hint": "Select a sentence or paragraph with your mouse to ask about it.",
    }
    result = _reader_component(key=key, data=data, on_selected_change=lambda: None)
    got = result.get("selected") if result is not None else None
    if isinstance(got, dict) and str(got.get("text", "")).strip():
        return " ".join(str(got["text"]).split())
    return None
