"""The English reading of a question in Hindi, asked of a shelf with no Hindi chapter: Devanagari through the
English-Hindi dictionaries (tutor/text/lexicons.py: FreeDict, and Shabdanjali where the policy says so;
tutor/text/hindi_english.py) and, where the policy says so, its English words written in
Devanagari read back by sound (tutor/text/loanwords.py) or as most people type them in Latin letters (Dakshina);
Hinglish with its Hindi words read through the same
dictionary (tutor/text/hinglish_dictionary.py, where the policy turns it on). And a Hinglish question asked of a shelf
with Hindi chapters, respelt in Devanagari for them."""
from __future__ import annotations

from tutor.text.hindi_english import ShelfVocabulary, reading_and_unread
from tutor.text.hinglish import english_reading
from tutor.text.hinglish_dictionary import (
    CommonFirst,
    dakshina,
    devanagari_reading,
    english_as_typed,
    hinglish_reading,
    learnt_spelling,
    unread_hinglish,
)
from tutor.text.language import HINDI, detect_language
from tutor.text.lexicons import english_words, reading_dictionary
from tutor.text.terms import TermStats


def shelf_reading(question: str, stats: TermStats, hinglish: bool = False, policy=None,
                  similarity=None) -> tuple[str, tuple[str, ...]]:
    """The English reading of a Devanagari question asked of a shelf (`stats`) with no Hindi chapter, and the Hindi
    words it could not read (`reading_and_unread`); with `hinglish`, a Hinglish question's reading (its Hindi words
    read through the dictionary where the policy's `hinglish_dictionary` says so, or no policy is given) and the Hindi
    words it kept as typed (`unread_hinglish`). Asked of a shelf with Hindi chapters, a Hinglish question is respelt
    in Devanagari instead (`devanagari_reading`, where the policy's `hinglish_dakshina` is on), for the Hindi chapters
    to answer as they answer a question typed so; nothing is named unread. ("", ()) for any other question or shelf
    (a Hindi chapter answers a Devanagari question, as always) or without the dictionary. With a `policy` whose
    `hindi_loanwords` is on, English words written in Devanagari are read as the shelf's words they sound like,
    confirmed by `similarity` (default: multilingual e5)."""
    if not hinglish and (HINDI in stats.languages or detect_language(question) != HINDI):
        return "", ()
    if policy is not None and (policy.hinglish_sense_by_meaning if hinglish else policy.hindi_sense_by_meaning):
        from tutor.text.senses import meanings

        vocabulary = ShelfVocabulary(stats, meanings(), policy.sense_shelf_weight)
    else:
        vocabulary = ShelfVocabulary(stats)
    on = policy is not None and (policy.hinglish_shabdanjali if hinglish else policy.hindi_shabdanjali)
    dictionary = reading_dictionary(on)
    if hinglish:  # Hindi words read through the dictionary where the policy says so; those left as typed, named
        romanisations = dakshina() if policy is not None and policy.hinglish_dakshina else None
        spelling = _learnt_spelling(dictionary, policy)
        if HINDI in stats.languages:  # Hindi chapters read the question respelt in Devanagari, with the same spellings
            return (devanagari_reading(question, romanisations, vocabulary, spelling)
                    if romanisations is not None else ""), ()
        if romanisations is not None and policy.hinglish_common_spelling:  # English chapters: the commonest word
            romanisations = CommonFirst(romanisations)
        reading = (hinglish_reading(question, vocabulary, dictionary=dictionary, romanisations=romanisations,
                                    spelling=spelling, pairs=policy is not None and policy.hinglish_light_verbs,
                                    superlatives=policy is not None and policy.hinglish_superlatives,
                                    which_noun=policy is not None and policy.hinglish_which_noun,
                                    participles=policy is not None and policy.hinglish_participles,
                                    offshelf_english=policy is not None and policy.hinglish_offshelf_english,
                                    name_words=policy is not None and policy.hinglish_name_words)
                   if policy is None or policy.hinglish_dictionary else english_reading(question))
        return ((reading, unread_hinglish(reading, vocabulary, dictionary=dictionary, romanisations=romanisations))
                if reading else ("", ()))
    readers = []  # a word no dictionary reads: by sound among the shelf's words, then as people type it
    if policy is not None and policy.hindi_loanwords:
        from tutor.text.loanwords import english_loanword, shelf_index
        from tutor.text.senses import e5_similarity

        readers.append(lambda word: english_loanword(word, shelf_index(stats), similarity or e5_similarity,
                                                     policy.min_loanword_similarity))
    if policy is not None and policy.hindi_typed_english and (english := english_words()) is not None:
        readers.append(lambda word: english_as_typed(word, english, vocabulary=vocabulary))

    def loanword(word: str) -> str | None:
        return next((english for read in readers if (english := read(word))), None)
    return reading_and_unread(question, vocabulary, dictionary=dictionary, loanword=loanword if readers else None,
                              first_listed=policy is not None and policy.hindi_shabdanjali_first_listed,
                              replace_glossed=policy is not None and policy.hindi_gloss_replaces,
                              neighbours=policy is not None and policy.hindi_sense_by_neighbours,
                              superlatives=policy is not None and policy.hindi_superlatives,
                              which_noun=policy is not None and policy.hindi_which_noun,
                              participles=policy is not None and policy.hindi_participles)


def hinglish_respelt(question: str, stats: TermStats, policy) -> str:
    """A Hinglish question respelt in Devanagari as Dakshina's annotators type its words (`devanagari_reading`: the
    shelf's English words, numbers and capitals kept), for the cross-lingual judge to read as it reads a question typed
    in Devanagari; "" where Dakshina is not installed or no word is respelt, and for a shelf with Hindi chapters (they
    read the respelt question themselves: `shelf_reading`; the judge is for English chapters)."""
    romanisations = dakshina()
    if romanisations is None or HINDI in stats.languages:
        return ""
    spelling = _learnt_spelling(reading_dictionary(policy.hinglish_shabdanjali), policy)
    return devanagari_reading(question, romanisations, ShelfVocabulary(stats), spelling)


def _learnt_spelling(dictionary, policy):
    """The learnt spelling a Hinglish word falls back on (`learnt_spelling`) where the policy turns it on; else None."""
    return (learnt_spelling(dictionary, policy.min_transliteration_score)
            if dictionary is not None and policy is not None and policy.hinglish_transliteration else None)
