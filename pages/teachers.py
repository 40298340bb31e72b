"""Teachers' page (password): every question in the audit log, filterable, with charts, coverage gaps and CSV.

A question's detail is drawn by the same function as the student's reply, so teachers see what the student saw.
"""
from datetime import date

import altair as alt
import streamlit as st

from tutor import presentation as pres
from tutor import reasons as reason_codes  # `reasons` is the page's reason filter below
from tutor.audit import queries, reports
from tutor.audit.log import AuditUnavailable
from tutor.store import chapters as chapter_text
from tutor.types import TutorAnswer
from ui import auth, layout, render, resources

layout.through_app()
layout.page_header("Teachers", "What students asked, what the tutor answered or refused and why, and where the "
               "textbooks fall short.")
auth.password_gate("teacher_password", resources.AUTH_TEACHER, "teachers'")

log = resources.audit_log()
render.audit_waiting_note(log)
try:
    seen = queries.facets(log)  # every count and chart below is the database's (tutor/audit/queries.py)
except AuditUnavailable as e:
    st.error(f"{pres.md(str(e))}. Students still get answers and their questions are kept in a spool file; a "
             "maintainer can set the damaged database aside on the Maintainers page.", icon=":material/error:")
    st.stop()
if not seen["n"]:
    st.info("No questions have been asked yet. Questions appear here as soon as students use the Ask or Read pages.",
            icon=":material/inbox:")
    st.stop()

# ------------------------------------------------------------------------------------------------ filters
with st.container(border=True):
    st.markdown("**Filter questions**")
    f1, f2, f3, f4 = st.columns([2, 1, 2, 1])
    picked = f1.date_input("Date range", value=(seen["first"], seen["last"]), key="t_dates", format="DD/MM/YYYY")
    classes = f2.multiselect("Class", sorted(seen["class"], key=chapter_text.class_sort_key), key="t_classes",
                             format_func=lambda k: f"Class {k}", placeholder="All")
    subjects = f3.multiselect("Subject", seen["subject"], key="t_subjects", format_func=pres.subject_label,
                              placeholder="All")
    decision = f4.selectbox("Decision", ["All", "Answered", "Refused"], key="t_decision")
    g1, g2 = st.columns([2, 3])
    reasons = g1.multiselect("Reason", seen["reason"], key="t_reasons", format_func=reason_codes.label,
                             placeholder="All")
    text = g2.text_input("Search the questions and answers", key="t_text", placeholder="e.g. photosynthesis")

start, end = (picked + (None, None))[:2] if isinstance(picked, tuple) else (picked, picked)
chosen_filter = queries.AuditFilter(start, end or start, tuple(classes), tuple(subjects), decision, tuple(reasons),
                                    text)
chosen_filter = queries.with_ids(log, chosen_filter)  # a text search reads every question once, not per count
n, refused = queries.totals(log, chosen_filter)
m1, m2, m3, m4 = st.columns(4)
m1.metric("Questions", n, border=True)
m2.metric("Answered", n - refused, border=True)
m3.metric("Refused", refused, border=True)
m4.metric("Refusal rate", f"{refused / n:.0%}" if n else "–", border=True)

tab_questions, tab_trends, tab_gaps = st.tabs([":material/list: Questions", ":material/monitoring: Trends",
                                               ":material/travel_explore: Coverage gaps"])

PAGE_ROWS = 100  # the question list is read one page at a time
CSV_AT_ONCE = 1_000  # up to this many rows the CSV is ready with the page; beyond, it is made when asked for


def csv_button(flt: queries.AuditFilter, n: int) -> None:
    """The CSV of every matching question: made with the page for a few thousand rows, on request beyond."""
    name = f"tutor-questions-{date.today():%Y-%m-%d}.csv"
    label = f"Download these {n} rows as CSV"
    if n <= CSV_AT_ONCE:
        data = reports.audit_csv(queries.matching(log, flt))
    else:
        made = st.session_state.get("t_csv_made")
        if made is None or made[0] != flt:
            if st.button(f"Prepare a CSV of these {n} rows", icon=":material/table_view:", key="t_csv_prepare"):
                st.session_state["t_csv_made"] = (flt, reports.audit_csv(queries.matching(log, flt)))
                st.rerun()
            return
        data = made[1]
    st.download_button(label, data, key="t_csv", file_name=name, mime="text/csv", icon=":material/download:")


