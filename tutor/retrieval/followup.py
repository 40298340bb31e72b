"""Follow-up questions: telling one that leans on the conversation ("Why?", "What are its uses?", "And in plants?")
and rewriting it, against the previous turn, into a question that stands alone before retrieval and the gate.

Pure functions over strings and the previous `TutorAnswer`; no model is needed (the extractive answerer works with
it). A follow-up to a refused turn is not resolved (the conversation cannot rescue what the book does not say), and
a question that names its own topic is never touched, so a new topic is not mixed with the previous one.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, replace

from tutor.question import Question, as_question
from tutor.reasons import Reason
from tutor.text.language import ENGLISH
from tutor.text.terms import stem, stopwords, tokens
from tutor.types import Check

# pronouns and determiners that point back to the previous question's topic
_POINTING = {"it", "its", "itself", "they", "them", "their", "theirs", "this", "these", "that", "those", "he",
             "she", "his", "her", "him", "such"}
_POSSESSIVE = {"its", "their", "his", "her"}
# words that only ask (no topic of their own): a question made of these and of pointing words needs the last topic
_ASKING = {
    "what", "why", "how", "when", "where", "which", "who", "whom", "whose", "is", "are", "was", "were", "be", "been",
    "do", "does", "did", "can", "could", "would", "should", "will", "shall", "may", "might", "a", "an", "the", "of",
    "and", "or", "so", "then", "also", "more", "please", "me", "us", "about", "tell", "explain", "describe", "give",
    "show", "say", "mean", "means", "meant", "called", "some", "any", "other", "another", "one", "there", "here",
    "again", "else", "further", "detail", "details", "elaborate", "exactly", "really", "happen", "happens",
    "done", "take", "takes", "place", "main",
}
# asking words that still say what is asked about the topic: they are the follow-up's own words
_ASPECTS = {
    "example", "examples", "use", "uses", "used", "advantage", "advantages", "disadvantage", "disadvantages",
    "type", "types", "kind", "kinds", "cause", "causes", "effect", "effects", "function", "functions", "importance",
    "important", "meaning", "definition", "property", "properties", "feature", "features", "reason", "reasons",
    "formula", "unit", "units", "source", "sources", "benefit", "benefits", "role", "result", "results",
    "prevent", "prevented", "formed", "form", "made", "make", "work", "works", "found", "occur", "occurs",
}
_VERB_ASPECTS = {"use", "used", "prevent", "prevented", "formed", "form", "made", "make", "work", "works", "found",
                 "occur", "occurs"}
_ELLIPSIS = re.compile(r"^\s*(?:and|but|what about|how about|also|then)\b[\s,]*", re.I)
_PREP_PHRASE = re.compile(r"^(?:in|on|for|of|at|to|from|with|during|after|before|by)\s+\S", re.I)
MAX_OWN_TOPIC_WORDS = 1  # a follow-up names at most this many topic words of its own ("And in plants?")
MAX_STRONG_EXTRA = 2  # ... and this many more beside "its"/"their" or a pronoun subject ("its price in India")
_AUX = {"is", "are", "was", "were", "do", "does", "did", "can", "could", "will", "would", "should", "has", "have",
        "had"}


@dataclass(frozen=True)
class Resolution:
    """How a typed question was read against the conversation.

    typed / resolved: the question as typed and as retrieval and the gate read it (the same when not a follow-up).
    followup: whether it leaned on the previous turn; cues: what showed it; note: a line for the diagnostics.
    own_words: the follow-up's own words (stems) the evidence must hold; chapter: the previous turn's evidence chapter.
    """

    typed: str
    resolved: str
    followup: bool
    cues: tuple[str, ...] = ()
    note: str = ""
    own_words: tuple[str, ...] = ()
    chapter: str = ""


def _words(text: str) -> list[str]:
    return [t for t in tokens(text) if not t.isdigit() or len(t) > 1]


def topic_words(question: str) -> list[str]:
    """The words that carry a question's topic, in order: no stopwords, asking words, aspects or pointing words."""
    sw = stopwords()
    return [w for w in _words(question) if w not in sw and w not in _ASKING and w not in _ASPECTS
            and w not in _POINTING]


_JOINERS = {"of", "and", "a", "an", "the"}  # inside a noun phrase: "plaster of Paris", "power of a lens"


