"""The question, read once: made at the entrance of `Tutor.ask` and handed to retrieval, the gate, the reader, the
answerer and the checks, so that none of them detects its language or tokenises it again.

`Question.read` takes what the student typed: valid Unicode, faux bold collapsed, its script and the language its
refusals are written in, a script or a language the tutor cannot read, and a Hinglish question's first English
reading. The pipeline then adds, as it learns them, the reading through the shelf's dictionary (and the words it could
not read), the follow-up resolution and the spelling repairs (`dataclasses.replace`: the object stays frozen). The
facts of the text the gate reads (`asked`) are worked out the first time a stage asks and kept: content terms,
numbers, names, negation, whether it asks for a fact and what kind of answer it wants.

The question's form (answer_type, asks_for_fact, span_type, is_factoid, followup_kind) is defined here, on plain
strings, for the stages that read a string that is not the question (a test, a calibration script).
"""
from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, replace
from functools import cached_property

from tutor.text.hinglish import english_reading, is_hinglish, reply_language
from tutor.text.language import ENGLISH, HINDI, detect_language, devanagari_language, latin_language, unread_script
from tutor.text.lexical_terms import index_term, trigrams, words
from tutor.text.normalize import collapse_glyphs
from tutor.text.terms import (
    TermStats,
    asks_negated,
    content_terms,
    has_devanagari,
    key_numbers,
    name_phrases,
    valid_text,
)

LATIN, DEVANAGARI, HINGLISH = "latin", "devanagari", "hinglish"


