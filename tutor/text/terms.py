"""Word-level text tools shared by the gate, the answerer and the checks: terms, stems, numbers, names.

Pure functions over strings; the stopword list is NLTK's English list (shipped with llama-index) plus
question words, so "What is the function of X?" reduces to its content terms.

Hindi: a text holding Devanagari is tokenised after `normalize_for_matching` (nukta, candrabindu, ZWJ/ZWNJ and
Devanagari digits folded, as on the lexical side everywhere), its words are stemmed by a light suffix stripper
(बच्चों, बच्चे -> बच्च) and Hindi function and question words are stopwords. What works for which language:

===============================================  ======  =====  =================================================
function                                         en      hi     note
===============================================  ======  =====  =================================================
tokens, content_terms, term_set, TermStats       yes     yes    the IDF cues of the gate (unknown terms, coverage)
numbers, key_numbers                             yes     yes    Devanagari digits read as ASCII
negated                                          yes     yes    नहीं, न, बिना, कभी नहीं
name_phrases, names, has_phrase                  yes     no     capital letters: Devanagari has none
===============================================  ======  =====  =================================================
"""
from __future__ import annotations

import math
import re
import unicodedata
from collections import Counter
from collections.abc import Iterator
from functools import lru_cache

_TOKEN = re.compile(r"[A-Za-z][A-Za-z'’-]*[A-Za-z]|[A-Za-z]|\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?")

_SENTENCE_END = re.compile(r"[.!?:;]\s*[\"'‘“(]?\s*$")  # what stands before a sentence's first word


def _common_stems(text: str) -> Iterator[str]:
    """Stems of the tokens (`tokens`, case kept) a text writes in lower case or first in a sentence (whose capital says
    nothing of a name): TermStats.common."""
    first = len(text) - len(text.lstrip())
    for m in _TOKEN.finditer(text):
        i = m.start()
        if m.group()[0].islower() or i == first or _SENTENCE_END.search(text[max(0, i - 6):i]):
            yield stem(m.group().lower().replace("’", "'"))


_QUESTION_WORDS = {
    "what", "why", "how", "when", "where", "which", "who", "whom", "whose", "explain", "describe", "define", "list",
    "name", "give", "state", "write", "discuss", "mention", "identify", "example", "examples", "called", "mean",
    "meant", "means", "term", "does", "do", "did", "can", "could", "would", "should", "shall", "may", "might", "also",
    "many", "much", "one", "two", "kind", "kinds", "type", "types", "used", "use", "uses", "following", "briefly",
    "difference", "differences", "between", "main", "important", "known", "way", "ways", "take", "took", "get",
    "make", "made", "happen", "happens", "happened", "like", "us", "tell", "find", "show", "say", "said",
}


# Hindi function words, pronouns, postpositions, auxiliaries and question words, in normalize_for_matching form
# (candrabindu as anusvara: "कहाँ" is "कहां"); question words are stopwords as in English
_HINDI_STOPWORDS = frozenset("""
का के की को से में पर तक और या तथा एवं व भी ही तो न नहीं है हैं था थे थी थीं हो होता होती होते होना होने होगा होगी
गया गई गए गये जाता जाती जाते जाना जाने जा कर करना करने करता करती करते करें करे किया किए किये की कीजिए दीजिए
लिए लिये द्वारा साथ बाद पहले अपने अपना अपनी उस उसके उसकी उसका उसे उन उनके उनकी उनका उन्हें इस इसके इसकी इसका इसे
इन इनके इनकी इनका इन्हें यह ये वह वे जो जिस जिसे जिन जिनके कि कोई कुछ सभी सब एक किसी अन्य आदि अथवा यदि तब जब
क्या कौन कौनसा कौनसी कौनसे कब कहां कैसे कैसा कैसी क्यों कितना कितने कितनी किस किसे किन किसका किसकी किसके
बताइए बताइये बताएं बताओ लिखिए समझाइए वर्णन कीजिये उदाहरण दें दो नाम प्रकार क्या-क्या मतलब अर्थ अभिप्राय
""".split())

