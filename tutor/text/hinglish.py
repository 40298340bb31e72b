"""Hinglish: Hindi typed in Latin letters ("photosynthesis kya hai", "ohm ka niyam samjhao").

Told by its function words, which English never uses ("kya", "hai", "kaise", "mein", "ka"), and read for an English
shelf as English: the question words glossed ("kya ... hai" -> "what is", "kaise" -> "how", "kyon" -> "why"), the other
function words dropped, every other word kept as typed ("redox reaction kya hota hai" -> "what is redox reaction").
Hindi content words ("aasman", "neela") are kept as typed: an English shelf does not know them, so the gate counts
them as unknown, as it would any word it cannot read. Where the caller gives a `gloss` they are read through it
instead (tutor/text/hinglish_dictionary.py, the English-Hindi dictionary, where the policy's `hinglish_dictionary` is
on, as shipped): "aasman" -> "sky", "neela" -> "blue". Nothing here guesses.

The word lists are Hindi grammar (closed classes: pronouns, postpositions, auxiliaries, question words, the verbs of
a request) in the common spellings, not words taken from any question set.
"""
from __future__ import annotations

import re
from collections.abc import Callable, Container, Iterable, Sequence
from functools import lru_cache

from tutor.text.language import ENGLISH, HINDI, detect_language, devanagari_share
from tutor.text.superlatives import QUANTITY_LATIN

# question words -> their English reading (the first one found leads the reading)
_QUESTION_GLOSS = {
    "kya": "what", "kyaa": "what", "kia": "what",
    "kaise": "how", "kese": "how", "kaisa": "how", "kaisi": "how",
    "kyon": "why", "kyun": "why", "kyu": "why", "kyo": "why", "kiyon": "why",
    "kab": "when",
    "kahan": "where", "kahaan": "where", "kidhar": "where",  # not "kaha": it is also "said" (kaha jata hai)
    "kaun": "which", "kon": "which", "kaunsa": "which", "kaunsi": "which", "kaunse": "which", "konsa": "which",
    "konsi": "which", "kis": "which", "kise": "which", "kisne": "who", "kin": "which", "kinhe": "which",
    "kitna": "how much", "kitne": "how many", "kitni": "how many",
}
# request verbs: the question asks to explain or tell
_REQUEST = {"batao", "bataiye", "bataye", "btao", "samjhao", "samjhaiye", "samjhaye", "likho", "likhiye", "samjha",
            "bata", "dijiye", "do"}
# nouns that frame a question ("difference", "meaning", "examples"), glossed so the English reading keeps them
_FRAME_GLOSS = {
    "antar": "difference", "fark": "difference", "farak": "difference", "matlab": "meaning", "arth": "meaning",
    "udaharan": "examples", "fayde": "advantages", "faayde": "advantages", "labh": "advantages",
    "nuksan": "disadvantages", "nuksaan": "disadvantages", "karan": "causes", "kaaran": "causes",
    "prakar": "types", "niyam": "law", "siddhant": "principle", "upyog": "uses", "kaam": "function",
}
# function words dropped from the reading: postpositions, pronouns, auxiliaries, conjunctions, particles
_FUNCTION = frozenset("""
hai hain h he ho hota hoti hote hona hone hoga hogi honge tha thi the thee hua hui hue
ka ki ke ko se me mein mai mei par pe tak liye liya lie wala wali wale vala vali vale
aur ya ki ke bhi hi to na nahi nahin nhi
yeh ye yah woh wo vo vah is us in un iska iski iske uska uski uske inka inki inke unka unki unke isse usse inse unse
isme usme ise use inhe unhe apna apni apne
karta karti karte karna karne kiya kiye ki kar kare karen karein jata jati jate jana jane gaya gayi gaye gya
raha rahi rahe sakta sakti sakte diya diye di lagta lagti lagte milta milti milte banta banti bante
ek koi kuch sab sabhi sabse bahut zyada jyada kam ne andar bare baare kaha kehte kahte walon valon waalon
baad dauran bina alawa alava anusar tahat bajay zariye jariye tarah taraf saath sath beech bich
jo jis jise jiska jiski jiske jisko jisme jismein jismen jisse jin jinka jinki jinke jinko jinme jinmein jinmen jinse
jahan jahaan jaise jaisa jaisi yani yaani agar yadi lekin magar kyunki kyonki kyuki kyoki isliye islie tatha evam
athva athava aadi adi dwara dvara toh phir usi yahi wahi yahan yaha vahan wahan
hum hume humein hamein hamen hame humne hamne hamara hamari hamare humara humari humare aap aapka aapki aapke apka
apki apke tum tumhara tumhari tumhare mera meri maine mujhe unhone unhonne unhen unhein inhen isko usko inko unko
ismein ismen usmein usmen inme inmein inmen unme unmein unmen kisi kuchh
ja jaa jaata jaati jaate jaana jaane jaye jaaye jae gai gae kie karke karane kahate kahlata kahlati kahlate
ab rha rhi rhe rehta rehti rehte rahta rahti rahte chuka chuki chuke
""".split())
# as in Devanagari (tutor/text/hindi_english.py): a question word of two words ("kis tarah" how, "kis karan" why),
# "se pehle" (before; "pehle" alone is "first"), and adverbs of several words dropped whole ("aam taur par" usually)
_QUESTION_PAIRS = {("kis", "tarah"): "how", ("kis", "prakar"): "how", ("kis", "karan"): "why",
                   ("kis", "kaaran"): "why", ("kis", "wajah"): "why", ("kis", "vajah"): "why", ("kis", "liye"): "why",
                   ("kis", "samay"): "when", ("kis", "jagah"): "where", ("kis", "sthan"): "where",
                   **{(k, s): "which" for k in ("kaun", "kon") for s in ("sa", "si", "se", "saa")}}
