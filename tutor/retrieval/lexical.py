"""Lexical retrieval beside the dense index: BM25 over words, a character-trigram matcher for misspelt and
reworded questions, the seed paraphrase score they are compared with, and reciprocal rank fusion.

Everything lexical reads `normalize_for_matching` text (case, punctuation, digits and script variants folded), the
same function for chunks and questions; displayed text and citations keep the original characters. Tokens are the
whitespace-separated words of that form, so Devanagari words (vowel signs, virama and nukta are marks, not
punctuation) stay whole. Scores here are never cosines: BM25 is unbounded (higher is better, 0 = no shared term),
trigram similarity is a cosine of trigram TF-IDF vectors in [0, 1], fuzzy term similarity a Jaccard in [0, 1].
"""
from __future__ import annotations

import math
from collections import Counter
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from tutor.question import Question, as_question
from tutor.text.lexical_terms import index_term, terms, trigrams, words
from tutor.text.normalize import normalize_for_matching

BM25_K1 = 1.2  # term-frequency saturation (Robertson's usual 1.2)
BM25_B = 0.75  # document-length normalisation
RRF_K = 60  # Cormack et al. (2009): fusion is flat for k in 20-100; 60 is their choice


# ---------------------------------------------------------------------------------------------- tokens
# words, terms and trigrams are defined in tutor/text/lexical_terms.py (the question is read with them once) and named
# here too, where the index's readers have always found them
__all__ = ["FuzzyMatch", "LexicalIndex", "ParaphraseScorer", "edit_distance", "paraphrase_score", "rrf", "terms",
           "trigram_jaccard", "trigrams", "words"]

def edit_distance(a: str, b: str) -> int:
    """Damerau-Levenshtein distance (optimal string alignment): insertions, deletions, substitutions and swaps of
    two neighbouring letters, each 1 ("respiraton" -> "respiration" = 1, "teh" -> "the" = 1)."""
    prev2: list[int] = []
    prev = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        cur = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            cur[j] = min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                cur[j] = min(cur[j], prev2[j - 2] + 1)
        prev2, prev = prev, cur
    return prev[len(b)]


def trigram_jaccard(a: str, b: str) -> float:
    """Jaccard similarity of two words' padded trigram sets, in [0, 1] (1 = same trigrams)."""
    ta, tb = set(trigrams(a)), set(trigrams(b))
    return len(ta & tb) / len(ta | tb) if ta or tb else 0.0


# ---------------------------------------------------------------------------------------------- seed design


def _paraphrase(q_norm: str, q_words: set[str], q_tris: set[str], t_norm: str, t_words: set[str],
                t_tris: set[str]) -> float:
    """The seed score from both texts' normalised form, word sets and trigram sets (made once by the caller)."""
    if not q_words or not t_words:
        return 0.0
    inter = len(q_words & t_words)
    return (0.4 * inter / len(q_words | t_words) + 0.3 * len(q_tris & t_tris) / len(q_tris | t_tris)
            + 0.2 * (q_norm in t_norm or t_norm in q_norm) + 0.1 * inter / min(len(q_words), len(t_words)))


def _seed_parts(text: str) -> tuple[str, set[str], set[str]]:
    norm = normalize_for_matching(text)
    ws = set(norm.split())
    return norm, ws, {g for w in ws for g in trigrams(w)}


def paraphrase_score(question: str, text: str) -> float:
    """The seed paraphrase score the hybrid retriever is measured against, in [0, 1]: token Jaccard 40% + trigram
    Jaccard 30% + substring 20% (one normalised text inside the other) + overlap coefficient 10%."""
    return _paraphrase(*_seed_parts(question), *_seed_parts(text))


# ---------------------------------------------------------------------------------------------- fusion


