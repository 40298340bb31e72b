"""The lexical side of a database shelf (tutor/store/pg_shelf.py): the BM25 and trigram postings of
tutor/retrieval/lexical.py's LexicalIndex, written once at ingest into the version's own tables and summed in SQL
per question, so no replica rebuilds (or holds) a shelf's postings.

Why postings rather than PostgreSQL's own full-text search: ts_rank is not BM25 and the bundled server has no pg_trgm,
so the database's ranking would differ from the FAISS backend's and the gate's decisions with it. The postings are
LexicalIndex's precomputed weights themselves (BM25 weight of a term in a chunk; a chunk's l2-normalised trigram
TF-IDF), so a question's scores are the same sums the in-process index makes (on a shelf of more than
PRUNE_MIN_DOCS chunks, far above any NCERT shelf, without the question's most common trigrams). What a replica
keeps is the shelf's vocabulary (terms, trigrams with their IDF, the words as written for the spelling matcher),
which grows with the number of distinct words, not with the shelf: the query side (fuzzy matching, spelling repair,
the question's trigram vector) is LexicalIndex's own code over it.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Sequence

import numpy as np
from scipy import sparse

from tutor.question import Question, as_question
from tutor.retrieval.lexical import LexicalIndex, trigrams

BM25, TRIGRAM = 1, 2  # the `kind` of a posting
# a question's trigrams in more than PRUNE_MAX_SHARE of a shelf's chunks are not summed beyond PRUNE_MIN_DOCS chunks
# (PgLexical._rare; none of the NCERT shelves, under 1,000 chunks each, comes near it)
PRUNE_MIN_DOCS, PRUNE_MAX_SHARE, PRUNE_KEEP = 50_000, 0.2, 8
TERM, GRAM, SURFACE = 1, 2, 3  # the `kind` of a vocabulary row


def lexical_tables_sql(table: str) -> str:
    """The version's postings (kind, key = term or trigram id, row, weight) and vocabulary tables; `table` is the
    version's chunk table, a name made by the store (never user input)."""
    return (f"CREATE TABLE {table}_post (kind SMALLINT NOT NULL, key INTEGER NOT NULL, row INTEGER NOT NULL,"
            f" w REAL NOT NULL);"
            f"CREATE TABLE {table}_vocab (kind SMALLINT NOT NULL, id INTEGER NOT NULL, word TEXT NOT NULL,"
            f" term TEXT, idf REAL)")


def lexical_index_sql(table: str) -> str:
    """Built after the load, as the vector index: one sorted pass instead of a b-tree grown row by row."""
    return f"CREATE INDEX ON {table}_post (kind, key) INCLUDE (row, w)"


def write_lexical(cur, table: str, index: LexicalIndex) -> int:
    """COPY one shelf version's postings and vocabulary (the writer's in-process index) into its tables; returns the
    number of postings written."""
    bm25 = index.bm25_matrix.tocoo()  # rows: terms, cols: chunks
    tri = index.tri_matrix.tocoo()  # rows: chunks, cols: trigrams
    n = 0
    with cur.copy(f"COPY {table}_post (kind, key, row, w) FROM STDIN WITH (FORMAT BINARY)") as copy:
        copy.write(_BINARY_HEADER)
        for kind, keys, rows, ws in ((BM25, bm25.row, bm25.col, bm25.data), (TRIGRAM, tri.col, tri.row, tri.data)):
            # a million postings at a time, each slice filtered alone: filtering the whole arrays for every slice
            # made a shelf's write quadratic in its postings and held full-size copies (100M postings at 1M chunks)
            for start in range(0, len(ws), 1_000_000):
                part = slice(start, start + 1_000_000)
                keep = ws[part] > 0
                copy.write(_binary_rows(kind, keys[part][keep], rows[part][keep], ws[part][keep]))
                n += int(keep.sum())
        copy.write(b"\xff\xff")  # the binary format's trailer: -1 fields
    with cur.copy(f"COPY {table}_vocab (kind, id, word, term, idf) FROM STDIN") as copy:
        for term, i in index.vocab.items():
            copy.write_row((TERM, i, term, None, None))
        for gram, i in index.tri_vocab.items():
            copy.write_row((GRAM, i, gram, None, float(index.tri_idf[i])))
        for i, word in enumerate(index.surface):
            copy.write_row((SURFACE, i, word, index._surface_term[word], None))
    return n


# PostgreSQL's binary COPY, made by numpy: a per-row write_row costs about 10 s a million postings, and a shelf has
# hundreds of postings a chunk. Each row: field count, then each field's length and big-endian value.
_BINARY_HEADER = b"PGCOPY\n\xff\r\n\x00" + bytes(8)
_POSTING = np.dtype([("n", ">i2"), ("l1", ">i4"), ("kind", ">i2"), ("l2", ">i4"), ("key", ">i4"), ("l3", ">i4"),
                     ("row", ">i4"), ("l4", ">i4"), ("w", ">f4")])


def _binary_rows(kind: int, keys: np.ndarray, rows: np.ndarray, ws: np.ndarray) -> bytes:
    out = np.empty(len(keys), dtype=_POSTING)
    out["n"], out["l1"], out["l2"], out["l3"], out["l4"] = 4, 2, 4, 4, 4
    out["kind"], out["key"], out["row"], out["w"] = kind, keys, rows, ws
    return out.tobytes()


