"""Lookup coverage of the Hindi readings, per source: the share of a question file's Hindi content words that a reading
reads (issue 34). Run from the repository root, after an eval has built the shelves:

    python scripts/xling_lookup_coverage.py tests/data/xling-devanagari.jsonl tests/data/xling-hinglish.jsonl \
        --glossary ../shared/data/lexicons/glossaries-en-hi.tsv [--split tuning|heldout] [--show]

Content words: of a Devanagari question, the Hindi words that are not function words, question words or request
verbs (tutor/text/hindi_english.py's grammar); of a Hinglish one, the Latin-letter words of three letters or more
that the Hinglish grammar does not gloss or drop, that are not English (a word the shelf uses, or an English headword
of FreeDict or Shabdanjali) and not typed in capitals. A Devanagari word is read when the reading does not leave it
unread (`reading_and_unread`, loanwords off; "+ Dakshina as typed": an English word written in Devanagari read as
most of Dakshina's annotators typed it, `english_as_typed`); a Hinglish word when `latin_gloss` gives it an English
word. Each source is measured alone, then as the tutor merges them. The glossaries' licence is unstated: they are
measured, not shipped.
"""
from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tutor.evaluation.questions import load_questions, split_questions  # noqa: E402
from tutor.policy import Policy  # noqa: E402
from tutor.retrieval.search import Library  # noqa: E402
from tutor.text import hinglish as hg  # noqa: E402
from tutor.text.hindi_dictionary import load_dictionary, normalize_hindi  # noqa: E402
from tutor.text.hindi_english import FUNCTION, QWORD, REQUEST, ShelfVocabulary, reading_and_unread  # noqa: E402
from tutor.text.hinglish_dictionary import dakshina, english_as_typed, latin_gloss, learnt_spelling  # noqa: E402
from tutor.text.lexicons import SHABDANJALI, english_words, load_bilingual, merge  # noqa: E402

_DEV_WORD = re.compile(r"[\u0900-\u0963\u0971-\u097f]+")
_LATIN_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*")


def devanagari_content(q: str) -> list[str]:
    return [w for w in _DEV_WORD.findall(q) if (k := normalize_hindi(w)) and k not in FUNCTION and k not in QWORD
            and k not in REQUEST]


def hinglish_content(q: str, vocabulary, english: set[str]) -> list[str]:
    grammar = set(hg._QUESTION_GLOSS) | hg._REQUEST | set(hg._FRAME_GLOSS) | hg._FUNCTION
    return [w for w in _LATIN_WORD.findall(q) if len(w) >= 3 and not w.isupper() and w.lower() not in grammar
            and w.lower() not in english and w.lower() not in vocabulary]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("files", nargs="+")
    ap.add_argument("--glossary", type=Path)
    ap.add_argument("--split", choices=("all", "tuning", "heldout"), default="all")
    ap.add_argument("--index", type=Path, default=Path("data/eval-index/ncert"))
    ap.add_argument("--show", action="store_true", help="print each unread word (development files only)")
    a = ap.parse_args()
    freedict, shabd = load_dictionary(), load_bilingual(SHABDANJALI)
    gloss = load_bilingual(a.glossary) if a.glossary else None
    sources = {"FreeDict": freedict, "Shabdanjali": shabd}
    if gloss is not None:
        sources["glossaries"] = gloss
    sources["before: FreeDict"] = freedict
    sources["after: FreeDict + Shabdanjali"] = merge(freedict, shabd)
    if gloss is not None:
        sources["FreeDict + Shabdanjali + glossaries"] = merge(freedict, shabd, gloss)
    english = {h.lower() for d in (freedict, shabd) for heads in d.english.values() for h in heads}
    roman = dakshina()
    english_heads = english_words() or frozenset()

    def as_typed(word: str) -> str | None:
        return english_as_typed(word, english_heads)
    lib = Library(a.index)
    vocab = {}
    for f in a.files:
        qs = split_questions(load_questions(f), a.split)
        dev = any(_DEV_WORD.search(q.question) for q in qs[:5])
        rows = []
        for q in qs:
            subj = q.subject
            if subj not in vocab:
                vocab[subj] = ShelfVocabulary(lib.term_stats(lib.shelf("10", subj)))
            v = vocab[subj]
            words = devanagari_content(q.question) if dev else hinglish_content(q.question, v, english)
            rows.append((q.question, v, words))
        total = sum(len(w) for *_, w in rows)
        print(f"\n{f} ({a.split}): {len(rows)} questions, {total} Hindi content words")
        configs = list(sources.items())
        if dev:
            configs.append(("after + Dakshina as typed", merge(freedict, shabd)))
        if not dev:
            configs = ([(f"romanised {k}", d) for k, d in sources.items()]
                       + [(f"Dakshina -> {k}", d) for k, d in sources.items()]
                       + [(f"Dakshina -> {k} + learnt spelling", d) for k, d in sources.items() if "+" in k])
        for name, d in configs:
            read, unread = 0, []
            for q, v, words in rows:
                if dev:
                    _, left = reading_and_unread(q, v, dictionary=d,
                                                 loanword=as_typed if name.endswith("as typed") else None)
                    got = [w for w in words if w not in left]
                else:
                    r = roman if name.startswith("Dakshina") else None
                    sp = learnt_spelling(d, Policy().min_transliteration_score) if "learnt" in name else None
                    got = [w for w in words if latin_gloss(w, v, dictionary=d, romanised=r, spelling=sp)]
                read += len(got)
                unread += [w for w in words if w not in got]
            print(f"  {name:40s} {read:4d} / {total} = {100 * read / max(total, 1):5.1f}%")
            if a.show:
                print("     unread:", " ".join(sorted(set(unread))))


if __name__ == "__main__":
    main()
