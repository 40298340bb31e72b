"""Hindi read with more than one dictionary (tutor/text/lexicons.py, issue 34): Shabdanjali-style rows parsed and
merged after FreeDict, spelling normalised on both sides, multi-word terms before single words, the sense chosen by the
shelf's words; Hinglish through Dakshina's romanisations (tutor/text/hinglish_dictionary.py). Tiny data made here; the
shipped files are checked for size, licence notes and a few words."""
from __future__ import annotations

import gzip
from pathlib import Path

import pytest

from tutor.text import lexicons as lx
from tutor.text.hindi_dictionary import invert, normalize_hindi, parse_dictd
from tutor.text.hindi_english import ShelfVocabulary, choose_tiers, reading_and_unread
from tutor.text.hinglish_dictionary import (
    devanagari_reading,
    english_as_typed,
    latin_gloss,
    romanisations,
    through_devanagari,
    unread_hinglish,
)

# FreeDict's layout (tests/text/test_hindi_english.py): the first dictionary merged
DICTD = """thing /θˈɪŋ/ <N>
1. वस्तु
kelp /kˈɛlp/ <N>
1. पौधा
start /stˈɑːt/ <V>
1. शुरू~करना
work /wˈɜːk/ <N>
1. काम
"""

# Shabdanjali's rows as the shipped file holds them (english, pos, hindi alternatives split by "/")
ROWS = [
    {"english": "heart", "pos": "noun", "hindi": "दिल/हृदय/बीच"},
    {"english": "democracy", "pos": "noun", "hindi": "प्रजातन्त्र/लोकतण्ट्र"},
    {"english": "barter", "pos": "noun", "hindi": "अदला-बदली/वस्तु-विनिमय"},
    {"english": "plant", "pos": "noun", "hindi": "वनस्पति/पौधा"},
    {"english": "start", "pos": "verb", "hindi": "शुरू कर"},
    {"english": "early", "pos": "adjective", "hindi": "शुरू"},
    {"english": "disease", "pos": "noun", "hindi": "रोग"},
    {"english": "nerve", "pos": "noun", "hindi": "साहस/हिम्मत/रोग"},
    {"english": "cloth", "pos": "noun", "hindi": "कपडा"},
    {"english": "eye", "pos": "noun", "hindi": "आँख"},
    {"english": "iron", "pos": "noun", "hindi": "लोहा"},
    {"english": "sky", "pos": "noun", "hindi": "आसमान/आकाश"},
    {"english": "unequal", "pos": "adjective", "hindi": "असमान"},
]


class Shelf(ShelfVocabulary):
    """A shelf's words with how many chunks use each: what `choose` reads of a ShelfVocabulary."""

    def __init__(self, df: dict[str, int]):
        self.df = df

    def __contains__(self, word: object) -> bool:
        return isinstance(word, str) and word.lower() in self.df

    def chunks(self, word: str) -> int:
        return self.df.get(word.lower(), 0)


@pytest.fixture
def freedict():
    return invert(parse_dictd(DICTD))


@pytest.fixture
def shabd():
    return invert(lx.parse_bilingual(iter(ROWS)))


@pytest.fixture
def both(freedict, shabd):
    return lx.merge(freedict, shabd)


def h(text: str) -> str:
    return normalize_hindi(text)


# ---------------------------------------------------------------- the rows


def test_rows_keep_each_alternative_as_a_sense_in_the_source_order_and_verbs_as_infinitives():
    entries = {(e.headword, e.pos): e for e in lx.parse_bilingual(iter(ROWS))}
    assert entries[("heart", "noun")].senses == ((h("दिल"),), (h("हृदय"),), (h("बीच"),))
    assert entries[("start", "verb")].senses == ((h("शुरू करना"),),)  # the stem शुरू कर, read as its infinitive
    assert entries[("barter", "noun")].senses[1] == (h("वस्तु विनिमय"),)  # a hyphen joins the words of one phrase


def test_the_sources_wx_slips_are_also_listed_as_the_spelling_they_mean():
    assert lx.slip_variants(h("लोकतण्ट्र")) == [h("लोकतण्ट्र"), h("लोकतंत्र")]
    assert lx.slip_variants(h("राष्ट्र")) == [h("राष्ट्र")]  # a real ट्र, not after a nasal or स
    d = invert(lx.parse_bilingual(iter(ROWS)))
    assert d.get(h("लोकतंत्र")) == ("democracy",)


