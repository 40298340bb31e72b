"""Hinglish written back in Devanagari for the cross-lingual e5 judge: a measurement, not part of the tutor (issue 13).

The e5 judge is off for Hinglish (policy `hinglish_cross_lingual_score = 0`): e5's cosines of romanised Hindi sit on
another scale and no threshold chosen on the tuning half held. Here each Hinglish question is written back in
Devanagari before e5 reads it: its function words from a closed table of Hindi grammar (`FUNCTION`), its Hindi
content words through the English-Hindi dictionary's romanised phrases (the same lookup as
tutor/text/hinglish_dictionary.py), English words (the shelf's, the dictionary's headwords, capitals) kept.
"aasman neela kyon dikhta hai" -> "आसमान नीला क्यों दिखना है".

For each question: the judge's windows (the first five evidence chunks of the Hinglish reading, as the pipeline
retrieves them), e5's best window cosine with the question as typed and as written back; ROC AUC of each on the
tuning and held-out halves; then, with the English path's decisions from an eval run (a question it answered stands),
the judge at each threshold, the one the tuning half chooses (most answered or refused correctly at false acceptance
<= 5%), and that threshold on the held-out half and on any further files (a test).

    python -m tutor eval tests/data/xling-hinglish.jsonl --libraries ../shared/data/libraries --json /tmp/h.json
    python -m tutor eval tests/data/xling-fresh-hinglish.jsonl --libraries ../shared/data/libraries --json /tmp/f.json
    python scripts/xling_hinglish_devanagari.py tests/data/xling-hinglish.jsonl /tmp/h.json \\
        --test tests/data/xling-fresh-hinglish.jsonl /tmp/f.json

Measured 2026-11-26 (fifth session), the commands above. ROC AUC, typed / written back: tuning 0.851 / 0.899,
held-out 0.975 / 0.925, fresh file 0.776 / 0.867. Written back, the tuning half chooses 0.855 (88.1% / 4.3% / 78.9%
answered or refused correctly / false acceptance / coverage); held-out 78.6% / 25.0% / 80.0% (1 of its 4 refusals),
fresh 85.7% / 14.3% / 85.7%. As typed it chooses 0.8525 (85.7 / 0.0 / 68.4); held-out 85.7 / 0.0 / 80.0, fresh
75.0 / 14.3 / 64.3. With the judge off (shipped): tuning 83.3 / 0.0 / 63.2, held-out 71.4 / 0.0 / 60.0, fresh 75.0 /
7.1 / 57.1. Not adopted: both double the fresh file's false acceptance (README).
"""
from __future__ import annotations

import argparse
import json
import re
from pathlib import Path

import numpy as np

from tutor.evaluation.libraries import eval_libraries
from tutor.evaluation.metrics import roc_auc
from tutor.evaluation.questions import load_questions, split_questions
from tutor.policy import load_policy
from tutor.retrieval.vector_cache import e5_passage_cache
from tutor.safety.crosslingual import E5Similarity, hit_windows
from tutor.text.hindi_dictionary import load_dictionary
from tutor.text.hinglish_dictionary import latin_index, latin_key, latin_lemmas, romanised_words
from tutor.text.readings import shelf_reading

# Hindi function words in their common Latin spellings -> Devanagari (question words, request verbs, postpositions,
# pronouns, auxiliaries; the words of tutor/text/hinglish.py's lists). English look-alikes ("is", "in", "to", "use",
# "do", "me", "the") are left out: in a Hinglish question they are as likely English.
FUNCTION = dict(pair.split(":") for pair in """
kya:क्या kyaa:क्या kaise:कैसे kese:कैसे kaisa:कैसा kaisi:कैसी kyon:क्यों kyun:क्यों kyu:क्यों kyo:क्यों kab:कब
kahan:कहाँ kahaan:कहाँ kaun:कौन kon:कौन kaunsa:कौनसा kaunsi:कौनसी konsa:कौनसा konsi:कौनसी kis:किस kise:किसे
kisne:किसने kin:किन kitna:कितना kitne:कितने kitni:कितनी batao:बताओ bataiye:बताइए samjhao:समझाओ samjhaiye:समझाइए
likho:लिखो likhiye:लिखिए hai:है hain:हैं hota:होता hoti:होती hote:होते hona:होना hoga:होगा tha:था thi:थी hua:हुआ
hui:हुई hue:हुए ka:का ki:की ke:के ko:को se:से mein:में mai:में mei:में par:पर tak:तक liye:लिए wala:वाला wali:वाली
wale:वाले aur:और ya:या bhi:भी nahi:नहीं nahin:नहीं yeh:यह woh:वह iska:इसका iski:इसकी iske:इसके uska:उसका
uski:उसकी uske:उसके karta:करता karti:करती karte:करते karna:करना kiya:किया kiye:किए kar:कर jata:जाता jati:जाती
jate:जाते gaya:गया gayi:गई gaye:गए sakta:सकता sakte:सकते ek:एक koi:कोई kuch:कुछ sabse:सबसे bahut:बहुत ne:ने
bare:बारे baare:बारे antar:अंतर matlab:मतलब udaharan:उदाहरण karan:कारण prakar:प्रकार niyam:नियम upyog:उपयोग kaam:काम
""".split())


