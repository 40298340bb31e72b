"""The safety vocabulary: phrasings an answer must not use and patterns of text that addresses a language model.

Plain data and one predicate, importing nothing else of the project but tutor.text.normalize (standard library only),
so that the prompts, the answer checks, the failsafe and ingestion can all read it without importing one another.
"""
from __future__ import annotations

import re

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
    r"\b(?:new|updated|real|actual|secret|hidden)\s+(?:instructions?|task|system\s+prompt|rules?)\b",
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


def is_instruction_like(text: str) -> bool:
    """Whether the text addresses a language model, the tutor or the system (an injected instruction), or asks
    the reader for a password or other credentials: planted text that a textbook never says to a student. Read
    after `fold`, so look-alike letters and zero-width marks hide nothing."""
    return bool(_INSTRUCTION.search(fold(text)))