def test_spelling_is_normalised_on_both_sides(shabd):
    # the source writes conjunct nasals, students anusvara (and the other way round)
    assert shabd.get(normalize_hindi("प्रजातंत्र")) == ("democracy",)
    # the student's nukta finds the source's plain letter, and a candrabindu its anusvara
    assert shabd.get(normalize_hindi("कपड़ा")) == ("cloth",)
    assert shabd.get(normalize_hindi("आंख")) == ("eye",)


# ---------------------------------------------------------------- merged dictionaries


def test_merged_senses_come_one_tuple_per_source_in_order(both):
    assert both.sources == 2
    assert both.senses(h("पौधा")) == (("kelp",), ("plant",))
    assert both.senses(h("हृदय")) == ((), ("heart",))  # FreeDict lacks it
    assert both.senses(h("काम")) == (("work",), ())
    assert both.senses(h("कुछ नहीं")) == ()
    assert both.get(h("पौधा")) == ("kelp", "plant")


def test_a_headword_two_sources_give_is_counted_once_in_the_first(freedict):
    second = invert(lx.parse_bilingual(iter([{"english": "thing", "pos": "noun", "hindi": "वस्तु"},
                                             {"english": "object", "pos": "noun", "hindi": "वस्तु"}])))
    assert lx.merge(freedict, second).senses(h("वस्तु")) == (("thing",), ("object",))


def test_the_first_source_whose_senses_the_shelf_uses_decides():
    shelf = Shelf({"plant": 40, "work": 9, "heart": 3, "nerve": 30, "disease": 8})
    assert choose_tiers((("kelp",), ("plant",)), shelf) == "plant"  # FreeDict's kelp is not on the shelf
    assert choose_tiers((("work",), ("labour",)), shelf) == "work"
    assert choose_tiers((("kelp",), ("seaweed",)), shelf) == "kelp"  # none used: the first source's first
    assert choose_tiers(((), ("heart",)), None) == "heart"


def test_first_listed_lets_a_later_source_read_only_what_the_earlier_ones_lack():
    shelf = Shelf({"plant": 40, "work": 9, "heart": 3})
    assert choose_tiers((("kelp",), ("plant",)), shelf, first_listed=True) == "kelp"  # FreeDict lists it: its sense
    assert choose_tiers((("work", "job"), ("labour",)), shelf, first_listed=True) == "work"  # chosen within FreeDict
    assert choose_tiers(((), ("heart",)), shelf, first_listed=True) == "heart"  # FreeDict lacks it: Shabdanjali


def test_every_source_is_read_by_the_sense_the_shelf_uses_most():
    # measured: "frequent" for every source beat the source's own order (रोग, "disease" first, is then "nerve")
    shelf = Shelf({"nerve": 30, "disease": 8})
    assert choose_tiers(((), ("disease", "nerve")), shelf) == "nerve"
    assert choose_tiers(((), ("disease", "nerve")), shelf, "shelf") == "disease"  # the listed order


# ---------------------------------------------------------------- the reading


def test_a_multi_word_term_is_read_before_its_single_words(both):
    reading, unread = reading_and_unread("वस्तु विनिमय क्या है?", Shelf({"barter": 2, "thing": 5}), dictionary=both)
    assert reading == "what is barter" and unread == ()


def test_a_word_before_a_light_verb_is_read_as_the_pair_first_when_sources_are_merged(both, freedict):
    shelf = Shelf({"start": 3, "early": 9})
    assert reading_and_unread("यह कब शुरू किया गया?", shelf, dictionary=both)[0] == "when start"
    # FreeDict alone reads as before (it has no शुरू of its own: the pair either way)
    assert reading_and_unread("यह कब शुरू किया गया?", shelf, dictionary=freedict)[0] == "when start"


def test_words_freedict_lacks_are_read_by_shabdanjali_and_no_longer_unread(both, freedict):
    shelf = Shelf({"heart": 3, "democracy": 80, "plant": 40})
    assert reading_and_unread("हृदय क्या है?", shelf, dictionary=freedict)[1] == ("हृदय",)
    assert reading_and_unread("हृदय क्या है?", shelf, dictionary=both) == ("what is heart", ())
    assert reading_and_unread("लोकतंत्र क्या है?", shelf, dictionary=both)[0] == "what is democracy"
    assert reading_and_unread("पौधे क्या हैं?", shelf, dictionary=both)[0] == "what is plant"  # by its lemma पौधा