def written_back(question: str, english: frozenset[str], shelf_words, by_key: dict[str, str]) -> str:
    """The question with its Hindi words in Devanagari, its English words kept."""
    out = []
    for tok in re.findall(r"[A-Za-z][A-Za-z'-]*|\d+|\S", question):
        w = tok.lower()
        if w in FUNCTION:
            out.append(FUNCTION[w])
            continue
        if len(w) >= 3 and w.isalpha() and not tok.isupper() and w not in english and w not in shelf_words:
            hindi = next((by_key[latin_key(f)] for f in [w] + latin_lemmas(w) if latin_key(f) in by_key), None)
            if hindi:
                out.append(hindi)
                continue
        out.append(tok)
    return " ".join(out)


def figures(rows: list[dict], t: float, key: str) -> tuple[float, float, float]:
    """(answered or refused correctly, false acceptance, coverage) in %: the English path's answer stands, any other
    question is answered when its `key` cosine reaches t."""
    ans = [r for r in rows if r["answer"]]
    ref = [r for r in rows if not r["answer"]]
    dec = [r["english_answered"] or r[key] >= t for r in rows]
    fa = sum(d for d, r in zip(dec, rows) if not r["answer"])
    cov = sum(d for d, r in zip(dec, rows) if r["answer"])
    return 100 * (cov + len(ref) - fa) / len(rows), 100 * fa / max(1, len(ref)), 100 * cov / max(1, len(ans))


def measure(path: Path, eval_json: Path, libs, pol, e5, english, by_key) -> list[dict]:
    qs = load_questions(path)
    held = {q.id for q in split_questions(qs, "heldout")}
    items = {i["id"]: i for i in json.loads(eval_json.read_text())["items"]}
    rows = []
    for q in qs:
        lib = libs[q.library]
        shelf = lib.shelf(q.klass, q.subject)
        stats = lib.term_stats(shelf)
        reading = shelf_reading(q.question, stats, True, pol)[0] or q.question
        hits = [h for h in lib.retrieve(reading, shelf, lib.embed_query(reading, shelf), pol) if h.chunk.is_evidence]
        wins = [w for h in hits[:pol.cross_lingual_chunks] for w in hit_windows(h)]
        vecs = np.stack(e5.vectors([w.text for w in wins]))
        back = written_back(q.question, english, stats.words, by_key)
        rows.append({"held": q.id in held, "answer": q.expect == "answer",
                     "english_answered": bool(items[q.id]["answered"]),
                     "typed": float(np.max(vecs @ e5.embedder.embed_query([q.question])[0])),
                     "back": float(np.max(vecs @ e5.embedder.embed_query([back])[0]))})
    return rows


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("questions", type=Path)
    ap.add_argument("eval_json", type=Path)
    ap.add_argument("--test", nargs=2, type=Path, action="append", default=[], metavar=("QUESTIONS", "EVAL_JSON"))
    ap.add_argument("--libraries", type=Path, default=Path("../shared/data/libraries"))
    args = ap.parse_args()
    pol = load_policy()
    d = load_dictionary()
    if d is None:
        raise SystemExit("error: the English-Hindi dictionary is not installed (make dict-deps)")
    english = latin_index(d).english
    by_key: dict[str, str] = {}
    for key, phrase in romanised_words(d):
        by_key.setdefault(key, phrase)
    libs = eval_libraries(args.libraries, {"ncert"}, None)
    e5 = E5Similarity(store=e5_passage_cache(), unit="window")
    dev = measure(args.questions, args.eval_json, libs, pol, e5, english, by_key)
    tests = [(p, measure(p, j, libs, pol, e5, english, by_key)) for p, j in args.test]

    def auc(rows, key):
        return roc_auc([r[key] for r in rows if r["answer"]], [r[key] for r in rows if not r["answer"]])

    tuning = [r for r in dev if not r["held"]]
    heldout = [r for r in dev if r["held"]]
    for key in ("typed", "back"):
        parts = [("tuning", tuning), ("held-out", heldout)] + [(p.name, rows) for p, rows in tests]
        print(f"{key:6s} ROC AUC " + ", ".join(f"{n} {auc(rows, key):.3f}" for n, rows in parts))
        best = max(((figures(tuning, t, key), t) for t in np.arange(0.80, 0.95, 0.0025)
                    if figures(tuning, t, key)[1] <= 5), key=lambda x: (x[0][0], -x[1]))
        t = best[1]
        print(f"       chosen on tuning: {t:.4f}; " + "; ".join(
            f"{n} " + " / ".join(f"{v:.1f}" for v in figures(rows, t, key)) for n, rows in parts))


if __name__ == "__main__":
    main()
