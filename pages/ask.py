"""Students' Ask page: pick a class and subject, ask in a chat, get a cited answer or an honest refusal.

Every reply carries a Diagnostics panel. Each class and subject has its own chat, kept server-side under the
conversation id in the page's URL, so a reload keeps it (ui/conversation.py).
"""
import streamlit as st

from tutor import presentation as pres
from tutor.conversation import last_answered
from tutor.errors import ShelfDamaged, is_database_unreachable
from tutor.reasons import Reason
from tutor.store import chapters as chapter_text
from ui import conversation, layout, render

tutor, shelves = layout.student_page(
    "Ask your textbook", "Answers come only from your NCERT textbook, with the page they are on. "
    "When the book does not say, the tutor tells you so instead of guessing.")

shelf = conversation.pick_shelf(shelves)  # the shelf in the URL after a reload
turns = conversation.turns(shelf)  # this class and subject's chat
# the chat box is pinned to the bottom wherever it is called; reading it first lets the welcome step aside at once
limit = tutor.policy.max_question_chars  # the box stops typing there; the tutor refuses anything longer anyway
suggested = conversation.suggested()  # a suggestion's button pressed on the last run (taken once, whatever is typed)
question = st.chat_input(f"Ask about Class {shelf.klass} {pres.subject_label(shelf.subject)}… "
                         f"(up to {limit:,} characters)", max_chars=limit) or suggested

if not turns and not question:
    try:
        chapters = chapter_text.shelf_chapters(tutor.library, shelf.klass, shelf.subject)
    except ShelfDamaged:
        st.warning(Reason.SHELF_DAMAGED.en, icon=":material/build:")
        chapters = []
    except Exception as e:  # the shared database is down: the page above says so; the chat box stays
        if not is_database_unreachable(e):
            raise
        chapters = []
    with st.container(border=True):
        st.markdown(f"#### :material/auto_stories: {pres.shelf_label(shelf.klass, shelf.subject)}")
        if chapters:
            names = [(f"Chapter {c.chapter_number}: " if c.chapter_number else "") + f"*{pres.md(c.chapter)}*"
                     for c in chapters]
            st.markdown("This shelf has " + ", ".join(names) + ".")
        st.caption("Ask about something in these chapters, for example a term, a process or an example from the text. "
                   "To ask about one paragraph only, open it on the Read page and select it.")

for turn in turns:
    render.render_turn(turn, key=f"ask_{turn['id']}")

if question:
    # the last answer is the conversation a follow-up ("What are its uses?") is read against
    answer = render.ask(tutor, question, shelf, previous=last_answered(turns))  # a refusal does not end the chat
    turn = conversation.add(shelf, answer)
    render.render_turn(turn, key=f"ask_{turn['id']}")

if turns and st.sidebar.button("New conversation", icon=":material/add_comment:", width="stretch", key="ask_new"):
    conversation.clear(shelf)
    st.rerun()