_OF = {"ka", "ki", "ke"}
_SKIPPED = [tuple(k.split()) for k in ("se pehle", "se pahle", "hisaab se", "hisab se", "aam taur par",
                                       "aam taur pe", "aamtaur par", "aamtaur pe", "khas taur par", "khaas taur par",
                                       "mukhya roop se", "mukhya rup se", "vishesh roop se")]
# words that only Hinglish uses: the tell (English words such as "to", "the", "is", "do" are left out)
_MARKERS = frozenset(set(_QUESTION_GLOSS) | {
    "hai", "hain", "hota", "hoti", "hote", "hona", "hoga", "hua", "hui", "hue", "tha", "thi", "ka", "ki", "ke", "ko",
    "se", "mein", "mai", "mei", "aur", "bhi", "nahi", "nahin", "nhi", "yeh", "woh", "iska", "iski", "iske", "uska",
    "uski", "uske", "isse", "usse", "karta", "karti", "karte", "karna", "kiya", "kiye", "jata", "jati", "jate",
    "gaya", "gayi", "gaye", "wala", "wali", "wale", "liye", "sakta", "sakte", "batao", "bataiye", "samjhao",
    "samjhaiye", "banta", "milta",
} | set(_FRAME_GLOSS))  # the frame nouns too: "what is ohm ka niyam"
# markers that tell Hinglish alone, at any length: the question words and request verbs, less those an English word
# or a name is spelt as ("kin", "kis", "kon", "kia", "kab", "do", "bata") and the short forms that are also the stems
# of other words ("samjha", "dijiye", "likho"); "hai" and "mein" (names too) are markers, not tells
_TELLS = frozenset(w for w in set(_QUESTION_GLOSS) | _REQUEST
                   if w not in {"kin", "kis", "kon", "kia", "kab", "do", "bata", "samjha", "dijiye", "likho"})
WORD = re.compile(r"[A-Za-z][A-Za-z'-]*|\d+(?:[.,]\d+)*")  # a typed word or number, as a reading splits them
# every word of Hinglish grammar above: what a question typed in Latin letters shares with Hindi and not with English
GRAMMAR = frozenset(set(_QUESTION_GLOSS) | _REQUEST | set(_FRAME_GLOSS) | _FUNCTION)


def grammar_at(words: Sequence[str], i: int, dropped: Iterable[tuple[str, ...]],
               pairs: dict[tuple[str, ...], str], of: Container[str]) -> tuple[int, str]:
    """Hindi grammar of more than one word at `words[i]`, in either script's tables: (how many words, "") for words
    dropped whole ("se pehle", "aam taur par"); (2, the question word) for a question word of two words ("kis tarah"
    how, "kis karan" why; a "how" pair before "ka", "ki" or "ke" asks "which": what kind of); (0, "") where none
    starts."""
    for run in dropped:
        if tuple(words[i:i + len(run)]) == run:
            return len(run), ""
    pair = pairs.get(tuple(words[i:i + 2]))
    if pair is None:
        return 0, ""
    return 2, "which" if pair == "how" and i + 2 < len(words) and words[i + 2] in of else pair


