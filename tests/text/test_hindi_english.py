"""Devanagari Hindi read as English through an English-Hindi dictionary (tutor/text/hindi_english.py,
tutor/text/hindi_dictionary.py): the dictd articles parsed and inverted, the countries' Hindi names added, and the
reading of a question, on a tiny dictionary written in the test; the real Debian dictionary where it is installed."""
from __future__ import annotations

import gzip

import pytest

from tutor.text import hindi_dictionary as hd
from tutor.text import hindi_english as he
from tutor.text.hindi_dictionary import invert, parse_dictd
from tutor.text.hindi_english import english_reading, lemmas, romanize

# the dictd layout of FreeDict's English-Hindi: headword /IPA/ <POS>, numbered senses (phrases split by commas,
# words of one phrase joined by ~), indented example sentences in quotes
DICTD = """00-database-info
English-Hindi test dictionary, made in the test.
refraction /ɹɪfɹˈakʃən/ <N>
1. अपवर्तन
      "Refraction bends light."
lightning /lˈaɪtnɪŋ/ <N>
1. बिजली
      "Lightning struck the tree."
electricity /ɪlɛktɹˈɪsɪti/ <N>
1. विद्युत~शक्ति, बिजली
      "Electricity is costly."
light /lˈaɪt/ <N>
1. प्रकाश, रोशनी
photosynthesis /fˌəʊtəʊsˈɪnθəsˌɪs/ <N>
1. प्रकाश-संश्लेषण
      "Plants make food by photosynthesis."
acid /ˈasɪd/ <N>
1. तेजाब
2. अम्ल
      "Lemon juice has citric acid.
"
duchy /dˈʌtʃi/ <N>
1. राज्य
state /stˈeɪt/ <N>
1. राज्य
2. दशा
abet /ɐbˈɛt/ <VT>
1. उकसाना{बुरे~काम~के~लिये}
abolish /ɐbˈɒlɪʃ/ <VT>
1. उन्मूलन~करना[होना]
lens /lˈɛnz/ <N>
1. लेन्स
job /dʒˈɒb/ <N>
1. काम
work /wˈɜːk/ <N>
1. काम
start /stˈɑːt/ <V>
1. शुरू~करना
complete /kəmplˈiːt/ <V>
1. पूरा~करना
supporter /səpˈɔːtə/ <N>
1. समर्थक
rust /ɹˈʌst/ <N>
1. ज़ंग
thousand /θˈaʊzənd/ <N>
1. हजार
IMF /ˈɪmf/ <N>
1. International monetary fund
"""


@pytest.fixture
def d() -> hd.Dictionary:
    return invert(parse_dictd(DICTD))


# ---------------------------------------------------------------- the dictionary


def test_articles_are_parsed_with_their_senses_and_without_examples_or_the_database_header():
    entries = {e.headword: e for e in parse_dictd(DICTD)}
    assert "00-database-info" not in entries and len(entries) == 19
    assert entries["electricity"].senses == (("विद्युत शक्ति", "बिजली"),)
    assert entries["acid"].senses == (("तेजाब",), ("अम्ल",)) and entries["acid"].pos == "N"
    # usage notes {…} and alternative endings […] are not part of the translation
    assert entries["abet"].senses == (("उकसाना",),) and entries["abolish"].senses == (("उन्मूलन करना",),)
    assert entries["IMF"].senses == ((),)  # a Latin-letter "translation" is no Hindi phrase


def test_the_inversion_lists_the_headword_that_offers_a_phrase_first(d):
    # both offer बिजली as their first sense; "lightning" lists it first within the sense, "electricity" second
    assert d.english["बिजली"] == ("lightning", "electricity")
    assert d.english["विद्युत शक्ति"] == ("electricity",)
    assert d.english["प्रकाश संश्लेषण"] == ("photosynthesis",)  # "-" joins the words of one phrase, as "~" does
    assert d.english["अम्ल"] == ("acid",)
    assert d.english["राज्य"] == ("duchy", "state")  # same sense and place: the file's order
    assert d.longest == 2 and d.headwords == 19


