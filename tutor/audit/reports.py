"""What the teachers' page computes from the audit log: the prepared table, filters, the question list, refusal
trends and counts by reason and chapter, CSV export, coverage gaps.

Pure functions over pandas DataFrames (no Streamlit).
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import pandas as pd

from tutor import reasons
from tutor.presentation import subject_label

AUDIT_COLUMNS = ["id", "time", "class", "subject", "mode", "decision", "reason", "question", "resolved_question",
                 "answer", "confidence",
                 "nearest_chapter", "nearest_section", "failed_checks", "decided_by", "llm_called", "total_ms"]


def local_times(ts: pd.Series) -> pd.Series:
    """Audit timestamps (Unix seconds) as naive datetimes in the server's time zone."""
    tz = datetime.now().astimezone().tzinfo
    return pd.to_datetime(ts.astype(float), unit="s", utc=True).dt.tz_convert(tz).dt.tz_localize(None)


def prepare_audit(df: pd.DataFrame) -> pd.DataFrame:
    df = df.copy()
    df["time"] = local_times(df["ts"]) if len(df) else pd.Series(dtype="datetime64[ns]")
    df["class"] = df["class"].astype(str)
    for col in ("nearest_chapter", "nearest_section", "failed_checks", "error", "resolved_question"):
        if col in df.columns:  # resolved_question: audit logs from before migration 3 hold none
            df[col] = df[col].fillna("")
    return df


def filter_audit(df: pd.DataFrame, *, start=None, end=None, classes=(), subjects=(), decision: str = "All",
                 reasons=(), text: str = "") -> pd.DataFrame:
    """The audit rows matching every filter given (dates inclusive, text case-insensitive in question or answer)."""
    m = pd.Series(True, index=df.index)
    if start is not None:
        m &= df["time"].dt.date >= start
    if end is not None:
        m &= df["time"].dt.date <= end
    if classes:
        m &= df["class"].isin([str(c) for c in classes])
    if subjects:
        m &= df["subject"].isin(list(subjects))
    if decision and decision.lower() in ("answered", "refused"):
        m &= df["decision"] == decision.lower()
    if reasons:
        m &= df["reason"].isin(list(reasons))
    if text.strip():
        needle = text.strip().lower()
        m &= df["question"].str.lower().str.contains(needle, regex=False) | df["answer"].str.lower().str.contains(
            needle, regex=False)
    return df[m]


_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value: Any) -> Any:
    """A text cell a spreadsheet will not run: one starting with = + - @ tab or CR gets a leading apostrophe (OWASP's
    advice against CSV injection). Numbers are left alone, negative ones included."""
    if isinstance(value, str) and value.startswith(_FORMULA_START):
        return "'" + value
    return value


def audit_csv(df: pd.DataFrame) -> bytes:
    out = df[[c for c in AUDIT_COLUMNS if c in df.columns]].copy()
    out["time"] = out["time"].dt.strftime("%Y-%m-%d %H:%M:%S")
    for col in out.columns:
        if out[col].dtype == object or pd.api.types.is_string_dtype(out[col]):
            out[col] = out[col].map(csv_cell)
    return out.to_csv(index=False).encode("utf-8")


def _is_gap(code: str) -> bool:
    """Whether a refusal with this reason shows a gap in the book (a code from an older version counts)."""
    member = reasons.reason(code)
    return member.is_coverage_gap if member else True


def coverage_gaps(df: pd.DataFrame) -> pd.DataFrame:
    """Refused questions grouped by the chapter and section nearest to them, most refusals first."""
    ref = df[(df["decision"] == "refused") & df["reason"].map(_is_gap).astype(bool)]
    cols = ["Shelf", "Nearest chapter", "Nearest section", "Refused", "Main reason", "Example questions"]
    if ref.empty:
        return pd.DataFrame(columns=cols)
    rows = []
    for (k, s, ch, sec), g in ref.groupby(["class", "subject", "nearest_chapter", "nearest_section"], dropna=False):
        g = g.sort_values("time", ascending=False)
        examples = list(dict.fromkeys(g["question"]))[:3]
        rows.append({
            "Shelf": f"{k} · {subject_label(s)}", "Nearest chapter": ch or "(none)", "Nearest section": sec or "–",
            "Refused": len(g), "Main reason": reasons.label(g["reason"].mode().iloc[0]),
            "Example questions": " · ".join(examples), "_last": g["time"].iloc[0],
        })
    out = pd.DataFrame(rows).sort_values(["Refused", "_last"], ascending=[False, False])
    return out[cols].reset_index(drop=True)


def question_table(df: pd.DataFrame) -> pd.DataFrame:
    """The question list as teachers read it: shelf, decision and the reason's label instead of codes."""
    return df.assign(
        Shelf=df["class"] + " · " + df["subject"].map(subject_label),
        Decision=df["decision"].str.capitalize(),
        Reason=df["reason"].map(lambda r: "" if r == "answered" else reasons.label(r)),
    )[["id", "time", "Shelf", "question", "Decision", "Reason", "nearest_chapter"]]


def refusal_trend(df: pd.DataFrame) -> tuple[pd.DataFrame, str]:
    """Questions, refusals and the refusal rate per period: per hour when the rows span under two days, else per
    day. Returns the frame (period, questions, refused, rate) and the unit ("hour" or "day")."""
    unit = "hour" if (df["time"].max() - df["time"].min()).days < 2 else "day"
    step = "h" if unit == "hour" else "D"
    per = (df.assign(period=df["time"].dt.floor(step), refused=df["decision"] == "refused")
           .groupby("period").agg(questions=("id", "count"), refused=("refused", "sum")).reset_index())
    per["rate"] = per["refused"] / per["questions"]
    if len(per) == 1:  # one point has no span to draw a time axis over: an empty period on each side gives it one
        at, one = per["period"].iloc[0], pd.Timedelta(1, unit=step)
        pad = pd.DataFrame({"period": [at - one, at + one], "questions": [0, 0], "refused": [0, 0],
                            "rate": [float("nan")] * 2})
        per = pd.concat([pad.iloc[:1], per, pad.iloc[1:]], ignore_index=True)
    return per, unit


def refusals_by_reason(df: pd.DataFrame) -> pd.DataFrame:
    """Refused questions counted per reason, with the reason's label and what it means (reason, refused, label,
    meaning); empty when nothing was refused."""
    ref = df[df["decision"] == "refused"]
    out = ref.groupby("reason").size().reset_index(name="refused")
    out["label"] = out["reason"].map(reasons.label)
    out["meaning"] = out["reason"].map(lambda r: reasons.message(r) if reasons.reason(r) else "")
    return out


def refusals_by_chapter(df: pd.DataFrame) -> pd.DataFrame:
    """Refused questions counted per subject and nearest chapter (subject_name, chapter, refused, label)."""
    ref = df[df["decision"] == "refused"]
    out = (ref.assign(chapter=ref["nearest_chapter"].replace("", "(no nearby chapter)"),
                      subject_name=ref["subject"].map(subject_label))
           .groupby(["subject_name", "chapter"]).size().reset_index(name="refused"))
    out["label"] = out["subject_name"] + " · " + out["chapter"]
    return out


def bar_chart_height(bars: int) -> int:
    """Pixels for a horizontal bar chart: room for each bar's label, plus the axis."""
    return 70 + 36 * max(2, bars)
