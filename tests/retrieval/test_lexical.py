"""The lexical side of hybrid retrieval: BM25 ranking, reciprocal rank fusion, the trigram matcher on misspellings,
Devanagari tokens, the seed paraphrase score, and hybrid search on a real FAISS shelf (HashEmbedder vectors): a
lexical-only hit carries its true cosine, and a shelf swap brings a new lexical index.

Every text is made in the test; nothing reads ../shared data.
"""
from __future__ import annotations

import numpy as np
import pytest

from tutor.evaluation.questions import perturb
from tutor.retrieval.lexical import (
    LexicalIndex,
    ParaphraseScorer,
    edit_distance,
    paraphrase_score,
    rrf,
    terms,
    trigram_jaccard,
    words,
)
from tutor.retrieval.search import Library, hybrid_search

from helpers_safety import EMB, chunk, policy, write_shelf

BIOLOGY = [
    "Photosynthesis is the process by which green plants make their food from carbon dioxide and water using sunlight.",
    "Respiration releases energy from glucose in the cells; it happens in the mitochondria.",
    "Electrolysis of water gives hydrogen at the cathode and oxygen at the anode.",
    "The heart pumps blood through arteries and veins to every organ of the body.",
    "Plants lose water through the stomata of their leaves; this is called transpiration.",
]


@pytest.fixture(scope="module")
def bio() -> LexicalIndex:
    return LexicalIndex(BIOLOGY)


# ---------------------------------------------------------------- BM25


def test_bm25_ranks_the_chunk_sharing_the_rare_words_first(bio):
    ranked = bio.search_bm25("Where does respiration release energy from glucose?", 5)
    assert ranked[0][0] == 1
    assert [s for _, s in ranked] == sorted((s for _, s in ranked), reverse=True)


def test_bm25_rare_term_outweighs_a_common_one():
    texts = ["water water water in the river", "water and salt", "salt of the sea is sodium chloride"]
    ix = LexicalIndex(texts)
    # "water" is in two of three chunks, "chloride" in one: the chunk holding the rare term wins
    assert ix.search_bm25("water chloride", 3)[0][0] == 2


def test_bm25_gives_nothing_for_a_question_with_no_shelf_word(bio):
    assert bio.search_bm25("Who won the cricket world cup?", 5) == []


def test_bm25_matches_case_and_punctuation_folded_words(bio):
    assert bio.search_bm25("ELECTROLYSIS, of WATER?!", 1)[0][0] == 2


def test_chunks_left_out_of_the_index_are_never_returned():
    texts = ["Why does light bend in water? Explain refraction of light.", "Refraction is the bending of light in "
                                                                           "water."]
    ix = LexicalIndex(texts, include=[False, True])  # the first restates an exercise question: not evidence
    assert [i for i, _ in ix.search_bm25("Why does light bend in water?", 5)] == [1]
    assert [i for i, _ in ix.search_trigram("Why does light bend in water?", 5)] == [1]


def test_include_flags_must_match_the_texts():
    with pytest.raises(ValueError, match="include flags"):
        LexicalIndex(["a text"], include=[True, False])


# ---------------------------------------------------------------- fusion


def test_rrf_sums_reciprocal_ranks_and_orders_best_first():
    fused = rrf([["a", "b", "c"], ["c", "b", "d"]], k=60)
    scores = dict(fused)
    assert scores["b"] == pytest.approx(2 / 62)
    assert scores["a"] == pytest.approx(1 / 61)
    assert scores["c"] == pytest.approx(1 / 61 + 1 / 63)
    assert scores["d"] == pytest.approx(1 / 63)
    # 1/61 + 1/63 edges out 2/62: a first place and a third beat two second places
    assert [x for x, _ in fused] == ["c", "b", "a", "d"]


def test_rrf_an_item_in_every_list_beats_a_single_first_place():
    fused = rrf([["solo", "both"], ["x", "both"], ["y", "both"]], k=60)
    assert fused[0][0] == "both"


def test_rrf_ties_go_to_the_better_single_rank_then_the_earlier_list():
    # "a" and "b" both score 1/61 + 1/62; "a" is first in the first list
    assert [x for x, _ in rrf([["a", "b"], ["b", "a"]], k=60)] == ["a", "b"]
    assert [x for x, _ in rrf([["b", "a"], ["a", "b"]], k=60)] == ["b", "a"]


def test_rrf_counts_an_item_once_per_list_and_small_k_sharpens_the_top():
    assert dict(rrf([["a", "a", "b"]], k=1))["a"] == pytest.approx(1 / 2)
    flat, sharp = dict(rrf([["a", "b"]], k=100)), dict(rrf([["a", "b"]], k=1))
    assert sharp["a"] / sharp["b"] > flat["a"] / flat["b"]
    with pytest.raises(ValueError):
        rrf([["a"]], k=0)