@dataclass(frozen=True)
class Question:
    """One question as the tutor understood it (see the module's docstring). `asked` is what retrieval and the gate
    read: the English reading, resolved against the conversation, with misspelt words mended; `text` until then."""

    typed: str  # as the student typed it (valid Unicode, stripped): what the log and the page show
    text: str  # as read: faux bold pasted from a chapter collapsed ("JJJJJute" -> "Jute")
    language: str = ENGLISH  # the language its refusals, reasons and notes are written in (HINDI for Hinglish too)
    script: str = LATIN  # LATIN, DEVANAGARI or HINGLISH (Hindi typed in Latin letters)
    unread_language: str = ""  # a script or a language the tutor cannot read, with why ("" when it can)
    reading: str = ""  # the English reading of a Hindi or Hinglish question ("" for English)
    read_from: str = ""  # what the reading was made from: "Hindi" or "Hinglish"
    unread: tuple[str, ...] = ()  # Hindi words no dictionary read (named to the student on a refusal)
    respelt: str = ""  # a Hinglish question respelt in Devanagari, for the cross-lingual judge ("" when not)
    resolved: str = ""  # after the follow-up resolution (tutor/retrieval/followup.py); "" until it is made
    followup: bool = False  # it leaned on the conversation's previous turn
    asked: str = ""  # what retrieval and the gate read; "" until the pipeline sets it (then `text` is read)
    repairs: tuple[str, ...] = ()  # spelling repairs, as the diagnostics' notes

    @classmethod
    def read(cls, typed: str) -> Question:
        """What the typed text says about itself, before any shelf is read."""
        typed = valid_text(typed or "").strip()
        text = collapse_glyphs(typed)
        hinglish, language = is_hinglish(text), reply_language(text)
        script = HINGLISH if hinglish else DEVANAGARI if language == HINDI else LATIN
        foreign = unread_script(typed)
        if foreign:
            why = f"the question is written in {foreign} script"
        else:
            lang = devanagari_language(typed) or (None if is_hinglish(typed) else latin_language(typed))
            why = f"the question seems to be in {lang} (its function words)" if lang else ""
        return cls(typed, text, language, script, why,
                   reading=english_reading(text) if hinglish else "", read_from="Hinglish" if hinglish else "")

    @classmethod
    def of(cls, text: str) -> Question:
        """A question read as the gate reads it, with no conversation or shelf (tests, adapters, scripts)."""
        return replace(cls.read(text), typed=text, text=text, asked=text)

    # ------------------------------------------------------------------ what the gate reads, worked out once
    @property
    def gate_text(self) -> str:
        return self.asked or self.resolved or self.reading or self.text

    @property
    def stated(self) -> str:
        """The question as the answer and its refusals state it: resolved against the conversation, before any
        spelling repair (what an LLM answerer writes to, what the log's `question` holds after the pipeline)."""
        return self.resolved or self.gate_text

    @cached_property
    def detected_language(self) -> str:
        """The language of what the gate reads (English for a Hindi question's English reading)."""
        return detect_language(self.gate_text)

    @cached_property
    def terms(self) -> tuple[str, ...]:
        return tuple(content_terms(self.gate_text))

    def weights(self, stats: TermStats) -> dict[str, float]:
        """IDF weight of each content term on this shelf."""
        return {t: stats.idf(t) for t in self.terms}

    @cached_property
    def numbers(self) -> frozenset[str]:
        return frozenset(key_numbers(self.gate_text))

    @cached_property
    def names(self) -> tuple[str, ...]:
        return tuple(name_phrases(self.gate_text))

    @cached_property
    def negated(self) -> bool:
        return asks_negated(self.gate_text)

    @cached_property
    def factoid(self) -> bool:
        return is_factoid(self.gate_text, self.detected_language)

    @cached_property
    def asks_fact(self) -> bool:
        return asks_for_fact(self.gate_text)

    @cached_property
    def asks_thing(self) -> bool:
        return asks_for_thing(self.gate_text)

    @cached_property
    def about_you(self) -> bool:
        return asks_about_student(self.text)

    @cached_property
    def answer_type(self) -> re.Pattern[str] | None:
        return answer_type(self.gate_text, self.detected_language)

    @cached_property
    def span_type(self) -> re.Pattern[str] | None:
        return span_type(self.gate_text, self.detected_language)

    @cached_property
    def followup_kind(self) -> str:
        """WHY, EXAMPLE or MORE when the student's own words only ask that of the conversation ("Why?", "Give an
        example.", "Explain it more simply.", "kyon?"); "" for any other question."""
        return followup_kind(self.text)

    @cached_property
    def asked_noun(self) -> str:
        """The noun a "which <noun>" or "how many <noun>" question asks for ("acid", "carats"), "" when none."""
        return asked_noun(self.gate_text)

    @cached_property
    def defines(self) -> str:
        """The term a "What is X?" or "Define X" question asks to have defined, as written ("" when it asks for no
        definition, or the term holds no content word): the gate looks for a sentence that defines it."""
        m = _ASKS_DEFINITION.match(self.gate_text.strip())
        return m.group("term") if m and content_terms(m.group("term")) else ""

    # ------------------------------------------------------------------ what lexical retrieval reads, worked out once
    @cached_property
    def index_words(self) -> tuple[tuple[str, str], ...]:
        """Each matching-side word of what the gate reads that has an index term, with that term, in order, repeats
        kept (tutor/text/lexical_terms.py): BM25 weighs the terms, the fuzzy matcher reads the words."""
        return tuple((w, t) for w in words(self.gate_text) if (t := index_term(w)) is not None)

    @cached_property
    def trigram_counts(self) -> tuple[tuple[str, int], ...]:
        """How often each character trigram occurs in those words, in the order first seen: the trigram retriever's
        query vector."""
        counts: Counter[str] = Counter()
        for w, _ in self.index_words:
            counts.update(trigrams(w))
        return tuple(counts.items())

    @cached_property
    def pieces(self) -> tuple[tuple[str, int, int, str], ...]:
        """What the gate reads split at single spaces, each piece with the length of its leading and trailing
        punctuation and its one matching-side word ("" when it holds none, or several): what the spelling repair reads
        and writes back (tutor/retrieval/lexical.py, LexicalIndex.correct)."""
        out = []
        for piece in self.gate_text.split(" "):
            lead = len(piece) - len(piece.lstrip("\"'“‘(["))
            trail = len(piece) - len(piece.rstrip("\"'”’)].,;:?!।"))
            ws = words(piece[lead : len(piece) - trail] if trail else piece[lead:])
            out.append((piece, lead, trail, ws[0] if len(ws) == 1 else ""))
        return tuple(out)

    @cached_property
    def in_devanagari(self) -> bool:
        """Any Devanagari letter in the student's own words."""
        return has_devanagari(self.text)

    def understood(self) -> dict[str, str]:
        """What the tutor understood, for the diagnostics panel and the audit log (only what is not empty)."""
        kind = self.answer_type
        shown = {
            "script": self.script, "language": self.language, "reading": self.reading,
            "read from": self.read_from if self.reading else "", "unread words": ", ".join(self.unread),
            "follow-up": self.resolved if self.followup else "", "spelling": "; ".join(self.repairs),
            "asked": self.gate_text if self.gate_text != self.typed else "",
            "terms": ", ".join(self.terms), "numbers": ", ".join(sorted(self.numbers)),
            "names": ", ".join(self.names), "negated": "yes" if self.negated else "",
            "factual": "yes" if self.factoid else "", "asks for": self.followup_kind,
            "about the student": "yes" if self.about_you else "",
            "answer type": next((name for name, pattern in _TYPE_NAMES if kind is not None and kind is pattern), ""),
        }
        return {k: v for k, v in shown.items() if v}


