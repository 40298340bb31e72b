"""The safety vocabulary: phrasings an answer must not use, and what book text is held back from students.

Plain data and a few predicates, importing nothing else of the project but tutor.text.normalize (standard library
only), so that the prompts, the answer checks, the gate, the failsafe and ingestion can all read it without importing
one another. `held_back_reason` says why a sentence is never quoted (nor counted as evidence): orders to the tutor,
any web or e-mail address, a request for credentials or personal details, a sentence that tells the reader how to
answer anyone who asks, in English or Hindi.

A maintainer who checked a held-back sentence may RELEASE it (tutor/audit/releases.py keeps who, when and where, in
the audit database every replica reads): `is_instruction_like` then lets that one sentence through, by a lookup in a
process-wide set of released sentences' digests (`set_released`), while `held_back_reason` stays a pure, cached
function of the text (ingest still lists the sentence, so it can be withdrawn). Only RELEASABLE kinds can be released:
a web or e-mail address is the one kind real books trip (22 NCERT sentences cite a government site), and an address
a maintainer has looked at is harmless to quote. Orders to the tutor, requests for credentials, sentences that tell
the reader how to answer others, and the Hindi kind (its patterns are those same orders and credential requests,
in Devanagari) are never released: such a sentence never belongs in an answer, a false hold-back of one costs a
sentence of evidence, and a release of a true one hands a planted order or a phishing line to every student.
"""
from __future__ import annotations

import functools
import hashlib
import re
from collections.abc import Iterable

from tutor.text.normalize import drop_format_chars

# hedging and filler that a textbook answer never needs, and words that mark an answer as untrustworthy
FORBIDDEN_PHRASES = (
    r"in general", r"generally speaking", r"typically", r"i believe", r"i think", r"as a best practice",
    r"based on my (?:understanding|knowledge)", r"you might also consider", r"it is (?:widely|commonly) "
                                                                            r"(?:known|believed)",
    r"as an ai", r"in my opinion", r"from my knowledge", r"it'?s worth noting", r"as far as i know",
)
UNTRUSTWORTHY_PHRASES = (
    r"i'?m not sure", r"i am not sure", r"not certain", r"maybe", r"perhaps", r"possibly", r"i cannot", r"i can'?t",
    r"i don'?t know", r"i do not know", r"unable to", r"error occurred", r"an error", r"exception", r"as of my",
    r"not (?:mentioned|provided|given|stated) in the (?:sources|text|context)",
    r"the (?:sources|context) (?:do|does) not",
    r"insufficient information", r"i (?:could|would) guess", r"probably",
)