# ---------------------------------------------------------------- the trigram matcher


@pytest.mark.parametrize("typo, word", [("photosynthsis", "photosynthesis"), ("respiraton", "respiration"),
                                        ("electrolisis", "electrolysis"), ("transpirasion", "transpiration"),
                                        ("artieries", "arteries")])
def test_fuzzy_reads_a_misspelt_word_as_the_shelf_word(bio, typo, word):
    (m,) = bio.fuzzy(typo, 0.45)
    assert m.match == word and 0.45 <= m.similarity < 1.0


def test_fuzzy_finds_nothing_for_an_unrelated_word(bio):
    assert bio.fuzzy("cricket", 0.45) == []


def test_a_misspelt_question_still_finds_its_chunk_through_bm25(bio):
    weights, fixes = bio.query_terms("What is photosynthsis?", 0.5)
    assert [f.match for f in fixes] == ["photosynthesis"]
    assert bio.search_bm25("What is photosynthsis?", 5, min_similarity=0.5)[0][0] == 0
    # with the matcher switched off the misspelt word matches nothing at all
    assert bio.search_bm25("What is photosynthsis?", 5, min_similarity=0.0) == []


def test_trigram_retriever_ranks_the_misspelt_words_chunk_first(bio):
    assert bio.search_trigram("respiraton in the mitochondra", 5)[0][0] == 1
    assert bio.search_trigram("electrolisis of watter", 5)[0][0] == 2


def test_trigram_score_is_a_cosine_in_zero_one(bio):
    scores = bio.trigram_scores(BIOLOGY[3])
    assert scores.max() == pytest.approx(1.0, abs=1e-5) and int(scores.argmax()) == 3
    assert (scores >= 0).all() and (scores <= 1 + 1e-6).all()


def test_trigram_jaccard_of_a_word_with_itself_is_one_and_with_a_typo_less():
    assert trigram_jaccard("refraction", "refraction") == 1.0
    assert 0.4 < trigram_jaccard("refraction", "refracton") < 1.0
    assert trigram_jaccard("refraction", "volcano") == 0.0


# ---------------------------------------------------------------- Devanagari


HINDI = [
    "पौधे सूर्य के प्रकाश से अपना भोजन बनाते हैं।",
    "हृदय रक्त को धमनियों के द्वारा शरीर के सभी अंगों तक पहुँचाता है।",
    "मिट्टी एक महत्वपूर्ण प्राकृतिक संसाधन है।",
]


def test_devanagari_words_stay_whole_with_their_vowel_signs_and_virama():
    assert words("पौधे सूर्य के प्रकाश से भोजन बनाते हैं।") == ["पौधे", "सूर्य", "के", "प्रकाश", "से", "भोजन", "बनाते", "हैं"]
    assert "प्रकाश" in " ".join(terms("प्रकाश।")) or any(t.startswith("प्रकाश") for t in terms("प्रकाश।"))


def test_a_hindi_question_finds_the_hindi_chunk():
    ix = LexicalIndex(HINDI + BIOLOGY)
    assert ix.search_bm25("पौधे भोजन कैसे बनाते हैं?", 3)[0][0] == 0
    assert ix.search_trigram("हृदय रक्त कहाँ पहुँचाता है?", 3)[0][0] == 1


def test_candrabindu_and_anusvara_spellings_match():
    ix = LexicalIndex(HINDI)
    # पहुँचाता (candrabindu) in the chunk, पहुंचाता (anusvara) typed: one word after normalize_for_matching
    assert ix.search_bm25("पहुंचाता", 3)[0][0] == 1


# ---------------------------------------------------------------- the seed design


def test_paraphrase_score_weights_and_range():
    assert paraphrase_score("water cycle", "water cycle") == pytest.approx(1.0)
    assert paraphrase_score("water cycle", "volcanic ash") == 0.0
    # substring (0.2) + overlap (0.1) + partial Jaccards: a question inside the text scores above one that is not
    inside = paraphrase_score("heart pumps blood", BIOLOGY[3])
    outside = paraphrase_score("blood pumps heart", BIOLOGY[3])
    assert inside - outside == pytest.approx(0.2)


def test_paraphrase_scorer_ranks_like_the_score():
    ranked = ParaphraseScorer(BIOLOGY).search("Where is oxygen given off in the electrolysis of water?", 5)
    assert ranked[0][0] == 2
    assert ranked[0][1] == pytest.approx(paraphrase_score("Where is oxygen given off in the electrolysis of "
                                                          "water?", BIOLOGY[2]))


# ---------------------------------------------------------------- perturbed questions


