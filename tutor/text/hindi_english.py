"""Devanagari Hindi read as English for a shelf with no Hindi chapter, through a real English-Hindi dictionary.

Owns `english_reading` ("अपवर्तन क्या है?" -> "what is refraction") and the romanisation of Hindi words; the dictionary
(FreeDict's English-Hindi, inverted into Hindi phrase -> English headwords) is tutor/text/hindi_dictionary.py's, merged
with Shabdanjali's where the policy says so (tutor/text/lexicons.py: each phrase's senses one tuple per dictionary,
`choose_tiers`).

The reading works as Hinglish's does (tutor/text/hinglish.py): the question word from Hindi grammar leads ("क्या ...
है" -> "what is", "क्यों" -> "why", "कितने" -> "how many"), the other function words are dropped, Latin-letter tokens
and numbers are kept as typed, and each remaining Hindi word or phrase (longest match first) becomes an English
headword the dictionary gives for it: of several, the one the shelf uses most; a noun with a light verb as the
dictionary lists the pair ("शुरू किया" under "शुरू करना", to start); Hindi words the student glossed in English
("अनुमस्तिष्क (cerebellum)") by that English. A dictionary offers only real translations: a question about something the
shelf does not hold keeps words the shelf does not use, so the gate's unknown-term penalty and the reader can refuse
it (an earlier experiment glossed Hindi words to the nearest word of the shelf's own vocabulary and made unanswerable
questions look like the shelf's text: scripts/xling_gloss_experiment.py, removed; in git at a64256e). A Hindi word
the dictionary lacks is kept as typed, in Latin letters ("आसमान" -> "asman"): unknown to an English shelf, and
counted so by the gate.

Long because the reading is one loop whose branches (grammar, dictionary phrases, light verbs, loanwords, the
student's glosses, senses chosen beside a neighbour) hand each other their places in the question, and read best
together.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Container, Sequence

from tutor.text.hindi_dictionary import Dictionary, load_dictionary, normalize_hindi
from tutor.text.hinglish import asked_words, fronted_first, grammar_at
from tutor.text.senses import Meaning, by_neighbours, choose_by_meaning
from tutor.text.superlatives import MOST, QUANTITY, superlative_senses
from tutor.text.terms import TermStats, ascii_digits, stem

# How a Hindi word with several English headwords is read (measured on the tuning half of
# tests/data/xling-devanagari.jsonl; figures in tests/data/README.md):
#   "first": the headword that lists the Hindi word earliest (lowest sense number, then place in the sense);
#   "shelf": the first such headword the shelf's vocabulary contains, else "first";
#   "frequent": of the headwords the shelf's vocabulary contains, the one the most of its chunks use (the sense the
#   book uses: "काम" is "work" in a Science book, not "job", FreeDict's first), else "first".
CHOICE_RULES = ("first", "shelf", "frequent")
DEFAULT_CHOICE = "frequent"


# ------------------------------------------------------------------------------------------ the grammar

def _table(words: str) -> frozenset[str]:
    return frozenset(normalize_hindi(w) for w in words.split())


# question words -> their English reading (the first one found leads the reading)
QWORD = {normalize_hindi(k): v for k, v in {
    "क्या": "what", "क्यों": "why", "कैसे": "how", "कब": "when", "कितने": "how many", "कितना": "how much",
    "कितनी": "how many", "कौन": "which", "कौनसा": "which", "कौनसी": "which", "कौनसे": "which", "कहाँ": "where",
    "किसे": "what", "किसने": "who", "किस": "which", "किन": "which", "किसको": "whom", "किसका": "whose",
    "किसकी": "whose", "किसके": "whose", "किससे": "what", "किसमें": "which", "किसलिए": "why",
    "किनका": "whose", "किनकी": "whose", "किनके": "whose", "किनको": "whom", "किनसे": "what", "किनमें": "which",
}.items()}
# request verbs: the question asks to explain or tell ("... बताइए", "समझाइए")
REQUEST = _table("बताइए बताइये बताओ बताएँ बताएं बताये समझाइए समझाइये समझाओ लिखिए लिखिये लिखो कीजिए कीजिये दीजिए")
# function words dropped from the reading: postpositions, pronouns (with a postposition fused on: इससे, उसमें, सबसे),
# auxiliaries, light verbs, conjunctions, particles
FUNCTION = _table("""
है हैं था थे थी थीं का की के में से को पर और या तो भी ही यह वह ये वे इस उस इसे उसे इसका उसका इसकी उसकी इसके
उसके इन उन इनके उनके इनका उनका इनकी उनकी इन्हें उन्हें होता होती होते होने हो होना होगा होगी होंगे हुआ हुई हुए
जाता जाती जाते जाना जाने जा जाए जाएं कहते कहा कहलाता कहलाती कहलाते रहा रही रहे रहें कर करके करते करती करता करना
करने करें किया किए किये गया गई गए गये एक कुछ सा सी से लिए लिये वाला वाली वाले ने तक जब तब अपने अपनी अपना हम आप
सकता सकती सकते तथा एवं व कि जो जिस जिसे जिन जिनके कोई किसी सभी सब आदि अथवा यदि द्वारा
इससे उससे जिससे इनसे उनसे जिनसे सबसे इसमें उसमें जिसमें इनमें उनमें जिनमें सबमें इसको उसको जिसको इनको उनको जिनको
बाद दौरान बिना अलावा अनुसार तहत बारे बजाय ज़रिए जरिए तरह ओर साथ बीच
""")
# the second words of compound postpositions ("के बाद" after, "के दौरान" during, "के बारे में" about, "की तरह" like,
# "के बीच" between) are in FUNCTION above: English drops "after", "during", "about" as stop words too. "पहले" is
# "before" only after "से" ("X से पहले"); alone it is "first" or "earlier", a content word.
# a question word of two words: "किस तरह" / "किस प्रकार" how, "किस कारण" / "किस वजह" / "किस लिए" why, "किस समय" when,
# "किस जगह" / "किस स्थान" where; before का, की or के ("किस प्रकार का ...", what kind of) "किस तरह" asks "which"
QPHRASE = {tuple(normalize_hindi(w) for w in k.split()): v for k, v in {
    "किस तरह": "how", "किस प्रकार": "how", "किन तरीकों": "how", "किस कारण": "why", "किस वजह": "why",
    "किस लिए": "why", "किस समय": "when", "किस जगह": "where", "किस स्थान": "where",
}.items()}
_OF = _table("का की के")
# "से पहले" (before), and adverbs of several words that English questions mostly leave out ("आम तौर पर" usually,
# "मुख्य रूप से" mainly): dropped whole, so their words are not read one by one ("आम" alone is "mango"), as
# Hinglish's are (tutor/text/hinglish.py grammar_at)
DROPPED = [tuple(normalize_hindi(w) for w in k.split()) for k in (
    "से पहले", "आम तौर पर", "आमतौर पर", "सामान्य तौर पर", "खास तौर पर", "ख़ास तौर पर", "मुख्य रूप से",
    "विशेष रूप से", "सामान्य रूप से", "आम तौर से")]


# ------------------------------------------------------------------------------------------ romanisation

_CONSONANTS = dict(zip(
    "कखगघङचछजझञटठडढणतथदधनपफबभमयरलवशषसह",
    "k kh g gh n ch chh j jh n t th d dh n t th d dh n p ph b bh m y r l v sh sh s h".split()))
_NUKTA_CONSONANTS = {"क": "q", "ख": "kh", "ग": "g", "ज": "z", "ड": "r", "ढ": "rh", "फ": "f"}
_VOWELS = dict(zip("अआइईउऊऋएऐओऔऑऍ", "a a i i u u ri e ai o au o e".split()))
_SIGNS = dict(zip("\u093e\u093f\u0940\u0941\u0942\u0943\u0947\u0948\u094b\u094c\u0949\u0945",
                  "a i i u u ri e ai o au o e".split()))
_VIRAMA, _NUKTA, _ANUSVARA, _VISARGA = "\u094d", "\u093c", "\u0902", "\u0903"


def romanize(word: str) -> str:
    """A Devanagari word in plain Latin letters as Hindi is commonly typed ("नेहरू" -> "nehru", "केरोसिन" ->
    "kerosin"): one letter for a long and a short vowel alike, anusvara as "n" ("m" before p, b, m), and the inherent
    vowel dropped where Hindi does not say it (schwa deletion, right to left: at the end of a word, and between a
    vowel and a consonant that carries one). Letters outside these tables are left out."""
    units: list[list[str]] = []  # per syllable: [consonant letters, vowel letters, whether the vowel is inherent]
    w = normalize_hindi(word)
    i = 0
    while i < len(w):
        ch = w[i]
        if ch in _CONSONANTS:
            nukta = i + 1 < len(w) and w[i + 1] == _NUKTA
            cons = _NUKTA_CONSONANTS.get(ch, _CONSONANTS[ch]) if nukta else _CONSONANTS[ch]
            i += 2 if nukta else 1
            if i < len(w) and w[i] == _VIRAMA:
                units.append([cons, "", ""])
                i += 1
            elif i < len(w) and w[i] in _SIGNS:
                units.append([cons, _SIGNS[w[i]], ""])
                i += 1
            else:
                units.append([cons, "a", "inherent"])
            continue
        if ch in _VOWELS:
            units.append(["", _VOWELS[ch], ""])
        elif ch in (_ANUSVARA, _VISARGA) and units:
            units[-1][1] += "\u0902" if ch == _ANUSVARA else "h"
            units[-1][2] = ""  # a nasalised or aspirated inherent vowel is said
        i += 1
    for k in range(len(units) - 1, 0, -1):
        if not units[k][2]:
            continue
        final = k == len(units) - 1
        between = (not final and units[k - 1][1] != "" and units[k + 1][0] != "" and units[k + 1][1] != "")
        if final or between:
            units[k][1] = ""
    out = []
    for k, (cons, vowel, _) in enumerate(units):
        nxt = units[k + 1][0] if k + 1 < len(units) else ""
        out.append(cons + vowel.replace("\u0902", "m" if nxt[:1] in ("p", "b", "m") else "n"))
    return "".join(out)


# ------------------------------------------------------------------------------------------ the reading

_TOKEN = re.compile(r"[\u0900-\u0963\u0971-\u097f]+|[A-Za-z][A-Za-z0-9'’-]*|\d+(?:[.,]\d+)*")
_DEV = re.compile("[\u0900-\u097f]")

# Hindi inflections back to the form a dictionary lists (the endings of Hindi grammar: plural and oblique nouns, the
# feminine of adjectives, listed in the masculine (पहली -> पहला, काली -> काला), verb participles and the conjunctive
# -कर), tried in this order when the word as typed has no entry; then the plural of a noun in short i (प्रजातियों ->
# प्रजाति, समितियों -> समिति), the causative's participles (बनवाया -> बनाना) and a participle of a verb whose stem
# ends in a vowel (बोई -> बोना)
_LEMMA = [(normalize_hindi(a), normalize_hindi(b)) for a, b in (
    ("ियों", "ी"), ("ियां", "ी"), ("ाओं", "ा"), ("ाएं", "ा"), ("ुओं", "ु"), ("ुएं", "ु"), ("ओं", ""), ("ओं", "ा"),
    ("ों", ""), ("ों", "ा"), ("ें", ""), ("ें", "ा"), ("े", "ा"), ("ी", "ा"), ("ाया", "ाना"), ("ाई", "ाना"), ("ाए", "ाना"),
    ("ाते", "ाना"), ("ातीं", "ाना"), ("ाती", "ाना"), ("ाता", "ाना"), ("ता", "ना"), ("तीं", "ना"), ("ती", "ना"),
    ("ते", "ना"), ("कर", "ना"),
    ("ने", "ना"), ("ा", "ना"), ("ी", "ना"), ("े", "ना"), ("ी", ""), ("ा", ""), ("े", ""),
    ("ियों", "ि"), ("ियां", "ि"), ("वाया", "ाना"), ("वाई", "ाना"), ("वाए", "ाना"), ("या", "ना"), ("ई", "ना"),
    ("ए", "ना"),
)]


# a light verb's forms -> its infinitive: Hindi makes verbs of a noun and a light verb ("शुरू करना", to start)
LIGHT_VERB = {normalize_hindi(form): normalize_hindi(inf) for inf, forms in {
    "करना": "कर करके करते करती करता करना करने करनी करें किया किए किये करो करिए",
    "होना": "हो होता होती होते होना होने हुआ हुई हुए होगा होगी होंगे",
    "जाना": "जा जाता जाती जाते जाना जाने जाए जाएं गया गई गए गये",
}.items() for form in forms.split()}
_ADJECTIVE = [(normalize_hindi(a), normalize_hindi(b)) for a, b in (("ी", "ा"), ("े", "ा"))]  # पूरी, पूरे -> पूरा
# the student's English for the Hindi words before it, in brackets: "अनुमस्तिष्क (cerebellum)"
_GLOSS = re.compile(r"\(\s*([A-Za-z][^()\u0900-\u097f]*)\)")


def lemmas(word: str, endings: Sequence[tuple[str, str]] = _LEMMA, shortest: int = 2) -> list[str]:
    """The forms a dictionary may list an inflected Hindi word under (`normalize_hindi` form), most likely first:
    "अम्लों" -> "अम्ल", "अम्ला"; "बनाया" -> "बनाना". `endings`: (inflection, the
    dictionary form's ending) pairs in the order tried (tutor/text/hinglish_dictionary.py passes them in Latin
    letters). `shortest`: the fewest letters a stem keeps (1 for a participle: आते -> आना)."""
    out: list[str] = []
    for suffix, ending in endings:
        if word.endswith(suffix) and len(word) - len(suffix) >= shortest:
            form = word[: len(word) - len(suffix)] + ending
            if form not in out:
                out.append(form)
    return out


class ShelfVocabulary:
    """A shelf's words as `english_reading` asks after them: `"state" in ShelfVocabulary(stats)` when the shelf uses
    the word's stem (tutor.text.terms.TermStats, which the Library computes once per shelf version). With `meaning`
    (tutor/text/senses.py: multilingual e5's cosine of a Hindi phrase and each English headword), a phrase's sense is
    chosen by what it means as well as by how much the shelf uses it (`choose_by_meaning`), `shelf_weight` weighing
    the second."""

    meaning: Meaning | None = None
    shelf_weight: float = 0.0

    def __init__(self, stats: TermStats, meaning: Meaning | None = None, shelf_weight: float = 0.0):
        self.stats = stats
        self.meaning = meaning
        self.shelf_weight = shelf_weight

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and self.stats.known(stem(word.lower()))

    def chunks(self, word: str) -> int:
        """How many of the shelf's chunks use the word's stem."""
        return self.stats.df.get(stem(word.lower()), 0)

    def only_in_names(self, word: str) -> bool:
        """The shelf writes the word's stem only inside names (TermStats.only_in_names)."""
        return self.stats.only_in_names(stem(word.lower()))

    def pair(self, first: str, second: str) -> bool:
        """The shelf writes the two words' stems side by side (TermStats.pairs)."""
        return self.stats.pairs.get(f"{stem(first.lower())} {stem(second.lower())}", 0) > 0


def choose(candidates: tuple[str, ...], vocabulary: Container[str] | None, rule: str = DEFAULT_CHOICE) -> str:
    """One of a Hindi phrase's English headwords (best listed first) by `rule` (see CHOICE_RULES)."""
    if rule in ("shelf", "frequent") and vocabulary is not None:
        used = [c for c in candidates if all(w in vocabulary for w in c.lower().split())]
        if used and rule == "frequent" and isinstance(vocabulary, ShelfVocabulary):
            # the sense the book uses most: the most chunks hold its rarest word
            return max(used, key=lambda c: min(vocabulary.chunks(w) for w in c.lower().split()))
        if used:
            return used[0]
    return candidates[0]


def choose_tiers(senses: tuple[tuple[str, ...], ...], vocabulary: Container[str] | None,
                 rule: str = DEFAULT_CHOICE, first_listed: bool = False, phrase: str | None = None) -> str:
    """One English headword of a phrase whose senses come from several dictionaries, one tuple each in the order they
    were merged (`Dictionary.senses`): `choose` by `rule` among the first dictionary's senses that the shelf uses any
    of (FreeDict's reading stays where the shelf uses it; पौधा, FreeDict's "kelp", is Shabdanjali's "plant"); where
    the shelf uses none, the first dictionary's first. Measured on the development files (docs/evaluation.md, issue
    34): "frequent" for every dictionary beat Shabdanjali's own order ("shelf"), which reads लोकतंत्र as "republic"
    and संरचना as "composition", though it reads रोग as "disease" where "frequent" reads "nerve". With
    `first_listed`, the first dictionary that lists the phrase decides, whether the shelf uses its senses or not: a
    later dictionary only reads what the earlier ones lack. A `vocabulary` with a `meaning` and the Hindi `phrase`
    read: `choose_by_meaning` first, over every dictionary's senses."""
    if (phrase and isinstance(vocabulary, ShelfVocabulary) and vocabulary.meaning is not None
            and (got := choose_by_meaning(senses, vocabulary, phrase))):
        return got
    if first_listed and (tier := next((t for t in senses if t), None)):
        return choose(tier, vocabulary, rule)
    if vocabulary is not None and rule != "first":
        for tier in senses:
            if any(all(w in vocabulary for w in c.lower().split()) for c in tier):
                return choose(tier, vocabulary, rule)
    return next(tier[0] for tier in senses if tier)


def english_reading(question: str, vocabulary: Container[str] | None = None, *, dictionary: Dictionary | None = None,
                    rule: str = DEFAULT_CHOICE, inflect: bool = True) -> str:
    """The Devanagari question as an English shelf can read it: `reading_and_unread`'s reading."""
    return reading_and_unread(question, vocabulary, dictionary=dictionary, rule=rule, inflect=inflect)[0]


def reading_and_unread(question: str, vocabulary: Container[str] | None = None, *,
                       dictionary: Dictionary | None = None, rule: str = DEFAULT_CHOICE, inflect: bool = True,
                       loanword: Callable[[str], str | None] | None = None,
                       first_listed: bool = False, replace_glossed: bool = False, neighbours: bool = False,
                       superlatives: bool = False, which_noun: bool = False,
                       participles: bool = False) -> tuple[str, tuple[str, ...]]:
    """The Devanagari question as an English shelf can read it, and the Hindi words the dictionary could not read.

    The first question word's English leads ("what is", "why", "how many"; a request verb alone gives "explain");
    at each place the longest Hindi phrase the dictionary has becomes one of its English headwords (`rule` chooses
    among several, `vocabulary` holding the shelf's words); a word without an entry is looked up by its uninflected
    forms (`inflect`); function words are dropped; Latin-letter tokens and numbers stay as typed; a Hindi word the
    dictionary lacks stays too, in Latin letters (`romanize`): a word the English shelf does not use, which the gate
    counts as unknown. Latin letters and not Devanagari because a reading that kept 30% of its letters in Devanagari
    would be Hindi by script (tutor/text/language.py), and the gate's term checks and the English-only reader would
    not read it at all. `loanword` may first read such a word as an English word (tutor/text/readings.py: the shelf's
    word it sounds like, tutor/text/loanwords.py, "केरोसिन" -> "kerosene"; or as most people type it,
    `english_as_typed`, "सर्किट" -> "circuit"); it is then read, not unread. With `replace_glossed`, a bracketed
    English gloss of whole words ("प्रतिवर्ती क्रिया (reflex action)") also replaces what the dictionary read for the
    run of Hindi words just before it ("reversible action"), as does a gloss of several words in capitals ("(Net
    Attendance Ratio)"); one word with no small letters ("(GST)", "(HCl)") is kept beside it, a name for it.
    `first_listed`: of several merged dictionaries, the first that lists a phrase reads it (`choose_tiers`). With
    `neighbours`, two words read side by side take the senses the shelf writes together (senses.py `by_neighbours`:
    खाद्य श्रृंखला "food chain", not "food series"). With `superlatives`, सबसे and the adjective after it are read as
    the superlative the shelf writes (`_most`: "सबसे बड़ा" -> "largest"). With `which_noun`, the word a leading "which"
    asks about follows it, as English writes it ("भाखड़ा नांगल बाँध का डिज़ाइन किस इंजीनियर ने बनाया" -> "which engineer
    bhakra nangal dam design create", not "which bhakra nangal dam design engineer create"), and a bare कौन before
    है, था or थे, or at the end, asks "who" ("भारत के पहले प्रधानमंत्री कौन थे" -> "who india first premier"). With
    `participles`, a participle before है, था or थे is read as its verb first (`_participle`: "आते हैं" come, not the
    noun आटा, flour; "खाता है" eats, not खाता, an account), and a bare कौन before one asks "who".
    Returns the reading ("" where the dictionary is not installed) and those unread Hindi words, as typed."""
    if rule not in CHOICE_RULES:
        raise ValueError(f"unknown choice rule {rule!r}: use one of {', '.join(CHOICE_RULES)}")
    d = dictionary or load_dictionary()
    if d is None:
        return "", ()
    text = ascii_digits(question)
    found = [m for m in _TOKEN.finditer(text) if not _DEV.match(m.group()) or normalize_hindi(m.group())]
    typed = [m.group() for m in found]
    # "अनुमस्तिष्क (cerebellum)", "शुद्ध उपस्थिति अनुपात (Net Attendance Ratio)": the student's own English; one word
    # without small letters ("(GST)", "(HCl)") is a name for the words, not their reading
    glosses = {m.start(1): any(w.isalpha() and w.islower() for w in m.group(1).split())
               or sum(w.isalpha() for w in m.group(1).split()) > 1 for m in _GLOSS.finditer(text)}
    glossed = [m.start() in glosses for m in found]
    worded = [glosses.get(m.start(), False) for m in found]
    toks = [(normalize_hindi(t) if _DEV.match(t) else t) for t in typed]
    lead, kept, unread = "", [], []
    unread_at: list[int] = []  # where in `kept` each unread word stands
    spans: list[tuple[int, int] | None] = []  # the Hindi words each entry of `kept` reads, where it reads some
    pools: dict[int, tuple[str, ...]] = {}  # an entry of `kept` the dictionary read: every sense it could have been
    asks, fronted = range(0), range(0)  # with which_noun: the words a leading "which" asks about; their entries
    i = 0
    while i < len(toks):
        t = toks[i]
        if not _DEV.match(t):
            while glossed[i] and unread_at and unread_at[-1] == len(kept) - 1:  # the gloss reads the words before it
                kept.pop()
                spans.pop()
                unread.pop()
                unread_at.pop()
            if worded[i] and replace_glossed:  # and replaces the dictionary's reading of the run of them just before
                end = i
                while spans and spans[-1] is not None and spans[-1][1] == end:
                    end = spans.pop()[0]
                    kept.pop()
                    if unread_at and unread_at[-1] == len(kept):  # the gloss reads it: no longer unread
                        unread.pop()
                        unread_at.pop()
            kept.append(t)
            spans.append(None)
            pools = {k: v for k, v in pools.items() if k < len(kept) - 1}
            i += 1
            continue
        n, asked = grammar_at(toks, i, DROPPED, QPHRASE, _OF)  # "से पहले", "आम तौर पर"; "किस तरह" how
        if n and not asked:
            i += n
            continue
        if asked or t in QWORD:
            gloss = asked or QWORD[t]
            if which_noun and not asked and not lead:
                gloss, asks = _which_noun(toks, i, gloss, lead, d if participles else None)
            if not lead:
                lead = gloss
            elif gloss != lead and gloss not in kept:
                kept.append(gloss)  # a second question ("... क्या है और क्यों ...") keeps its word in place
                spans.append(None)
            i += n or 1
            continue
        if t in REQUEST:
            lead = lead or "explain"
            i += 1
            continue
        n, english, phrase = _most(toks, i, d, inflect, vocabulary) if superlatives else (1, (), "")
        if not english and participles:
            n, english, phrase = _participle(toks, i, d)
        if not english:
            n, english, phrase = _read_at(toks, i, d, inflect)
        if english:
            kept.append(choose_tiers(english, vocabulary, rule, first_listed, phrase))
            pools[len(kept) - 1] = tuple(dict.fromkeys(c for tier in english for c in tier))
        elif t not in FUNCTION and loanword is not None and (loan := _loan_pair(toks, typed, i, d, loanword,
                                                                                  inflect)):
            kept.append(loan)  # two words no dictionary reads, one English term: "ऐक्वा रेजिया" aqua regia
            n = 2
        elif t not in FUNCTION and loanword is not None and (loan := loanword(typed[i])):
            kept.append(loan)
        elif t not in FUNCTION:
            kept.append(romanize(typed[i]))
            unread.append(typed[i])
            unread_at.append(len(kept) - 1)
        if len(spans) < len(kept):
            spans.append((i, i + n))
            if i in asks:
                fronted = range(fronted.start if fronted else len(kept) - 1, len(kept))
        i += n
    if neighbours and isinstance(vocabulary, ShelfVocabulary):
        side = {k for k in range(len(kept) - 1) if spans[k] and spans[k + 1] and spans[k][1] == spans[k + 1][0]}
        kept = by_neighbours(kept, pools, vocabulary, side)
    kept = fronted_first(kept, fronted)  # "which" + the words it asks about, then the rest in the question's order
    if lead == "what":
        lead = "what is"
    return " ".join(([lead] if lead else []) + kept).strip(), tuple(dict.fromkeys(unread))


def _loan_pair(toks: list[str], typed: list[str], i: int, d: Dictionary, loanword: Callable[[str], str | None],
               inflect: bool = True) -> str | None:
    """The English term two Devanagari words at `i` are written for, where no dictionary reads the second either."""
    if (i + 1 >= len(toks) or not _DEV.match(toks[i + 1]) or toks[i + 1] in FUNCTION
            or _read_at(toks, i + 1, d, inflect)[1]):
        return None
    return loanword(f"{typed[i]} {typed[i + 1]}")


def _most(toks: list[str], i: int, d: Dictionary, inflect: bool, vocabulary: Container[str] | None
          ) -> tuple[int, tuple[tuple[str, ...], ...], str]:
    """सबसे and the word after it as a superlative (tutor/text/superlatives.py), as `_read_at` returns a reading: the
    pair as the dictionary lists it, else the superlatives of the word's senses that the shelf (`vocabulary`) writes;
    (1, (), "") where `i` is not सबसे before a word so read."""
    if toks[i] != MOST or i + 1 >= len(toks) or not _DEV.match(toks[i + 1]) or toks[i + 1] in FUNCTION:
        return 1, (), ""
    if got := QUANTITY.get(toks[i + 1]):
        return 2, ((got,),), ""
    for form in (toks[i + 1], *(lemmas(toks[i + 1]) if inflect else ())):  # "सबसे बड़ी" as "सबसे बड़ा" is listed
        listed = d.senses(f"{MOST} {form}")
        if listed and (vocabulary is None or any(c in vocabulary for tier in listed for c in tier)):
            return 2, listed, d.key(f"{MOST} {form}") or ""
    n, english, phrase = _read_at(toks, i + 1, d, inflect)
    most = tuple(tuple(c for c in tier if vocabulary is None or c in vocabulary)
                 for tier in superlative_senses(english))
    return (n + 1, most, "") if n == 1 and any(most) else (1, (), "")


def _read_at(toks: list[str], i: int, d: Dictionary, inflect: bool
             ) -> tuple[int, tuple[tuple[str, ...], ...], str]:
    """The Hindi words read at `i`, as (how many, their `senses`, the phrase the dictionary lists them under), () and
    "" where none is read: the longest phrase the dictionary lists; a single word each dictionary reads as written,
    else by its uninflected forms (`inflect`); a word no dictionary reads, with the light verb after it, as the pair
    ("शुरू किया" -> "शुरू करना" -> "start"). With several dictionaries merged, a word before a light verb is read as
    the pair first: a multi-word term before a single word (शुरू alone is also "early")."""
    n, english = _longest_phrase(toks, i, d)
    t = toks[i]
    if n > 1 or t in FUNCTION:
        return n, english, (d.key(" ".join(toks[i:i + n])) or "") if english else ""
    light = LIGHT_VERB.get(toks[i + 1]) if i + 1 < len(toks) else None
    if light and d.sources > 1 and (pair := conjunct_verb(t, light, d))[0]:
        return 2, *pair
    phrase = d.key(t) if english else None
    if inflect:  # each dictionary: the word as written, else the first of its uninflected forms it lists
        forms = [(got, f) for f in lemmas(t) if (got := d.senses(f))]
        english = tuple(tier or next((s[k] for s, _ in forms if s[k]), ())
                        for k, tier in enumerate(english or ((),) * d.sources))
        english = english if any(english) else ()
        phrase = phrase or next((d.key(f) for _, f in forms), None)
    if not english and light and (pair := conjunct_verb(t, light, d))[0]:
        return 2, *pair
    return 1, english, (phrase or "") if english else ""


_AUXILIARY = _table("है हैं था थे थी थीं")
# a participle's endings (the imperfective: बढ़ता, बढ़ती, बढ़ते, बढ़तीं) -> the infinitive's
_PARTICIPLE = [(normalize_hindi(a), normalize_hindi("ना")) for a in ("तीं", "ता", "ती", "ते")]


def verb_senses(word: str, d: Dictionary) -> tuple[tuple[tuple[str, ...], ...], str]:
    """The `senses` of the verb a participle (`normalize_hindi` form) is a form of, and the verb as the dictionary
    lists it: "आते" -> आना, "बढ़ती" -> बढ़ना; ((), "") where `word` ends as no participle does (गति, a noun) or the
    dictionary lacks the verb."""
    for verb in lemmas(word, _PARTICIPLE, 1):
        if got := d.senses(verb):
            return got, d.key(verb) or ""
    return (), ""


def _participle(toks: list[str], i: int, d: Dictionary) -> tuple[int, tuple[tuple[str, ...], ...], str]:
    """A participle before an auxiliary read as its verb (`verb_senses`), as `_read_at` returns a reading: "आते हैं"
    -> आना (come), where the word as written is also a noun's form (आटे, flour; खाता, an account; बढ़ती, a surplus)
    that `_read_at` would read first. (1, (), "") where toks[i] is no such participle, or the dictionary lacks the
    verb."""
    if i + 1 >= len(toks) or toks[i + 1] not in _AUXILIARY or toks[i] in FUNCTION:
        return 1, (), ""
    return 1, *verb_senses(toks[i], d)


_KAUN = normalize_hindi("कौन")
_WHICH = _table("किस किन कौन कौनसा कौनसी कौनसे कितने कितनी कितना")
_WHICH_LINK = _table("सा सी से")  # "कौन सा", "कौन-सी" (the hyphen splits the token); not after कितने: "कितने से कम"
_POSTPOSITIONS = _table("ने में को से का की के पर तक लिए")


def _which_noun(toks: list[str], i: int, gloss: str, lead: str, verbs: Dictionary | None = None
                ) -> tuple[str, range]:
    """A leading question word at toks[i] that asks "which" or "how many", and the tokens it asks about (empty: none,
    or not the leading question word): from the next (after कौन's सा/सी/से) up to a postposition, where one follows
    within three ("किस फ्रांसीसी कलाकार ने" French artist), else the next alone ("कितने रंगों से", not the verb of
    "कौन सा पदार्थ बनता है"). A bare कौन before है, था or थे, or last, asks "who" (and about no word); with `verbs`
    (the dictionary), also before a participle and its auxiliary ("कौन खाता है", who eats: `_participle`)."""
    if lead or toks[i] not in _WHICH:
        return gloss, range(0)
    j = i + 1
    if toks[i] == _KAUN and (j >= len(toks) or toks[j] in _AUXILIARY
                             or (verbs is not None and _participle(toks, j, verbs)[1])):
        return "who", range(0)
    while toks[i].startswith(_KAUN) and j < len(toks) and toks[j] in _WHICH_LINK:
        j += 1

    def content(k: int) -> bool:
        return bool(_DEV.match(toks[k])) and toks[k] not in FUNCTION and toks[k] not in QWORD
    if j >= len(toks) or not content(j):
        return gloss, range(0)
    return gloss, asked_words(toks, j, content, _POSTPOSITIONS)


def conjunct_verb(word: str, light: str, d: Dictionary) -> tuple[tuple[tuple[str, ...], ...], str]:
    """A noun or adjective with a light verb, as the dictionary lists the pair: "शुरू" + "किया" under "शुरू करना",
    "पूरी" + "करनी" under "पूरा करना"; its `senses` and the pair as listed, ((), "") when it lists none."""
    for form in (word, *lemmas(word, _ADJECTIVE)):
        if got := d.senses(f"{form} {light}"):
            return got, d.key(f"{form} {light}") or ""
    return (), ""


def _longest_phrase(toks: list[str], i: int, d: Dictionary) -> tuple[int, tuple[tuple[str, ...], ...]]:
    """The longest run of Devanagari words from `i` that the dictionary has, as (words, its `senses`); a run of more
    than one word must begin and end with a content word (a light verb or a postposition alone is not the phrase)."""
    for n in range(min(d.longest, len(toks) - i), 0, -1):
        run = toks[i:i + n]
        if not all(_DEV.match(w) for w in run):
            continue
        if n > 1 and (run[0] in FUNCTION or run[-1] in FUNCTION):
            continue
        if n == 1 and run[0] in FUNCTION:
            return 1, ()
        got = d.senses(" ".join(run))
        if got:
            return n, got
    return 1, ()
