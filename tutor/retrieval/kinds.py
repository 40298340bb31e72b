"""Follow-ups that ask a kind of thing about the previous answer ("Why?", "Give an example.", "Tell me more."): the
book's sentences that give it, found around that answer in the chapter's reading order, or none.

Retrieval cannot do this: "Why?" resolved to "Why myopia?" finds the same passage again, and the extractive answerer
quotes the same sentences. The book's reason, example or next sentences sit beside the answer, so they are looked for
there, in the chapter's own order: a sentence of cause (because, due to, therefore ...) or of example (for example,
such as, e.g. ...) about the same subject, nearest in the same section; for "more", the sentences around the answer
that it did not give, with the chapter summary's wording of the same topic first when the student asked for it more
simply. "About the same subject" is checked, never assumed: a sentence names every topic word of the earlier question,
or it belongs to the run of sentences that continue the answer ("This defect may arise ...", "Such a person ...").

Pure functions over chunks and strings; the pipeline turns a `Found` into cited sentences and runs the gate and the
answer checks on them (tutor/followup_kinds.py).
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tutor.question import EXAMPLE, MORE, WHY
from tutor.retrieval.followup import topic_words
from tutor.text.terms import stem, tokens
from tutor.types import Chunk

CAUSE = re.compile(r"\b(?:because|due to|since|so that|therefore|as a result|this is why|that is why|hence|"
                   r"the reason|reasons? (?:is|are|why)|caused by|arises? from|results? (?:in|from))\b", re.I)
EXAMPLE_CUE = re.compile(r"\b(?:for example|for instance|e\.\s?g\.|such as|examples?|to take an example|"
                         r"take the case of|include|includes|(?:is|are|can (?:also )?be) (?:seen|observed) when)\b",
                         re.I)
# the plainest cues: a sentence with one of these is a reason or an example more surely than one with "since",
# "hence", "such as" or "include"
STRONG_CAUSE = re.compile(r"\b(?:because|due to|this is why|that is why|the reason|reasons? (?:is|are|why)|"
                          r"caused by|arises? from|as a result)\b", re.I)
STRONG_EXAMPLE = re.compile(r"\b(?:for example|for instance|e\.\s?g\.|examples?|to take an example|take the case of)\b",
                            re.I)
# a sentence that only announces an example, which the sentences after it give: it ends with a colon, points to "the
# following example(s)", asks to "consider an example", or ends at "for example," with nothing named after it
ANNOUNCES = re.compile(r":\W*$|\bthe following (?:examples?|instances?|cases?)\b|"
                       r"\blet us (?:now )?(?:consider|take|look at|study|see|discuss) (?:an?|one|some|a few|another|"
                       r"two|three)? ?(?:more )?examples?\b|"
                       r"\bfor (?:example|instance)[,:]?\s*(?:(?:consider|take|look at|see)\s*)?(?:the following|this|"
                       r"these)?\W*$", re.I)
ANNOUNCE_REACH = 4  # how many sentences after an announcement may hold the example it announces
SUMMARY_START = re.compile(r"\bwhat you have learnt\b|\bsumming up\b", re.I)
# a sentence that continues the one before it: a pointing word among its first words ("This defect ...",
# "A person with this defect ...", "Such a person ...", "They are included ...")
_POINTING = {"this", "these", "it", "its", "they", "their", "such", "them", "he", "she", "his", "her"}
POINT_WINDOW = 5  # how many first words may hold the pointing word
SUMMARY_SPAN = 25  # how many sentences after "What you have learnt" count as the chapter's summary
_CAPTION = re.compile(r"^(?:figure|fig\.|table|activity)\s*\d|^\d+(?:\.\d+)+\s+\S", re.I)  # and "13.1.1 Food ..."
SEED_REACH = 6  # a sentence naming the topic this close to the answer, in its section, starts a run of its own
EXTRA_REACH = 2  # a second reason or example must be this close to one already picked (the book's own paragraph)


@dataclass(frozen=True)
class Line:
    """One sentence of a chapter in reading order: its text, page, section, the chunk it was read from (the source a
    citation names) and its place in the chapter."""

    text: str
    page: int
    section: str
    chunk: Chunk
    pos: int


@dataclass(frozen=True)
class Found:
    """What a kind follow-up found: the sentences to quote, in reading order (empty: the book gives none), and a line
    for the diagnostics saying what was looked at and why the others were left."""

    kind: str
    lines: tuple[Line, ...]
    note: str
    anchors: tuple[Line, ...] = ()  # the previous answer's sentences, found in the chapter


def topic_of(question: str) -> list[str]:
    """The stems of a question's topic words ("What is the State List?" -> state, list): no asking or aspect words,
    so the reason asked for later is not part of the topic ("What is the reason for myopia?" -> myopia)."""
    return list(dict.fromkeys(stem(w) for w in topic_words(question)))


def norm(text: str) -> str:
    """Letters and digits only, lower case: the PDF's split words ("mirr ors") and spacing do not matter."""
    return re.sub(r"[^0-9a-z]+", "", text.lower())


