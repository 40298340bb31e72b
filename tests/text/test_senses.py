"""A Hindi phrase's English sense chosen by what it means (tutor/text/senses.py `choose_by_meaning`, called by
tutor/text/hindi_english.py; issue 34): e5's cosine of the Hindi and each headword, the shelf's use as a tie-breaker,
read from a table of cosines computed ahead. Fake cosines and tiny dictionaries made here; the shipped table is
checked for a few senses."""
from __future__ import annotations

import gzip

import pytest

from tutor.text import lexicons as lx
from tutor.text import senses as sn
from tutor.text.hindi_dictionary import invert, normalize_hindi
from tutor.text.hindi_english import ShelfVocabulary, choose_tiers, reading_and_unread
from tutor.text.senses import choose_by_meaning
from tutor.text.terms import TermStats

h = normalize_hindi


class Shelf(ShelfVocabulary):
    """A shelf's words with how many chunks use each, and the cosines a test gives."""

    def __init__(self, df: dict[str, int], cosines: dict[str, dict[str, float]] | None = None, weight: float = 0.02):
        super().__init__(TermStats([]), self._cosines if cosines is not None else None, weight)
        self.df, self.cosines, self.asked = df, cosines or {}, []

    def _cosines(self, phrase, candidates):
        self.asked.append((phrase, tuple(candidates)))
        row = self.cosines.get(phrase)
        return None if row is None else [row[c] for c in candidates]

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.df

    def chunks(self, word: str) -> int:
        return self.df.get(word.lower(), 0)


def test_the_nearest_meaning_among_the_senses_the_shelf_uses_wins_over_the_most_used():
    shelf = Shelf({"world": 300, "planet": 12, "globe": 1}, {"ग्रह": {"world": 0.80, "planet": 0.88, "star": 0.95}})
    senses = (("world",), ("planet", "star"))
    assert choose_tiers(senses, Shelf({"world": 300, "planet": 12})) == "world"  # without cosines: the most used
    assert choose_by_meaning(senses, shelf, "ग्रह") == "planet"  # "star" is nearer still, but off the shelf
    assert shelf.asked == [("ग्रह", ("world", "planet"))]  # only the senses the shelf uses are scored
    assert choose_tiers(senses, shelf, phrase="ग्रह") == "planet"
    assert choose_tiers(senses, shelf) == "world"  # no phrase said: the rule as before


def test_the_shelfs_use_breaks_a_near_tie_and_weighs_nothing_at_zero():
    cos = {"नियम": {"law": 0.850, "rule": 0.855}}
    senses = (("law", "rule"),)
    assert choose_by_meaning(senses, Shelf({"law": 400, "rule": 3}, cos), "नियम") == "law"  # log(401) x 0.02 > 0.005
    assert choose_by_meaning(senses, Shelf({"law": 400, "rule": 3}, cos, weight=0.0), "नियम") == "rule"
    assert choose_by_meaning(senses, Shelf({"law": 400, "rule": 3}, cos, weight=1.0), "नियम") == "law"


def test_with_no_sense_on_the_shelf_all_compete_and_with_one_or_no_cosines_the_rule_decides():
    cos = {"पौधा": {"kelp": 0.81, "plant": 0.90}, "काम": {"work": 0.9}}
    assert choose_by_meaning((("kelp",), ("plant",)), Shelf({}, cos), "पौधा") == "plant"
    assert choose_by_meaning((("work",),), Shelf({"work": 3}, cos), "काम") is None  # one sense: nothing to choose
    assert choose_by_meaning((("kelp",), ("plant",)), Shelf({}, cos), "अज्ञात") is None  # cosines unknown
    assert choose_tiers((("kelp",), ("plant",)), Shelf({"kelp": 2, "plant": 1}, cos), phrase="अज्ञात") == "kelp"


def test_the_reading_asks_by_the_phrase_the_dictionary_lists_inflected_words_and_pairs_included():
    d = invert(lx.parse_bilingual(iter([
        {"english": "plant", "pos": "noun", "hindi": "पौधा"}, {"english": "kelp", "pos": "noun", "hindi": "पौधा"},
        {"english": "start", "pos": "verb", "hindi": "शुरू हो"}, {"english": "continue", "pos": "verb",
                                                                  "hindi": "शुरू हो"},
        {"english": "first", "pos": "adj", "hindi": "पहली"}, {"english": "initiative", "pos": "noun",
                                                              "hindi": "पहली"}])))
    shelf = Shelf({"plant": 5, "kelp": 1, "start": 2, "continue": 40, "first": 9, "initiative": 30},
                  {h("पौधा"): {"plant": 0.9, "kelp": 0.8}, h("शुरू होना"): {"start": 0.9, "continue": 0.8},
                   h("पहली"): {"first": 0.93, "initiative": 0.86}})
    reading, unread = reading_and_unread("पौधों में पहली कब शुरू हुआ?", shelf, dictionary=d)
    assert reading == "when plant first start" and unread == ()
    assert [p for p, _ in shelf.asked] == [h("पौधा"), h("पहली"), h("शुरू होना")]  # the lemma; the pair as listed
    plain = Shelf(shelf.df)
    assert reading_and_unread("पौधों में पहली कब शुरू हुआ?", plain, dictionary=d)[0] == (
        "when plant initiative continue")  # the most used, as before