def topic_phrase(question: str) -> str:
    """The question's first run of topic words, as written, joined across "of", "and" and articles ("plaster of
    Paris", "power of a lens"): in "Why is money called a medium of exchange?" that is "money", what "it" points to."""
    wanted = set(topic_words(question))
    words = question.rstrip(" ?.!").split()
    at = [i for i, w in enumerate(words) if any(t in wanted for t in _words(w))]
    if not at:
        return ""
    # a noun aspect inside the run belongs to the name ("the Tyndall effect", "heating effect of electric current")
    inside = set(at) | {i for i, w in enumerate(words) if any(t in _ASPECTS - _VERB_ASPECTS for t in _words(w))}
    end = at[0] + 1
    while True:
        j = end
        while j < len(words) and words[j].lower() in _JOINERS:
            j += 1
        if j < len(words) and j in inside:
            end = j + 1
        else:
            break
    return " ".join(words[at[0]:end]).strip(",;:")


def followup_cues(question: Question | str) -> tuple[str, ...]:
    """Why a question leans on the conversation (empty when it stands alone). English questions only."""
    read = as_question(question or "")
    q = read.gate_text.strip()
    if not q or read.detected_language != ENGLISH:
        return ()
    words = _words(q)
    own_topic = topic_words(q)
    cues: list[str] = []
    pointing = [w for w in words if w in _POINTING]
    ellipsis = _ELLIPSIS.match(q)
    # "its"/"their", a pronoun as the subject or the last word ("What is its price in India?", "Are they found in
    # plants?", "Which crops grow in it?") point back even beside a few words of their own; a pronoun inside a
    # longer question refers within it
    strong = bool(pointing) and (pointing[0] in _POSSESSIVE or _subject_pronoun(words) or words[-1] in _POINTING)
    allowed = MAX_OWN_TOPIC_WORDS + (1 if ellipsis else 0) + (MAX_STRONG_EXTRA if strong else 0)
    if len(own_topic) > allowed:
        return ()  # it names its own topic: a new question, whatever pronouns it uses inside
    if pointing:
        cues.append(f"points back with {pointing[0]!r}")
    if ellipsis:
        cues.append(f"continues with {ellipsis.group(0).strip()!r}")
    if not own_topic and not cues:
        cues.append("asks without naming a topic")
    return tuple(cues)


def _subject_pronoun(words: list[str]) -> bool:
    """A pronoun that opens the question or follows its first verb ("It is ...", "How is it made", "Why are they")."""
    head = words[:4]
    for i, w in enumerate(head):
        if w in _POINTING and w not in _POSSESSIVE:
            return i == 0 or head[i - 1] in _AUX or head[i - 1] in ("when", "if", "after", "before")
    return False


def own_words(question: str) -> tuple[str, ...]:
    """The follow-up's own words (stems) that say what it asks: its topic words and aspects ('uses', 'example')."""
    sw = stopwords()
    seen: dict[str, None] = {}
    for w in _words(question):
        if w in _POINTING or (w in sw and w not in _ASPECTS) or (w in _ASKING and w not in _ASPECTS):
            continue
        seen.setdefault(stem(w), None)
    return tuple(seen)


def resolve(question: Question | str, previous=None) -> Resolution:
    """`question` rewritten against the previous turn (a TutorAnswer or None) when it is a follow-up.

    Pointing words are replaced by the previous topic ("What are its uses?" after "What is baking soda?" becomes
    "What are the uses of baking soda?"); an ellipsis swaps its phrase into the previous question ("And in plants?"
    after "How is food transported in animals?"); a bare "Why?" or "Give an example" gets the previous topic added.
    """
    read = as_question(question or "")
    q = " ".join(read.gate_text.split())
    cues = followup_cues(replace(read, asked=q))
    if not cues:
        return Resolution(q, q, False)
    if previous is None:
        return Resolution(q, q, False, cues, "reads like a follow-up, but there is no earlier question to read it with")
    if previous.was_refusal:
        return Resolution(q, q, False, cues, "reads like a follow-up to a question the book did not answer: "
                                             "asked as typed, not rescued by the conversation")
    before = (getattr(previous, "resolved_question", "") or previous.question).strip()
    topic = topic_phrase(before)
    if not topic:
        return Resolution(q, q, False, cues, "reads like a follow-up, but the earlier question names no topic")
    chapter = previous.sources[0].chapter if previous.sources else ""
    resolved = _rewrite(q, before, topic)
    note = f"follow-up ({'; '.join(cues)}): read as {resolved!r} with the earlier question {before!r}"
    return Resolution(q, resolved, True, cues, note, own_words(q), chapter)


