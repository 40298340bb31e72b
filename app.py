"""The Streamlit entry point: page navigation for students (Ask, Read) and staff (Teachers, Maintainers).

Run with `streamlit run app.py`. Shared resources and drawing helpers live in `ui_common.py`; each page in `pages/`.
"""
import streamlit as st

import ui_common as ui

st.set_page_config(page_title="Textbook Tutor", page_icon=":material/menu_book:", layout="centered")

nav = st.navigation({
    "Students": [
        st.Page("pages/ask.py", title="Ask", icon=":material/forum:", default=True),
        st.Page("pages/read.py", title="Read", icon=":material/auto_stories:"),
    ],
    "Staff": [
        st.Page("pages/teachers.py", title="Teachers", icon=":material/insights:"),
        st.Page("pages/maintainers.py", title="Maintainers", icon=":material/library_add:"),
    ],
})
ui.sidebar_brand()
nav.run()