def test_perturbations_are_deterministic_and_keep_the_question_recognisable():
    q = "Why should a magnesium ribbon be cleaned before burning in air?"
    typo = perturb(q, "typos", "id-1")
    assert typo == perturb(q, "typos", "id-1") and typo != q
    assert len(typo.split()) == len(q.split()) and typo.split()[0] == "Why"
    reword = perturb(q, "reorder", "id-1")
    assert reword != q and reword.endswith("?") and "magnesium" in reword and "Why" not in reword
    assert perturb(q, "none") == q
    with pytest.raises(ValueError):
        perturb(q, "shout")


# ---------------------------------------------------------------- hybrid search on a real shelf


SHELF = [
    chunk("bio:0000", BIOLOGY[0], section="6.1 Nutrition", page=2),
    chunk("bio:0001", BIOLOGY[1], section="6.2 Respiration", page=4),
    chunk("bio:0002", BIOLOGY[2], section="6.3 Electrolysis", page=6),
    chunk("bio:0003", BIOLOGY[3], section="6.4 Transport", page=8),
    chunk("bio:0004", "What is photosynthesis? Why is respiration needed?", kind="exercise", section="Exercises",
          page=9),
]


@pytest.fixture
def library(tmp_path) -> Library:
    write_shelf(tmp_path / "index", SHELF, subject="science")
    return Library(tmp_path / "index", embedder=EMB)


def _hybrid(lib: Library, question: str, **kw):
    shelf = lib.shelf("10", "science")
    qvec = lib.embed_query(question, shelf)
    return lib.retrieve(question, shelf, qvec, policy(top_k=5, **kw)), shelf, qvec


def test_hybrid_hits_carry_their_true_cosine_also_when_found_only_lexically(library):
    # HashEmbedder hashes whole words: a misspelt word shares no vector dimension with the chunk, so the dense
    # ranking is no help and the chunk comes from the lexical side
    hits, shelf, qvec = _hybrid(library, "photosynthsis", retriever="hybrid", fuzzy_min_similarity=0.5)
    top = hits[0]
    assert top.chunk.chunk_id == "bio:0000"
    assert top.bm25_rank == 0 and top.trigram_rank == 0 and top.fused is not None
    rows = {c.chunk_id: i for i, c in enumerate(shelf.chunks)}
    for h in hits:
        assert h.score == pytest.approx(float(shelf.vectors[rows[h.chunk.chunk_id]] @ qvec), abs=1e-6)
    assert [h.rank for h in hits] == list(range(len(hits)))


def test_hybrid_order_is_the_rrf_of_the_dense_and_lexical_rankings(library):
    q = "Where is the energy of glucose released?"
    hits, shelf, qvec = _hybrid(library, q, retriever="hybrid", dense_depth=5, lexical_depth=5, rrf_k=60,
                                fuzzy_min_similarity=0.5)
    rows = {c.chunk_id: i for i, c in enumerate(shelf.chunks)}
    dense = [i for i, _ in shelf.search_rows(qvec, 5)]
    bm25 = [i for i, _ in shelf.lexical.search_bm25(q, 5, 0.5)]
    tri = [i for i, _ in shelf.lexical.search_trigram(q, 5)]
    assert [rows[h.chunk.chunk_id] for h in hits] == [i for i, _ in rrf([dense, bm25, tri], k=60)][:5]
    assert hits[0].chunk.chunk_id == "bio:0001"


def test_lexical_lists_leave_out_chunks_that_are_not_evidence(library):
    hits, _, _ = _hybrid(library, "What is photosynthesis? Why is respiration needed?", retriever="hybrid")
    exercise = [h for h in hits if h.chunk.chunk_id == "bio:0004"]
    assert exercise and exercise[0].bm25 is None and exercise[0].trigram is None and exercise[0].dense_rank == 0


def test_dense_retriever_is_cosine_order_as_before(library):
    hits, shelf, qvec = _hybrid(library, "heart pumps blood", retriever="dense")
    assert [h.chunk.chunk_id for h in hits] == [h.chunk.chunk_id for h in shelf.search(qvec, 5)]
    assert all(h.fused is None and h.bm25 is None for h in hits)


def test_the_best_cosine_evidence_chunk_stays_a_candidate_when_lexical_lists_outvote_it(tmp_path):
    # many chunks share the question's words (lexical lists agree on them); the closest by cosine shares few
    texts = [f"glucose energy cells number {i} respiration energy glucose" for i in range(8)]
    chunks = [chunk(f"x:{i:04d}", t, section=f"s{i}") for i, t in enumerate(texts)]
    chunks.append(chunk("x:0099", "mitochondria powerhouse", section="s99"))
    write_shelf(tmp_path / "index", chunks)
    lib = Library(tmp_path / "index", embedder=EMB)
    shelf = lib.shelf("10", "science")
    q = "mitochondria powerhouse glucose energy"
    qvec = lib.embed_query(q, shelf)
    best_row, best_cos = shelf.search_rows(qvec, 1)[0]
    hits = hybrid_search(shelf, q, qvec, k=3, dense_depth=3, lexical_depth=9, rrf_k=60, fuzzy_min_similarity=0.5)
    assert len(hits) == 3
    assert shelf.chunks[best_row].chunk_id in [h.chunk.chunk_id for h in hits]
    assert max(h.score for h in hits) == pytest.approx(best_cos, abs=1e-6)