def test_each_source_reads_the_word_as_written_before_its_uninflected_forms(freedict):
    second = invert(lx.parse_bilingual(iter([{"english": "roots", "pos": "noun", "hindi": "जड़ें"},
                                             {"english": "root", "pos": "noun", "hindi": "जड़"}])))
    both = lx.merge(freedict, second)
    assert both.senses(h("जड़ें")) == ((), ("roots",))
    assert reading_and_unread("जड़ें", Shelf({"roots": 1, "root": 5}), dictionary=both)[0] == "roots"


# ---------------------------------------------------------------- Hinglish through Dakshina


PAIRS = [("आसमान", "aasman", 2), ("असमान", "asman", 1), ("आसमान", "asman", 3), ("लोहे", "lohe", 2),
         ("नीला", "neela", 2), ("नीला", "nila", 1), ("नील", "nila", 2)]


def test_romanisations_put_the_best_attested_spelling_first_and_fold_variants():
    r = romanisations(PAIRS)
    assert r.devanagari("asman") == ("आसमान", "असमान")  # 3 annotators against 1
    assert r.devanagari("nila") == ("नील", "नीला")
    assert r.devanagari("AASMAAN") == ("आसमान", "असमान")  # not typed so: the same by latin_key as "asman"
    assert r.devanagari("xyz") == ()


def test_a_typed_hindi_word_is_read_through_its_devanagari_spelling_and_lemma(shabd):
    r = romanisations(PAIRS)
    shelf = Shelf({"sky": 2, "iron": 5})
    assert through_devanagari("aasman", r, lx.merge(shabd), shelf) == "sky"
    assert through_devanagari("lohe", r, lx.merge(shabd), shelf) == "iron"  # लोहे -> लोहा
    assert latin_gloss("aasman", shelf, dictionary=shabd, romanised=r) == "sky"
    assert latin_gloss("aasman", shelf, dictionary=shabd) in (None, "sky")  # without Dakshina: the romanised index


def test_a_typed_word_before_a_light_verb_is_read_as_the_pair_the_dictionary_lists():
    from tutor.text.hinglish_dictionary import hinglish_reading, with_light_verb

    d = invert(lx.parse_bilingual(iter([{"english": "well", "pos": "adverb", "hindi": "ठीक"},
                                        {"english": "correct", "pos": "verb", "hindi": "ठीक कर"},
                                        {"english": "complete", "pos": "verb", "hindi": "पूरा कर"}])))
    r = romanisations([("ठीक", "theek", 3), ("पूरी", "poori", 2)])
    shelf = Shelf({"correct": 4, "well": 9, "complete": 2})
    assert with_light_verb("theek", "करना", r, d, shelf) == "correct"
    assert with_light_verb("poori", "करना", r, d, shelf) == "complete"  # the feminine, listed in the masculine
    assert with_light_verb("theek", "होना", r, d, shelf) is None  # no "ठीक होना" listed
    q = "myopia ko kaise theek karte hain"
    assert hinglish_reading(q, shelf, dictionary=d, romanisations=r) == "how myopia well"  # the word alone
    assert hinglish_reading(q, shelf, dictionary=d, romanisations=r, pairs=True) == "how myopia correct"
    assert hinglish_reading(q, shelf, dictionary=d, pairs=True) == "how myopia well"  # no Dakshina: no pairs


# a participle's noun look-alikes: आटे (flour) is typed "aate" as आते (come) is; खाता is an account and "eats"
# (Shabdanjali lists a verb by its stem: parse_bilingual adds ना)
VERBS = [{"english": "flour", "pos": "noun", "hindi": "आटा"}, {"english": "come", "pos": "verb", "hindi": "आ"},
         {"english": "account", "pos": "noun", "hindi": "खाता"}, {"english": "eat", "pos": "verb", "hindi": "खा"},
         {"english": "surplus", "pos": "noun", "hindi": "बढ़ती"}, {"english": "grow", "pos": "verb", "hindi": "बढ़"},
         {"english": "speed", "pos": "noun", "hindi": "गति"}, {"english": "herbivore", "pos": "noun",
                                                                "hindi": "शाकाहारी"}]


