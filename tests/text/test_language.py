"""Which script a question is in, and which scripts the tutor cannot read."""
from __future__ import annotations

import pytest

from tutor.text.language import (
    ENGLISH,
    HINDI,
    detect_language,
    devanagari_language,
    latin_language,
    unread_script,
)


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


@pytest.mark.parametrize("question, language", [
    ("¿Qué es la ley de Ohm?", "Spanish"),
    ("Qu'est-ce que la photosynthèse?", "French"),
    ("Wie funktioniert das menschliche Auge?", "German"),
    ("Che cos'è la fotosintesi?", "Italian"),
    ("Apa itu fotosintesis?", "Indonesian"),
])
def test_a_question_in_latin_letters_whose_function_words_are_another_languages_is_named(question, language):
    assert latin_language(question) == language


@pytest.mark.parametrize("question", [
    "What is photosynthesis?", "What are El Nino and La Nina?", "El Nino and La Nina", "Who was Vasco da Gama?",
    "Why did Giuseppe Mazzini found Young Italy?", "Otto von Bismarck ne kya kiya", "photosynthesis kya hai",
    "Explain the role of Frédéric Sorrieu's prints", "प्रकाश संश्लेषण क्या है?", "", "pH", "Was ist",
])
def test_english_hindi_hinglish_and_names_from_other_languages_are_not_another_language(question):
    assert latin_language(question) is None


@pytest.mark.parametrize("question, language", [
    ("प्रकाशसंश्लेषण म्हणजे काय?", "Marathi"), ("ओहमचा नियम काय आहे?", "Marathi"),
    ("प्रकाश संश्लेषण कसरी हुन्छ?", "Nepali"),
    ("प्रकाश संश्लेषण क्या है?", None), ("विद्युत धारा का SI मात्रक क्या है?", None), ("राणा सांगा कौन थे?", None),
    ("प्रकाश संश्लेषण भनेको के हो?", None),  # one Nepali word: read as Hindi
    ("What is photosynthesis?", None),
])
def test_marathi_and_nepali_are_told_from_hindi_by_two_of_their_own_function_words(question, language):
    assert devanagari_language(question) == language


def test_a_marathi_question_is_refused_for_its_language_before_any_embedding():
    from tutor.policy import load_policy
    from tutor.reasons import Reason
    from tutor.safety.inputs import input_refusal

    reason, note = input_refusal("ओहमचा नियम काय आहे?", None, load_policy())
    assert reason == Reason.UNREAD_LANGUAGE and "Marathi" in note
    assert input_refusal("ओम का नियम क्या है?", None, load_policy()) is None


@pytest.mark.slow
def test_no_question_of_the_shared_sets_tests_data_or_the_squad_training_file_is_taken_for_another_language():
    import json

    from helpers_paths import SHARED_DATA, TEST_DATA

    from tutor.evaluation.libraries import training_articles

    if not (SHARED_DATA / "questions").exists():
        pytest.skip("../shared/data is not beside the repository")
    files = sorted((SHARED_DATA / "questions").glob("*.jsonl")) + sorted(TEST_DATA.glob("*.jsonl"))
    rows = [json.loads(line) for f in files for line in f.read_text(encoding="utf-8").splitlines() if line.strip()]
    questions = [r[k] for r in rows for k in ("question", "english") if isinstance(r.get(k), str)]
    squad = training_articles(SHARED_DATA / "libraries")
    if squad.exists():  # SQuAD 2.0's layout: articles, their paragraphs, their questions
        data = json.loads(squad.read_text(encoding="utf-8"))["data"]
        questions += [qa["question"] for art in data for par in art["paragraphs"] for qa in par["qas"]]
    assert len(questions) > 4000
    assert [q for q in questions if latin_language(q) or devanagari_language(q)] == []
