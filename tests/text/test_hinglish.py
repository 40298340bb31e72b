"""Hinglish (Hindi in Latin letters) told from English by its function words, and read as English for an English
shelf (tutor/text/hinglish.py)."""
import pytest

from tutor.text.hinglish import english_reading, is_hinglish


@pytest.mark.parametrize("question", [
    "photosynthesis kya hai", "ohm ka niyam samjhao", "acid aur base me kya antar hai?", "kidney kaise kaam karti hai",
    "Mahatma Gandhi ne Dandi march kab kiya tha", "rainbow kyon banta hai",
    # one Hindi question word or request verb is enough at any length
    "right hand thumb rule samjhao", "electric motor ke parts batao", "magnetic field lines kyon nahi katati"])
def test_hinglish_is_recognised(question):
    assert is_hinglish(question)


@pytest.mark.parametrize("question", [
    "What is photosynthesis?", "How do plants make food?", "Is ozone a gas?", "Name the kidney's filtering unit.",
    "Why is the sky blue?", "Who led the Dandi march in 1930?", "Describe the structure of a neuron and its parts.",
    "What is the difference between an acid and a base?", "ohm", "प्रकाश संश्लेषण क्या है?", "pH क्या है?",
    # English words and names that look like a marker do not tell Hinglish on their own in a longer question
    "What was Mein Kampf about and when was it written?", "What role does kin selection play in evolution?"])
def test_english_and_devanagari_questions_are_not_hinglish(question):
    assert not is_hinglish(question)


def test_the_english_reading_leads_with_the_question_word_and_keeps_every_content_word():
    assert english_reading("redox reaction kya hota hai") == "what is redox reaction"
    assert english_reading("acid aur base me kya antar hai?") == "what is acid base difference"
    assert english_reading("rainbow kyon banta hai") == "why rainbow"
    assert english_reading("ohm ka niyam samjhao") == "explain ohm law"
    # Hindi content words stay as typed: an English shelf does not know them, so the gate counts them as unknown
    assert english_reading("aasman neela kyon dikhta hai") == "why aasman neela dikhta"
    # "kaha" is "said" as often as "where": it is dropped, not glossed
    assert english_reading("bismarck ko iron chancellor kyu kaha jata hai") == "why bismarck iron chancellor"


def test_two_word_question_words_compound_postpositions_and_adverbs_are_read_as_grammar():
    assert english_reading("photosynthesis kis tarah hota hai") == "how photosynthesis"
    assert english_reading("kis prakar ka mirror hota hai") == "which mirror"  # what kind of
    assert english_reading("light kis karan bend hoti hai") == "why light bend"
    assert english_reading("meal ke baad kya hota hai") == "what is meal"
    assert english_reading("1947 se pehle kya hua") == "what is 1947"
    assert english_reading("pehle president kaun the") == "which pehle president"  # "first": a content word
    assert english_reading("aam taur par kitne member hote hai") == "how many member"
    assert english_reading("bad effects of plastic kya hai") == "what is bad effects of plastic"  # English "bad"


def test_relative_and_personal_pronouns_passive_auxiliaries_and_a_word_said_twice_are_grammar():
    assert english_reading("jo gas hum saans me lete hai woh kaun si hai") == "which gas saans lete"
    assert english_reading("tidal energy ke liye kaun kaun si jagah sahi maani jaati hai") == (
        "which tidal energy jagah sahi maani")
    assert english_reading("rust yani jung kaise hota hai") == "how rust jung"
    assert english_reading("baar baar try karne ko kya kehte hai") == "what is baar try"
    # an English word that spells a Hindi one is not dropped unless it is grammar: "isi" is the ISI mark
    assert english_reading("isi mark kya hai") == "what is isi mark"
    assert english_reading("forest policy ke hisaab se kitna jungle") == "how much forest policy jungle"


def test_use_is_english_after_a_possessive_or_before_a_light_verb_and_hindi_use_otherwise():
    assert english_reading("concave mirror kahan use hota hai") == "where concave mirror use"
    assert english_reading("ammonia ka use batao") == "explain ammonia use"
    assert english_reading("use kya kehte hai") == "what is"  # उसे क्या कहते हैं: what is it called


def test_a_frame_noun_tells_hinglish_beside_one_function_word():
    assert is_hinglish("what is ohm ka niyam") and english_reading("what is ohm ka niyam") == "what ohm law"


def test_refusals_come_in_hindi_for_devanagari_and_hinglish_questions_and_in_english_otherwise():
    from tutor.text.hinglish import reply_language

    assert [reply_language(q) for q in ("ohm ka niyam kya hai", "ओम का नियम क्या है?", "What is Ohm's law?")] == [
        "hi", "hi", "en"]


@pytest.mark.slow
def test_no_english_question_of_the_shared_sets_is_taken_for_hinglish():
    import json

    from helpers_paths import SHARED_DATA, TEST_DATA

    files = sorted((SHARED_DATA / "questions").glob("*.jsonl")) + [TEST_DATA / "hindi-questions-en.jsonl"]
    if not (SHARED_DATA / "questions").exists():
        pytest.skip("../shared/data is not beside the repository")
    questions = [json.loads(line)["question"] for f in files for line in f.read_text(encoding="utf-8").splitlines()
                 if line.strip()]
    assert len(questions) > 1000
    assert [q for q in questions if is_hinglish(q)] == []


def test_which_and_how_many_are_followed_by_the_word_they_ask_about_in_hinglish():
    read = lambda q, on=True: english_reading(q, which_noun=on)  # noqa: E731
    assert read("bhakra nangal project kis river basin me hai") == "which river basin bhakra nangal project"
    assert read("yeh project kis prime minister ne shuru kiya") == "which prime minister project shuru"  # up to "ne"
    assert read("bhakra nangal project kis river basin me hai", on=False) == "which bhakra nangal project river basin"
    assert read("dahi me kaun sa acid hota hai") == "which acid dahi"  # the pair "kaun sa" asks which
    assert read("golden quadrilateral kin kin shehro ko jodta hai").startswith("which shehro golden quadrilateral")
    assert read("heart me kitne chambers hote hain") == "how many chambers heart"
    # a bare "kaun" before hai/tha, or last, asks who; "kitne se kam" asks about no word
    assert read("1857 ki kranti ka neta kaun tha") == "who 1857 kranti neta"
    assert read("ph kitne se kam hone par").startswith("how many ph")
    # only the leading question word
    assert read("ozone layer kyon zaroori hai aur kis gas se bani hai") == "why ozone layer zaroori which gas bani"


def test_the_words_asked_about_run_to_a_postposition_and_a_verb_stays_in_place():
    read = lambda q: english_reading(q, which_noun=True)  # noqa: E731
    assert read("food chain me kitne percent energy pahunchti hai") == "how many percent food chain energy pahunchti"
    assert read("oersted ne kis saal dekha tha") == "which saal oersted dekha"
    assert read("microscope me kitne lens hote hai") == "how many lens microscope"