def asked_words(words: Sequence[str], j: int, content: Callable[[int], bool], postpositions: Container[str]) -> range:
    """The words a leading "which" or "how many" asks about, from words[j] (a content word), in either script: up to a
    postposition where one follows within three and every word before it is `content` ("kis river basin me", "किस
    फ्रांसीसी कलाकार ने"), else words[j] alone (the verb of "kitne percent energy pahunchti hai" stays in place)."""
    end = next((k for k in range(j, min(j + 3, len(words) - 1)) if words[k + 1] in postpositions
                and all(content(m) for m in range(j, k + 1))), j)
    return range(j, end + 1)


def fronted_first(kept: list[str], fronted: range) -> list[str]:
    """`kept` with its entries `fronted` moved to the front, the rest in order ("which" + the words it asks about);
    as it was where there are none, they already lead, or they run past its end."""
    if not fronted or fronted.start == 0 or fronted.stop > len(kept):
        return kept
    return kept[fronted.start:fronted.stop] + kept[:fronted.start] + kept[fronted.stop:]


def _words(text: str) -> list[str]:
    return [w.lower() for w in WORD.findall(text)]


@lru_cache(maxsize=4096)
def is_hinglish(text: str) -> bool:
    """Latin-script text whose function words are Hindi: at least two of them, one in a text of four words or fewer
    ("photosynthesis kya hai", "ohm ka niyam"), or one Hindi question word or request verb anywhere ("right hand
    thumb rule samjhao"). An English question never qualifies: the markers are words English does not use."""
    if devanagari_share(text) > 0:
        return False
    words = _words(text)
    marked = sum(w in _MARKERS for w in words)
    return marked >= 2 or (marked == 1 and (len(words) <= 4 or any(w in _TELLS for w in words)))


# a light verb's forms typed in Latin letters -> its infinitive, as the dictionaries list a noun with it ("theek karna")
LIGHT_VERB = {form: inf for inf, forms in {
    "करना": "kar karke karte karti karta karna karne karni karen karein kiya kiye kari karo kariye",
    "होना": "ho hota hoti hote hona hone hua hui hue hoga hogi honge",
    "जाना": "jata jati jate jana jane jaye gaya gayi gaye",
}.items() for form in forms.split()}


_POSSESSIVE = frozenset("ka ki ke iska iski iske uska uski uske inka inki inke unka unki unke".split())


def _english_use(words: Sequence[str], i: int) -> bool:
    """Whether "use" at `words[i]` is the English word, not Hindi उसे (him, her): after a possessive ("iska use", its
    use) or before a light verb ("use hota hai", "use karte")."""
    return (i > 0 and words[i - 1] in _POSSESSIVE) or (i + 1 < len(words) and words[i + 1] in LIGHT_VERB)


