"""The teachers' page's numbers, computed without Streamlit (tutor.audit.reports)."""
import io

import pandas as pd

from tutor.audit import reports


def test_csv_cells_that_a_spreadsheet_would_run_are_neutralised():
    df = pd.DataFrame({"id": [1, 2, 3], "time": pd.to_datetime([0, 0, 0], unit="s"),
                       "question": ['=HYPERLINK("http://evil.example","click")', "+1", "What is refraction?"],
                       "answer": ["@SUM(A1)", "\tcmd", "-2+3"], "confidence": [-0.5, 0.1, 0.2]})
    csv = pd.read_csv(io.BytesIO(reports.audit_csv(df)), keep_default_na=False)
    assert csv["question"].tolist() == ["'=HYPERLINK(\"http://evil.example\",\"click\")", "'+1", "What is refraction?"]
    assert csv["answer"].tolist() == ["'@SUM(A1)", "'\tcmd", "'-2+3"]
    assert csv["confidence"].tolist() == [-0.5, 0.1, 0.2]  # numbers stay numbers


def _rows(times, decisions, reasons_, chapters=None, subjects=None):
    n = len(times)
    return pd.DataFrame({
        "id": range(1, n + 1), "time": pd.to_datetime(times), "class": ["10"] * n,
        "subject": subjects or ["science"] * n, "decision": decisions, "reason": reasons_,
        "question": [f"q{i}" for i in range(n)], "nearest_chapter": chapters or [""] * n,
    })


def test_refusal_trend_is_hourly_within_two_days_and_daily_beyond():
    rows = _rows(["2026-11-20 09:10", "2026-11-20 09:40", "2026-11-20 11:05"], ["refused", "answered", "refused"],
                 ["off_topic", "answered", "off_topic"])
    per, unit = reports.refusal_trend(rows)
    assert unit == "hour"
    assert per[["questions", "refused"]].values.tolist() == [[2, 1], [1, 1]] and per["rate"].tolist() == [0.5, 1.0]
    rows.loc[2, "time"] = pd.Timestamp("2026-11-25 08:00")
    per, unit = reports.refusal_trend(rows)
    assert unit == "day" and per["questions"].tolist() == [2, 1]


def test_refusal_trend_of_a_single_hour_or_day_still_spans_an_axis():
    rows = _rows(["2026-11-20 09:10", "2026-11-20 09:40"], ["refused", "answered"], ["off_topic", "answered"])
    per, unit = reports.refusal_trend(rows)
    assert unit == "hour" and per["period"].dt.hour.tolist() == [8, 9, 10]  # an empty hour on each side
    assert per["questions"].tolist() == [0, 2, 0] and per["rate"].iloc[1] == 0.5
    assert per["rate"].iloc[[0, 2]].isna().all()


def test_coverage_gaps_leave_out_off_topic_questions():
    rows = _rows(["2026-11-20 09:00"] * 3, ["refused", "refused", "answered"],
                 ["off_topic", "low_confidence", "answered"], chapters=["Light"] * 3)
    rows = rows.assign(nearest_section=["", "10.2 Lenses", ""])
    rows.loc[0, "question"] = "Who won the IPL in 2023?"
    gaps = reports.coverage_gaps(rows)
    assert gaps["Refused"].tolist() == [1] and "IPL" not in gaps["Example questions"].iloc[0]


def test_refusals_by_reason_and_chapter_count_refusals_only_with_their_labels():
    rows = _rows(["2026-11-20 09:00"] * 4, ["refused", "refused", "answered", "refused"],
                 ["off_topic", "off_topic", "answered", "no_such_code"], chapters=["Light", "", "Light", "Light"],
                 subjects=["science", "science", "science", "social-science"])
    by_reason = reports.refusals_by_reason(rows).set_index("reason")
    assert by_reason["refused"].to_dict() == {"no_such_code": 1, "off_topic": 2}
    assert by_reason.loc["off_topic", "meaning"] and by_reason.loc["no_such_code", "meaning"] == ""
    by_ch = reports.refusals_by_chapter(rows).set_index("label")["refused"].to_dict()
    assert by_ch == {"Science · (no nearby chapter)": 1, "Science · Light": 1, "Social Science · Light": 1}
    table = reports.question_table(rows)
    assert table["Reason"].tolist()[2] == "" and table["Decision"].tolist()[0] == "Refused"
    assert reports.refusals_by_reason(rows[rows["decision"] == "answered"]).empty


def test_the_teachers_tables_and_csv_are_the_same_from_sqlite_and_postgres(tmp_path, pg_url, monkeypatch):
    from types import SimpleNamespace

    from test_audit import answered, refused

    import tutor.audit.log as audit_mod
    from tutor.audit.log import AuditLog
    from tutor.audit.pg_log import PgAuditLog

    logs = [AuditLog(tmp_path / "a.sqlite3"), PgAuditLog(pg_url, spool_path=tmp_path / "spool.jsonl")]
    for log in logs:
        clock = iter([1_700_000_000.0, 1_700_003_600.0])
        monkeypatch.setattr(audit_mod, "time", SimpleNamespace(time=lambda: next(clock)))
        log.log(answered())
        log.log(refused())
    sqlite_df, pg_df = (reports.prepare_audit(log.frame()) for log in logs)
    assert len(sqlite_df) == 2
    pd.testing.assert_frame_equal(reports.question_table(sqlite_df), reports.question_table(pg_df))
    pd.testing.assert_frame_equal(reports.refusals_by_reason(sqlite_df), reports.refusals_by_reason(pg_df))
    assert reports.audit_csv(sqlite_df) == reports.audit_csv(pg_df)
    one = reports.filter_audit(pg_df, decision="Refused")
    assert one["question"].tolist() == ["Who won the 2011 cricket world cup?"]