def reading_order(chunks: list[Chunk], chapter_code: str) -> list[Line]:
    """The chapter's sentences once each, in order (neighbouring chunks repeat the sentences they overlap on);
    exercises and question boxes are left out: they ask, they do not tell."""
    out: list[Line] = []
    before: set[str] = set()
    for c in chunks:
        if c.chapter_code != chapter_code:
            continue
        mine = set()
        for text, page in c.sentence_texts():
            key = norm(text)
            mine.add(key)
            if not key or key in before:
                continue
            if c.is_evidence:
                out.append(Line(text.strip(), page, c.section, c, len(out)))
        before = mine
    return out


def find_anchors(lines: list[Line], given: list[str]) -> list[Line]:
    """The lines the previous answer quoted (`given`: its sentences), matched on letters and digits."""
    keys = [norm(g) for g in given if len(norm(g)) >= 12]
    return [ln for ln in lines if any(k == norm(ln.text) or (len(k) >= 30 and k in norm(ln.text))
                                      or (len(norm(ln.text)) >= 30 and norm(ln.text) in k) for k in keys)]


def _same(a: str, b: str) -> bool:
    """One word under two light stems ("myopia" and "myopic", "oxide" and "oxides")."""
    if a == b:
        return True
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n >= 4 and n >= min(len(a), len(b)) - 2