def test_a_participle_before_an_auxiliary_is_read_as_its_verb_not_a_noun_it_looks_like():
    d = invert(lx.parse_bilingual(iter(VERBS)))
    shelf = Shelf({"flour": 1, "come": 1, "account": 1, "eat": 1, "grow": 1, "surplus": 1, "speed": 1})
    read = lambda q, on: reading_and_unread(q, shelf, dictionary=d, participles=on, which_noun=True)[0]  # noqa: E731
    assert read("शाकाहारी किस स्तर पर आते हैं?", True).endswith("herbivore come")
    assert read("जड़ें क्यों बढ़ती हैं?", True) == "why jaren grow"
    assert read("जड़ें क्यों बढ़ती हैं?", False) == "why jaren surplus"  # as before: the word as written first
    assert read("बढ़ती आबादी क्या है?", True) == "what is surplus abadi"  # no auxiliary after it: as written
    assert read("गति है", True) == "speed"  # a short vowel: a noun (गति, not a participle of any verb)
    # a bare कौन before a participle and its auxiliary asks who
    assert read("सबसे ज़्यादा कौन खाता है?", True).startswith("who")
    assert read("सबसे ज़्यादा कौन खाता है?", False).startswith("which account")


def test_a_typed_participle_is_read_as_its_verb_by_its_devanagari_spelling():
    from tutor.text.hinglish_dictionary import hinglish_reading
    from tutor.text.typed_hindi import participle_verb

    d = invert(lx.parse_bilingual(iter(VERBS)))
    r = romanisations([("आते", "aate", 3), ("आटे", "aate", 2), ("बढ़ती", "badhti", 2), ("गति", "gati", 3),
                       ("खाता", "khata", 3)])
    shelf = Shelf({"flour": 1, "come": 1, "grow": 1, "surplus": 1, "speed": 1, "account": 1, "eat": 1})
    assert participle_verb("aate", r, d, shelf) == "come"
    assert participle_verb("gati", r, d, shelf) is None  # गति: a noun
    read = lambda q, on: hinglish_reading(q, shelf, dictionary=d, romanisations=r, participles=on,  # noqa: E731
                                          which_noun=True)
    assert read("jadein kyon badhti hain", True) == "why jadein grow"
    assert read("jadein kyon badhti hain", False) == "why jadein surplus"
    assert read("badhti abadi kya hai", True) == "what is surplus abadi"  # no auxiliary after it
    assert read("sabse zyada kaun khata hai", True).startswith("who")
    assert read("sabse zyada kaun khata hai", False).startswith("which account")


def test_an_english_word_the_shelf_does_not_use_is_read_as_the_hindi_word_typed_so():
    from tutor.text.hinglish_dictionary import latin_gloss

    d = invert(lx.parse_bilingual(iter([
        {"english": "sting", "pos": "noun", "hindi": "डंक"}, {"english": "dank", "pos": "adjective", "hindi": "नम"},
        {"english": "laser", "pos": "noun", "hindi": "लेज़र"}, {"english": "light", "pos": "noun", "hindi": "लेज़र"},
        {"english": "day", "pos": "noun", "hindi": "दिन"}, {"english": "din", "pos": "noun", "hindi": "शोर"}])))
    r = romanisations([("डंक", "dank", 3), ("लेज़र", "laser", 3), ("दिन", "din", 3)])
    shelf = Shelf({"sting": 2, "light": 9, "ant": 1})
    gloss = lambda w, on=True, v=shelf: latin_gloss(w, v, dictionary=d, romanised=r, offshelf_english=on)  # noqa
    assert gloss("dank") == "sting"
    assert gloss("dank", on=False) is None  # as before: an English word stays as typed
    assert gloss("laser") is None  # लेज़र is "laser" written in Devanagari: the English word stays
    assert gloss("din") is None  # दिन reads "day", a word this shelf does not use
    assert gloss("din", v=Shelf({"day": 3})) == "day"
    assert gloss("sting") is None  # the shelf's own word is English whatever Dakshina says