def rrf(rankings: Sequence[Sequence[Hashable]], k: int = RRF_K) -> list[tuple[Hashable, float]]:
    """Reciprocal rank fusion: each item scores sum(1 / (k + rank)) over the rankings it is in (rank 1-based),
    best first. Ties go to the item with the better single rank, then to the earlier ranking's order."""
    if k < 1:
        raise ValueError(f"rrf k must be at least 1, not {k}")
    score: dict[Hashable, float] = {}
    first: dict[Hashable, tuple[int, int]] = {}
    for li, ranking in enumerate(rankings):
        for r, item in enumerate(dict.fromkeys(ranking), start=1):  # an item counts once per ranking
            score[item] = score.get(item, 0.0) + 1.0 / (k + r)
            first[item] = min(first.get(item, (r, li)), (r, li))
    return sorted(score.items(), key=lambda kv: (-kv[1], first[kv[0]]))


# ---------------------------------------------------------------------------------------------- the index


@dataclass(frozen=True)
class FuzzyMatch:
    """A question word that is not in the shelf's vocabulary, and the shelf word it was read as."""

    word: str
    match: str
    similarity: float  # trigram Jaccard, in [0, 1]


class LexicalIndex:
    """BM25 and trigram indexes over one shelf's chunks (rows = chunk positions on the shelf).

    `include` marks the chunks indexed (the others score 0 and are never returned): the tutor indexes evidence
    chunks only, because a chunk that prints the exercise question matches it word for word and answers nothing.
    """

    def __init__(self, texts: Sequence[str], include: Sequence[bool] | None = None):
        n = len(texts)
        self.n_docs = n
        include = [True] * n if include is None else list(include)
        if len(include) != n:
            raise ValueError(f"{len(include)} include flags for {n} texts")
        self.included = np.asarray(include, dtype=bool)
        vocab: dict[str, int] = {}  # term -> row
        surface: dict[str, str] = {}  # word as written (normalised) -> its term
        rows, cols, tfs, lengths = [], [], [], np.zeros(n, dtype=np.float32)
        tri_vocab: dict[str, int] = {}
        t_rows, t_cols, t_vals = [], [], []
        for d, text in enumerate(texts):
            if not include[d]:
                continue
            ws = words(text)
            counts: Counter[str] = Counter()
            tri_counts: Counter[str] = Counter()
            for w in ws:
                t = index_term(w)
                if t is None:
                    continue
                counts[t] += 1
                surface.setdefault(w, t)
                tri_counts.update(trigrams(w))
            lengths[d] = sum(counts.values())
            for t, c in counts.items():
                rows.append(vocab.setdefault(t, len(vocab)))
                cols.append(d)
                tfs.append(c)
            for g, c in tri_counts.items():
                t_rows.append(d)
                t_cols.append(tri_vocab.setdefault(g, len(tri_vocab)))
                t_vals.append(1.0 + math.log(c))  # sublinear tf
        self.vocab, self.tri_vocab = vocab, tri_vocab
        # BM25 weight of every (term, chunk) pair, precomputed: a question's scores are a sum of a few rows
        n_in = self.n_indexed = int(self.included.sum())
        avgdl = float(lengths[self.included].mean()) if n_in and lengths[self.included].sum() else 1.0
        tf = np.asarray(tfs, dtype=np.float32)
        df = np.bincount(np.asarray(rows, dtype=np.int64), minlength=len(vocab)).astype(np.float32)
        self.idf = np.log1p((n_in - df + 0.5) / (df + 0.5)).astype(np.float32)  # Lucene's, never negative
        dl = lengths[np.asarray(cols, dtype=np.int64)] if cols else np.zeros(0, dtype=np.float32)
        norm = tf + BM25_K1 * (1 - BM25_B + BM25_B * dl / avgdl)
        w = self.idf[np.asarray(rows, dtype=np.int64)] * tf * (BM25_K1 + 1) / norm
        self.bm25_matrix = sparse.csr_matrix((w, (rows, cols)), shape=(len(vocab), n), dtype=np.float32)
        # chunk trigram TF-IDF, rows l2-normalised: the trigram score is a cosine in [0, 1]
        tri = sparse.csr_matrix((t_vals, (t_rows, t_cols)), shape=(n, len(tri_vocab)), dtype=np.float32)
        tri_df = np.bincount(np.asarray(t_cols, dtype=np.int64), minlength=len(tri_vocab)).astype(np.float32)
        self.tri_idf = np.log((n_in + 1) / (tri_df + 0.5)).astype(np.float32)
        tri = tri @ sparse.diags(self.tri_idf)
        norms = np.sqrt(np.asarray(tri.multiply(tri).sum(axis=1)).ravel())
        norms[norms == 0] = 1.0
        self.tri_matrix = sparse.csc_matrix(sparse.diags(1.0 / norms) @ tri, dtype=np.float32)
        # the fuzzy matcher: which shelf words hold each trigram
        self.surface = list(surface)
        s_rows, s_cols = [], []
        for i, w in enumerate(self.surface):
            for g in trigrams(w):
                s_rows.append(i)
                s_cols.append(tri_vocab[g])
        self.surface_tris = sparse.csc_matrix((np.ones(len(s_rows), dtype=np.float32), (s_rows, s_cols)),
                                              shape=(len(self.surface), len(tri_vocab)))
        self.surface_len = np.asarray([len(trigrams(w)) for w in self.surface], dtype=np.float32)
        self._surface_term = surface

    # ------------------------------------------------------------------ fuzzy words
    def fuzzy(self, word: str, min_similarity: float, limit: int = 1) -> list[FuzzyMatch]:
        """Shelf words whose trigram Jaccard with `word` is at least `min_similarity`, most similar first
        ("photosynthsis" -> "photosynthesis"). A word the shelf uses matches itself with 1.0."""
        word = normalize_for_matching(word)
        if word in self._surface_term:
            return [FuzzyMatch(word, word, 1.0)]
        ids = [self.tri_vocab[g] for g in trigrams(word) if g in self.tri_vocab]
        if not ids or not self.surface:
            return []
        overlap = np.asarray(self.surface_tris[:, ids].sum(axis=1)).ravel()
        jac = overlap / (self.surface_len + len(trigrams(word)) - overlap)
        best = np.flatnonzero(jac >= min_similarity)
        best = best[np.lexsort((best, -jac[best]))][:limit]  # most similar, then the earlier-seen word
        return [FuzzyMatch(word, self.surface[i], round(float(jac[i]), 4)) for i in best]

    def query_terms(self, question: Question | str, min_similarity: float) -> tuple[dict[str, float],
                                                                                  list[FuzzyMatch]]:
        """The question's BM25 terms with weights: 1 for a term the shelf uses; a word it never uses is read as the
        most similar shelf word (weight = its similarity) when that is at least `min_similarity`, else dropped.
        `question`: the pipeline's Question, whose words were read once (a string is read as Question.of reads it)."""
        out: dict[str, float] = {}
        fixes: list[FuzzyMatch] = []
        for w, t in as_question(question).index_words:
            if t in self.vocab:
                out[t] = max(out.get(t, 0.0), 1.0)
                continue
            if len(w) < 4 or not min_similarity or min_similarity > 1:  # short words have too few trigrams to guess
                continue
            for m in self.fuzzy(w, min_similarity):
                mt = self._surface_term[m.match]
                out[mt] = max(out.get(mt, 0.0), m.similarity)
                fixes.append(m)
        return out, fixes

    def correct(self, question: Question | str, min_similarity: float) -> tuple[str, list[FuzzyMatch]]:
        """The question with each misspelt word replaced by the shelf word it most resembles ("What is
        photosynthsis?" -> "What is photosynthesis?"), and the replacements made.

        Only a word of five letters or more whose term the shelf never uses, and with no digit, is replaced, and only
        by a shelf word that reaches `min_similarity` (trigram Jaccard), starts with the same letter and is one edit
        away (two for words of eight letters or more). A word the shelf never uses and resembles
        nothing on it stays as written, so the gate still counts it as unknown. Punctuation around a word is kept
        (the question's pieces, read once: Question.pieces)."""
        q = as_question(question)
        if not min_similarity or min_similarity > 1:
            return q.gate_text, []
        out: list[str] = []
        fixes: list[FuzzyMatch] = []
        for piece, lead, trail, word in q.pieces:
            if len(word) < 5 or any(ch.isdigit() for ch in word):  # "" (no word, or several) is shorter than five
                out.append(piece)
                continue
            t = index_term(word)
            if t is None or t in self.vocab:
                out.append(piece)
                continue
            # a slip of the keyboard is one or two edits away; a real word the shelf never uses ("electrolyte" beside
            # "electrolysis", "hydrogenation" beside "hydrogen") is further, and must stay unknown to the gate
            budget = 1 if len(word) < 8 else 2
            # and keeps its first letter: "irrelevant" -> "relevant", "uninvited" -> "invited" would turn the question
            # into its opposite
            match = next((m for m in self.fuzzy(word, min_similarity, limit=5)
                          if m.match != word and m.match[0] == word[0] and edit_distance(word, m.match) <= budget),
                         None)
            if match is None:
                out.append(piece)
                continue
            fixes.append(match)
            tail = piece[len(piece) - trail :] if trail else ""
            out.append(piece[:lead] + match.match + tail)
        return " ".join(out), fixes

    # ------------------------------------------------------------------ retrievers
    def bm25_scores(self, weights: dict[str, float]) -> np.ndarray:
        """BM25 score of every chunk for weighted query terms (higher is better; 0 = no term in common)."""
        ids = [self.vocab[t] for t in weights if t in self.vocab]
        if not ids:
            return np.zeros(self.n_docs, dtype=np.float32)
        q = np.asarray([weights[t] for t in weights if t in self.vocab], dtype=np.float32)
        return np.asarray(self.bm25_matrix[ids].T @ q).ravel()

    def trigram_scores(self, question: Question | str) -> np.ndarray:
        """Cosine of the question's and each chunk's trigram TF-IDF vectors, in [0, 1] (1 = same trigrams)."""
        counts = dict(as_question(question).trigram_counts)
        ids = [self.tri_vocab[g] for g in counts if g in self.tri_vocab]
        if not ids:
            return np.zeros(self.n_docs, dtype=np.float32)
        q = np.asarray([(1.0 + math.log(counts[g])) * self.tri_idf[self.tri_vocab[g]]
                        for g in counts if g in self.tri_vocab], dtype=np.float32)
        # trigrams the shelf never uses still lengthen the question vector (idf of a trigram in no chunk), so the
        # score stays a true cosine and a garbled question scores lower everywhere
        unseen_idf = math.log((self.n_indexed + 1) / 0.5)
        unknown = sum(((1.0 + math.log(c)) * unseen_idf) ** 2 for g, c in counts.items() if g not in self.tri_vocab)
        norm = math.sqrt(float(q @ q) + unknown)
        return np.asarray(self.tri_matrix[:, ids] @ (q / norm)).ravel()

    def top(self, scores: np.ndarray, n: int) -> list[tuple[int, float]]:
        """The n best indexed chunks with a positive score, best first (ties: shelf order)."""
        if n <= 0:
            return []
        cand = np.flatnonzero((scores > 0) & self.included)
        if len(cand) > n:
            cand = cand[np.argpartition(-scores[cand], n - 1)[:n]]
        cand = cand[np.lexsort((cand, -scores[cand]))]
        return [(int(i), float(scores[i])) for i in cand]

    def search_bm25(self, question: Question | str, n: int, min_similarity: float = 0.0) -> list[tuple[int, float]]:
        weights, _ = self.query_terms(question, min_similarity)
        return self.top(self.bm25_scores(weights), n)

    def search_trigram(self, question: Question | str, n: int) -> list[tuple[int, float]]:
        return self.top(self.trigram_scores(question), n)


class ParaphraseScorer:
    """The seed design as a retriever: every indexed chunk scored by `paraphrase_score` against the question, with
    the chunks' word and trigram sets made once (a plain loop over the shelf: for measurement, not for the tutor)."""

    def __init__(self, texts: Sequence[str], include: Sequence[bool] | None = None):
        self.rows = [i for i in range(len(texts)) if include is None or include[i]]
        self.parts = [_seed_parts(texts[i]) for i in self.rows]

    def search(self, question: str, n: int) -> list[tuple[int, float]]:
        q = _seed_parts(question)
        scored = [(row, score) for row, parts in zip(self.rows, self.parts) if (score := _paraphrase(*q, *parts)) > 0]
        return sorted(scored, key=lambda s: (-s[1], s[0]))[:n]