def _rewrite(q: str, before: str, topic: str) -> str:
    body = q.rstrip(" ?.!")
    m = _ELLIPSIS.match(body)
    if m:
        rest = body[m.end():].strip()
        if _PREP_PHRASE.match(rest):  # "And in plants?": the same question with this phrase in place of its own
            prep = rest.split()[0].lower()
            swapped, n = re.subn(rf"\b{prep}\s+[^,;?.]+", rest, before.rstrip(" ?.!"), count=1, flags=re.I)
            if n:
                return swapped + "?"
            return f"{before.rstrip(' ?.!')} {rest}?"
        if rest and topic_words(rest) and not any(w in _POINTING for w in _words(rest)):
            return _swap_phrase(before.rstrip(" ?.!"), rest) + "?"
        body = rest or body
    out, replaced, tail = [], False, ""
    for w in body.split():
        bare = w.strip(",;:").lower()
        if bare in _POSSESSIVE:
            out.append("the")
            tail = f" of {topic}"
            replaced = "possessive"
            continue
        if bare in _POINTING and not replaced:
            out.append(topic)
            replaced = True
            continue
        out.append(w)
    text = " ".join(out)
    if replaced == "possessive":
        # "What are its uses" -> "What are the uses" + " of <topic>" after the noun the possessive governed
        return f"{text}{tail}?"
    if replaced:
        return text + "?"
    # nothing to replace ("Why?", "Give an example"): the asking words followed by the earlier topic
    return f"{text} {topic}?"


def _swap_phrase(base: str, phrase: str) -> str:
    """"What about alluvial soil?" after "Which crops grow in black soil?": the new phrase in place of the earlier
    one ending in the same word; appended when there is none."""
    new = phrase.split()
    words = base.split()
    last = stem(new[-1].lower())
    for j in range(len(words) - 1, -1, -1):
        if stem(words[j].strip(",;:").lower()) == last:
            start = max(0, j - len(new) + 1)
            return " ".join(words[:start] + new + words[j + 1:])
    return f"{base} {phrase}"


def _in(word: str, stems: set[str]) -> bool:
    # the light stemmer leaves "used" and "uses" -> "use" apart: a stem one or two letters longer counts as the same
    if word in stems:
        return True
    return len(word) >= 3 and any(len(s) - len(word) in (1, 2) and s.startswith(word)
                                  or len(word) - len(s) in (1, 2) and len(s) >= 3 and word.startswith(s) for s in stems)


def check_own_words(res: Resolution, evidence_texts: list[str], threshold: float) -> Check:
    """The follow-up's own words must be in the evidence found for the resolved question: "Who discovered it?"
    after "What is baking soda?" finds baking soda, but the book must also say who discovered it."""
    words = res.own_words
    if not words:
        return Check("followup_own_words", "gate", True, 1.0, threshold,
                     "share of the follow-up's own words (not the earlier topic) found in the evidence: none to find",
                     Reason.FOLLOWUP_NOT_COVERED)
    present = {stem(t) for text in evidence_texts for t in tokens(text)}
    found = [w for w in words if _in(w, present)]
    share = len(found) / len(words)
    missing = [w for w in words if w not in found]
    detail = "share of the follow-up's own words (not the earlier topic) found in the evidence"
    if missing:
        detail += f"; missing: {', '.join(missing)}"
    return Check("followup_own_words", "gate", share >= threshold, round(share, 4), threshold, detail,
                 Reason.FOLLOWUP_NOT_COVERED)


def on_shelf(previous, klass: str, subject: str):
    """`previous` when it was asked of the whole shelf of `klass` and `subject` (only such a turn is a conversation to
    lean on), else None."""
    if previous is not None and (previous.mode != "library" or (str(previous.klass), previous.subject)
                                 != (str(klass), subject)):
        return None
    return previous


def resolve_on_shelf(question: Question | str, klass: str, subject: str, previous=None) -> Resolution:
    """`resolve` against `previous` only when it was asked of the whole shelf of `klass` and `subject`."""
    return resolve(question, on_shelf(previous, klass, subject))