def test_for_a_shelf_with_hindi_chapters_a_hinglish_question_is_respelt_in_devanagari():
    r = romanisations(PAIRS + [("क्या", "kya", 5), ("है", "hai", 5), ("में", "mein", 4), ("मैं", "main", 2),
                               ("आयरन", "iron", 3), ("रंग", "rang", 2)])
    # grammar and Hindi words as most annotators typed them; a word the shelf's English chapters use stays English
    assert devanagari_reading("aasman neela kyu hai?", r, Shelf({"sky": 1})) == "आसमान नीला kyu है?"
    assert devanagari_reading("iron mein kya hai", r, Shelf({"iron": 3})) == "iron में क्या है"
    assert devanagari_reading("iron mein kya hai", r, Shelf({})) == "आयरन में क्या है"  # a Hindi-only shelf's word
    # capitals and numbers stay; a word Dakshina lacks stays unless the learnt spelling gives one
    assert devanagari_reading("DNA ka rang 2 hai", r, Shelf({})) == "DNA ka रंग 2 है"
    assert devanagari_reading("DNA ka rang", r, Shelf({}), lambda w: "का" if w == "ka" else None) == "DNA का रंग"
    assert devanagari_reading("what is DNA", r, Shelf({"what": 1})) == ""  # nothing respelt: no reading


def test_the_judge_reads_a_hinglish_question_respelt_for_english_chapters_only():
    """The shipped Dakshina file, on statistics made here: English chapters get the respelling (their own words kept);
    a shelf with Hindi chapters gets none, since it reads the respelt question itself."""
    from tutor.policy import load_policy
    from tutor.text.readings import hinglish_respelt
    from tutor.text.terms import TermStats

    english = TermStats(["Light bends when it passes from air into water."])
    respelt = hinglish_respelt("light ka pani me mudna kya kehlata hai", english, load_policy())
    assert "पानी" in respelt and "light" in respelt.split() and "pani" not in respelt
    hindi = TermStats(["प्रकाश का अपवर्तन तब होता है जब प्रकाश हवा से पानी में जाता है।"])
    assert hinglish_respelt("light ka pani me mudna kya kehlata hai", hindi, load_policy()) == ""


def test_english_and_shelf_words_are_not_read_as_hindi_even_when_dakshina_lists_them(shabd):
    r = romanisations(PAIRS + [("आयरन", "iron", 3)])
    assert latin_gloss("iron", Shelf({"iron": 5}), dictionary=shabd, romanised=r) is None


def test_a_hindi_word_dakshina_knows_but_no_dictionary_reads_is_named_as_unread(shabd):
    r = romanisations(PAIRS + [("सहायक", "sahayak", 3)])
    assert unread_hinglish("what is sahayak", Shelf({}), dictionary=shabd, romanisations=r) == ("sahayak",)
    assert unread_hinglish("what is sahayak", Shelf({}), dictionary=shabd) == ()  # unknown without Dakshina


# ---------------------------------------------------------------- English words written in Devanagari, as typed

ENGLISH = frozenset({"circuit", "reserve", "protocol", "sensor", "bus", "bachelor"})


@pytest.fixture
def typed(tmp_path):
    """Dakshina's layout: how annotators typed each Devanagari word in Latin letters, and how many of them did."""
    path = tmp_path / "dakshina.tsv.gz"
    rows = [("सर्किट", "circuit", 3), ("सर्किट", "sarkit", 1), ("रिज़र्व", "reserve", 2), ("रिज़र्व", "rizarv", 1),
            ("प्रोटोकॉल", "protocol", 1), ("प्रोटोकॉल", "protokol", 1), ("बस", "bus", 3), ("बचाओ", "bachao", 3),
            ("सेंसरों", "sensors", 3)]
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("devanagari\tlatin\tannotators\n" + "".join(f"{d}\t{la}\t{n}\n" for d, la, n in rows))
    return path


def test_an_english_word_in_devanagari_is_read_as_most_annotators_typed_it(typed):
    assert english_as_typed("सर्किट", ENGLISH, typed) == "circuit"  # 3 of 4 typed it as English is spelt
    assert english_as_typed("रिजर्व", ENGLISH, typed) == "reserve"  # spelt without the nukta: normalised alike
    assert english_as_typed("सेंसरों", ENGLISH, typed) == "sensors"  # an inflection of a listed word


