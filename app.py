"""The Streamlit entry point: page navigation for students (Ask, Read) and staff (Teachers, Maintainers).

Run with `streamlit run app.py`. Shared resources and drawing helpers live in `ui/` (resources, layout, render, auth,
the reader component); each page in `pages/`.
"""
import streamlit as st

from ui import layout, resources

ask = st.Page("pages/ask.py", title="Ask", icon=":material/forum:", default=True)
nav = st.navigation({
    "Students": [ask, st.Page("pages/read.py", title="Read", icon=":material/auto_stories:")],
    "Staff": [
        st.Page("pages/teachers.py", title="Teachers", icon=":material/insights:"),
        st.Page("pages/maintainers.py", title="Maintainers", icon=":material/library_add:"),
    ],
})
# a chat reads best in a narrow column; the reader and the staff tables need the width
st.set_page_config(page_title=f"{nav.title} · Textbook Tutor", page_icon=":material/menu_book:",
                   layout="centered" if nav.url_path == ask.url_path else "wide")
layout.sidebar_brand()
resources.start_readiness()  # GET /ready for a load balancer, once per process, where TUTOR_READY_PORT names a port
resources.warm_up()  # every shelf and model loaded once, in the background, before a student's first question
nav.run()