# a light Hindi stemmer: the longest of these inflection suffixes is stripped when two or more letters stay
# (after Ramanathan and Rao, "A lightweight stemmer for Hindi", 2003)
_HINDI_SUFFIXES = sorted("""
ाएंगे ाएंगी ाऊंगा ाऊंगी ियों ियां ाओं ाएं ुओं ुएं ाना ाने ानी ाता ाते ाती ाया ाई ाए ता ते ती ना ने नी ों ें ीं ां
ाओ ाइए िए ा ि ी ु ू े ै ो ौ ं
""".split(), key=len, reverse=True)
_DEVANAGARI = re.compile("[\u0900-\u0963\u0971-\u097f]")
_DEV_TOKEN = re.compile("[\u0900-\u0963\u0971-\u097f]+|[A-Za-z][A-Za-z'-]*[A-Za-z]|[A-Za-z]|\\d+(?:[.,]\\d+)*")


def has_devanagari(text: str) -> bool:
    return bool(_DEVANAGARI.search(text))


def hindi_stem(word: str) -> str:
    for suf in _HINDI_SUFFIXES:
        if word.endswith(suf) and len(word) - len(suf) >= 2:
            return word[: -len(suf)]
    return word


@lru_cache(maxsize=1)
def stopwords() -> frozenset[str]:
    try:
        from nltk.corpus import stopwords as sw

        words = set(sw.words("english"))
    except (LookupError, OSError):  # pragma: no cover - the data ships with llama-index
        words = {"the", "a", "an", "of", "to", "in", "is", "are", "and", "or", "for", "on", "with", "by", "as", "at"}
    return frozenset(words) | _HINDI_STOPWORDS


def tokens(text: str) -> list[str]:
    """Lower-cased word and number tokens; a text with Devanagari is tokenised in its matching form."""
    if has_devanagari(text):
        from tutor.text.normalize import normalize_for_matching

        return _DEV_TOKEN.findall(normalize_for_matching(text))
    return [t.lower().replace("’", "'") for t in _TOKEN.findall(text)]


@lru_cache(maxsize=100_000)
def stem(word: str) -> str:
    """A light English stemmer (plural and common suffixes), enough to match "reactions" with "reaction"."""
    if _DEVANAGARI.match(word):
        return hindi_stem(word)
    w = word.lower().strip("'-")
    if w.endswith("'s"):
        w = w[:-2]
    if len(w) <= 3 or w[0].isdigit():
        return w
    for suf, rep in (("ies", "y"), ("sses", "ss"), ("ness", ""), ("ments", ""), ("ment", ""), ("ational", "ate"),
                     ("ation", "ate"), ("ising", "ise"), ("izing", "ize"), ("ings", ""), ("ing", ""), ("edly", ""),
                     ("ied", "y"), ("ed", ""), ("es", ""), ("s", ""), ("ly", "")):
        if w.endswith(suf) and len(w) - len(suf) >= 3:
            w = w[: -len(suf)] + rep
            break
    if len(w) > 4 and w.endswith("e"):
        w = w[:-1]
    return w


def content_terms(text: str) -> list[str]:
    """Stems of the words that carry meaning (no stopwords, no question words), in order, without repeats."""
    sw = stopwords()
    seen: dict[str, None] = {}
    for t in tokens(text):
        if t in sw or t in _QUESTION_WORDS or len(t) < 2 and not t.isdigit():
            continue
        seen.setdefault(stem(t), None)
    return list(seen)


def term_set(text: str) -> set[str]:
    """All stems in a text (stopwords dropped), for presence tests."""
    sw = stopwords()
    return {stem(t) for t in tokens(text) if t not in sw}


_NUMBER = re.compile(r"\b\d+(?:[.,]\d+)*(?:st|nd|rd|th|s)?\b")


def ascii_digits(text: str) -> str:
    """Decimal digits of any script (Devanagari २०२६, Persian ۱۴۰۲) as ASCII; everything else unchanged."""
    if text.isascii():
        return text
    return "".join(str(unicodedata.decimal(c)) if c.isdecimal() else c for c in text)


def numbers(text: str) -> set[str]:
    """Numbers as written, normalised ("1,000" and "1000" match; "10th" stays distinct from "10")."""
    return {n.replace(",", "") for n in _NUMBER.findall(ascii_digits(text))}