def test_a_hindi_spelling_a_split_vote_a_short_word_or_an_unlisted_word_is_not_read(typed):
    assert english_as_typed("बचाओ", ENGLISH, typed) is None  # typed "bachao": no English word
    assert english_as_typed("प्रोटोकॉल", ENGLISH, typed) is None  # one annotator each way: not most of them
    assert english_as_typed("बस", ENGLISH, typed) is None  # "bus": too short to tell from the Hindi word
    assert english_as_typed("ग्रीनहाउस", ENGLISH, typed) is None  # not in Dakshina
    assert english_as_typed("सर्किट", ENGLISH, typed.parent / "absent.tsv.gz") is None


def test_a_name_or_indian_word_the_shelf_prints_is_read_as_typed_too(typed):
    import gzip as gz

    path = typed.parent / "names.tsv.gz"
    with gz.open(path, "wt", encoding="utf-8") as fh:
        fh.write("devanagari\tlatin\tannotators\n" "साइमन\tsimon\t2\n" "साइमन\tsaiman\t1\n" "दांडी\tdandi\t3\n")
    shelf = Shelf({"simon": 3, "commission": 5})
    assert english_as_typed("साइमन", ENGLISH, path) is None  # no English headword
    assert english_as_typed("साइमन", ENGLISH, path, vocabulary=shelf) == "simon"  # but the book prints it
    assert english_as_typed("दांडी", ENGLISH, path, vocabulary=shelf) is None  # this book does not


def test_the_reading_takes_the_typed_english_only_where_no_dictionary_reads_the_word(shabd, typed):
    def as_typed(word):
        return english_as_typed(word, ENGLISH, typed)

    assert reading_and_unread("शॉर्ट सर्किट कब होता है?", dictionary=shabd) == ("when short sarkit", ("शॉर्ट", "सर्किट"))
    assert reading_and_unread("शॉर्ट सर्किट कब होता है?", dictionary=shabd, loanword=as_typed) == (
        "when short circuit", ("शॉर्ट",))
    # a word a dictionary reads keeps the dictionary's English
    assert reading_and_unread("लोहा सर्किट", dictionary=shabd, loanword=lambda w: "ferrum")[0] == "iron ferrum"


# ---------------------------------------------------------------- which dictionaries a reading uses


def test_the_reading_dictionary_merges_what_the_policy_turns_on(monkeypatch, tmp_path, freedict):
    path = tmp_path / "shabd.tsv.gz"
    with gzip.open(path, "wt", encoding="utf-8") as fh:
        fh.write("english\tpos\thindi\n" + "".join(f"{r['english']}\t{r['pos']}\t{r['hindi']}\n" for r in ROWS))
    monkeypatch.setattr(lx, "load_dictionary", lambda: freedict)
    monkeypatch.setattr(lx, "SHABDANJALI", path)
    assert lx.reading_dictionary(False) is freedict  # off: FreeDict alone, as before
    on = lx.reading_dictionary(True)
    assert on.sources == 2 and on.get(h("हृदय")) == ("heart",)
    assert lx.reading_dictionary(True) is on  # merged once
    monkeypatch.setattr(lx, "load_dictionary", lambda: None)  # no FreeDict installed: Shabdanjali alone still reads
    assert lx.reading_dictionary(True).get(h("हृदय")) == ("heart",)
    assert lx.reading_dictionary(False) is None
    other = invert(parse_dictd("heart /h/ <N>\n1. कलेजा\n"))  # another FreeDict file: merged anew, never a stale merge
    monkeypatch.setattr(lx, "load_dictionary", lambda: other)
    assert lx.reading_dictionary(True).get(h("कलेजा")) == ("heart",)


# ---------------------------------------------------------------- the shipped files

SHIPPED = Path(__file__).resolve().parents[2] / "data" / "lexicons"


def test_the_shipped_lexicons_are_small_and_carry_their_source_and_licence():
    for name in ("shabdanjali-en-hi.tsv.gz", "dakshina-hi-latin.tsv.gz"):
        assert (SHIPPED / name).stat().st_size < 4 * 2**20, name
    notes = (SHIPPED / "README.md").read_text(encoding="utf-8")
    for needed in ("Shabdanjali", "GPL", "Dakshina", "CC BY-SA 4.0", "glossaries"):
        assert needed in notes
    assert (SHIPPED / "COPYING.GPL").is_file()


@pytest.mark.slow
def test_the_shipped_shabdanjali_reads_the_words_freedict_lacks():
    d = lx.load_bilingual(lx.SHABDANJALI)
    assert d is not None
    for hindi, english in (("हृदय", "heart"), ("साल", "year"), ("लोकतंत्र", "democracy"), ("मात्रक", "unit"),
                           ("पौधा", "plant"), ("विद्युत", "electricity"), ("वस्तु विनिमय", "barter")):
        assert english in d.get(h(hindi)), hindi