# ------------------------------------------------------------------------------------------------ questions
with tab_questions:
    if not n:
        st.info("No questions match these filters.", icon=":material/filter_alt_off:")
    else:
        pages = -(-n // PAGE_ROWS)
        number = 1
        if pages > 1:
            number = int(st.number_input(f"Page (of {pages}, {PAGE_ROWS} questions each, newest first)", 1, pages,
                                         key=f"t_page_{pages}"))
        rows = queries.page(log, chosen_filter, PAGE_ROWS, number)
        table = reports.question_table(rows)
        st.dataframe(table, hide_index=True, width="stretch", height=min(420, 38 + 35 * len(table)), column_config={
            "id": st.column_config.NumberColumn("#", width=48),
            "time": st.column_config.DatetimeColumn("Asked", format="DD/MM/YY HH:mm", width=115),
            "Shelf": st.column_config.TextColumn(width=125),
            "question": st.column_config.TextColumn("Question", width=290),
            "Decision": st.column_config.TextColumn(width=85),
            "Reason": st.column_config.TextColumn(width=115),
            "nearest_chapter": st.column_config.TextColumn("Nearest chapter", width=170),
        })
        csv_button(chosen_filter, n)

        st.subheader("Question detail", anchor=False)
        labels = {int(r.id): f"#{r.id} · {r.time:%d/%m %H:%M} · {pres.clip(r.question, 90)}" for r in rows.itertuples()}
        chosen = st.selectbox("Open a question", list(labels), format_func=labels.get, key="t_detail",
                              help="The questions on this page of the list above")
        detail = log.detail(int(chosen)) if chosen is not None else None
        if detail is None:
            st.warning("That question is no longer in the log.")
        else:
            ans = TutorAnswer.from_dict(detail)
            with st.container(border=True):
                st.markdown(f"**Question:** {pres.md(ans.question)}")
                st.caption(f"{pres.shelf_label(ans.klass, ans.subject)} · {pres.MODE_LABELS.get(ans.mode, ans.mode)} · "
                           f"asked {labels[int(chosen)].split(' · ')[1]}")
                if detail.get("selected_text"):
                    passage = pres.md(pres.clip(detail["selected_text"], 400))
                    st.markdown("**Passage the student selected:**\n\n> " + passage)
                st.markdown("**What the student saw:**")
                render.render_answer(ans, key=f"t_{chosen}", diagnostics_expanded=True, staff=True)

# ------------------------------------------------------------------------------------------------ trends
groups = queries.refused_groups(log, chosen_filter)  # refusals counted by the database: the trends and the gaps
with tab_trends:
    if not n:
        st.info("No questions match these filters.", icon=":material/filter_alt_off:")
    else:
        per, unit = queries.refusal_trend(log, chosen_filter)
        fmt = "%d %b" if unit == "day" else "%H:%M"
        st.markdown(f"**Refusal rate per {unit}** — the share of questions the tutor declined to answer")
        line = alt.Chart(per).mark_line(point=alt.OverlayMarkDef(size=60)).encode(
            x=alt.X("period:T", title=None, axis=alt.Axis(format=fmt, labelAngle=0,
                                                          tickCount={"interval": "day" if unit == "day" else "hour",
                                                                     "step": 1 if unit == "day" else 3})),
            y=alt.Y("rate:Q", title="Refused", axis=alt.Axis(format="%"), scale=alt.Scale(domain=[0, 1])),
            tooltip=[alt.Tooltip("period:T", title=unit.capitalize(),
                                 format="%d %b %Y" if unit == "day" else "%d %b %Y %H:%M"),
                     alt.Tooltip("questions:Q", title="Questions"), alt.Tooltip("refused:Q", title="Refused"),
                     alt.Tooltip("rate:Q", title="Rate", format=".0%")],
        )
        st.altair_chart(line, width="stretch", height=280)

        by_reason, by_ch = queries.refusals_by_reason(groups), queries.refusals_by_chapter(groups)
        c1, c2 = st.columns(2)
        with c1:
            st.markdown("**Refusals by reason**")
            if by_reason.empty:
                st.caption("No refusals in this selection.")
            else:
                st.altair_chart(alt.Chart(by_reason).mark_bar().encode(
                    x=alt.X("refused:Q", title="Refused questions", axis=alt.Axis(tickMinStep=1)),
                    y=alt.Y("label:N", sort="-x", title=None),
                    tooltip=[alt.Tooltip("label:N", title="Reason"), alt.Tooltip("meaning:N", title="Meaning"),
                             alt.Tooltip("refused:Q", title="Refused")],
                ), width="stretch", height=reports.bar_chart_height(len(by_reason)))
        with c2:
            st.markdown("**Refusals by subject and chapter**")
            if by_ch.empty:
                st.caption("No refusals in this selection.")
            else:
                st.altair_chart(alt.Chart(by_ch).mark_bar().encode(
                    x=alt.X("refused:Q", title="Refused questions", axis=alt.Axis(tickMinStep=1)),
                    y=alt.Y("label:N", sort="-x", title=None, axis=alt.Axis(labelLimit=260)),
                    color=alt.Color("subject_name:N", title="Subject", legend=None),
                    tooltip=[alt.Tooltip("subject_name:N", title="Subject"), alt.Tooltip("chapter:N", title="Chapter"),
                             alt.Tooltip("refused:Q", title="Refused")],
                ), width="stretch", height=reports.bar_chart_height(len(by_ch)))

# ------------------------------------------------------------------------------------------------ coverage gaps
with tab_gaps:
    st.caption("Refused questions grouped by the chapter and section closest to them: the places where students "
               "ask more than the textbook answers. Empty questions, errors and questions about nothing on the shelf "
               "(off-topic) are left out.")
    gaps = queries.coverage_gaps(log, chosen_filter, groups)
    if gaps.empty:
        st.info("No refused questions in this selection.", icon=":material/task_alt:")
    else:
        st.dataframe(gaps, hide_index=True, width="stretch", column_config={
            "Shelf": st.column_config.TextColumn(width=125),
            "Nearest chapter": st.column_config.TextColumn(width=180),
            "Nearest section": st.column_config.TextColumn(width=180),
            "Refused": st.column_config.NumberColumn(width=70),
            "Main reason": st.column_config.TextColumn(width=115),
            "Example questions": st.column_config.TextColumn(width=420),
        })