# ---------------------------------------------------------------------------------------------- the question's form
_NUMBER_WORDS = (r"\d|\b(?:one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve|twenty|thirty|forty|fifty|"
                 r"hundred|thousand|million|billion|half|dozen|several|many|few)\b")
_MONTHS = r"January|February|March|April|May|June|July|August|September|October|November|December"
_ANSWER_TYPES: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(r"^(?:how\s+(?:many|much|long|far|old|big|large|high|tall)|what\s+(?:percentage|percent|proportion|"
                r"fraction|number|amount)|at\s+what\s+(?:age|rate|speed|temperature))\b", re.I),
     re.compile(_NUMBER_WORDS, re.I)),
    # "When did/was ...?" asks for a time; "When does a short circuit occur?" asks for a condition
    (re.compile(r"^(?:when\s+(?:did|was|were|had)|in\s+(?:what|which)\s+(?:year|century|decade|month)|"
                r"what\s+(?:year|century|decade|date))\b", re.I),
     re.compile(r"\d|\b(?:" + _MONTHS + r")\b|\bcentury\b|\b(?:before|after|during|until|since)\b", re.I)),
    (re.compile(r"^(?:who|whom|whose)\b", re.I), re.compile(r"(?<=[a-z,;] )[A-Z][a-z]+|\b(?:[A-Z]{2,})\b")),
]

# Hindi: कितना/कितने/कितनी asks for a quantity, कब and किस वर्ष for a time (anywhere: Hindi puts them mid-sentence)
_HINDI_ANSWER_TYPES: list[tuple[re.Pattern[str], re.Pattern[str]]] = [
    (re.compile(r"कितन[ाेी]"),
     re.compile(r"\d|(?<![\u0900-\u097f])(?:एक|दो|तीन|चार|पांच|पाँच|छह|सात|आठ|नौ|दस|बीस|सौ|हजार|हज़ार|लाख|करोड़|आधा|आधे)"
                r"(?![\u0900-\u097f])")),
    (re.compile(r"(?<![\u0900-\u097f])कब(?![\u0900-\u097f])|किस\s+(?:वर्ष|साल|सदी|शताब्दी|महीने)"),
     re.compile(r"\d|वर्ष|सदी|शताब्दी|पहले|बाद|दौरान|तक")),
]
_HINDI_FACTOID = re.compile(r"कितन[ाेी]|(?<![\u0900-\u097f])"
                            r"(?:कब|कौन|कौनसा|कौनसी|कौनसे|किस|किसे|किन|कहां|कहाँ)(?![\u0900-\u097f])")