_REFERENCE = re.compile(
    r"\b(?:Activity|Activities|Figure|Fig|Table|Section|Chapter|Example|Exercise|Eq|Equation|Class|Question|Q|Unit|"
    r"Box|Page|Map|Step)\.?\s*\(?\d+(?:\.\d+)*\)?|\b\d+\s*(?:words|marks|lines)\b|\([ivx\d]+\)",
    re.I,
)
_SIGNIFICANT = re.compile(r"(?<![\w.])(?:\d{1,4}(?:st|nd|rd|th|s)\b|\d{2,}(?:[.,]\d+)*)(?![\w.])")


def key_numbers(text: str) -> set[str]:
    """Numbers a question turns on (years, ordinals, quantities of two or more digits), leaving out references
    to the book itself ("Activity 1.7", "in 120 words") and single digits (list items, formula subscripts)."""
    text = _REFERENCE.sub(" ", ascii_digits(text))
    return {n.replace(",", "") for n in _SIGNIFICANT.findall(text)}


_NEGATION = re.compile(r"\b(?:not|no|never|none|nor|neither|without|cannot|unable|fail(?:s|ed)? to)\b|n['’]t\b"
                       r"|(?<![\u0900-\u097f])(?:नहीं|न|बिना|मत)(?![\u0900-\u097f])", re.I)


def negated(text: str) -> bool:
    """Whether a text says something is not so ("not", "never", "n't", "without", ...)."""
    return bool(_NEGATION.search(text))


# a clause of purpose ("... so that the chips do not get oxidised", "in order not to ...", "lest ..."): a negation in
# it says what the asked fact is for, not that the fact is negated
_PURPOSE = re.compile(r"\b(?:so\s+that|so\s+as\s+(?:not\s+)?to|in\s+order\s+(?:that|not\s+to|to)|lest)\b[^.?!;]*", re.I)


def asks_negated(question: str) -> bool:
    """Whether a question asks about something that is not so ("Which metals do not react with acids?"), leaving
    out negations inside a clause of purpose ("Which gas fills bags of chips so that they do not get oxidised?"
    asks which gas fills them, not which does not)."""
    return negated(_PURPOSE.sub(" ", question))


_CAP_RUN = re.compile(r"(?:[A-Z][\w'’-]*|[A-Z]{2,}\w*)(?:\s+(?:of\s+|de\s+|the\s+)?[A-Z][\w'’-]*)*")


def name_phrases(question: str) -> list[str]:
    """Proper names a question turns on: runs of capitalised words that do not open a sentence or a list item
    ("New France", "Circuit Switching"), lower-cased; chemical formulas and one-letter tokens are not names."""
    out = []
    for sent in re.split(r"[.?!:;]\s+|\s\(?[a-zA-Z0-9]{1,3}[.)]\s", question.strip()):
        words = re.sub(r"^\(?[a-zA-Z0-9]{1,3}[.)]\s+", "", sent).split(maxsplit=1)
        rest = words[1] if len(words) > 1 else ""
        for m in _CAP_RUN.finditer(rest):
            kept = [w for w in m.group(0).split()
                    if w.lower() not in {"i", "what", "which", "who", "why", "how"} and not re.search(r"\d", w)]
            phrase = re.sub(r"'s\b", "", " ".join(kept).lower().replace("’", "'"))
            if sum(c.isalpha() for c in phrase) >= 3:
                out.append(phrase)
    return out


_LATIN_MARKS = re.compile("[\u0300-\u036f]")


def without_accents(text: str) -> str:
    """Latin letters without their accents ("Temür" -> "Temur", "Céleron" -> "Celeron"): a student types a name
    from the book without them (the combining accents of Latin letters). For word matching only."""
    return text if text.isascii() else _LATIN_MARKS.sub("", unicodedata.normalize("NFD", text))


def has_phrase(text_words: str, phrase: str) -> bool:
    """Whether a lower-cased phrase occurs in text (given as " word word ... ", accents dropped: gate._words),
    allowing a plural or possessive."""
    words = re.findall(r"[a-z0-9]+", without_accents(phrase))
    if not words:
        return True
    pattern = r" " + r"(?:s|es)?\d* ".join(re.escape(w) for w in words) + r"(?:s|es|s')?\d* "
    return re.search(pattern, text_words) is not None


def names(text: str) -> set[str]:
    """Capitalised words not at a sentence start and not stopwords: a cheap stand-in for named entities."""
    out = set()
    for sent in re.split(r"(?<=[.?!])\s+", text):
        words = re.findall(r"[A-Za-z][A-Za-z'’-]*", sent)
        for i, w in enumerate(words):
            if i > 0 and w[0].isupper() and w.lower() not in stopwords() and w.lower() not in _QUESTION_WORDS:
                out.add(stem(w))
    return out