def english_reading(text: str, gloss: Callable[[str], str | None] | None = None,
                    pair: Callable[[str, str], str | None] | None = None,
                    most: Callable[[str], str | None] | None = None, which_noun: bool = False,
                    verb: Callable[[str], str | None] | None = None) -> str:
    """The question as an English shelf can read it: the first question word's gloss leads ("what is", "how", "why"),
    frame nouns glossed, the other function words dropped, every other word kept in its order: as `gloss` reads it
    where it gives an English word (not for a word typed in capitals, "MRI"), else as typed. A word before a light
    verb is first read with it, where `pair` (word, the light verb's infinitive in Devanagari) gives the pair's
    English ("theek karte" -> "correct", as ठीक करना). With `most`, "sabse" and the word after it are read as the one
    superlative it gives ("sabse bada" -> "largest"), "sabse zyada" as "most" (tutor/text/superlatives.py). With
    `which_noun`, the word a leading "which" or "how many" asks about follows it, as English writes it ("bhakra nangal
    project kis river basin me hai" -> "which river basin bhakra nangal project"), and a bare "kaun" before hai, tha or
    thi, or last, asks "who" ("1857 ki kranti ka neta kaun tha" -> "who 1857 revolution leader"), as a Devanagari
    reading does (tutor/text/hindi_english.py). With `verb`, a participle before hai, tha or thi is read as `verb`
    reads it (its verb: "aate hain" -> "come", not आटे, flour) where it does, and a bare "kaun" before one asks "who"."""
    lead = ""
    asks, fronted = range(0), range(0)  # with which_noun: the words a leading "which" asks about; their entries
    kept: list[str] = []
    typed_words = WORD.findall(text)
    low = [w.lower() for w in typed_words]
    i = 0
    while i < len(typed_words):
        typed, w = typed_words[i], low[i]
        n, asked = grammar_at(low, i, _SKIPPED, _QUESTION_PAIRS, _OF)
        if not n and i and w == low[i - 1] and w.isalpha():  # a word said twice ("baar baar") is read once
            i += 1
            continue
        at, size = i, len(kept)
        i += n or 1
        if n and not asked:
            continue
        if asked or w in _QUESTION_GLOSS:
            question_word = asked or _QUESTION_GLOSS[w]
            if which_noun and not lead:
                question_word, asks = _which_noun(low, i, w, asked, question_word, verb)
            if not lead:
                lead = question_word
            elif question_word not in kept and question_word != lead:
                kept.append(question_word)  # a second question ("... kya hai aur kaise ...") keeps its word in place
            continue
        if w == "sabse" and most is not None and i < len(low) and (top := QUANTITY_LATIN.get(low[i]) or most(low[i])):
            kept.append(top)  # "sabse bada" -> "largest", "sabse zyada" -> "most"
            i += 1
        elif w in _FRAME_GLOSS:
            kept.append(_FRAME_GLOSS[w])
        elif w in _REQUEST:
            lead = lead or "explain"
        elif w not in _FUNCTION or (w == "use" and _english_use(low, i - 1)):
            light = LIGHT_VERB.get(low[i]) if i < len(low) else None
            if light and pair is not None and not typed.isupper() and (both := pair(w, light)):
                kept.append(both.lower())
                i += 1
                continue
            english = None if typed.isupper() else (_participle(low, at, verb)
                                                    or (gloss(w) if gloss is not None else None))
            kept.append(english.lower() if english else w)
        if at in asks and len(kept) > size:
            fronted = range(fronted.start if fronted else size, len(kept))
    kept = fronted_first(kept, fronted)  # "which" + the words it asks about, then the rest in the question's order
    if lead == "what":
        lead = "what is"
    return " ".join(([lead] if lead else []) + kept).strip()


_WHICH = {"kis", "kin", "kitne", "kitni", "kitna"}  # and "kaun sa", "kon si" ... (_QUESTION_PAIRS: asked "which")
_AUXILIARY = {"hai", "hain", "tha", "thi", "the"}
_POSTPOSITIONS = {"ne", "me", "mein", "mai", "mei", "ko", "se", "ka", "ki", "ke", "par", "pe", "tak", "liye"}


def _participle(low: Sequence[str], i: int, verb: Callable[[str], str | None] | None) -> str | None:
    """`verb`'s English of low[i] where it is a participle (-ta, -ti, -te) before hai, tha or thi; else None."""
    if (verb is None or i + 1 >= len(low) or low[i + 1] not in _AUXILIARY or low[i] in _FUNCTION
            or not low[i].endswith(("ta", "ti", "te"))):
        return None
    return verb(low[i])


def _which_noun(low: Sequence[str], i: int, w: str, asked: str, gloss: str,
                verb: Callable[[str], str | None] | None = None) -> tuple[str, range]:
    """A leading question word (w, or the pair `asked` ends at i) that asks "which" or "how many", and the words it
    asks about (an empty range: none), from low[i] (after a repeat: "kin kin shehro"). A bare "kaun" before hai, tha
    or thi, or last, asks "who"; with `verb`, also before a participle and its auxiliary ("kaun khata hai")."""
    if not asked and w in ("kaun", "kon") and (i >= len(low) or low[i] in _AUXILIARY or _participle(low, i, verb)):
        return "who", range(0)
    if not (asked == "which" or (not asked and w in _WHICH)):
        return gloss, range(0)
    j = i + 1 if i < len(low) and low[i] == w else i

    def content(k: int) -> bool:
        return low[k].isalpha() and low[k] not in GRAMMAR
    if j >= len(low) or not content(j):
        return gloss, range(0)
    return gloss, asked_words(low, j, content, _POSTPOSITIONS)


def reply_language(question: str) -> str:
    """The language refusals, reasons and notes are written in for this question: Hindi (Devanagari script) for a
    Devanagari or a Hinglish question, English otherwise. A student who types Hindi in Latin letters reads Hindi;
    Devanagari is the script the tutor's Hindi messages are written and checked in."""
    return HINDI if detect_language(question) == HINDI or is_hinglish(question) else ENGLISH