def test_dictionary_spellings_and_typed_spellings_meet():
    # a nasal consonant before one of its own class is the anusvara in other hands; म्ल is no such cluster
    assert hd.normalize_hindi("लेन्स") == hd.normalize_hindi("लेंस")
    assert hd.normalize_hindi("सम्बन्ध") == hd.normalize_hindi("संबंध")
    assert hd.normalize_hindi("अम्ल") != hd.normalize_hindi("अंल")
    assert hd.normalize_hindi("कहाँ") == hd.normalize_hindi("कहां")  # candrabindu, as everywhere on the lexical side


def test_the_dictionary_is_read_from_a_gzipped_dictd_file_once(tmp_path):
    path = tmp_path / "eng-hin.dict.dz"
    path.write_bytes(gzip.compress(DICTD.encode("utf-8")))
    first = hd.load_dictionary(path)
    assert first is not None and first.english["अपवर्तन"] == ("refraction",)
    assert hd.load_dictionary(path) is first  # parsed once per file version
    assert hd.dictionary_missing(path) is None


def test_without_the_dictionary_the_reading_is_empty_and_the_module_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_HINDI_DICTIONARY", str(tmp_path / "absent.dict.dz"))
    assert hd.load_dictionary() is None
    assert "dict-freedict-eng-hin" in hd.dictionary_missing()
    assert english_reading("अपवर्तन क्या है?") == ""


# ---------------------------------------------------------------- the reading


def test_the_question_word_leads_and_function_words_are_dropped(d):
    assert english_reading("अपवर्तन क्या है?", dictionary=d) == "what is refraction"
    assert english_reading("अपवर्तन किसे कहते हैं?", dictionary=d) == "what is refraction"
    assert english_reading("प्रकाश का अपवर्तन क्यों होता है?", dictionary=d) == "why light refraction"
    assert english_reading("विद्युत शक्ति समझाइए।", dictionary=d) == "explain electricity"  # a request verb alone
    # a second question keeps its word in place
    assert english_reading("अपवर्तन क्या है और क्यों होता है?", dictionary=d) == "what is refraction why"


def test_the_longest_phrase_the_dictionary_has_is_read_as_one(d):
    # not "light" + a word without an entry: the two words are one phrase
    assert english_reading("प्रकाश संश्लेषण क्या है?", dictionary=d) == "what is photosynthesis"
    assert english_reading("विद्युत शक्ति कैसे बनती है?", dictionary=d).startswith("how electricity")


def test_latin_tokens_and_numbers_are_kept_as_typed_and_unknown_words_stay_unknown(d):
    # "pH" and "7" as typed; आसमान has no entry: kept in Latin letters, a word an English shelf does not use
    assert english_reading("अम्ल का pH 7 से कम क्यों होता है?", dictionary=d) == "why acid pH 7 kam"
    assert english_reading("आसमान नीला क्यों दिखता है?", dictionary=d) == "why asman nila dikhta"
    assert english_reading("लेंस की क्षमता का SI मात्रक क्या है?", dictionary=d) == "what is lens kshamta SI matrak"
    assert english_reading("२०११ में किसने जीता?", dictionary=d) == "who 2011 jita"  # Devanagari digits as ASCII


def test_the_reading_names_the_hindi_words_the_dictionary_could_not_read(d):
    assert he.reading_and_unread("आसमान नीला क्यों दिखता है?", dictionary=d) == (
        "why asman nila dikhta", ("आसमान", "नीला", "दिखता"))
    assert he.reading_and_unread("अपवर्तन क्या है?", dictionary=d) == ("what is refraction", ())  # all read


