"""Hinglish read through the English-Hindi dictionary (tutor/text/hinglish_dictionary.py): a Hindi word typed in
Latin letters found among the dictionary's romanised Hindi phrases, on a tiny dictionary written in the test."""
from __future__ import annotations

import pytest

from tutor.text.hindi_dictionary import invert, parse_dictd
from tutor.text.hindi_english import romanize
from tutor.text.hinglish_dictionary import (
    CommonFirst,
    hinglish_reading,
    latin_gloss,
    latin_key,
    latin_lemmas,
    romanisations,
    unread_hinglish,
)

DICTD = """sky /skˈaɪ/ <N>
1. आसमान, आकाश
blue /blˈuː/ <ADJ>
1. नीला
iron /ˈaɪən/ <N>
1. लोहा
first /fˈɜːst/ <ADJ>
1. पहला
add /ˈad/ <V>
1. जोड़ना
join /dʒˈɔɪn/ <V>
1. जोड़ना
river /ɹˈɪvə/ <N>
1. नदी
go /ɡˈəʊ/ <V>
1. जा
wire /wˈaɪə/ <N>
1. तार
palm /pˈɑːm/ <N>
1. ताड़
"""


@pytest.fixture
def d():
    return invert(parse_dictd(DICTD))


@pytest.mark.parametrize(("typed", "hindi"), [
    ("aasman", "आसमान"), ("asmaan", "आसमान"), ("neela", "नीला"), ("pehla", "पहला"), ("nadi", "नदी")])
def test_common_spellings_of_one_hindi_word_compare_equal_to_its_romanisation(typed, hindi):
    assert latin_key(typed) == latin_key(romanize(hindi))


def test_an_inflected_word_is_looked_up_by_the_forms_a_dictionary_lists():
    assert "loha" in latin_lemmas("lohe")  # oblique noun
    assert "jodna" in latin_lemmas("jodta")  # participle -> infinitive
    assert latin_lemmas("ab") == []  # a stem keeps two letters


def test_hindi_words_are_read_as_english_and_english_words_are_left_alone(d):
    assert latin_gloss("aasman", dictionary=d) == "sky"
    assert latin_gloss("lohe", dictionary=d) == "iron"
    assert latin_gloss("jodta", dictionary=d) == "add"  # ड़ typed "d"; the first headword listed
    assert latin_gloss("jodta", {"join"}, dictionary=d) == "join"  # the first one the shelf uses
    assert latin_gloss("river", dictionary=d) is None  # an English word: a headword of the dictionary
    assert latin_gloss("nadi", {"nadi"}, dictionary=d) is None  # a word the shelf uses is the shelf's word
    assert latin_gloss("ja", dictionary=d) is None  # too short to tell
    assert latin_gloss("tungsten", dictionary=d) is None  # neither English in this dictionary nor Hindi in it


def test_a_word_nothing_else_reads_is_read_through_the_learnt_spelling_when_it_is_sure(tmp_path):
    from tutor.text.hinglish_dictionary import learnt_spelling
    from tutor.text.transliterate import learn, save

    d = invert(parse_dictd(DICTD + "knowledge /nˈɒlɪdʒ/ <N>\n1. ज्ञान\n"))
    # pieces learnt from pairs that do not hold the word: "gyan" is spelt from gy (यज्ञ, आज्ञा), aa and n
    save(learn([("yagya", "यज्ञ", 3), ("agya", "आज्ञा", 3), ("naam", "नाम", 3), ("kaan", "कान", 2),
                ("din", "दिन", 2)], iterations=6), tmp_path / "m.tsv.gz")
    spelling = learnt_spelling(d, -3.0, tmp_path / "m.tsv.gz")
    assert latin_gloss("gyaan", dictionary=d) is None  # the romanised dictionary spells ज्ञान "jnan"
    assert latin_gloss("gyaan", dictionary=d, spelling=spelling) == "knowledge"
    assert latin_gloss("kamra", dictionary=d, spelling=spelling) is None  # spells no word the dictionary lists
    unsure = learnt_spelling(d, -0.0001, tmp_path / "m.tsv.gz")
    assert latin_gloss("gyaan", dictionary=d, spelling=unsure) is None  # below the bar: left as typed
    assert learnt_spelling(d, -0.3, tmp_path / "absent.tsv.gz") is None


def test_the_hinglish_reading_glosses_hindi_content_words_and_keeps_the_rest(d):
    assert hinglish_reading("aasman neela kyon dikhta hai", dictionary=d) == "why sky blue dikhta"
    assert hinglish_reading("lohe ko kaise bachate hain", dictionary=d) == "how iron bachate"
    # a word typed in capitals is an abbreviation, never glossed
    assert hinglish_reading("NEELA kya hai", dictionary=d) == "what is neela"


def test_without_the_dictionary_there_is_no_reading(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_HINDI_DICTIONARY", str(tmp_path / "absent.dict.dz"))
    assert hinglish_reading("aasman neela kyon dikhta hai") == ""
    assert latin_gloss("aasman") is None
    assert unread_hinglish("why aasman neela dikhta") == ()  # nothing tells a Hindi word from an unknown English one


def test_the_hindi_words_a_reading_kept_as_typed_are_named_and_english_words_names_and_capitals_are_not(d):
    shelf = {"rust", "myopia", "magnetism"}
    # "lohe" is लोहा inflected, "neela" नीला; "river" is an English headword, "rust" a shelf word, "kohli" a name the
    # dictionary does not know, "MRI" capitals
    assert unread_hinglish("how lohe rust", shelf, dictionary=d) == ("lohe",)
    assert unread_hinglish("why aasman neela dikhta", shelf, dictionary=d) == ("aasman", "neela")
    assert unread_hinglish("which river kohli MRI magnetism", shelf, dictionary=d) == ()


def test_a_typed_words_commonest_devanagari_spelling_is_read_first_not_the_most_consistently_typed(d):
    """Dakshina lists "taar" as ताड़ (palm) and तार (wire) once each; e5's tokenizer (XLM-R's unigram model) knows तार
    as one common piece and ताड़ as two rare ones."""
    from tutor.text.commonness import commonest_first, log_probability

    assert log_probability("तार") > log_probability("ताड़")
    assert commonest_first(("ताड़", "तार")) == ("तार", "ताड़") and commonest_first(("साही", "सही")) == ("सही", "साही")
    assert commonest_first(("तार",)) == ("तार",) and commonest_first(()) == ()
    typed = romanisations([("ताड़", "taar", 1), ("तार", "taar", 1)])
    assert typed.devanagari("taar") == ("ताड़", "तार")
    assert latin_gloss("taar", dictionary=d, romanised=typed) == "palm"
    assert CommonFirst(typed).devanagari("taar") == ("तार", "ताड़")
    assert latin_gloss("taar", dictionary=d, romanised=CommonFirst(typed)) == "wire"
