"""Which script a question is in, and which scripts the tutor cannot read."""
from __future__ import annotations

import pytest

from tutor.text.language import ENGLISH, HINDI, detect_language, unread_script


@pytest.mark.parametrize("question, script", [
    ("ஒளிச்சேர்க்கை என்றால் என்ன?", "Tamil"),
    ("সালোকসংশ্লেষণ কী?", "Bengali"),
    ("ਪ੍ਰਕਾਸ਼ ਸੰਸ਼ਲੇਸ਼ਣ ਕੀ ਹੈ?", "Gurmukhi"),
    ("ପ୍ରକାଶ ସଂଶ୍ଳେଷଣ କଣ?", "Odia"),
    ("فوٹو سنتھیسس کیا ہے؟", "Arabic"),
    ("光合作用是什么", "Chinese"),
    ("What is ஒளிச்சேர்க்கை?", "Tamil"),  # the word that carries the question is Tamil
])
def test_a_question_mostly_in_another_script_is_named(question, script):
    assert unread_script(question) == script


@pytest.mark.parametrize("question", [
    "What is photosynthesis?", "प्रकाश संश्लेषण क्या है?", "photosynthesis kya hai", "pH क्या है?",
    "What does λ stand for in the lens formula?", "What is the unit of resistance (Ω)?", "", "   ", "1 + 2 = ?",
    "Find 𝑥 if 𝑥𝑦 = 3𝑥 and 𝑦 = 3", "Δ = λ/μ?", "Cafe\u0301 au lait kya hai", "ＷＨＡＴ is pH?",
])
def test_english_hindi_and_hinglish_are_read(question):
    assert unread_script(question) is None


def test_script_decides_hindi_or_english():
    assert detect_language("ओम का नियम क्या है?") == HINDI
    assert detect_language("What is Ohm's law?") == ENGLISH