_HINDI_EXPLAIN = re.compile(r"क्यों|कैसे|समझाइए|वर्णन|व्याख्या|कारण")
_WHO = re.compile(r"^(?:who|whom|whose)\b", re.I)
_NAMED = re.compile(r"\b[A-Z][a-z]+|\b[A-Z]{2,}\b")  # a span that names someone: a capitalised word or an acronym
_TYPE_NAMES = [("a number", _ANSWER_TYPES[0][1]), ("a time", _ANSWER_TYPES[1][1]), ("a name", _ANSWER_TYPES[2][1]),
               ("a number", _HINDI_ANSWER_TYPES[0][1]), ("a time", _HINDI_ANSWER_TYPES[1][1])]
_ASKS_FACT = re.compile(r"^(?!.*\b(?:why|reasons?|explain|describe|compare|distinguish|differentiate|discuss|"
                        r"justify)\b)"
                        r"(?!how\b(?!\s+(?:many|much|long|far|old|big|high)\b))"
                        r"(?:\S+\s+){0,12}?(?:what|which|who|whom|whose|when|where|how\s+(?:many|much|long|far|old|"
                        r"big|high)|name)\b", re.I)
_QUESTION_WORD = re.compile(r"\b(what|which|who|whom|whose|when|where|how\s+(?:many|much|long|far|old|big|high)|"
                            r"name)\b", re.I)
# a clause that sets the scene before the question proper, up to its comma: "When lead nitrate is heated, ..."
_SCENE = re.compile(r"^(?:when|where|if|while|after|before|once|since)\b[^,?]*,\s*(.+)$", re.I)
# "What is X?", "Define X", "What is meant by X?": X is the term asked about (the gate looks for its definition)
_ASKS_DEFINITION = re.compile(
    r"^(?:what\s+(?:is|are)\s+(?:meant\s+by\s+)?|define\s+|what\s+do\s+you\s+mean\s+by\s+)(?:an?\s+|the\s+)?"
    r"(?P<term>[^?.,;]{3,60}?)\s*[?.]?\s*$", re.I)
_FACTOID = re.compile(r"^(?:what|which|who|whom|whose|when|where|how\s+(?:many|much|long|far|old)|name)\b"
                      r"(?!.*\b(?:why|reasons?|explain)\b)", re.I)


def answer_type(question: str, language: str | None = None) -> re.Pattern[str] | None:
    """What a factual question's answer must contain: a number (how many), a date (when), a name (who).
    `language`: the question's, when the caller knows it (else detected)."""
    q = question.strip()
    if (language or detect_language(q)) == HINDI:
        return next((needs for asks, needs in _HINDI_ANSWER_TYPES if asks.search(q)), None)
    for asks, needs in _ANSWER_TYPES:
        if asks.match(q):
            return needs
    return None


def asks_for_fact(question: str) -> bool:
    """A short factual question in English, the kind a bold first line answers: a question word anywhere in its first
    thirteen words ("In which organs ...?", "India is the second largest producer of rice after which country?"), one
    sentence, not asking why, how (but "how many"), to explain, describe or compare."""
    q = question.strip()
    return bool(_ASKS_FACT.match(q)) and q.count("?") <= 1 and not re.search(r"[.!?]\s+\S", q.rstrip("?. "))


def asks_for_thing(question: str) -> bool:
    """A short factual question whose question word (question_word) asks for something the book must name: who, where,
    when, which, how many ...; not "what" ("What is a food chain?": a description, no span) nor "Name ..."."""
    return asks_for_fact(question.strip()) and question_word(question) not in ("", "what", "name")


def question_word(question: str) -> str:
    """The first question word in its first thirteen words, lower-cased ("" if none), after a clause that sets the
    scene: "When lead nitrate is heated, which gas ...?" asks which; "What happens when we ...?" asks what."""
    scene = _SCENE.match(head := " ".join(question.split()[:13]))
    first = (scene and _QUESTION_WORD.search(scene.group(1))) or _QUESTION_WORD.search(head)
    return " ".join(first.group(1).lower().split()) if first else ""


