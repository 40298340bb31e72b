"""The teachers' page's numbers counted by the database (tutor.audit.queries) are the numbers tutor.audit.reports
computes over the whole log in pandas, for every filter, on SQLite and PostgreSQL; and the question list comes one
page at a time."""
from __future__ import annotations

import dataclasses
from datetime import timedelta
from types import SimpleNamespace

import pandas as pd
import pytest
from test_audit import answered, refused

import tutor.audit.log as audit_mod
from tutor.audit import queries, reports
from tutor.audit.log import AuditLog
from tutor.audit.pg_log import PgAuditLog

from helpers_postgres import BACKENDS
from helpers_safety import source

START = 1_763_800_000.0  # 2025-11-22, a Saturday: the rows span four days, so the trend is per day


@pytest.fixture(params=BACKENDS)
def seeded(request, tmp_path, monkeypatch):
    """A log of 24 questions over four days: two classes, three subjects, answered and refused for four reasons,
    near three chapters."""
    if request.param == "sqlite":
        log = AuditLog(tmp_path / "audit.sqlite3")
    else:
        log = PgAuditLog(request.getfixturevalue("pg_url"), spool_path=tmp_path / "spool.jsonl")
    clock = iter(START + i * 15_000.0 for i in range(24))
    monkeypatch.setattr(audit_mod, "time", SimpleNamespace(time=lambda: next(clock)))
    subjects, why = ["science", "social-science", "mathematics"], ["low_confidence", "off_topic", "not_answerable",
                                                                     "no_such_code"]
    for i in range(24):
        klass, subject = ("9", "10")[i % 2], subjects[i % 3]
        if i % 3 == 0:
            ans = answered(f"What is refraction number {i}?")
        else:
            ans = refused(f"Question {i} about {'soil' if i % 4 else 'light'}?")
            ans = dataclasses.replace(ans, reason=why[i % 4], near_misses=(
                source(1, "A plane mirror forms an image.", chapter=("Light", "Soil", "")[i % 3], score=0.3),),
                suggestions=())
        log.log(dataclasses.replace(ans, klass=klass, subject=subject))
    monkeypatch.undo()
    return log


FILTERS = [
    queries.AuditFilter(),
    queries.AuditFilter(decision="Refused"),
    queries.AuditFilter(decision="Answered", classes=("10",)),
    queries.AuditFilter(subjects=("science", "mathematics"), reasons=("off_topic", "low_confidence")),
    queries.AuditFilter(text="SOIL"),
    queries.AuditFilter(text="100%_"),  # LIKE's own characters are searched for, not obeyed
]


def _as_reports(df: pd.DataFrame, f: queries.AuditFilter) -> pd.DataFrame:
    return reports.filter_audit(df, start=f.start, end=f.end, classes=f.classes, subjects=f.subjects,
                                decision=f.decision, reasons=f.reasons, text=f.text)


@pytest.mark.parametrize("request_ids", [False, True], ids=["searched", "ids"])
@pytest.mark.parametrize("f", FILTERS + ["dates"], ids=lambda f: "dates" if f == "dates" else repr(f)[12:60])
def test_the_databases_counts_are_the_whole_frames_counts(seeded, f, request_ids):
    whole = reports.prepare_audit(seeded.frame())
    if f == "dates":  # the second and third local days, inclusive
        first = whole["time"].min().date()
        f = queries.AuditFilter(start=first + timedelta(days=1), end=first + timedelta(days=2))
    rows = _as_reports(whole, f)
    if f.text and request_ids:
        f = queries.with_ids(seeded, f)  # the text search done once, as the page does it
        assert f.ids is not None
    n, refused_n = queries.totals(seeded, f)
    assert (n, refused_n) == (len(rows), int((rows["decision"] == "refused").sum()))
    page = queries.page(seeded, f, 5, 2)
    assert page["id"].tolist() == rows.sort_values("id", ascending=False)["id"].tolist()[5:10]
    if not n:
        return
    groups = queries.refused_groups(seeded, f)
    key = ["reason"]
    pd.testing.assert_frame_equal(queries.refusals_by_reason(groups).sort_values(key).reset_index(drop=True),
                                  reports.refusals_by_reason(rows).sort_values(key).reset_index(drop=True),
                                  check_dtype=False)
    key = ["subject_name", "chapter"]
    pd.testing.assert_frame_equal(queries.refusals_by_chapter(groups).sort_values(key).reset_index(drop=True),
                                  reports.refusals_by_chapter(rows).sort_values(key).reset_index(drop=True),
                                  check_dtype=False)
    pd.testing.assert_frame_equal(queries.coverage_gaps(seeded, f, groups), reports.coverage_gaps(rows),
                                  check_dtype=False)
    (per, unit), (want, want_unit) = queries.refusal_trend(seeded, f), reports.refusal_trend(rows)
    assert unit == want_unit
    pd.testing.assert_frame_equal(per.reset_index(drop=True), want.reset_index(drop=True), check_dtype=False)


def test_the_filters_offer_what_the_log_holds(seeded):
    seen = queries.facets(seeded)
    assert seen["n"] == 24 and seen["class"] == ["10", "9"]
    assert seen["subject"] == ["mathematics", "science", "social-science"]
    assert seen["reason"] == ["answered", "low_confidence", "no_such_code", "not_answerable", "off_topic"]
    assert (seen["last"] - seen["first"]).days >= 3