def test_a_shelf_swap_brings_a_new_lexical_index(library, tmp_path):
    shelf = library.shelf("10", "science")
    first = shelf.lexical
    assert shelf.lexical is first  # built once per loaded version
    assert first.search_bm25("volcano eruption lava", 5) == []
    swapped = SHELF + [chunk("bio:0005", "A volcano erupts lava and ash.", section="7.1 Volcanoes", page=10)]
    write_shelf(tmp_path / "index", swapped, subject="science")
    new = library.shelf("10", "science")
    assert new.version != shelf.version and new.lexical is not first
    hits, _, _ = _hybrid(library, "volcano eruption lava", retriever="hybrid")
    assert hits[0].chunk.chunk_id == "bio:0005" and hits[0].bm25_rank == 0


def test_empty_shelf_and_zero_k_give_no_hits(tmp_path):
    write_shelf(tmp_path / "index", [])
    lib = Library(tmp_path / "index", embedder=EMB)
    shelf = lib.shelf("10", "science")
    qvec = EMB.embed(["anything"])[0]
    assert hybrid_search(shelf, "anything", qvec, k=5) == []
    assert shelf.lexical.search_bm25("anything", 5) == [] and shelf.lexical.search_trigram("anything", 5) == []


def test_unknown_retriever_is_named(library):
    shelf = library.shelf("10", "science")
    with pytest.raises(ValueError, match="unknown retriever"):
        library.retrieve("q", shelf, np.zeros(EMB.dim, dtype=np.float32), policy(), "magic")


# ---------------------------------------------------------------- spelling correction before retrieval and the gate


@pytest.mark.parametrize("a, b, d", [("respiraton", "respiration", 1), ("teh", "the", 1), ("plantss", "plants", 1),
                                     ("electrolyte", "electrolysis", 3), ("", "abc", 3), ("same", "same", 0)])
def test_edit_distance_counts_insertions_deletions_substitutions_and_swaps(a, b, d):
    assert edit_distance(a, b) == d == edit_distance(b, a)


def test_correct_mends_misspelt_words_and_keeps_the_punctuation_around_them(bio):
    fixed, fixes = bio.correct('Why does "respiraton" need mitochondira?', 0.5)
    assert fixed == 'Why does "respiration" need mitochondria?'
    assert [(f.word, f.match) for f in fixes] == [("respiraton", "respiration"), ("mitochondira", "mitochondria")]


@pytest.mark.parametrize("question", [
    "What is an electrolyte?",  # a real word three edits from "electrolysis": not a slip, stays unknown
    "Define hydrogenation.",  # "hydrogen" is inside it, but five letters away
    "Is the cell irrespiration?",  # two letters from "respiration", but a prefix changes a word's meaning
    "Who won the 2015 football championship?",  # resembles nothing on the shelf
    "What is photosynthesis?",  # already a shelf word
])
def test_correct_leaves_real_words_the_shelf_never_uses_as_they_are(bio, question):
    assert bio.correct(question, 0.5) == (question, [])


def test_correct_is_off_at_similarity_zero(bio):
    assert bio.correct("What is photosynthsis?", 0.0) == ("What is photosynthsis?", [])


def test_the_tutor_reads_a_misspelt_question_as_mended_and_says_so(library):
    from tutor.pipeline import Tutor

    q = "Where does respiraton release energy from glucose?"
    # HashEmbedder's cosines run low for a paraphrase: a floor on its scale (the real thresholds are MiniLM's)
    scale = dict(retriever="hybrid", min_confidence=0.3, min_mean_confidence=0.3)
    on = Tutor(library, policy(correct_spelling=True, **scale)).ask(q, "10", "science")
    off = Tutor(library, policy(correct_spelling=False, **scale)).ask(q, "10", "science")
    assert on.question == q  # the log keeps what the student typed
    assert any("'respiraton' as 'respiration'" in n for n in on.notes)
    assert not any("respiraton" in n for n in off.notes)
    # mended, the question's words are all shelf words: no unknown-term penalty, a higher confidence
    conf_on, conf_off = (next(c for c in a.checks if c.name == "confidence").value for a in (on, off))
    assert conf_on > conf_off
    assert not on.was_refusal and on.sources[0].chunk_id == "bio:0001"
    assert off.was_refusal