def test_the_policy_says_which_dictionaries_each_kind_of_question_is_read_with(monkeypatch, both):
    from tutor.policy import Policy
    from tutor.text import readings
    from tutor.text.terms import TermStats

    asked: list[bool] = []
    monkeypatch.setattr(readings, "reading_dictionary", lambda on: asked.append(on) or both)
    monkeypatch.setattr(readings, "dakshina", lambda: romanisations(PAIRS))
    stats = TermStats(["The heart pumps blood.", "The sky looks blue because of scattering."])
    p = Policy().with_values(hindi_shabdanjali=True, hinglish_shabdanjali=False, hinglish_dakshina=True,
                             hinglish_dictionary=True)
    assert readings.shelf_reading("हृदय क्या है?", stats, policy=p)[0] == "what is heart"
    assert readings.shelf_reading("aasman kya hai", stats, hinglish=True, policy=p)[0] == "what is sky"
    assert asked == [True, False]
    # English questions never reach a dictionary
    assert readings.shelf_reading("What is the heart?", stats, policy=p) == ("", ())
    assert asked == [True, False]
    seen: list[bool] = []  # the first-listed rule reaches the Devanagari reading from the policy
    monkeypatch.setattr(readings, "reading_and_unread", lambda *a, **k: seen.append(k["first_listed"]) or ("", ()))
    readings.shelf_reading("हृदय क्या है?", stats, policy=p)
    readings.shelf_reading("हृदय क्या है?", stats, policy=p.with_values(hindi_shabdanjali_first_listed=True))
    assert seen == [False, True]
    typed_too: list[str | None] = []  # and the English typed for a word only where the policy turns it on
    monkeypatch.setattr(readings, "english_as_typed", lambda word, english, vocabulary=None: "circuit")
    monkeypatch.setattr(readings, "reading_and_unread", lambda *a, **k: typed_too.append(
        k["loanword"] and k["loanword"]("सर्किट")) or ("", ()))
    readings.shelf_reading("हृदय क्या है?", stats, policy=p.with_values(hindi_typed_english=False))
    readings.shelf_reading("हृदय क्या है?", stats, policy=p.with_values(hindi_typed_english=True))
    assert typed_too == [None, "circuit"]


def _readings_off_and_on(monkeypatch, d, typed, texts, devanagari, hinglish, *fields):
    """The readings of a Devanagari question (None: not asked) and a Hinglish one, on a shelf of `texts`, with the
    dictionary `d` and Dakshina's `typed` pairs, under the policy with `fields` off and then on: [(off...), (on...)]."""
    from tutor.policy import Policy
    from tutor.text import readings
    from tutor.text.terms import TermStats

    monkeypatch.setattr(readings, "reading_dictionary", lambda on: d)
    monkeypatch.setattr(readings, "dakshina", lambda: romanisations(typed))
    stats = TermStats(texts)
    p = Policy().with_values(hindi_shabdanjali=True, hinglish_dakshina=True, hinglish_dictionary=True)
    out = []
    for on in (False, True):
        q = p.with_values(**{f: on for f in fields})
        out.append((devanagari and readings.shelf_reading(devanagari, stats, policy=q)[0],
                    readings.shelf_reading(hinglish, stats, hinglish=True, policy=q)[0]))
    return out


def test_the_policy_says_whether_a_which_is_followed_by_the_word_it_asks_about(monkeypatch, both):
    read = _readings_off_and_on(monkeypatch, both, PAIRS, ["The heart pumps blood.",
                                                           "The sky looks blue because of scattering."],
                                "नीला किस हृदय में है?", "neela kis heart me hai", "hindi_which_noun",
                                "hinglish_which_noun")
    for on, (devanagari, hinglish) in zip((False, True), read):
        assert devanagari.startswith("which heart") == on, devanagari
        assert hinglish.startswith("which heart") == on, hinglish


