"""How one answer is drawn: the answer or the refusal, its diagnostics, the printed pages it quotes.

Drawing only; the text and tables come from tutor.presentation.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Any

import streamlit as st

from tutor import reasons
from tutor.audit.log import AuditLog
from tutor.errors import TutorError
from tutor.presentation import (
    MODE_LABELS,
    book_language_note,
    checks_frame,
    evidence_frame,
    highlighted_passage,
    md,
    page_span,
    quoted_pages,
    shelf_label,
    span_highlighted,
    student_note,
    timings_line,
)
from tutor.reasons import tier_label
from tutor.store.pages import PageImage
from tutor.store.shelf import ShelfKey
from tutor.suggestions import question_for
from tutor.text.language import detect_language
from tutor.types import PASTED_TEXT, TutorAnswer, refusal_sentence
from ui import conversation
from ui.resources import MAINT_NOTICE, page_image


def page_image_note(img: PageImage) -> str:
    """What the highlight on a printed page means, or why there is none."""
    if img.highlighted:
        return "Highlighted: the sentence the answer quotes, where it is printed on the page."
    if not img.missing:
        return ""
    hindi = any(detect_language(s) == "hi" for s in img.missing)
    why = ("Hindi pages are read by repairing or OCR-reading the damaged text, which has no positions on the printed "
           "page, so Hindi sentences are never highlighted" if hindi else
           "its words in the PDF differ from the text the tutor read (a formula, a figure label or a repaired word)")
    if img.found:
        return f"Only part of the quoted text is highlighted: the rest could not be found on the printed page ({why})."
    return f"Shown without a highlight: the quoted sentence could not be found on the printed page ({why})."


def draw_page_image(klass: str, subject: str, file: str, page: int,
                    sentences: list[str] | tuple[str, ...] = (), *, width: int | str = "stretch") -> PageImage | None:
    """The printed page in the page being drawn, with its note; a caption instead when it cannot be shown."""
    img = page_image(klass, subject, file, page, sentences)
    if isinstance(img, str):
        st.caption(img)
        return None
    st.image(img.png, caption=f"Page {page} as printed", width=width, output_format="PNG")
    note = page_image_note(img)
    if note:
        st.caption(note)
    return img


def waiting_text(h, where: str = "the spool file") -> str:
    """How many questions wait to be written to the audit database, and where (the spool file, or memory)."""
    text = f"**{h.spooled}** question(s) wait to be written to the audit database"
    if h.in_memory:
        text += (f", {h.in_memory} of them in memory because {where} cannot be written either (the disk may be "
                 "full): they are lost if the app stops before the database takes writes again")
    else:
        text += f", in {where}"
    text += ". They are written as soon as the database takes writes again."
    if h.dropped:
        text += f" {h.dropped} more could not be kept anywhere and are lost."
    return text


def audit_waiting_note(log: AuditLog) -> None:
    """For teachers: questions asked but not yet in the log (and so not in the table); draws nothing otherwise."""
    h = log.health()
    if h.spooled or h.dropped:
        st.warning(waiting_text(h) + " Until then they are not in this page's table.", icon=":material/schedule:")


def audit_health_panel(log: AuditLog) -> None:
    """For maintainers: what is wrong with the audit store, how many questions wait in its spool, and the two
    repairs (write the spool now; set a damaged database aside). Draws nothing while the store is healthy."""
    h = log.health()
    if h.ok and not h.spooled and not h.dropped:
        return
    with st.container(border=True):
        st.markdown("#### :material/warning: The audit log needs attention")
        if not h.ok:
            st.markdown(f"The audit database `{md(str(log.path))}` cannot be used: {md(h.error)}. Students still get "
                        "their answers; their questions are kept in a spool file meanwhile.")
        if h.spooled:
            st.markdown(waiting_text(h, md(h.spool_path)))
        c1, c2 = st.columns(2)
        if c1.button("Try the database again", icon=":material/sync:", key="audit_retry"):
            try:
                n = log.replay()
                done = f"The audit database works again: {n} spooled question(s) written."
                st.session_state[MAINT_NOTICE] = ("ok", done)
            except TutorError as e:
                st.session_state[MAINT_NOTICE] = ("error", str(e))
            st.rerun()
        # a PostgreSQL database is its administrator's to repair: only a SQLite file can be set aside from here
        if log.can_set_aside and c2.button(
                "Set the damaged database aside", icon=":material/move_item:", key="audit_set_aside", disabled=h.ok,
                help="Renames the damaged file (nothing is deleted), starts a fresh database and writes the spooled "
                     "questions into it. No restart is needed."):
            moved = log.set_aside()
            done = (f"The damaged audit database was moved to {moved.name}; a fresh one is in use and the spooled "
                    "questions are in it.")
            st.session_state[MAINT_NOTICE] = ("ok", done)
            st.rerun()


PENDING_NOTE = "Draft, not checked yet: the tutor is still checking every sentence against your textbook."


class PendingDraft:
    """Collects an LLM's tokens as they come and shows the draft so far through `show(text)`, which must mark it as
    not yet checked; the caller replaces it by the checked answer or the refusal."""

    def __init__(self, show: Callable[[str], None]):
        self.show, self.text = show, ""

    def __call__(self, piece: str) -> None:
        self.text += piece
        self.show(self.text)


def ask(tutor, question: str, shelf: ShelfKey, selected=None, previous: TutorAnswer | None = None) -> TutorAnswer:
    """Ask the tutor; `previous` is the conversation's last answered turn, against which a follow-up is read. With an
    LLM answerer the draft streams into a pending area marked as not checked yet, which is emptied when the checks
    have decided: the student then sees only the checked answer or the refusal."""
    if not getattr(tutor.answerer, "uses_llm", False):
        with st.spinner("Looking in your textbook…"):
            return tutor.ask(question, shelf.klass, shelf.subject, selected=selected, previous=previous)
    pending = st.empty()

    def show(text: str) -> None:
        with pending.container():
            with st.chat_message("assistant", avatar=":material/hourglass_top:"):
                st.caption(PENDING_NOTE)
                st.markdown(f":gray[{md(text)}]")

    try:
        with st.spinner("Looking in your textbook…"):
            return tutor.ask(question, shelf.klass, shelf.subject, selected=selected, on_token=PendingDraft(show),
                             previous=previous)
    finally:
        pending.empty()


def render_turn(turn: dict[str, Any], key: str) -> None:
    """One question and its reply, as a fragment: opening a source or the Diagnostics of this turn reruns this turn
    alone, not the page, the other turns or the tutor."""
    _turn_fragment(turn, key)


@st.fragment
def _turn_fragment(turn: dict[str, Any], key: str) -> None:
    ans: TutorAnswer = turn["answer"]
    with st.chat_message("user", avatar=":material/person:"):
        st.markdown(md(turn["question"]))
        note = shelf_label(ans.klass, ans.subject)
        pasted = any(s.chapter == PASTED_TEXT for s in ans.sources)
        if turn.get("passage"):
            p = turn["passage"]
            note += (" · about your pasted text (not found on the page)" if pasted
                     else f" · about the passage you selected on page {p['page']}" if p.get("page")
                     else " · about your passage")
        if getattr(ans, "followup", False):
            note += f" · read as a follow-up: “{md(ans.resolved_question)}”"
        elif ans.resolved_question:  # a Hinglish or Devanagari question, read as English
            note += f" · read as: “{md(ans.resolved_question)}”"
        st.caption(note)
    with st.chat_message("assistant", avatar=":material/menu_book:"):
        render_answer(ans, key=key)


def render_answer(ans: TutorAnswer, *, key: str, diagnostics_expanded: bool = False, staff: bool = False) -> None:
    """An answer with its citations, or the refusal with its reason and what to ask instead; then Diagnostics.

    The student page and the teachers' detail view both call this, so teachers see exactly what students saw;
    `staff` adds the internal detail of an error (students see its reason code only).
    """
    if ans.was_refusal:
        _render_refusal(ans, key=key, ask=not staff)
    else:
        _render_answered(ans, key=key)
    # drawn only while open (its two tables are most of a reply's drawing): opening it reruns the turn's fragment
    diag = st.expander("Diagnostics", icon=":material/troubleshoot:", expanded=diagnostics_expanded,
                       key=f"{key}_diag", on_change="rerun")
    if diag.open:
        with diag:
            render_diagnostics(ans, key=key, staff=staff)


def _render_answered(ans: TutorAnswer, *, key: str) -> None:
    direct = getattr(ans, "direct_answer", "")
    if direct:  # the reader's span, short, first; then the sentence it comes from with the span marked in it
        st.markdown(f"**{md(direct)}**")
    parts = []
    for i, s in enumerate(ans.sentences):
        badges = "".join(f" :blue-badge[{n}]" for n in s.citations)
        parts.append((span_highlighted(s.text, direct) if i == 0 and direct else md(s.text)) + badges)
    st.markdown(" ".join(parts))
    cited = ans.cited_sources
    if not cited:
        return
    book_note = book_language_note(ans)
    if book_note:
        st.caption(book_note)
    st.caption("Sources from your textbook — open one to read the passage")
    for src in cited:
        quoting = [s for s in ans.sentences if src.n in s.citations]
        quotes = [s.text for s in quoting]
        if src.chapter == PASTED_TEXT:  # not on the book's page: never shown as a citation of the book
            with st.expander(f"\\[{src.n}\\] {PASTED_TEXT}", icon=":material/content_paste:"):
                st.markdown(highlighted_passage(src.text, quotes))
                st.caption("This passage was not found on the page of the book, so the answer comes from your pasted "
                           "text only, not from your textbook.")
            continue
        # the page of the quoted sentences when known (a passage can run over a page break)
        on = sorted({s.page for s in quoting if s.page})
        where = page_span(on[0], on[-1]) if on else page_span(src.page, src.page_end)
        label = f"\\[{src.n}\\] {md(src.chapter)} · {where}"
        if src.section and src.section != src.chapter:
            label += f" · {md(src.section)}"
        # the printed page (read from the PDF, highlighted, PNG-encoded) is drawn only while its source is open
        source = st.expander(label, icon=":material/format_quote:", key=f"{key}_src{src.n}", on_change="rerun")
        with source:
            st.markdown(highlighted_passage(src.text, quotes))
            st.caption(f"Passage from {md(src.file)}, {page_span(src.page, src.page_end)} · "
                       f"similarity to your question {src.score:.2f}")
            if source.open:
                for page, on_page in quoted_pages(src, quoting):
                    draw_page_image(ans.klass, ans.subject, src.file, page, on_page)


def _render_refusal(ans: TutorAnswer, *, key: str, ask: bool = True) -> None:
    # the refusal sentence and reason in the student's language (the pipeline wrote them: Hindi for a Hindi question)
    sentence = refusal_sentence(getattr(ans, "language", "en"))
    why = ans.message or reasons.message(ans.reason, getattr(ans, "language", "en"))
    st.markdown(f"**{md(sentence)}**  \n{md(why)}")
    if ans.suggestions:
        st.markdown("**You could ask about:**")
        for i, s in enumerate(ans.suggestions):
            where = md(s.chapter) + (f" — {md(s.section)}" if s.section and s.section != s.chapter else "")
            if not ask:  # the teachers' view of what the student saw: the places, without asking anything
                st.markdown(f"- {where} (page {s.page})")
            elif st.button(f"{where} (page {s.page})", key=f"{key}_suggest{i}", icon=":material/help:",
                           help=question_for(s)):
                conversation.suggest(question_for(s))
                st.rerun()  # inside the turn's fragment: the whole page runs, and asks it
    elif ans.mode == "selected_text":
        st.markdown("Try selecting a longer passage that contains the answer, or ask the whole book on the Ask page.")


def _table_height(rows: int, most: int = 14) -> int:
    """Tall enough to show every row (up to `most`) without an inner scroll bar."""
    return 38 + 35 * max(1, min(rows, most)) + 8  # header, rows, and a little room for a horizontal scroll bar


def render_diagnostics(ans: TutorAnswer, *, key: str, staff: bool = False) -> None:
    outcome = (f":orange-badge[:material/block: Refused · {reasons.label(ans.reason)}]" if ans.was_refusal
               else ":green-badge[:material/check_circle: Answered]")
    st.markdown(
        f"{outcome} &nbsp; **Decided by** {md(tier_label(ans.decided_by))} · "
        f"**LLM called** {'yes' if ans.llm_called else 'no'} · **Answerer** {md(ans.answerer)} · "
        f"**Mode** {MODE_LABELS.get(ans.mode, md(ans.mode))} · **Confidence** {ans.confidence:.2f}"
    )
    if getattr(ans, "followup", False):
        st.markdown(f"**Question as typed** {md(ans.question)} · **read as** {md(ans.resolved_question)} "
                    "(a follow-up, read with the previous question)")
    if getattr(ans, "understood", None):  # tutor.question.Question.understood (absent from older audit rows)
        st.markdown("**What the tutor understood** — "
                    + " · ".join(f"{md(k)}: {md(v)}" for k, v in ans.understood.items()))
    if ans.error and staff:
        st.caption(f"Error logged for the maintainers: {md(ans.error)}")
    elif ans.error:  # internal errors name files and server paths: students get the code, staff the detail
        st.caption(f"Reason code `{re.sub(r'[^a-z0-9_]', '', ans.reason)}`; the details are in the log for the "
                   "maintainers.")
    for note in ans.notes:
        st.caption(f"Note: {md(note if staff else student_note(note))}")
    st.markdown("**Checks** — each measured value against its threshold")
    if ans.checks:
        checks = checks_frame(ans)
        styled = checks.style.map(lambda v: "color: #137333; font-weight: 600" if v == "Pass"
                                  else "color: #b3261e; font-weight: 600", subset=["Result"])
        st.dataframe(styled, hide_index=True, width="stretch", key=f"{key}_checks", height=_table_height(len(checks)),
                     column_config={"What it measures": st.column_config.TextColumn(width="large")})
    else:
        st.caption("No checks ran for this question.")
    st.markdown("**Evidence** — passages retrieved, with cosine similarity (higher is closer, from −1 to 1)")
    ev = evidence_frame(ans)
    if len(ev):
        st.dataframe(ev, hide_index=True, width="stretch", key=f"{key}_evidence", height=_table_height(len(ev), 8),
                     column_config={"Score": st.column_config.NumberColumn(format="%.3f", width="small"),
                                    "Passage": st.column_config.TextColumn(width="large")})
    else:
        st.caption("No passages were retrieved.")
    st.markdown(f"**Stage timings** — {timings_line(ans.timings_ms)}")