def test_a_word_is_found_with_or_without_its_nukta(d):
    # the dictionary writes ज़ंग with a nukta and हजार without; students write either
    assert d.get(hd.normalize_hindi("जंग")) == ("rust",)
    assert d.get(hd.normalize_hindi("हज़ार")) == ("thousand",)
    assert d.get(hd.normalize_hindi("ज़ंग")) == ("rust",)  # as written, first
    assert d.get(hd.normalize_hindi("जग")) == ()
    assert he.reading_and_unread("लोहे पर जंग क्यों लगती है?", dictionary=d)[1] == ("लोहे", "लगती")  # जंग is read
    assert english_reading("एक हज़ार", dictionary=d) == "thousand"


def test_a_pronoun_with_a_postposition_fused_on_is_a_function_or_question_word(d):
    # सबसे (सब + से), उसमें (उस + में): dropped as their parts are; किससे (किस + से) asks "what"
    assert he.reading_and_unread("सबसे अच्छा प्रकाश", dictionary=d) == ("achchha light", ("अच्छा",))
    assert english_reading("उसमें अम्ल है", dictionary=d) == "acid"
    assert english_reading("प्रकाश किससे बनता है?", dictionary=d) == "what is light banta"


def test_two_word_question_words_compound_postpositions_and_adverbs_are_read_as_grammar(d):
    # "किस तरह" asks how (not "which" and an unread "तरह"); before का/की/के it asks what kind of
    assert he.reading_and_unread("प्रकाश का अपवर्तन किस तरह होता है?", dictionary=d) == ("how light refraction", ())
    assert english_reading("अम्ल किस प्रकार का होता है?", dictionary=d) == "which acid"
    assert english_reading("अपवर्तन किस कारण होता है?", dictionary=d) == "why refraction"
    # "के बाद" after, "के बीच" between, "के दौरान" during: dropped as English drops its stop words, never unread
    assert he.reading_and_unread("अपवर्तन के बाद प्रकाश का क्या होता है?", dictionary=d) == (
        "what is refraction light", ())
    assert english_reading("अम्ल और प्रकाश के बीच क्या है?", dictionary=d) == "what is acid light"
    # "से पहले" is before; "पहले" alone is a content word ("first"), kept for the dictionary to read or name
    assert english_reading("अपवर्तन से पहले क्या है?", dictionary=d) == "what is refraction"
    assert he.reading_and_unread("पहले अपवर्तन क्या है?", dictionary=d)[1] == ("पहले",)
    # an adverb of several words goes whole: "आम तौर पर" is usually, not "आम" (mango) and "तौर"
    assert he.reading_and_unread("आम तौर पर अम्ल क्या है?", dictionary=d) == ("what is acid", ())


def test_an_inflected_word_is_read_by_the_form_the_dictionary_lists(d):
    assert "अम्ल" in lemmas(hd.normalize_hindi("अम्लों"))
    assert lemmas(hd.normalize_hindi("काटतीं")) == ["काटना"]  # the feminine plural: "रेखाएँ ... नहीं काटतीं"
    # a plural in short i, a causative's participle, a participle of a verb whose stem ends in a vowel
    assert "प्रजाति" in lemmas(hd.normalize_hindi("प्रजातियों")) and "समिति" in lemmas(hd.normalize_hindi("समितियाँ"))
    assert "बनाना" in lemmas(hd.normalize_hindi("बनवाया")) and "बोना" in lemmas(hd.normalize_hindi("बोई"))
    assert english_reading("अम्लों का स्वाद", dictionary=d) == "acid svad"
    assert english_reading("अम्लों का स्वाद", dictionary=d, inflect=False) == "amlon svad"


def test_the_choice_rule_picks_among_several_headwords(d):
    shelf = {"state", "river", "acid"}
    assert english_reading("राज्य", dictionary=d, rule="first") == "duchy"
    assert english_reading("राज्य", shelf, dictionary=d, rule="shelf") == "state"
    # no headword on the shelf: the first listed
    assert english_reading("बिजली", shelf, dictionary=d, rule="shelf") == "lightning"
    with pytest.raises(ValueError, match="choice rule"):
        english_reading("राज्य", dictionary=d, rule="nearest")


