"""How things read as text on the pages: Markdown escaping, links, page spans, check and evidence tables, and the
outcome of an upload.

Pure functions over `TutorAnswer`, `UploadResult` and plain values, so a test can call them without Streamlit.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Collection
from typing import TYPE_CHECKING, Any

import pandas as pd

from tutor.answering.prompts import withhold_planted
from tutor.safety.vocabulary import held_back_label, release_digest
from tutor.text.language import passage_language
from tutor.types import AnswerSentence, Source, TutorAnswer

if TYPE_CHECKING:
    from tutor.ingest.uploads import UploadResult

MODE_LABELS = {"library": "Whole shelf", "selected_text": "Selected passage"}


def subject_label(subject: str) -> str:
    return subject.replace("-", " ").title()


def shelf_label(klass: str, subject: str) -> str:
    return f"Class {klass} · {subject_label(subject)}"


_MD_SPECIAL = re.compile(r"([\\`*_\[\]<>$~|#:])")


_MD_LEADING = re.compile(r"^(\s*)([-+=]|\d+)([.)]?)(?=\s|$)", re.MULTILINE)


_URL = re.compile(r"(?i)\b((?:https?|ftp)://|www\.)([^\s<>\[\]()]*)")


_EMAIL_AT = re.compile(r"(?<=[\w.+-])@(?=[\w-]+\.)")


WORD_JOINER = "\u2060"  # invisible and zero-width: the text reads and copies the same, but no link can form


@functools.lru_cache(maxsize=1)
def link_domains() -> tuple[str, ...]:
    """The policy's link_domains: web domains whose addresses may stay clickable in what the app shows."""
    from tutor.policy import load_policy

    return tuple(d.strip().lower().removeprefix("www.") for d in load_policy().link_domains.split(",") if d.strip())


def plain_links(text: str, allowed: tuple[str, ...] | None = None) -> str:
    """Web and e-mail addresses made non-clickable (a word joiner inside the scheme, after the '@'), except those
    on an `allowed` domain (default: the policy's link_domains). Book text, questions and answers go through this:
    a planted "http://evil.example/login" is shown, never offered as a link."""
    allowed = link_domains() if allowed is None else allowed

    def fix(m: re.Match) -> str:
        scheme, rest = m.group(1), m.group(2)
        host = rest.split("/")[0].split(":")[0].lower()
        if scheme.lower() == "www.":
            host = "www." + host
        host = host.removeprefix("www.")
        if host and any(host == d or host.endswith("." + d) for d in allowed):
            return m.group(0)
        return scheme[0] + WORD_JOINER + scheme[1:] + rest

    return _EMAIL_AT.sub("@" + WORD_JOINER, _URL.sub(fix, text))


def md(text: str) -> str:
    """Text shown as markdown exactly as written: no emphasis, links (web addresses are made non-clickable, see
    plain_links), LaTeX, emoji codes or list markers."""
    text = plain_links(" ".join(str(text).split()))
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _MD_LEADING.sub(_escape_marker, text)


def _escape_marker(m: re.Match) -> str:
    lead, mark, punct = m.groups()
    if mark.isdigit():  # "1." starts an ordered list; a bare number is harmless
        return lead + mark + ("\\" + punct if punct else "")
    return lead + "\\" + mark + punct


def page_span(first: int, last: int) -> str:
    return f"page {first}" if not last or last == first else f"pages {first}–{last}"


def highlighted_passage(source_text: str, quotes: list[str]) -> str:
    """The passage as markdown, with the sentences the answer quotes from it highlighted; planted sentences (orders
    to the tutor, requests for passwords) are left out, marked as such."""
    text = withhold_planted(" ".join(source_text.split()))
    spans = []
    for q in quotes:
        q = " ".join(q.split())
        i = text.find(q) if q else -1
        if i >= 0:
            spans.append((i, i + len(q)))
    spans.sort()
    out, pos = [], 0
    for s, e in spans:
        if s < pos:
            continue
        out.append(md(text[pos:s]))
        out.append(f":blue-background[{md(text[s:e])}]")
        pos = e
    out.append(md(text[pos:]))
    return " ".join(p for p in out if p)


def fmt_value(v: Any) -> str:
    if v is None:
        return "–"
    if isinstance(v, bool):
        return "yes" if v else "no"
    if isinstance(v, float):
        return f"{v:.0f}" if v.is_integer() and abs(v) >= 10 else f"{v:.3f}"
    return str(v)


def checks_frame(ans: TutorAnswer) -> pd.DataFrame:
    return pd.DataFrame(
        [
            {
                "Check": c.name.replace("_", " ").capitalize(),
                "Stage": "Gate" if c.stage == "gate" else "Answer",
                "Value": fmt_value(c.value),
                "Threshold": fmt_value(c.threshold),
                "Result": "Pass" if c.passed else "Fail",
                "What it measures": c.detail,
            }
            for c in ans.checks
        ],
        columns=["Check", "Stage", "Value", "Threshold", "Result", "What it measures"],
    )