# A question about the student's own habits, experience or opinion ("Do you compare the price paid by you with those
# of others?", "In your opinion ...", "क्या आप ...", "kya aap ..."): no book answers it. "Do you know which gas ...?",
# "What do you mean by ...?", "Have you noticed that ...?", "Would you expect ...?", "Will you get the same result
# ...?" and "What do you think happens ...?" ask about the world, and are not.
_ABOUT_YOU = re.compile(
    r"^(?:(?:do|did|are)\s+you\b(?!\s+(?:know|mean|understand|think\s+that|notice|find|expect|get|see|observe)\b)"
    r"|have\s+you\b(?!\s+(?:ever\s+)?(?:wondered|noticed|seen|heard|observed|thought|read|learnt|learned)\b)"
    r"|(?:in\s+your\s+(?:opinion|view)|what\s+would\s+you\s+do|what\s+do\s+you\s+(?:feel|prefer)"
    r"|how\s+(?:do|did|would)\s+you\s+feel|what\s+is\s+your\s+(?:opinion|view|favourite|favorite))\b)"
    r"|^(?:क्या\s+आप(?!\s+जानते)|आपके\s+(?:विचार|मत)\s+में|आपकी\s+राय\s+में)"
    r"|^(?:kya\s+(?:aap|ap|tum)\b(?!\s+jaante)|aapke\s+(?:vichar|hisaab|hisab)\s+(?:mein|me|se)\b)", re.I)


def asks_about_student(question: str) -> bool:
    """Whether the question asks about the student (their habits, experience or opinion), which no textbook answers:
    a refusal of such a question says so (Reason.ABOUT_YOU) instead of blaming the book."""
    return bool(_ABOUT_YOU.search(question.strip()))


def span_type(question: str, language: str | None = None) -> re.Pattern[str] | None:
    """What an answer span itself must contain (answer_type reads a window, where a name follows another word; a
    span may be the name alone): a number, a date, or a capitalised word for "who"."""
    q = question.strip()
    language = language or detect_language(q)
    if language != HINDI and _WHO.match(q):
        return _NAMED
    return answer_type(q, language)


def is_factoid(question: str, language: str | None = None) -> bool:
    """A one-sentence question after a fact (what, which, who, when, where, how many), not an explanation: only such
    questions are held to the numbers and negations they contain (an explanation may rightly word things apart)."""
    q = question.strip()
    if (language or detect_language(q)) == HINDI:
        return bool(_HINDI_FACTOID.search(q)) and not _HINDI_EXPLAIN.search(q) and q.count("?") <= 1
    return bool(_FACTOID.match(q)) and q.count("?") <= 1 and not re.search(r"[.!?]\s+\S", q.rstrip("?. "))


# ------------------------------------------------------------------------------------- follow-ups that ask a kind
WHY, EXAMPLE, MORE = "why", "example", "more"
# A kind is read from a closed form: one of its cue words and nothing but fillers around it. A question with any other
# word ("Why is it called so?", "Give an example of a base") names its own aspect or topic and is read the old way.
_KIND_CUES: dict[str, frozenset[str]] = {
    WHY: frozenset({"why", "reason", "reasons", "cause", "kyon", "kyun", "kyu", "kyo", "kiyon", "karan", "kaaran"}),
    EXAMPLE: frozenset({"example", "examples", "eg", "instance", "instances", "udaharan", "udahran", "udaaharan",
                        "misaal", "mishal"}),
    MORE: frozenset({"more", "simply", "simpler", "simple", "easier", "elaborate", "detail", "details", "continue",
                     "aur", "samjhao", "samjhaiye", "samjhaao", "aasan", "asaan"}),
}
_KIND_FILLERS = frozenset({
    # English
    "a", "an", "the", "and", "but", "so", "then", "ok", "okay", "please", "can", "could", "would", "you", "me", "us",
    "is", "are", "was", "were", "do", "does", "did", "it", "this", "that", "these", "those", "they", "them", "its",
    "happen", "happens", "happened", "occur", "occurs", "what", "whats", "s", "how", "come", "give", "show", "tell",
    "say", "some", "any", "one", "another", "other", "of", "for", "about", "in", "on", "words", "way", "terms",
    "language", "bit", "little", "explain", "again", "further", "go", "case", "there", "be",
    # Hinglish
    "ye", "yeh", "aisa", "esa", "kya", "hai", "hota", "hoti", "hote", "iska", "iski", "iske", "do", "dijiye", "dedo",
    "de", "batao", "bataiye", "bataao", "ek", "koi", "thoda", "bhasha", "mein", "me", "se", "karke", "iskaa",
})
_KIND_WORD = re.compile(r"[a-z]+")