def test_frequent_takes_the_headword_most_of_the_shelfs_chunks_use(d):
    from tutor.text.terms import TermStats

    book = he.ShelfVocabulary(TermStats(["Work is done.", "The work of a force.", "Work and energy.", "A job."]))
    assert english_reading("काम क्या है?", book, dictionary=d, rule="shelf") == "what is job"  # FreeDict's first
    assert english_reading("काम क्या है?", book, dictionary=d, rule="frequent") == "what is work"  # the book's
    # a vocabulary that cannot count (a plain set) falls back to the shelf rule
    assert english_reading("काम क्या है?", {"job", "work"}, dictionary=d, rule="frequent") == "what is job"


def test_a_noun_with_a_light_verb_is_read_as_the_dictionary_lists_the_pair(d):
    # शुरू alone has no entry; "शुरू करना" has: any form of करना, होना or जाना after it
    assert he.reading_and_unread("यह कब शुरू किया गया था?", dictionary=d) == ("when start", ())
    assert he.reading_and_unread("काम कब शुरू हुआ?", {"work"}, dictionary=d)[1] == ("शुरू",)  # no "शुरू होना"
    assert english_reading("दो शर्तें पूरी करनी होती हैं", dictionary=d).endswith("complete")  # पूरी -> पूरा
    assert he.reading_and_unread("शुरू", dictionary=d) == ("shuru", ("शुरू",))  # no light verb: unread


def test_the_students_own_english_in_brackets_reads_the_hindi_words_before_it(d):
    assert he.reading_and_unread("अनुमस्तिष्क (cerebellum) का क्या काम है?", {"work"}, dictionary=d) == (
        "what is cerebellum work", ())
    # only the unread words just before the bracket: a word the dictionary read stays, as does an earlier unread one
    assert he.reading_and_unread("आसमान और समर्थक ऋणाधार (collateral) क्या है?", dictionary=d) == (
        "what is asman supporter collateral", ("आसमान",))
    # Latin letters not in brackets are kept beside the unread word; brackets of Hindi are not a gloss
    assert he.reading_and_unread("ऋणाधार collateral क्या है?", dictionary=d)[1] == ("ऋणाधार",)
    assert he.reading_and_unread("ऋणाधार (आसमान) क्या है?", dictionary=d)[1] == ("ऋणाधार", "आसमान")



def test_a_gloss_of_whole_words_may_replace_the_dictionarys_reading_of_the_words_before_it(d):
    q = "समर्थक प्रकाश (support light) क्या है?"
    assert he.reading_and_unread(q, dictionary=d)[0] == "what is supporter light support light"
    assert he.reading_and_unread(q, dictionary=d, replace_glossed=True) == ("what is support light", ())
    # only the run just before it: a postposition or Latin letters end the run
    assert he.reading_and_unread("काम में समर्थक (backer) क्या है?", {"work"}, dictionary=d,
                                 replace_glossed=True)[0] == "what is work backer"
    assert he.reading_and_unread("AC समर्थक (backer)", dictionary=d, replace_glossed=True)[0] == "AC backer"
    # one word in capitals is a name for the words, kept beside their reading; several are their reading
    assert he.reading_and_unread("अम्ल (HCl) क्या है?", dictionary=d, replace_glossed=True)[0] == "what is acid HCl"
    assert he.reading_and_unread("समर्थक प्रकाश (Support Light) क्या है?", dictionary=d, replace_glossed=True)[0] == (
        "what is Support Light")
    # an unread word before it goes, as without the switch
    assert he.reading_and_unread("आसमान समर्थक (sky backer)", dictionary=d, replace_glossed=True) == (
        "sky backer", ())