# sentences that talk to a language model rather than to a student: a textbook never says these
INSTRUCTION_PATTERNS = (
    r"\b(?:ignore|disregard|forget|override|bypass)\b[^.!?\n]{0,40}\b(?:instructions?|prompts?|rules?|directions?|guidelines?|sources?|context|above|previous|prior|earlier)\b",
    # not "new rules": a history chapter's officials formulate those ("formulated new rules that restored ...")
    r"\b(?:new|updated|real|actual|secret|hidden)\s+(?:instructions?|task|system\s+prompt)\b",
    r"\b(?:secret|hidden)\s+rules?\b",
    r"\bsystem\s+(?:prompt|message|override)\b",
    r"\byou\s+are\s+(?:now\s+)?(?:an?\s+)?(?:ai|assistant|chat\s*bot|language\s+model|llm|dan)\b",
    r"\b(?:as|to)\s+(?:an?\s+)?(?:ai|assistant|language\s+model|llm|chat\s*bot)\s*[,:]",
    r"\b(?:assistant|ai|model|llm|chatbot|tutor)\s*[,:]\s*(?:please\s+)?(?:ignore|answer|reply|respond|say|write|print|output|tell)\b",
    r"\b(?:reply|respond|answer|say|output|print)\s+(?:only|exactly|just)\s+(?:with\s+)?[\"'“‘]",
    r"\b(?:do\s+not|don'?t|never)\s+(?:cite|use)\s+(?:the\s+)?(?:sources?|citations?)\b",
    r"<\|?\s*(?:im_start|im_end|system|endoftext)\s*\|?>",
    r"\[/?INST\]|</?s(?:ource)?\s*(?:n\s*=\s*[\"']?\d+[\"']?)?>",
    # planted in a chapter PDF for the tutor to repeat: a sentence addressed to the tutor or the system, an order
    # about what to tell students, a request for passwords or other credentials
    r"^\W*(?:note\s+(?:to|for)\s+(?:the\s+)?)?(?:tutor|assistant|system|ai|chat\s*bot|bot|model|llm)\s*[:,]",
    r"\bnote\s+(?:to|for)\s+(?:the\s+)?(?:tutor|assistant|ai|system|model|chat\s*bot)\b",
    r"\b(?:always|never|must)\s+(?:tell|say\s+to|answer|reply\s+to|respond\s+to|inform)\s+(?:the\s+|all\s+)?"
    r"(?:students?|users?|learners?|readers?|children|pupils?)\b",
    r"\btell\s+(?:the\s+|all\s+)?(?:students?|users?|learners?)\s+(?:that\s+)?the\s+(?:correct\s+)?answer\s+is\b",
    r"\b(?:enter|type|give|send|share|provide|submit|confirm|reveal|update|verify|tell\s+(?:us|me))\b[^.!?\n]{0,60}"
    r"\b(?:passwords?|pass\s*codes?|pins?|otps?|one[-\s]time\s+passwords?|log-?in\s+(?:details|credentials)|"
    r"credentials|card\s+numbers?|cvv|bank\s+(?:details|account\s+numbers?))\b",
    r"\b(?:passwords?|otps?|credentials|log-?in)\b[^.!?\n]{0,80}(?:https?://|www\.)",
)
_INSTRUCTION = re.compile("|".join(f"(?:{p})" for p in INSTRUCTION_PATTERNS), re.I)
# what a planted sentence may hide behind, besides marks that show nothing (Unicode's format characters): letters of
# other scripts drawn like Latin ones (Cyrillic and Greek; "раsswоrd" with a Cyrillic р and о reads as "password")
_LOOKALIKES = str.maketrans(
    "аеорсухіјѕԁԛԝһӏАВЕКМНОРСТХУІЈЅΑΒΕΖΗΙΚΜΝΟΡΤΥΧοινκρτυχ",
    "aeopcyxijsdqwhlABEKMHOPCTXYIJSABEZHIKMNOPTYXoivkptux")


def fold(text: str) -> str:
    """`text` as the checks read it: invisible format characters out (zero-width, direction marks, soft hyphen), NFKC
    (full-width and styled letters to plain ones), Cyrillic and Greek look-alikes read as the Latin letters they
    imitate, runs of space as one."""
    import unicodedata

    return " ".join(unicodedata.normalize("NFKC", drop_format_chars(text)).translate(_LOOKALIKES).split())


_IN = r"(?:[^.!?\n]|\.(?=\S))"  # within one sentence: a dot inside an address or a number does not end it
_D = "[\u0900-\u097F]"  # a Devanagari letter or sign (Python's \\w stops at a vowel sign)

# any address on the web or for mail: a textbook's own links are its publisher's, and none need quoting to answer
WEB_ADDRESS_PATTERNS = (
    r"\b(?:https?|ftp)://\S+",
    r"\bwww\d?\.[a-z0-9-]+\.[a-z]{2,}",
    r"\b[a-z0-9][a-z0-9-]{1,62}(?:\.[a-z0-9-]{2,63})*\.(?:com|org|net|edu|gov|info|biz|io|co|in|uk|us|me|app|xyz|"
    r"online|site|top|ru|cn|tk|ly|gl|link|click|example|test|invalid)\b(?!\.\d)",
    r"\b[a-z0-9][a-z0-9-]{1,62}\.[a-z]{2,24}/[^\s]*",
    r"\b[\w.+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}\b",
)
# a request for credentials or personal details: logging in "with your ...", or handing over an identifier
_PERSONAL = (r"(?:id|i\.d\.|identity(?:\s+card)?|user\s*-?\s*names?|log-?ins?|roll\s+numbers?|admission\s+numbers?|"
             r"(?:phone|mobile|contact|whatsapp)(?:\s+numbers?)?|(?:home\s+|e-?mail\s+)?address(?:es)?|e-?mails?|"
             r"date\s+of\s+birth|birthday|aadha?ar(?:\s+numbers?)?|pan(?:\s+card)?|accounts?|passwords?|pins?|otps?|"
             r"(?:debit\s+|credit\s+)?cards?|bank\s+details|parents?'?s?\s+(?:names?|numbers?|phones?))")
