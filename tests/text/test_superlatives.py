"""Hindi superlatives read as English ones (tutor/text/superlatives.py, in tutor/text/hindi_english.py's reading): the
English forms by rule, and "सबसे" with an adjective read as the superlative the shelf writes, on a tiny dictionary and
shelf written in the test."""
from __future__ import annotations

import pytest

from tutor.text.hindi_dictionary import invert, parse_dictd
from tutor.text.hindi_english import ShelfVocabulary, reading_and_unread
from tutor.text.superlatives import superlative, superlative_senses
from tutor.text.terms import TermStats

DICTD = """00-database-info
English-Hindi test dictionary, made in the test.
big /bˈɪɡ/ <ADJ>
1. बड़ा
large /lˈɑːdʒ/ <ADJ>
1. बड़ा
long /lˈɒŋ/ <ADJ>
1. लंबा
good /ɡˈʊd/ <ADJ>
1. अच्छा
port /pˈɔːt/ <N>
1. बंदरगाह
river /ɹˈɪvə/ <N>
1. नदी
eldest /ˈɛldɪst/ <ADJ>
1. सबसे~बड़ा
"""


@pytest.fixture
def d():
    return invert(parse_dictd(DICTD))


@pytest.mark.parametrize("word, most", [
    ("big", "biggest"), ("large", "largest"), ("long", "longest"), ("early", "earliest"), ("simple", "simplest"),
    ("good", "best"), ("more", "most"), ("little", "least"), ("hot", "hottest"), ("new", "newest"),
    ("important", None), ("extensive", None), ("high speed", None), ("largest", None),
])
def test_the_english_superlative_by_rule_or_none_where_english_says_most(word, most):
    assert superlative(word) == most


def test_each_dictionarys_senses_become_their_superlatives():
    assert superlative_senses((("big", "important"), ("large",), ())) == (("biggest",), ("largest",), ())


def test_sabse_and_an_adjective_are_read_as_the_superlative_the_shelf_writes(d):
    shelf = ShelfVocabulary(TermStats(["Mumbai is the largest port.", "The largest river.", "A big port."]))
    read = lambda q, on=True: reading_and_unread(q, shelf, dictionary=d, superlatives=on)  # noqa: E731
    assert read("सबसे बड़ा बंदरगाह कौन सा है?") == ("which largest port", ())
    assert read("सबसे बड़ी नदी कौन सी है?")[0] == "which largest river"  # the feminine, by the form listed
    assert read("सबसे बड़ा बंदरगाह कौन सा है?", on=False)[0] == "which big port"  # सबसे dropped, as before


def test_a_superlative_the_shelf_never_writes_is_not_read(d):
    shelf = ShelfVocabulary(TermStats(["The river is long.", "A good port."]))
    # neither "longest" nor "best" is on the shelf: the adjective alone, as before
    assert reading_and_unread("सबसे लंबी नदी", shelf, dictionary=d, superlatives=True)[0] == "long river"
    assert reading_and_unread("सबसे अच्छा बंदरगाह", shelf, dictionary=d, superlatives=True)[0] == "good port"


def test_a_pair_the_dictionary_lists_is_read_as_listed_and_quantities_as_most(d):
    shelf = ShelfVocabulary(TermStats(["His eldest son.", "The largest state.", "Most rice grows here."]))
    assert reading_and_unread("सबसे बड़ा बेटा", shelf, dictionary=d, superlatives=True)[0] == "eldest beta"
    assert reading_and_unread("चावल सबसे ज़्यादा", shelf, dictionary=d, superlatives=True)[0] == "chaval most"
    # सबसे at the end, or before a function word, is dropped as before
    assert reading_and_unread("नदी सबसे", shelf, dictionary=d, superlatives=True)[0] == "river"


def test_a_hinglish_superlative_is_read_as_the_one_the_shelf_writes(d):
    from tutor.text.hinglish_dictionary import hinglish_reading

    shelf = ShelfVocabulary(TermStats(["The longest river.", "Most rice grows here.", "An important port."]))
    read = lambda q, on=True: hinglish_reading(q, shelf, dictionary=d, superlatives=on)  # noqa: E731
    assert read("sabse lamba river kaunsa hai") == "which longest river"
    assert read("sabse lamba river kaunsa hai", on=False) == "which long river"  # sabse dropped, as before
    assert read("chawal sabse zyada kahan hota hai") == "where chawal most"
    # no superlative the shelf writes ("most important" is two words): the word alone, as before
    assert read("sabse important port kaunsa hai") == "which important port"