# times a shelf writes two stems side by side before anything reads the pair (a Hindi reading's senses,
# tutor/text/senses.py; its sound match, tutor/text/loanwords.py): fewer is chance, and is not stored
MIN_PAIR_COUNT = 2


class TermStats:
    """Document frequencies of stems over a shelf's chunks, for IDF weights (rare terms weigh more)."""

    def __init__(self, texts: list[str]):
        self.n_docs = max(1, len(texts))
        df: Counter[str] = Counter()
        pairs: Counter[str] = Counter()
        sw = stopwords()
        for t in texts:
            stems = [stem(w) for w in tokens(t) if w not in sw]
            df.update(set(stems))
            pairs.update(f"{a} {b}" for a, b in zip(stems, stems[1:]))
        self.df = df
        # stems that follow each other, stopwords between them dropped ("functions of money": "function money"): how
        # a Hindi reading tells which senses of two words the shelf writes together (tutor/text/hindi_english.py)
        self.pairs = pairs
        # the Latin-letter words as written (lower case, three letters or more): what a loanword is matched against
        self.words = frozenset(w.lower() for t in texts for w in re.findall(r"[A-Za-z]{3,}", t))
        # stems the shelf writes at least once in lower case or first in a sentence: a common word, not only part of a
        # name ("Desh" in a song's title, "Kisan" in "Kisan Sabha"); a Hinglish word the shelf writes only in names
        # is read as Hindi (tutor/text/typed_hindi.py `name_words`). None where unknown (stored before it was counted)
        self.common: frozenset[str] | None = frozenset(s for t in texts for s in _common_stems(t))
        # languages with at least one chunk: a question's terms can only be known where its language is on the shelf
        self.languages = frozenset("hi" if has_devanagari(t) and _mostly_hindi(t) else "en" for t in texts)

    def to_dict(self) -> dict:
        """The statistics as plain JSON values (a database shelf stores them at ingest: tutor/store/pg_shelf.py)."""
        return {"n_docs": self.n_docs, "df": dict(self.df), "words": sorted(self.words),
                "languages": sorted(self.languages), "pairs": self.read_pairs(),  # about a fifth of all pairs
                "common": sorted(self.common) if self.common is not None else None}

    def read_pairs(self) -> dict[str, int]:
        """The pairs written at least MIN_PAIR_COUNT times: the only ones read, and the only ones stored."""
        return {p: n for p, n in self.pairs.items() if n >= MIN_PAIR_COUNT}

    @classmethod
    def from_dict(cls, d: dict) -> TermStats:
        """The statistics `to_dict` wrote, without the texts they were counted from."""
        stats = cls([])
        stats.n_docs, stats.df, stats.pairs = int(d["n_docs"]), Counter(d["df"]), Counter(d.get("pairs", {}))
        stats.words, stats.languages = frozenset(d["words"]), frozenset(d["languages"])
        stats.common = frozenset(d["common"]) if d.get("common") is not None else None
        return stats

    def idf(self, term: str) -> float:
        """Smoothed IDF; a term absent from the whole shelf gets the largest weight."""
        return math.log((self.n_docs + 1) / (self.df.get(term, 0) + 0.5))

    def known(self, term: str) -> bool:
        return self.df.get(term, 0) > 0

    def only_in_names(self, term: str) -> bool:
        """A stem the shelf uses but never writes in lower case nor first in a sentence: only inside names (False
        where the count is unknown)."""
        return self.common is not None and self.known(term) and term not in self.common


def _mostly_hindi(text: str) -> bool:
    from tutor.text.language import HINDI, detect_language

    return detect_language(text) == HINDI


def valid_text(text: str) -> str:
    """`text` as valid Unicode: lone surrogates (an API's broken string, or undecodable bytes that Python carried as
    surrogate escapes from a command line) become U+FFFD, so nothing downstream (SQLite, JSON, a tokenizer) can
    choke on it; a proper surrogate pair becomes the one character it stands for."""
    text = str(text)
    try:
        text.encode("utf-8")
        return text
    except UnicodeEncodeError:
        return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "replace")