CREDENTIAL_PATTERNS = (
    r"\b(?:log\s*-?\s*in|sign\s*-?\s*in|login|register|sign\s*-?\s*up)\b" + _IN
    + r"{0,80}\b(?:with|using)\s+(?:your|their)\b",
    r"\b(?:enter|type|give|send|share|provide|submit|confirm|reveal|update|verify|fill\s+in|tell\s+(?:us|me)|post|"
    r"upload|text|sms|whatsapp|e-?mail|mail)\b" + _IN + r"{0,60}\b(?:your|their)\s+(?:[a-z'-]+\s+){0,3}?"
    + _PERSONAL + r"\b",
)
# the reader (or a model reading the book) told how to answer other people: "Reply to anyone asking ...", "If asked
# about X, say Y", "The answer to every question about X is Y". A textbook's own imperatives ("Take a beaker",
# "Answer the following questions") address the student about the student's own work, never people who ask.
_ASKERS = (r"(?:anyone|anybody|everyone|everybody|whoever|whomever|someone|somebody|"
           r"(?:any|every|each)\s+(?:one|person|user|student|learner|reader|child|pupil)|"
           r"all\s+(?:users|students|learners|readers|children|pupils|people)|"
           r"(?:users?|students?|learners?|readers?|people|persons?|those|children|pupils?)\s+who)")
ADDRESSED_PATTERNS = (
    r"^\W*(?:(?:please|now|always|henceforth|also|from\s+now\s+on)\s*,?\s+)*(?:reply|respond|answer|tell|say|"
    r"inform|explain|write\s+back|state)\b" + _IN + r"{0,40}\b" + _ASKERS + r"\b" + _IN
    + r"{0,40}\b(?:ask\w*|question\w*|quer(?:y|ies)|enquir\w*|wants?\s+to\s+know)",
    # the order comes straight after the clause: "If asked about rain, say ..." (not "When asked, they would respond")
    r"\b(?:when|if|whenever)\s+(?:you\s+are\s+|you're\s+)?asked\b" + _IN
    + r"{0,80}?[,:]\s*(?:always\s+|just\s+|simply\s+)?(?:say|reply|respond|answer|tell|write|claim|state)\b",
    r"\b(?:when|if|whenever)\s+(?:anyone|anybody|someone|somebody|a\s+(?:user|student|learner|reader|child|person)|"
    r"users|students|learners|readers|people)\s+asks?\b" + _IN
    + r"{0,80}?[,:]\s*(?:always\s+|just\s+|simply\s+)?(?:say|reply|respond|answer|tell|write|claim|state)\b",
    r"\bthe\s+(?:correct\s+|right\s+|only\s+|real\s+)?answers?\s+to\s+(?:every|any|all|each)\s+(?:\w+\s+){0,2}?"
    r"questions?\b",
    r"\b(?:whatever|whichever|no\s+matter\s+(?:what|which))\s+(?:the\s+)?(?:question|is\s+asked|anyone\s+asks|"
    r"they\s+ask)\b",
    r"\b(?:dear|hey|hi|hello)\s+(?:tutor|assistant|ai|bot|chat\s*bot|model)\b",
    r"\bif\s+you\s+are\s+(?:an?\s+)?(?:ai|assistant|language\s+model|chat\s*bot|bot|tutor|llm)\b",
)
# the same in Hindi (Devanagari): anyone who asks told something, credentials asked for, instructions ignored, the
# tutor addressed, the answer to every question given
HINDI_PATTERNS = (
    r"(?:जो\s+भी|कोई\s+भी|जो\s+कोई|हर\s+कोई|किसी\s+के\s+भी|किसी\s+भी)\s[^।!?\n]{0,60}पूछ" + _D + r"*"
    r"[^।!?\n]{0,60}(?:बता|कह|जवाब|उत्तर)",
    r"(?:अपन[ाीे]|आपक[ाीे])\s+(?:" + _D + r"+\s+){0,3}?(?:पासवर्ड|ओटीपी|आधार|लॉग\s*इन|लॉगिन|यूज़र\s*नेम|यूजर\s*नेम|पिन|"
    r"बैंक|आईडी|आई\.?डी|पहचान\s+(?:पत्र|संख्या)|मोबाइल\s+नंबर|(?:फ़ोन|फोन)\s+नंबर|खाता\s+संख्या)",
    r"(?:पासवर्ड|ओटीपी|लॉग\s*इन|लॉगिन)\s[^।!?\n]{0,60}(?:दर्ज|भेज|बता|डाल|साझा|शेयर)",
    r"(?:निर्देश|नियम|आदेश)" + _D + r"*\s+(?:को\s+)?(?:अनदेखा|नज़रअंदाज़|नजरअंदाज|भूल)",
    r"^\W*(?:ट्यूटर|सहायक|एआई|मॉडल|बॉट|चैटबॉट)\s*[:,]",
    r"(?:हर|सभी|किसी\s+भी)\s+(?:" + _D + r"+\s+){0,3}?प्रश्न" + _D + r"*\s+(?:का|के)\s+(?:सही\s+)?(?:उत्तर|जवाब)",
)

