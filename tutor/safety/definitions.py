"""Sentences that define the term a "What is X?" / "Define X" question asks about (Question.defines).

Two readings of "defines". The gate's (`definition_sentence`) is strict, because a definition found in the evidence
passes a question whose scores alone would refuse it (Policy.accept_definitions): "X is a/an/the ...", "X is ...",
"... is called X", "X means ...". Once the gate has passed a question, a looser one (`loose=True`) only chooses which
sentence leads the answer (`definition_led`): also "... called X" and "... known as X" without "is" ("a series of
branching lines called a food web"), and X singular or plural ("What are hormones?" and "A hormone is ..."). Without it
"What is federalism?" was answered with the chapter's signposts ("It is most commonly referred to as federalism.",
"We begin by describing federalism in general terms."), the book's own definition one chunk further down the fused
ranking.
"""
from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from tutor.question import Question, as_question
from tutor.reasons import Tier
from tutor.text.terms import without_accents

# gate.Candidate and gate.GateDecision, named loosely: the gate imports this module
Candidate = Any
GateDecision = Any

_DEFINING = re.compile(r"\b(?:is|are)\s+(?:called|known\s+as|termed|defined\s+as)\b|\bmeans\b|\brefers?\s+to\b", re.I)

# what follows "X is" / "X are" when the sentence says something of X rather than what X is: a participle ("is also
# caused by", "are found in"), an adverb, a negation
_NOT_A_NOUN = (r"(?:[a-z]+ed|[a-z]+ly|also|not|never|now|always|often|sometimes|still|being|found|made|seen|done|given"
               r"|taken|known|so|very|more|less)")


def spaced_words(text: str) -> str:
    """The text lower-cased, accents and punctuation dropped, its words between single spaces (one before and after)."""
    return " " + " ".join(re.findall(r"[a-z0-9]+", without_accents(text.lower()))) + " "


def _term_pattern(term: str) -> str:
    """A term's words as a pattern that also takes the other number: "hormones" -> "hormone(?:e?s)?"."""
    out = []
    for w in term.split():
        base = w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        out.append(re.escape(base) + r"(?:e?s)?")
    return " ".join(out)


def definition_sentence(question: Question | str, candidates: Sequence[Candidate], loose: bool = False
                        ) -> Candidate | None:
    """The first of `candidates` that defines the term the question asks about in so many words: "... is called X",
    "X is ...", "X means ..." (the gate's test). With `loose`, another test: the term, in either number, beside the
    words that define it: a sentence that begins "X is" or "X are" and goes on with what X is ("Hormones are chemical
    messengers ...", not "X is also caused by ...", "Minerals are found in ..."), "X is a/an/the ...",
    "X means", "X refers to", "X is defined / described as", "define X as", "... called / known as / termed /
    described as X" (not "X is called Y", which defines Y), a sentence that begins "X:"; and not the gate's "a
    defining word anywhere in a sentence that names X" ("The cartoon at the left refers to ... coalition
    government"). None where the question asks for no definition or no sentence gives one."""
    defined = as_question(question).defines
    if not defined:
        return None
    term = spaced_words(defined)
    if loose:
        t = _term_pattern(term.strip())
        beside = re.compile(rf"^ (?:an? |the )?{t} (?:is|are) (?!{_NOT_A_NOUN} )"
                            rf"| {t} (?:is|are) (?:an?|the|defined as|described as) | {t} (?:means|refers to) "
                            rf"|\bdefines? (?:an? |the )?{t} as "
                            rf"|\b(?:called|known as|termed|defined as|described as) (?:an? |the )?{t} ")
        glossary = re.compile(rf"^\s*(?:an? |the )?{t}\s*:\s", re.I)
        return next((c for c in candidates if beside.search(spaced_words(c.text)) or glossary.match(c.text)), None)
    for c in candidates:
        w = spaced_words(c.text)
        if term in w and (_DEFINING.search(c.text) or w.startswith(term + "is ") or w.startswith(term + "are ")
                          or re.search(term.strip() + r" (?:is|are) (?:a|an|the) ", w)):
            return c
    return None


def definition_led(decision: GateDecision, question: Question | str) -> GateDecision:
    """A passed decision whose candidates answer a definition question with the first sentence that defines the term
    (`definition_sentence`, loose) put first, where the gate's own test found none in the band (a decision it led by
    a definition is left as it is, and so is a refusal or a reranked one). Only the order of the answer's sentences
    changes: nothing the gate measured."""
    q = as_question(question)
    if (not decision.passed or not q.defines or decision.tier == Tier.RERANKER or decision.values.get("definition")
            or not decision.candidates):
        return decision
    lead = definition_sentence(q, decision.candidates, loose=True)
    if lead is None or lead is decision.candidates[0]:
        return decision
    return replace(decision, candidates=(lead, *(c for c in decision.candidates if c is not lead)))


def keeps_definition(question: Question | str, sentences: Sequence, span: str | None) -> bool:
    """Whether an answer's first sentence (`sentences`, anything with `.text`) defines the term a definition question
    asks about (loose) while the reader's answer `span` lies outside it: the definition then keeps the lead
    (answerability.lead_with_span), not the span's sentence ("Food web, consisting of many food chains and animals.",
    a figure's caption, before "... a series of branching lines called a food web"). A span inside the definition
    leads as ever, with the direct answer it gives."""
    if not sentences or not span:
        return False
    first = sentences[0]
    return (" ".join(span.split()).lower() not in " ".join(first.text.split()).lower()
            and definition_sentence(question, [first], loose=True) is first)