def test_the_table_is_read_and_what_it_lacks_is_computed(tmp_path):
    f = tmp_path / "senses.tsv.gz"
    with gzip.open(f, "wt", encoding="utf-8") as fh:
        fh.write("hindi\tenglish=cosine...\nग्रह\tplanet=881\tworld=803\tx=y=500\n")
    table = sn.read_senses(f)
    assert {k: sn.cosines(v) for k, v in table.items()} == {"ग्रह": {"planet": 0.881, "world": 0.803, "x=y": 0.5}}
    asked = []
    m = sn.Meanings(table, fallback=lambda p, c: asked.append((p, tuple(c))) or [0.1] * len(c))
    assert m("ग्रह", ["world", "planet"]) == [0.803, 0.881] and asked == []
    assert m("ग्रह", ["world", "globe"]) == [0.1, 0.1] and asked == [("ग्रह", ("world", "globe"))]
    assert sn.Meanings(table, fallback=None)("तारा", ["star"]) is None

    def broken(phrase, candidates):
        raise RuntimeError("no AVX2")
    assert sn.Meanings(table, fallback=broken)("तारा", ["star", "thread"]) is None  # the shelf's rule decides


def test_an_absent_or_broken_table_is_empty_and_said_so(tmp_path, caplog):
    assert sn.read_senses(tmp_path / "none.tsv.gz") == {}
    bad = tmp_path / "bad.tsv.gz"
    bad.write_bytes(b"not gzip")
    assert sn.read_senses(bad) == {}
    assert "could not read" in caplog.text


@pytest.mark.skipif(not sn.SENSES.is_file(), reason="data/lexicons/hindi-senses.tsv.gz not built")
def test_the_shipped_table_reads_the_textbook_senses_a_most_used_rule_missed():
    table = sn.read_senses()
    assert len(table) > 20_000
    for hindi, right, wrong in (("ग्रह", "planet", "world"), ("मतलब", "meaning", "etymology"),
                                ("पहला", "first", "former"), ("पौधा", "plant", "set"),
                                ("शुरू होना", "start", "continue")):
        row = sn.cosines(table[h(hindi)])
        assert row[right] > row[wrong], (hindi, row)


def test_a_hinglish_word_is_read_by_the_meaning_of_its_devanagari_spelling():
    from tutor.text.hinglish_dictionary import latin_gloss, romanisations

    d = invert(lx.parse_bilingual(iter([{"english": "initiative", "pos": "noun", "hindi": "पहल"},
                                        {"english": "first", "pos": "adj", "hindi": "पहला"},
                                        {"english": "former", "pos": "adj", "hindi": "पहला"}])))
    r = romanisations([("पहली", "pehli", 3)])
    cos = {h("पहला"): {"first": 0.93, "former": 0.87}}
    shelf = Shelf({"first": 50, "former": 60}, cos)
    assert latin_gloss("pehli", shelf, dictionary=d, romanised=r) == "first"  # पहली -> पहला, not पहल
    assert shelf.asked == [(h("पहला"), ("first", "former"))]
    assert latin_gloss("pehli", Shelf({"first": 50, "former": 60}), dictionary=d, romanised=r) == "former"


def test_the_policy_says_which_readings_choose_by_meaning(monkeypatch):
    from tutor.policy import Policy
    from tutor.text import readings

    d = invert(lx.parse_bilingual(iter([{"english": "world", "pos": "noun", "hindi": "ग्रह"},
                                        {"english": "planet", "pos": "noun", "hindi": "ग्रह"}])))
    monkeypatch.setattr(readings, "reading_dictionary", lambda on: d)
    monkeypatch.setattr(readings, "dakshina", lambda: None)
    monkeypatch.setattr(sn, "_SHIPPED", [sn.Meanings({h("ग्रह"): "world=860\tplanet=905"}, fallback=None)])
    stats = TermStats(["The world is round."] * 5 + ["A planet orbits the sun."])
    p = Policy().with_values(hindi_shabdanjali=True)
    assert readings.shelf_reading("ग्रह क्या है?", stats, policy=p)[0] == "what is world"  # the most used
    assert readings.shelf_reading("ग्रह क्या है?", stats, policy=p.with_values(hindi_sense_by_meaning=True))[0] == (
        "what is planet")
    # a weight that lets the shelf's use outweigh the meaning
    heavy = p.with_values(hindi_sense_by_meaning=True, sense_shelf_weight=0.5)
    assert readings.shelf_reading("ग्रह क्या है?", stats, policy=heavy)[0] == "what is world"