# reason code: the words the maintainers read, most specific first; web_address stays LAST: a sentence is released
# only when it is held back for nothing but its address (RELEASABLE), i.e. when no pattern above it matched
HELD_BACK = {
    "instruction": (_INSTRUCTION, "gives orders to the tutor"),
    "credentials": (re.compile("|".join(f"(?:{p})" for p in CREDENTIAL_PATTERNS), re.I),
                    "asks for credentials or personal details"),
    "addressed": (re.compile("|".join(f"(?:{p})" for p in ADDRESSED_PATTERNS), re.I),
                  "tells the reader how to answer others"),
    "hindi": (re.compile("|".join(f"(?:{p})" for p in HINDI_PATTERNS)), "an instruction in Hindi"),
    "web_address": (re.compile("|".join(f"(?:{p})" for p in WEB_ADDRESS_PATTERNS), re.I), "a web or e-mail address"),
}


@functools.lru_cache(maxsize=65_536)
def held_back_reason(text: str) -> str | None:
    """Why a sentence of book text is held back from students (a key of HELD_BACK), or None to quote it. Read after
    `fold`, so look-alike letters and zero-width marks hide nothing. Cached: the gate asks about the same book
    sentences question after question (about 0.14 ms each uncached)."""
    folded = fold(text)
    for code, (pattern, _) in HELD_BACK.items():
        if pattern.search(folded):
            return code
    return None


def held_back_label(text: str) -> str:
    """Why a held-back sentence is held back, in the maintainers' words ("" when it is not)."""
    code = held_back_reason(text)
    return HELD_BACK[code][1] if code else ""


def is_instruction_like(text: str) -> bool:
    """Whether the text is held back (`held_back_reason`): it addresses a language model, the tutor or the system
    (an injected instruction), tells the reader how to answer others, asks for credentials or personal details, or
    carries a web or e-mail address: text that is never quoted to a student and never counts as evidence. A
    sentence a maintainer released (`is_released`) is not: it is quoted and counts as evidence like any other."""
    code = held_back_reason(text)
    return code is not None and not (code in RELEASABLE and _released and release_digest(text) in _released)


# ---------------------------------------------------------------- released sentences
RELEASABLE = frozenset({"web_address"})  # the held-back kinds a maintainer may release (why: the module docstring)
# what is released now, replaced whole (never changed in place) by set_released, so a reader on another thread sees
# the old set or the new one; filled from the audit database (tutor.audit.releases.ReleaseSync)
_released: frozenset[str] = frozenset()


@functools.lru_cache(maxsize=16_384)
def release_digest(text: str) -> str:
    """The key a release is kept under: the sha256 of the sentence as the checks read it (`fold`: format characters
    out, NFKC, look-alikes folded, whitespace runs as one space), so the sentence as ingest split it and as the
    maintainer copied it give one key. Cached like `held_back_reason` (uncached it made a released sentence's check
    cost about 50 us instead of 0.1)."""
    return hashlib.sha256(fold(text).encode("utf-8")).hexdigest()


def releasable(text: str) -> bool:
    """Whether a maintainer may release this sentence: it is held back, and only for a RELEASABLE kind (a sentence
    with an address AND an order is held back for the order, and stays held back)."""
    return held_back_reason(text) in RELEASABLE


def set_released(digests: Iterable[str]) -> None:
    """Make these (`release_digest`s) the released sentences of this process, replacing the set before."""
    global _released
    _released = frozenset(digests)


def released_digests() -> frozenset[str]:
    """The released sentences' digests this process uses now."""
    return _released


def is_released(text: str) -> bool:
    """Whether a held-back sentence is quoted anyway, because a maintainer released it."""
    return bool(_released) and releasable(text) and release_digest(text) in _released
