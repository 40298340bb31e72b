"""The frame every page shares: page header, the student pages' opening, shelf picker, sidebar, history.

Drawing and session state only.
"""

from __future__ import annotations

import runpy
from typing import Any

import streamlit as st

from tutor.presentation import subject_label
from tutor.reasons import Reason
from tutor.store.chapters import class_sort_key
from tutor.store.shelf import ShelfKey
from ui.resources import APP_PATH, KLASS, SUBJECT, student_shelves_or_known, tutor_or_stop


def through_app() -> None:
    """Make sure a page runs inside app.py's st.navigation, never on its own.

    With a pages/ folder beside app.py, Streamlit starts each process in its old multipage mode and, when the first
    request names a page (/teachers), runs that file alone: no app.py, no navigation, no layout. (AppTest starts
    every run that way.) That mode is one process-wide flag which app.py's st.navigation clears; so clear it, run
    app.py now, in this same run so that no click or chat message is lost, and stop the lone run of the page.
    """
    try:
        from streamlit.runtime.pages_manager import PagesManager
    except ImportError:  # pragma: no cover - a Streamlit without the old mode
        return
    if not getattr(PagesManager, "uses_pages_directory", False):
        return
    PagesManager.uses_pages_directory = False
    runpy.run_path(str(APP_PATH), run_name="__main__")
    st.stop()


def page_header(title: str, intro: str, icon: str | None = None) -> None:
    st.title(f"{icon} {title}" if icon else title, anchor=False)
    st.caption(intro)


def empty_library_note() -> None:
    with st.container(border=True):
        st.markdown("#### :material/local_library: The library is empty")
        st.markdown("No textbook chapters have been added yet, so there is nothing to ask about. "
                    "A maintainer can add chapter PDFs on the Maintainers page.")
        st.page_link("pages/maintainers.py", label="Go to the Maintainers page", icon=":material/arrow_forward:")


def student_page(title: str, intro: str):
    """The opening of a student page: header, the shared tutor, and the shelves (or the empty-library note and stop)."""
    through_app()
    page_header(title, intro)
    tutor = tutor_or_stop()
    shelves, unreachable = student_shelves_or_known(tutor.library)
    if unreachable:
        st.warning(f"{Reason.LIBRARY_UNREACHABLE.en.split(';')[0]}. You can still ask: your question is saved.",
                   icon=":material/cloud_off:")
        if not shelves:  # none listed since this process started: there is nothing to pick
            st.stop()
    if not shelves:
        empty_library_note()
        st.stop()
    return tutor, shelves


def copy_state(src: str, dst: str) -> None:
    st.session_state[dst] = st.session_state[src]


def shelf_picker(keys: list[ShelfKey], cols=None) -> ShelfKey:
    """Class and subject pickers over the shelves that exist; the choice is kept under KLASS/SUBJECT.

    `cols` is a pair of containers to draw the two pickers in (two new columns when not given).
    """
    ss = st.session_state
    classes = sorted({k.klass for k in keys}, key=class_sort_key)
    if ss.get(KLASS) not in classes:
        ss[KLASS] = classes[0]
    subjects = [k.subject for k in keys if k.klass == ss[KLASS]]
    if ss.get(SUBJECT) not in subjects:
        ss[SUBJECT] = subjects[0]
    # widget keys are wiped when a page is left; the permanent keys above restore them on the way back
    ss["_pick_class"], ss["_pick_subject"] = ss[KLASS], ss[SUBJECT]
    c1, c2 = cols if cols is not None else st.columns(2)
    c1.selectbox("Class", classes, key="_pick_class", format_func=lambda k: f"Class {k}",
                 on_change=copy_state, args=("_pick_class", KLASS))
    c2.selectbox("Subject", subjects, key="_pick_subject", format_func=subject_label,
                 on_change=copy_state, args=("_pick_subject", SUBJECT))
    return ShelfKey(ss[KLASS], ss[SUBJECT])


def history(key: str) -> list[dict[str, Any]]:
    return st.session_state.setdefault(key, [])


def sidebar_brand() -> None:
    with st.sidebar:
        st.markdown("### :material/menu_book: Textbook Tutor")
        st.caption("Answers only from your NCERT textbooks, with the page they come from — "
                   "and \"I don't know\" when the book does not say.")