def followup_kind(text: str) -> str:
    """The kind of follow-up a question's words ask for: WHY, EXAMPLE or MORE, or "" (any other question).

    Only a question made of one kind's cue words and fillers counts ("Why does it happen?", "Examples?", "Tell me
    more.", "Explain it in simpler words", "udaharan do"); two kinds at once, or a word of its own, is no kind."""
    words = _KIND_WORD.findall((text or "").lower().replace("e.g.", "eg"))
    if not words or len(words) > 8:
        return ""
    kinds = {k for k, cues in _KIND_CUES.items() if any(w in cues for w in words)}
    if len(kinds) != 1:  # "Why? Give an example." asks two things: read the old way
        return ""
    kind = kinds.pop()
    if all(w in _KIND_CUES[kind] or w in _KIND_FILLERS for w in words):
        return kind
    return ""


# "which acid", "which kind of mirror", "what type of soil", "how many carats": the noun the answer is an instance of
# the question word within its first five words, or right after a clause that sets the scene ("When a decomposition
# reaction is brought about by heating, what kind of decomposition is it?", "Besides Confucianism, Buddhism, and Islam,
# what religions ...": a comma inside the one sentence)
_ASKED_NOUN = re.compile(r"^(?:(?:\S+\s+){0,4}?|[^.?!]*?,\s+)(?:which|what|how\s+many)\s+"
                         r"(?:(?:kind|type|sort|form)s?\s+of\s+)?([a-z][a-z-]{2,})\b", re.I)
_PHRASE_ENDS = frozenset("and or but near than like as".split())  # words a noun phrase does not run on through
_AUXILIARIES = frozenset("is are was were do does did has have had can could will would should may might must".split())
_NOT_NOUNS = _AUXILIARIES | frozenset("the a an of in on at by for to from with about this that these those it its "
                                      "their there happens".split())


def asked_noun(question: str) -> str:
    """The noun a "which/what <noun>" or "how many <noun>" question asks for, lower-cased ("" when the word after the
    question word is a verb or a function word: "what is ...", "which of ...")."""
    m = _ASKED_NOUN.match(question.strip())
    word = m.group(1).lower() if m else ""
    if not m or word in _NOT_NOUNS:
        return ""
    # a noun phrase ends before its verb: "which plant hormone is ...", "which two gases are ..." ask for its last word,
    # the head ("hormone", not "plant"); without a helping verb right after it, the first word stands
    rest = [w.lower() for w in re.findall(r"[A-Za-z][A-Za-z-]*|\S", question.strip()[m.end():])][:3]
    for i, w in enumerate(rest):
        if w in _AUXILIARIES:
            return rest[i - 1] if i else word
        if w in _NOT_NOUNS or w in _PHRASE_ENDS or w.endswith("ly") or len(w) < 3:
            break
    return word


def as_question(question: Question | str) -> Question:
    """A stage's argument as a Question (a plain string is read as `Question.of` reads it)."""
    return question if isinstance(question, Question) else Question.of(question)