def test_countries_named_in_hindi_are_read_by_their_english_names(d, tmp_path):
    named = hd.with_place_names(d, {hd.normalize_hindi("भारत"): "India", hd.normalize_hindi("राज्य"): "Nowhere",
                                    hd.normalize_hindi("संयुक्त राज्य अमेरिका"): "United States"})
    assert english_reading("भारत में अम्ल", dictionary=named) == "India acid"
    assert named.english["राज्य"] == d.english["राज्य"]  # the dictionary's own entry wins
    assert named.longest >= 3 and english_reading("संयुक्त राज्य अमेरिका", dictionary=named) == "United States"
    assert hd.place_names(tmp_path / "absent.mo") == {}
    (tmp_path / "broken.mo").write_bytes(b"not a catalogue")
    assert hd.place_names(tmp_path / "broken.mo") == {}
    if hd.PLACE_NAMES.is_file():  # Debian's iso-codes, where installed
        real = hd.place_names()
        assert real[hd.normalize_hindi("भारत")] == "India" and len(real) > 200


@pytest.mark.parametrize(("word", "latin"), [
    ("नेहरू", "nehru"), ("जवाहरलाल", "javaharlal"), ("केरोसिन", "kerosin"), ("संसद", "sansad"), ("अंबर", "ambar"),
    ("मनरेगा", "manrega"), ("क़िला", "qila"), ("दुःख", "duhkh")])
def test_words_without_an_entry_are_written_in_latin_letters_as_hindi_is_typed(word, latin):
    assert romanize(word) == latin


def test_the_real_debian_dictionary_reads_a_textbook_question():
    if hd.dictionary_missing(hd.DEBIAN_DICTIONARY):
        pytest.skip(f"{hd.DEBIAN_DICTIONARY} not installed (make dict-deps: apt-get install dict-freedict-eng-hin)")
    d = hd.load_dictionary(hd.DEBIAN_DICTIONARY)
    assert d is not None and d.headwords > 20_000 and len(d.english) > 20_000
    assert d.english["अपवर्तन"][0] == "refraction"
    assert english_reading("प्रकाश-संश्लेषण क्या है?", dictionary=d) == "what is photosynthesis"
    assert english_reading("अपवर्तन क्यों होता है?", dictionary=d) == "why refraction"
    # a noun with a light verb, as FreeDict lists the pair ("शुरू करना"), in the sense the shelf uses
    assert he.reading_and_unread("प्रोजेक्ट कब शुरू किया गया?", {"start"}, dictionary=d) == (
        "when projekt start", ("प्रोजेक्ट",))
    if hd.PLACE_NAMES.is_file():  # with Debian's iso-codes, the countries' names too
        assert d.english[hd.normalize_hindi("भारत")] == ("India",)


def test_which_and_how_many_are_followed_by_the_word_they_ask_about(d):
    read = lambda q, on=True: he.reading_and_unread(q, dictionary=d, which_noun=on)[0]  # noqa: E731
    # Hindi puts the word after the question word and the rest before it; English reads "which lens ..."
    assert read("प्रकाश अम्ल किस लेन्स में है?") == "which lens light acid"
    assert read("प्रकाश अम्ल किस लेन्स में है?", on=False) == "which light acid lens"  # as before
    assert read("अम्ल का कौन-सा लेन्स है?") == "which lens acid"  # कौन's सा/सी/से skipped
    assert read("अम्ल के कितने लेन्स हैं?") == "how many lens acid"
    # not after कितने: "कितने से कम" asks how much below, not about "से"
    assert read("अम्ल कितने से कम काम है?").startswith("how many acid")
    # a bare कौन before है/था/थे, or last, asks who; कौन सा before है asks which, about no word
    assert read("अम्ल का समर्थक कौन था?") == "who acid supporter"
    assert read("अम्ल का समर्थक कौन सा है?") == "which acid supporter"
    # only the leading question word: a second one keeps its place and its word too
    assert read("अपवर्तन क्यों होता है और किस लेन्स में?") == "why refraction which lens"


def test_the_words_asked_about_run_to_a_postposition(d):
    read = lambda q: he.reading_and_unread(q, dictionary=d, which_noun=True)[0]  # noqa: E731
    assert read("अपवर्तन किस अम्ल लेन्स में है?") == "which acid lens refraction"  # up to में
    assert read("अपवर्तन में कौन सा अम्ल प्रकाश देता है?").startswith("which acid refraction light")  # the first alone