def test_the_policy_says_whether_a_participle_is_read_as_its_verb(monkeypatch):
    read = _readings_off_and_on(monkeypatch, invert(lx.parse_bilingual(iter(VERBS))), [("बढ़ती", "badhti", 2)],
                                ["Plants grow towards light.", "A surplus of food is stored."],
                                "जड़ें क्यों बढ़ती हैं?", "jadein kyon badhti hain", "hindi_participles",
                                "hinglish_participles")
    for on, (devanagari, hinglish) in zip((False, True), read):
        assert devanagari.endswith("grow" if on else "surplus"), devanagari
        assert hinglish.endswith("grow" if on else "surplus"), hinglish


def test_the_policy_says_whether_an_english_word_off_the_shelf_is_read_as_hindi(monkeypatch):
    d = invert(lx.parse_bilingual(iter([{"english": "sting", "pos": "noun", "hindi": "डंक"},
                                        {"english": "dank", "pos": "adjective", "hindi": "नम"}])))
    read = _readings_off_and_on(monkeypatch, d, [("डंक", "dank", 3)], ["A bee sting injects methanoic acid."],
                                None, "dank mein kya hota hai", "hinglish_offshelf_english")
    for on, (_, reading) in zip((False, True), read):
        assert reading == ("what is sting" if on else "what is dank"), reading


def test_the_shelf_knows_which_words_it_writes_only_inside_names_and_keeps_it_when_stored():
    from tutor.text.terms import TermStats

    stats = TermStats(["He wrote the song O Mor Apunar Desh.", "Farmers sell seeds.", "The Lok Sabha meets.",
                       "Seeds of Change is a book."])
    assert stats.only_in_names("desh") and stats.only_in_names("lok")
    assert not stats.only_in_names("seed")  # "Seeds" begins a title, "seeds" is also written as a common word
    assert not stats.only_in_names("farmer") and not stats.only_in_names("kisan")  # common; not on the shelf
    again = TermStats.from_dict(stats.to_dict())
    assert again.common == stats.common and again.only_in_names("desh")
    older = TermStats.from_dict({k: v for k, v in stats.to_dict().items() if k != "common"})
    assert older.common is None and not older.only_in_names("desh")  # stored before it was counted: as before


def test_a_hinglish_word_the_shelf_writes_only_in_names_is_hindi_unless_the_student_typed_the_name():
    from tutor.text.terms import TermStats
    from tutor.text.typed_hindi import name_words

    shelf = ShelfVocabulary(TermStats(["He wrote the song O Mor Apunar Desh.", "The Lok Sabha meets.",
                                       "The Poona Pact was signed.", "The Poona Pact gave seats.", "A pact is made.",
                                       "Every country has a flag.", "The Desk Ordinance.", "The CPI split."]))
    english = {"desk", "flag", "pact"}
    assert name_words("wto me kitne desh member hai", shelf, english) == {"desh"}
    assert name_words("lok sabha speaker ka chunav kaise hota hai", shelf, english) == frozenset()  # names together
    assert name_words("poona pact kya tha", shelf, english) == frozenset()  # the shelf writes "Poona Pact"
    assert name_words("Desh ka flag", shelf, english) == frozenset()  # typed as a name
    assert name_words("desk aur cpi", shelf, english) == frozenset()  # an English word; too short
    # a word whose commonest Devanagari spelling is no dictionary word is a name in Hindi too (गांधी, not गंध)
    assert name_words("gandhi ji ki soch", ShelfVocabulary(TermStats(["He met Gandhi."])), english,
                      plain_hindi=lambda w: w != "gandhi") == frozenset()
    assert name_words("gandhi ji ki soch", ShelfVocabulary(TermStats(["He met Gandhi."])), english) == {"gandhi"}
    assert name_words("desh ka flag", ShelfVocabulary(TermStats.from_dict(
        {k: v for k, v in TermStats(["O Mor Apunar Desh."]).to_dict().items() if k != "common"})), english) == set()


def test_the_policy_says_whether_a_word_the_shelf_writes_only_in_names_is_read_as_hindi(monkeypatch):
    d = invert(lx.parse_bilingual(iter([{"english": "country", "pos": "noun", "hindi": "देश"}])))
    read = _readings_off_and_on(monkeypatch, d, [("देश", "desh", 3)],
                                ["He wrote the song O Mor Apunar Desh.", "Every country has a flag."],
                                None, "kitne desh me flag hai", "hinglish_name_words")
    for on, (_, reading) in zip((False, True), read):
        assert ("country" in reading.split()) == on and ("desh" in reading.split()) != on, reading
