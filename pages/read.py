"""Students' Read page: a chapter page by page; select a passage with the mouse and ask about just that passage.

The selection comes back from a custom component (components v2); pasting the passage is the fallback.
"""
import streamlit as st

from tutor import presentation as pres
from tutor.errors import ShelfDamaged, is_database_unreachable
from tutor.reasons import Reason
from tutor.store import chapters as chapter_text
from tutor.store.shelf import ShelfKey
from tutor.types import Passage
from ui import layout, render, resources
from ui import reader_component as reader

tutor, shelves = layout.student_page(
    "Read and ask", "Read a chapter page by page. Select a sentence or a paragraph with your mouse and "
    "ask about it: the answer will come only from the passage you selected.")

ss = st.session_state
c_class, c_subject, c_chapter = st.columns([1, 1, 2])
shelf = layout.shelf_picker(shelves, cols=(c_class, c_subject))
try:
    book = tutor.library.shelf(shelf.klass, shelf.subject)
except ShelfDamaged:  # the student sees why, never the files; maintainers see the detail on their page
    st.warning(Reason.SHELF_DAMAGED.en, icon=":material/build:")
    st.stop()
except Exception as e:  # the shared database is down: the note above says so; the page comes back with it
    if not is_database_unreachable(e):
        raise
    st.stop()
chapters = chapter_text.chapters_in_order(book.manifest)
files = [c.file for c in chapters]
titles = {c.file: (f"Chapter {c.chapter_number}: {c.chapter}" if c.chapter_number else c.chapter) for c in chapters}

if ss.get(resources.READER_CHAPTER) not in files:
    ss[resources.READER_CHAPTER] = files[0]
ss["_pick_chapter"] = ss[resources.READER_CHAPTER]
c_chapter.selectbox("Chapter", files, key="_pick_chapter", format_func=titles.get,
                    on_change=layout.copy_state, args=("_pick_chapter", resources.READER_CHAPTER))
entry = book.manifest.chapters[ss[resources.READER_CHAPTER]]
pages = chapter_text.chapter_pages(book.chunks, entry.file)
page_numbers = list(pages) or [1]
if ss.get(resources.READER_PAGE) not in page_numbers:
    ss[resources.READER_PAGE] = page_numbers[0]


def _turn_page(step: int) -> None:
    i = page_numbers.index(ss[resources.READER_PAGE]) + step
    ss[resources.READER_PAGE] = page_numbers[max(0, min(i, len(page_numbers) - 1))]


text_col, ask_col = st.columns([3, 2], gap="large")

with text_col:
    page = ss[resources.READER_PAGE]
    at = page_numbers.index(page)
    nav_prev, nav_mid, nav_next = st.columns([1, 2, 1], vertical_alignment="center")
    nav_prev.button("Previous", icon=":material/chevron_left:", on_click=_turn_page, args=(-1,),
                    disabled=at == 0, width="stretch")
    nav_mid.markdown(f"<div style='text-align:center'>Page <b>{page}</b> of {entry.pages}</div>",
                     unsafe_allow_html=True)
    nav_next.button("Next", icon=":material/chevron_right:", icon_position="right", on_click=_turn_page,
                    args=(1,), disabled=at == len(page_numbers) - 1, width="stretch")
    selection = ss.get(resources.READER_SELECTION)
    here = selection if selection and selection.get("file") == entry.file and selection.get("page") == page else None
    view = st.radio("View", ["Text", "Page as printed"], key=resources.READER_VIEW, horizontal=True,
                    label_visibility="collapsed")
    if view == "Page as printed":
        # the real page with its figures, tables and equations; the selected passage is marked on it when found
        render.draw_page_image(shelf.klass, shelf.subject, entry.file, page, [here["text"]] if here else [])
        st.caption("To select a passage and ask about it, switch back to Text.")
    else:
        picked = reader.reader_view(pages.get(page, []), page=page, chapter=titles[entry.file], label=f"Page {page}",
                                highlight=here["text"] if here else "", key="reader_page_view")
        if picked and (not here or picked != here["text"]):
            ss[resources.READER_SELECTION] = {"text": picked, "chapter": entry.chapter, "file": entry.file,
                                              "page": page, "klass": shelf.klass, "subject": shelf.subject}
            st.rerun()  # draw the page again with the passage marked
    with st.expander("Can't select with the mouse? Paste the passage instead", icon=":material/content_paste:"):
        pasted = st.text_area("Passage from this page", key="reader_paste", height=120,
                              max_chars=tutor.policy.max_passage_chars,
                              placeholder="Paste or type the sentences you want to ask about")
        if st.button("Use this passage", key="reader_use_paste"):
            if pasted.strip():
                ss[resources.READER_SELECTION] = {"text": " ".join(pasted.split()), "chapter": entry.chapter,
                                           "file": entry.file, "page": page, "klass": shelf.klass,
                                           "subject": shelf.subject}
                st.rerun()
            st.warning("Paste or type the passage first.", icon=":material/edit_note:")

with ask_col:
    st.subheader("Ask about a passage", anchor=False)
    selection = ss.get(resources.READER_SELECTION)
    if selection:
        with st.container(border=True):
            st.caption(f"Selected from *{pres.md(selection['chapter'])}*, page {selection['page']}")
            st.markdown(f"> {pres.md(pres.clip(selection['text'], 320))}")
            if st.button("Clear selection", icon=":material/close:", key="reader_clear", type="tertiary"):
                ss.pop(resources.READER_SELECTION, None)
                st.rerun()
    else:
        st.info("Select a sentence or a paragraph on the page with your mouse. Your question will then be answered "
                "only from that passage.", icon=":material/touch_app:")
    limit = tutor.policy.max_question_chars
    question = st.chat_input(f"Ask about the selected passage… (up to {limit:,} characters)" if selection
                             else "Select a passage first", disabled=not selection, key="reader_question",
                             max_chars=limit)
    turns = layout.history(resources.READER_HISTORY)
    if question and selection:
        passage = Passage(selection["text"], chapter=selection["chapter"], file=selection["file"],
                          page=int(selection["page"]))
        where = ShelfKey(selection.get("klass", shelf.klass), selection.get("subject", shelf.subject))
        answer = render.ask(tutor, question, where, selected=passage)
        turns.append({"question": answer.question, "answer": answer, "passage": dict(selection)})
    for i in reversed(range(len(turns))):
        render.render_turn(turns[i], key=f"read_{i}")