class PgLexical(LexicalIndex):
    """A shelf version's LexicalIndex read back from the database: the vocabulary in memory, the postings summed
    in SQL by `run(sql, args)` (the store's read connection). Same scores as the in-process index, to float32
    rounding: BM25 unbounded (higher is better), trigram a cosine in [0, 1] (beyond PRUNE_MIN_DOCS chunks a lower
    bound of it: `_rare`)."""

    def __init__(self, table: str, n_docs: int, n_indexed: int, vocab_rows: Sequence[tuple],
                 run: Callable[[str, dict], list[tuple]]):
        # not LexicalIndex.__init__, which counts the texts: the counts are in the database
        self.table, self.n_docs, self.n_indexed, self._run = table, n_docs, n_indexed, run
        self.vocab, self.tri_vocab, surface = {}, {}, {}
        idf: dict[int, float] = {}
        for kind, i, word, term, w in vocab_rows:
            if kind == TERM:
                self.vocab[word] = i
            elif kind == GRAM:
                self.tri_vocab[word] = i
                idf[i] = w
            else:
                surface[i] = (word, term)
        self.tri_idf = np.zeros(len(self.tri_vocab), dtype=np.float32)
        for i, w in idf.items():
            self.tri_idf[i] = w
        self.surface = [surface[i][0] for i in range(len(surface))]
        self._surface_term = {w: t for w, t in surface.values()}
        s_rows, s_cols = [], []
        for i, w in enumerate(self.surface):
            for g in trigrams(w):
                s_rows.append(i)
                s_cols.append(self.tri_vocab[g])
        self.surface_tris = sparse.csc_matrix((np.ones(len(s_rows), dtype=np.float32), (s_rows, s_cols)),
                                              shape=(len(self.surface), len(self.tri_vocab)))
        self.surface_len = np.asarray([len(trigrams(w)) for w in self.surface], dtype=np.float32)

    def _top(self, kind: int, weights: dict[int, float], n: int) -> list[tuple[int, float]]:
        """The n chunks with the largest positive sum of weight x posting over `weights` (key -> query weight), best
        first, ties in shelf order (as LexicalIndex.top)."""
        if n <= 0 or not weights:
            return []
        keys, qs = list(weights), [float(weights[k]) for k in weights]
        sql = (f"SELECT p.row, sum(p.w * q.w)::real AS s FROM {self.table}_post p"
               f" JOIN unnest(%(keys)s::int[], %(qs)s::float8[]) AS q(key, w) ON p.key = q.key"
               f" WHERE p.kind = %(kind)s GROUP BY p.row HAVING sum(p.w * q.w) > 0 ORDER BY s DESC, p.row LIMIT %(n)s")
        return [(int(r), float(s)) for r, s in self._run(sql, {"keys": keys, "qs": qs, "kind": kind, "n": int(n)})]

    def search_bm25(self, question: Question | str, n: int, min_similarity: float = 0.0) -> list[tuple[int, float]]:
        weights, _ = self.query_terms(question, min_similarity)
        return self._top(BM25, {self.vocab[t]: w for t, w in weights.items() if t in self.vocab}, n)

    def search_trigram(self, question: Question | str, n: int) -> list[tuple[int, float]]:
        counts = dict(as_question(question).trigram_counts)  # the question's trigrams, read once
        known = {g: (1.0 + math.log(c)) * float(self.tri_idf[self.tri_vocab[g]])
                 for g, c in counts.items() if g in self.tri_vocab}
        if not known:
            return []
        # as LexicalIndex.trigram_scores: trigrams the shelf never uses still lengthen the question vector
        unseen_idf = math.log((self.n_indexed + 1) / 0.5)
        unknown = sum(((1.0 + math.log(c)) * unseen_idf) ** 2 for g, c in counts.items() if g not in self.tri_vocab)
        norm = math.sqrt(sum(v * v for v in known.values()) + unknown)
        return self._top(TRIGRAM, self._rare({self.tri_vocab[g]: v / norm for g, v in known.items()}), n)

    def _rare(self, weights: dict[int, float]) -> dict[int, float]:
        """On a shelf of more than PRUNE_MIN_DOCS indexed chunks, a question's trigrams that occur in more than
        PRUNE_MAX_SHARE of them are left out of its sum (or, when every one is that common, all but the
        PRUNE_KEEP rarest): their postings cover most of a large shelf, so summing them cost most of a question's
        lexical time (p50 532 / p95 1,278 ms at 100,000 synthetic chunks), for the smallest weights. The scores are
        then a lower bound of the trigram cosine (the question's norm still counts every trigram). Below the size,
        every NCERT shelf, the sum is whole: the same scores as the in-process index."""
        if self.n_indexed <= PRUNE_MIN_DOCS:
            return weights
        by_df = sorted(weights, key=lambda key: -float(self.tri_idf[key]))  # rarest first: idf falls as df grows
        # idf = log((n + 1) / (df + 0.5)), so df > share * n exactly where idf < log((n + 1) / (share * n + 0.5))
        floor = math.log((self.n_indexed + 1) / (PRUNE_MAX_SHARE * self.n_indexed + 0.5))
        rare = [key for key in by_df if float(self.tri_idf[key]) >= floor] or by_df[:PRUNE_KEEP]
        return {key: weights[key] for key in rare}

    def bm25_scores(self, weights: dict[str, float]) -> np.ndarray:
        raise NotImplementedError("a database shelf's BM25 is summed in SQL: use search_bm25")

    def trigram_scores(self, question: Question | str) -> np.ndarray:
        raise NotImplementedError("a database shelf's trigram scores are summed in SQL: use search_trigram")