def names_topic(text: str, topic: list[str], every: bool = False) -> bool:
    """The sentence names the topic: both words of a one- or two-word topic (one would let "this list" stand for
    the State List where the book speaks of the Union List), two in three of a longer one ("optically denser" for
    "an optically denser medium")."""
    have = {stem(t) for t in tokens(text)}
    found = sum(any(_same(t, w) for w in have) for t in topic)
    return bool(topic) and found >= (len(topic) if len(topic) <= 2 or every else -(-2 * len(topic) // 3))


def _points_back(text: str) -> bool:
    words = re.findall(r"[a-z]+", text.lower())[:POINT_WINDOW]
    return any(w in _POINTING for w in words)


def _usable(line: Line) -> bool:
    """A sentence that tells: not a question, a caption or a heading fragment."""
    t = line.text.strip()
    return (not t.endswith("?") and not _CAPTION.match(t) and len(t.split()) >= 4
            and norm(t) != norm(line.section))


def topic_run(lines: list[Line], anchors: list[Line], topic: list[str]) -> set[int]:
    """The places of the sentences that continue the answer's subject: the anchors, and from each, forward and back,
    the sentences that name the topic or point back to the one before (one sentence between two of them may do
    neither: "The near point, for the person, is farther away ..."); never past a section's end. A sentence naming the
    topic a few sentences before or after an anchor, in its section, starts a run too ("Union List includes ..."
    then "They are included in this list because ...", when the answer quoted a later sentence)."""
    run: set[int] = set()
    end = summary_start(lines)  # the summary's points are unrelated one to the next: no run through them
    run.update(a.pos for a in anchors if a.pos >= end)
    anchors = [a for a in anchors if a.pos < end]
    seeds = list(anchors) + [ln for ln in lines if any(
        ln.section == a.section and 0 < abs(ln.pos - a.pos) <= SEED_REACH for a in anchors) and names_topic(
        ln.text, topic)]
    for a in seeds:
        run.add(a.pos)
        for step in (1, -1):
            i, gap = a.pos, 0
            while 0 <= i + step < min(len(lines), end) and lines[i + step].section == a.section:
                nxt = lines[i + step]
                cont = names_topic(nxt.text, topic) or (step == 1 and _points_back(nxt.text)) or (
                    step == -1 and _points_back(lines[i].text))
                if cont:
                    run.add(nxt.pos)
                    gap = 0
                elif gap == 0 and step == 1:
                    gap = 1  # tolerate one: kept only if the next one continues
                    if 0 <= i + 2 < len(lines) and _points_back(lines[i + 2].text):
                        run.add(nxt.pos)
                    else:
                        break
                else:
                    break
                i += step
    return run


def summary_start(lines: list[Line]) -> int:
    """Where the chapter summary ("What you have learnt", "Summing up") begins; past the end when there is none."""
    return next((ln.pos for ln in lines if SUMMARY_START.search(ln.text)), len(lines))


def summary_lines(lines: list[Line], topic: list[str]) -> list[Line]:
    """The chapter summary's sentences that name the topic."""
    start = summary_start(lines)
    return [ln for ln in lines[start:start + SUMMARY_SPAN] if names_topic(ln.text, topic) and _usable(ln)]


def find(kind: str, lines: list[Line], given: list[str], topic: list[str], max_sentences: int = 2,
         window: int = 40, simpler: bool = False) -> Found:
    """The book's reason (WHY), example (EXAMPLE) or next sentences (MORE) for the answer that quoted `given`, about
    `topic` (the earlier question's topic words, stemmed: `topic_of`).

    WHY and EXAMPLE: sentences with the kind's cue that continue the answer (`topic_run`) or name the whole topic
    within `window` sentences of it, the same section first, then the nearest; sentences the answer did not give
    before those it did. MORE: the run's sentences the answer did not give, nearest first, shown in reading order
    (with `simpler`, the summary's sentence on the topic first)."""
    anchors = find_anchors(lines, given)
    if not anchors:
        return Found(kind, (), "the earlier answer's sentences are not in this chapter: nothing to read around")
    run = topic_run(lines, anchors, topic)
    given_pos = {a.pos for a in anchors}
    sections = {a.section for a in anchors}

    def distance(ln: Line) -> int:
        return min(abs(ln.pos - a.pos) for a in anchors)

    if kind == MORE:
        picked = _more(lines, run, given_pos, summary_lines(lines, topic), distance, max_sentences, simpler)
        note = (f"the sentences around the earlier answer ({len(run) - len(given_pos)} more on its subject)"
                if picked else "the book says nothing more around the earlier answer")
        return Found(kind, picked, note, tuple(anchors))
    cue = CAUSE if kind == WHY else EXAMPLE_CUE
    if kind == EXAMPLE:  # "Let us consider an example." right after the subject announces an example of it
        run = run | {ln.pos for ln in lines[1:] if ln.pos - 1 in run and ANNOUNCES.search(ln.text)
                     and ln.section == lines[ln.pos - 1].section}
    candidates = [ln for ln in lines if _usable(ln) and cue.search(ln.text)]
    on_topic = [ln for ln in candidates if ln.pos in run or (names_topic(ln.text, topic) and distance(ln) <= window)]
    # the answer's section first; a sentence surely about the topic (it continues the answer, or names every topic
    # word) before one that names some of it; a plain cue ("because", "for example") before a weak one ("since",
    # "such as"); an example the answer had not given before one it had (a reason said again is still the reason:
    # "why?" after an answer that gave it), then the nearest
    strong = STRONG_CAUSE if kind == WHY else STRONG_EXAMPLE
    # an announcement ("Consider the following example.") stands for the sentences after it, which give the example;
    # it is surely about the topic only when they name it (a photograph's caption may follow the announcement)
    groups = [(ln, announced(lines, ln, max_sentences) if kind == EXAMPLE and ANNOUNCES.search(ln.text) else (ln,))
              for ln in on_topic]

    def surely(head: Line, group: tuple[Line, ...]) -> bool:
        if group[0].pos != head.pos:  # an announcement, read as what it announces
            return any(names_topic(ln.text, topic) for ln in group)
        return head.pos in run or names_topic(head.text, topic, every=True)

    ranked = sorted(((h, g) for h, g in groups if g), key=lambda hg: (
        hg[0].section not in sections, not surely(*hg), not strong.search(hg[0].text),
        kind == EXAMPLE and hg[0].pos in given_pos, distance(hg[0])))
    chosen = list(ranked[0][1]) if ranked else []
    # more only from the same paragraph, what the answer had not said, and a sentence that gives it itself (an
    # announced example is taken whole or not at all)
    for ln in (h for h, g in ranked[1:] if g[0].pos == h.pos):
        if len(chosen) < max_sentences and ln.pos not in given_pos | {c.pos for c in chosen} and any(
                abs(ln.pos - c.pos) <= EXTRA_REACH for c in chosen):
            chosen.append(ln)
    picked = tuple(sorted(chosen, key=lambda ln: ln.pos))
    what = "reason" if kind == WHY else "example"
    note = (f"{len(candidates)} sentence(s) of this chapter give a {what}; {len(on_topic)} about "
            f"{' '.join(topic) or 'the topic'} near the earlier answer")
    return Found(kind, picked, note, tuple(anchors))


def announced(lines: list[Line], announcement: Line, max_sentences: int) -> tuple[Line, ...]:
    """The sentences an announcement of an example leads to: the next ones in reading order that tell (a caption or a
    question between is passed over), in its section, before another "for example", at most `max_sentences` of them
    within ANNOUNCE_REACH; none where the section ends first (the announcement alone names no example)."""
    told: list[Line] = []
    for ln in lines[announcement.pos + 1:announcement.pos + 1 + ANNOUNCE_REACH]:
        if ln.section != announcement.section or len(told) == max_sentences or STRONG_EXAMPLE.search(ln.text):
            break  # the section ends, or another example begins (a candidate of its own)
        if _usable(ln) and not ANNOUNCES.search(ln.text):
            told.append(ln)
    return tuple(told)


def _more(lines: list[Line], run: set[int], given: set[int], summary: list[Line], distance, max_sentences: int,
          simpler: bool) -> tuple[Line, ...]:
    new = sorted((lines[i] for i in run if i not in given and _usable(lines[i])), key=distance)
    summary = [ln for ln in summary if ln.pos not in given]
    if simpler and summary:
        return (summary[0],) + tuple(sorted(new[:max_sentences - 1], key=lambda ln: ln.pos))
    picked = sorted(new[:max_sentences], key=lambda ln: ln.pos)
    if len(picked) < max_sentences and summary:
        picked.append(summary[0])
    return tuple(picked)


__all__ = ["ANNOUNCES", "CAUSE", "EXAMPLE", "EXAMPLE_CUE", "MORE", "WHY", "Found", "Line", "announced", "find",
           "find_anchors", "names_topic", "reading_order", "summary_lines", "summary_start", "topic_of", "topic_run"]
