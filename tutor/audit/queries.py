"""The teachers' page's questions to the audit database: filters as SQL, counts and charts aggregated by the database,
and the question list one page at a time, so a click costs the same at 100 rows as at 100,000.

Every function takes an AuditLog (SQLite or PostgreSQL: only the placeholder and the rounding differ) and an
AuditFilter, and returns plain values or small DataFrames shaped as tutor/audit/reports.py's, whose functions still
serve the CSV and the tests over frames.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from datetime import date, datetime, time, timedelta
from typing import Any

import pandas as pd

from tutor import reasons
from tutor.audit.reports import _is_gap, prepare_audit
from tutor.presentation import subject_label

TABLE_COLUMNS = ("id", "ts", "question", "class", "subject", "mode", "decision", "reason", "answer",
                 "nearest_chapter", "nearest_section", "failed_checks", "decided_by", "llm_called", "total_ms",
                 "confidence", "resolved_question", "error")


@dataclass(frozen=True)
class AuditFilter:
    """What the teachers picked: dates (inclusive, the server's local days), classes, subjects, the decision
    ("All", "Answered", "Refused"), reason codes, and text to find in the question or the answer (case-insensitive)."""

    start: date | None = None
    end: date | None = None
    classes: tuple[str, ...] = ()
    subjects: tuple[str, ...] = ()
    decision: str = "All"
    reasons: tuple[str, ...] = ()
    text: str = ""
    extra: tuple[tuple[str, Any], ...] = field(default=())  # more (sql, value) conditions, for the functions below
    ids: tuple[int, ...] | None = None  # the text search's answer, once found (`with_ids`): the rows it matched

    def where(self, p: str) -> tuple[str, list[Any]]:
        """A WHERE clause (never empty) and its arguments, with the driver's placeholder `p`."""
        sql, args = ["1=1"], []
        if self.start is not None:
            sql.append(f"ts >= {p}")
            args.append(datetime.combine(self.start, time.min).timestamp())
        if self.end is not None:
            sql.append(f"ts < {p}")
            args.append(datetime.combine(self.end + timedelta(days=1), time.min).timestamp())
        for col, values in (("class", self.classes), ("subject", self.subjects), ("reason", self.reasons)):
            if values:
                sql.append(f"{col} IN ({', '.join([p] * len(values))})")
                args.extend(str(v) for v in values)
        if self.decision.lower() in ("answered", "refused"):
            sql.append(f"decision = {p}")
            args.append(self.decision.lower())
        if self.ids is not None:  # whole numbers from the database itself: written into the SQL as they are
            sql.append(f"id IN ({', '.join(str(int(i)) for i in self.ids)})" if self.ids else "1=0")
        elif self.text.strip():
            needle = "%" + self.text.strip().lower().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            sql.append(f"(LOWER(question) LIKE {p} ESCAPE '\\' OR LOWER(answer) LIKE {p} ESCAPE '\\')")
            args.extend([needle, needle])
        for cond, value in self.extra:
            sql.append(cond.replace("?", p))
            args.append(value)
        return " AND ".join(sql), args


MAX_IDS = 20_000  # a text search matching more rows than this is searched again by each count


def with_ids(log, f: AuditFilter) -> AuditFilter:
    """The filter with its text search done once: the matching rows' ids in place of the text, so the counts,
    charts and pages that follow read those rows by their key instead of each searching every question's text."""
    if not f.text.strip() or f.ids is not None:
        return f
    where, args = f.where(log._P)
    ids = [r["id"] for r in _rows(log, f"SELECT id FROM questions WHERE {where} LIMIT {MAX_IDS + 1}", args)]
    return f if len(ids) > MAX_IDS else dataclasses.replace(f, ids=tuple(ids))


def _rows(log, sql: str, args: list[Any]) -> list[dict[str, Any]]:
    with log._read() as con:
        return [dict(r) for r in con.execute(sql, args)]


def facets(log) -> dict[str, Any]:
    """What the filters offer: the first and last day with questions, and the classes, subjects and reasons seen."""
    (span,) = _rows(log, "SELECT MIN(ts) AS lo, MAX(ts) AS hi, COUNT(*) AS n FROM questions", [])
    out: dict[str, Any] = {"n": int(span["n"])}
    out["first"] = datetime.fromtimestamp(span["lo"]).date() if span["n"] else None
    out["last"] = datetime.fromtimestamp(span["hi"]).date() if span["n"] else None
    for col in ("class", "subject", "reason"):
        out[col] = sorted(str(r["v"]) for r in _rows(log, f"SELECT DISTINCT {col} AS v FROM questions", []))
    return out


def totals(log, f: AuditFilter) -> tuple[int, int]:
    """How many questions match, and how many of them were refused."""
    where, args = f.where(log._P)
    (r,) = _rows(log, "SELECT COUNT(*) AS n, COALESCE(SUM(CASE WHEN decision = 'refused' THEN 1 ELSE 0 END), 0) AS "
                      f"refused FROM questions WHERE {where}", args)
    return int(r["n"]), int(r["refused"])


def page(log, f: AuditFilter, size: int, number: int) -> pd.DataFrame:
    """Page `number` (from 1) of the matching questions, newest first, `size` to a page, prepared as
    reports.prepare_audit prepares the whole log (reports.question_table reads it)."""
    where, args = f.where(log._P)
    rows = _rows(log, f"SELECT {', '.join(TABLE_COLUMNS)} FROM questions WHERE {where} ORDER BY id DESC "
                      f"LIMIT {int(size)} OFFSET {int(size) * (max(1, int(number)) - 1)}", args)
    return prepare_audit(pd.DataFrame(rows, columns=list(TABLE_COLUMNS)))


def matching(log, f: AuditFilter) -> pd.DataFrame:
    """Every matching question (for the CSV), newest first, prepared."""
    where, args = f.where(log._P)
    rows = _rows(log, f"SELECT {', '.join(TABLE_COLUMNS)} FROM questions WHERE {where} ORDER BY id DESC", args)
    return prepare_audit(pd.DataFrame(rows, columns=list(TABLE_COLUMNS)))


def refusal_trend(log, f: AuditFilter) -> tuple[pd.DataFrame, str]:
    """As reports.refusal_trend, counted by the database: questions, refusals and the rate per hour (rows spanning
    under two days) or per local day."""
    where, args = f.where(log._P)
    (span,) = _rows(log, f"SELECT MIN(ts) AS lo, MAX(ts) AS hi FROM questions WHERE {where}", args)
    if span["lo"] is None:
        return pd.DataFrame(columns=["period", "questions", "refused", "rate"]), "day"
    offset = datetime.now().astimezone().utcoffset().total_seconds()  # local periods, as the rest of the page shows
    unit = "hour" if (span["hi"] - span["lo"]) < 2 * 86400 else "day"
    step = 3600 if unit == "hour" else 86400
    bucket = log._FLOOR.format(f"(ts + {offset}) / {step}")
    rows = _rows(log, f"SELECT {bucket} AS b, COUNT(*) AS questions, "
                      f"SUM(CASE WHEN decision = 'refused' THEN 1 ELSE 0 END) AS refused FROM questions "
                      f"WHERE {where} GROUP BY {bucket} ORDER BY {bucket}", args)
    per = pd.DataFrame(rows, columns=["b", "questions", "refused"]).astype({"questions": int, "refused": int})
    per.insert(0, "period", pd.to_datetime(per.pop("b").astype("int64") * step, unit="s"))
    per["rate"] = per["refused"] / per["questions"]
    if len(per) == 1:  # one point has no span to draw a time axis over: an empty period on each side
        at, one = per["period"].iloc[0], pd.Timedelta(seconds=step)
        pad = pd.DataFrame({"period": [at - one, at + one], "questions": [0, 0], "refused": [0, 0],
                            "rate": [float("nan")] * 2})
        per = pd.concat([pad.iloc[:1], per, pad.iloc[1:]], ignore_index=True)
    return per, unit


def refused_groups(log, f: AuditFilter) -> pd.DataFrame:
    """Refused questions counted by the database per class, subject, reason, nearest chapter and section, with the
    latest time (class, subject, reason, nearest_chapter, nearest_section, refused, last): a few hundred rows at most,
    whatever the size of the log."""
    where, args = f.where(log._P)
    cols = "class, subject, reason, COALESCE(nearest_chapter, '') AS nearest_chapter, " \
           "COALESCE(nearest_section, '') AS nearest_section"
    rows = _rows(log, f"SELECT {cols}, COUNT(*) AS refused, MAX(ts) AS last FROM questions "
                      f"WHERE {where} AND decision = 'refused' GROUP BY class, subject, reason, "
                      "COALESCE(nearest_chapter, ''), COALESCE(nearest_section, '')", args)
    out = pd.DataFrame(rows, columns=["class", "subject", "reason", "nearest_chapter", "nearest_section", "refused",
                                      "last"])
    return out.astype({"class": str, "refused": int})


def refusals_by_reason(groups: pd.DataFrame) -> pd.DataFrame:
    """reports.refusals_by_reason from `refused_groups`."""
    out = groups.groupby("reason")["refused"].sum().reset_index()
    out["label"] = out["reason"].map(reasons.label)
    out["meaning"] = out["reason"].map(lambda r: reasons.message(r) if reasons.reason(r) else "")
    return out


def refusals_by_chapter(groups: pd.DataFrame) -> pd.DataFrame:
    """reports.refusals_by_chapter from `refused_groups`."""
    out = (groups.assign(chapter=groups["nearest_chapter"].replace("", "(no nearby chapter)"),
                         subject_name=groups["subject"].map(subject_label))
           .groupby(["subject_name", "chapter"])["refused"].sum().reset_index())
    out["label"] = out["subject_name"] + " · " + out["chapter"]
    return out


def coverage_gaps(log, f: AuditFilter, groups: pd.DataFrame, top: int = 30) -> pd.DataFrame:
    """reports.coverage_gaps from `refused_groups`, the `top` places with the most refusals; their example questions
    (the latest three different ones) are read for those places only."""
    cols = ["Shelf", "Nearest chapter", "Nearest section", "Refused", "Main reason", "Example questions"]
    gaps = groups[groups["reason"].map(_is_gap).astype(bool)] if len(groups) else groups
    if gaps.empty:
        return pd.DataFrame(columns=cols)
    keys = ["class", "subject", "nearest_chapter", "nearest_section"]
    main = gaps.sort_values("refused", ascending=False).drop_duplicates(keys).set_index(keys)["reason"]
    places = gaps.groupby(keys).agg(refused=("refused", "sum"), last=("last", "max")).reset_index()
    places = places.sort_values(["refused", "last"], ascending=[False, False]).head(top)
    # the latest refusals, read once, give most places their examples; a place not among them is asked on its own
    where, args = dataclasses.replace(f, decision="Refused").where(log._P)
    latest: dict[tuple, list[str]] = {}
    for r in _rows(log, "SELECT class, subject, COALESCE(nearest_chapter, '') AS ch, COALESCE(nearest_section, '') AS "
                        f"sec, reason, question FROM questions WHERE {where} ORDER BY id DESC LIMIT 2000", args):
        if _is_gap(r["reason"]):
            latest.setdefault((str(r["class"]), r["subject"], r["ch"], r["sec"]), []).append(r["question"])
    out = []
    for p in places.itertuples(index=False):
        seen = latest.get(tuple(p[:4]))
        if not seen:
            here = gaps[(gaps["class"] == p[0]) & (gaps["subject"] == p[1]) & (gaps["nearest_chapter"] == p[2])
                        & (gaps["nearest_section"] == p[3])]
            place = (("class = ?", p[0]), ("subject = ?", p[1]), ("COALESCE(nearest_chapter, '') = ?", p[2]),
                     ("COALESCE(nearest_section, '') = ?", p[3]))
            g = dataclasses.replace(f, reasons=tuple(here["reason"]), decision="Refused", extra=f.extra + place)
            w, a = g.where(log._P)
            seen = [r["question"] for r in _rows(log, f"SELECT question FROM questions WHERE {w} ORDER BY id DESC "
                                                      "LIMIT 20", a)]
        out.append({"Shelf": f"{p[0]} · {subject_label(p[1])}", "Nearest chapter": p[2] or "(none)",
                    "Nearest section": p[3] or "–", "Refused": int(p.refused),
                    "Main reason": reasons.label(main.loc[tuple(p[:4])]),
                    "Example questions": " · ".join(list(dict.fromkeys(seen))[:3])})
    return pd.DataFrame(out, columns=cols)