def evidence_frame(ans: TutorAnswer) -> pd.DataFrame:
    cited = {n for s in ans.sentences for n in s.citations}
    rows = []
    for role, items in (("source", ans.sources), ("near miss", ans.near_misses)):
        for s in items:
            label = f"Source [{s.n}]" + (" · cited" if s.n in cited else "") if role == "source" else "Near miss"
            rows.append({
                "Role": label, "Score": float(s.score), "Chapter": s.chapter, "Page": page_span(s.page, s.page_end),
                "Section": s.section, "Passage": clip(withhold_planted(s.text), 220),
            })
    return pd.DataFrame(rows, columns=["Role", "Score", "Chapter", "Page", "Section", "Passage"])


def timings_line(timings: dict[str, float]) -> str:
    if not timings:
        return "no timings recorded"
    parts = [f"{k} {v:.1f} ms" for k, v in timings.items()]
    return " · ".join(parts) + f" — total {sum(timings.values()):.1f} ms"


def clip(text: str, n: int) -> str:
    text = " ".join(text.split())
    return text if len(text) <= n else text[: n - 1].rstrip() + "…"


def span_highlighted(sentence: str, span: str) -> str:
    """The sentence as markdown with the reader's answer span marked inside it (plain markdown when it is absent)."""
    text, span = " ".join(sentence.split()), " ".join(span.split())
    i = text.find(span) if span else -1
    if i < 0:
        return md(text)
    return " ".join(p for p in (md(text[:i]), f":orange-background[{md(span)}]", md(text[i + len(span):])) if p)


def quoted_pages(src: Source, quoting: list[AnswerSentence]) -> list[tuple[int, list[str]]]:
    """The pages to show for a source: each page a quoting sentence is on, with the sentences on it (the source's
    first page with all of them when the sentences carry no page)."""
    pages: dict[int, list[str]] = {}
    for s in quoting:
        pages.setdefault(s.page or src.page, []).append(s.text)
    return sorted(pages.items()) or [(src.page, [])]


def student_note(note: str) -> str:
    """A note as a student may read it: the internal error in brackets after a fallback note is left out."""
    head, sep, _ = note.partition(" (")
    return head if sep and any(w in note for w in ("Error", "Exception", "/", "\\")) else note


def upload_message(r: UploadResult) -> tuple[str, str]:
    """What became of one uploaded file, as (kind, Markdown): kind is "success", "info" or "error"."""
    where = shelf_label(r.klass, r.subject)
    name = md(r.file)
    if r.renamed:
        name += f" (uploaded as {md(r.uploaded)}; that name was already taken)"
    if r.duplicate_of:
        return "info", (f"**{name}** — the same PDF is already on {where} as {md(r.duplicate_of)}, so it was not "
                        "added again.")
    if r.status in ("added", "replaced"):
        verb = "Added" if r.status == "added" else "Replaced"
        return "success", (f"**{name}** — {verb} *{md(r.chapter)}* on {where}: {r.pages_used} of {r.pages} pages "
                           f"read, {r.chunks} passages indexed.")
    if r.status == "unchanged":
        return "info", f"**{name}** — already on {where} and unchanged, so nothing was redone."
    return "error", f"**{name}** {md(r.cause)}. It was not added; the shelf is unchanged."


def flagged_message(file: str, flagged: list[tuple[int, str]] | tuple[tuple[int, str], ...],
                    released: Collection[str] = ()) -> str:
    """Planted sentences found in a chapter (never quoted to students), listed for a maintainer; "" when none. Those
    whose digest (tutor.safety.vocabulary.release_digest) is in `released` are marked as released by a maintainer."""
    if not flagged:
        return ""
    lines = "\n".join(f"- page {p} ({held_back_label(t) or 'held back'}){_released_mark(t, released)}: {md(t)}"
                      for p, t in flagged)
    return (f"**{md(file)}** has {len(flagged)} sentence(s) held back: they give orders to the tutor, tell the reader "
            f"how to answer others, ask for credentials or personal details, or carry a web address. They are never "
            f"quoted to students and never count as evidence, unless a maintainer released one (only a web address "
            f"can be); check where this PDF came from.\n{lines}")


def _released_mark(sentence: str, released: Collection[str]) -> str:
    return " **released: quoted to students**" if released and release_digest(sentence) in released else ""


BOOK_IN_ENGLISH_HI = "आपकी पाठ्यपुस्तक अंग्रेज़ी में है, इसलिए उत्तर उसी के शब्दों में, अंग्रेज़ी में दिया गया है।"


def book_language_note(ans: TutorAnswer) -> str:
    """For a question asked in Hindi (Devanagari or Hinglish) and answered from an English book: a note, in Hindi,
    that the answer quotes the book in its own language; "" otherwise."""
    if ans.was_refusal or ans.language != "hi":
        return ""
    cited = ans.cited_sources
    return BOOK_IN_ENGLISH_HI if cited and all(passage_language(s.text) == "en" for s in cited) else ""