# ------------------------------------------------------------------ two words side by side: the senses the shelf pairs
def _chain_dictionary():
    return invert(lx.parse_bilingual(iter([
        {"english": "food", "pos": "noun", "hindi": "खाद्य"},
        {"english": "series", "pos": "noun", "hindi": "श्रृंखला"}, {"english": "chain", "pos": "noun", "hindi": "श्रृंखला"},
        {"english": "area", "pos": "noun", "hindi": "क्षेत्र"}, {"english": "field", "pos": "noun", "hindi": "क्षेत्र"},
        {"english": "major", "pos": "adj", "hindi": "प्रमुख"}, {"english": "primary", "pos": "adj", "hindi": "प्रमुख"}])))


_BOOK = ["Each step of a food chain is a trophic level.", "The food chain begins with plants.",
         "Energy flows along food chains.", "A series of steps.", "A series of reactions.", "A series circuit.",
         "Another series.", "The area of a field.", "The area of a circle.", "Area and volume.", "A major change.",
         "A major river.", "The primary field of study.", "The primary field of work.", "Food is cooked."]


def test_the_shelf_counts_which_stems_follow_each_other_and_keeps_them_when_stored():
    stats = TermStats(["The functions of money.", "Functions of money matter.", "Money functions well."])
    assert stats.pairs["function money"] == 2 and stats.pairs["money function"] == 1  # "of" and "the" dropped
    again = TermStats.from_dict(stats.to_dict())
    assert again.df == stats.df and again.pairs == {"function money": 2}  # what is written once is not stored
    older = {k: v for k, v in stats.to_dict().items() if k != "pairs"}  # stored before pairs were counted
    assert TermStats.from_dict(older).pairs == {}


def test_together_is_how_often_the_rarer_word_stands_beside_the_other_in_either_order():
    shelf = ShelfVocabulary(TermStats(_BOOK))
    assert sn.together("food", "chain", shelf) == pytest.approx(3 / 3)  # chain's 3 chunks, all beside "food"
    assert sn.together("primary", "field", shelf) == pytest.approx(2 / 2)
    assert sn.together("chain", "food", shelf) == sn.together("food", "chain", shelf)
    assert sn.together("food", "series", shelf) == 0.0
    assert sn.together("food", "cook", shelf) == 0.0  # once is not enough (MIN_TOGETHER)
    assert sn.together("food", "chain", ShelfVocabulary(TermStats.from_dict(
        {k: v for k, v in TermStats(_BOOK).to_dict().items() if k != "pairs"}))) == 0.0  # no pairs stored: no change


def test_a_reading_takes_the_sense_the_shelf_writes_beside_its_neighbour_only_where_asked():
    d, shelf = _chain_dictionary(), ShelfVocabulary(TermStats(_BOOK))
    assert reading_and_unread("खाद्य श्रृंखला क्या है?", shelf, dictionary=d)[0] == "what is food series"
    assert reading_and_unread("खाद्य श्रृंखला क्या है?", shelf, dictionary=d, neighbours=True)[0] == (
        "what is food chain")
    # not side by side in the Hindi (a postposition between): each word keeps its own sense
    assert reading_and_unread("खाद्य की श्रृंखला क्या है?", shelf, dictionary=d, neighbours=True)[0] == (
        "what is food series")
    # the chosen senses ("major area") are never written together and only a pair of two other senses is ("primary
    # field"): one word of a pair changes, never both
    assert reading_and_unread("प्रमुख क्षेत्र क्या है?", shelf, dictionary=d, neighbours=True)[0] == (
        "what is major area")


def test_the_policy_says_whether_a_devanagari_reading_chooses_senses_beside_its_neighbours(monkeypatch):
    from tutor.policy import Policy
    from tutor.text import readings

    monkeypatch.setattr(readings, "reading_dictionary", lambda on: _chain_dictionary())
    stats = TermStats(_BOOK)
    p = Policy().with_values(hindi_loanwords=False, hindi_typed_english=False)
    assert readings.shelf_reading("खाद्य श्रृंखला क्या है?", stats, policy=p)[0] == "what is food series"
    assert readings.shelf_reading("खाद्य श्रृंखला क्या है?", stats,
                                  policy=p.with_values(hindi_sense_by_neighbours=True))[0] == "what is food chain"
