"""The one validated policy: every threshold of the gate, the answerer and the answer checks.

Loaded from `tutor/policy.toml` (the calibrated defaults), then from a TOML file named by `TUTOR_POLICY`, then from
environment variables `TUTOR_<FIELD>` (e.g. `TUTOR_MIN_CONFIDENCE=0.5`). Impossible values are rejected at
construction with the field's name, so no check ever runs on a nonsense threshold. Long because every field is
declared here, with its range and the help the policy's pages show: one place for the whole policy.
"""
from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

from tutor.errors import PolicyError
from tutor.throttle import parse_networks

DEFAULT_POLICY_FILE = Path(__file__).with_name("policy.toml")


def _f(default: Any, desc: str, lo: float | None = None, hi: float | None = None, choices: tuple = ()) -> Any:
    return field(default=default, metadata={"desc": desc, "lo": lo, "hi": hi, "choices": choices})


@dataclass(frozen=True)
class Policy:
    """Thresholds. Scores are cosine similarities of unit vectors (higher is closer, in [-1, 1]) unless said."""

    # retrieval
    top_k: int = _f(12, "candidate chunks retrieved from the chosen shelf", 1, 200)
    max_evidence: int = _f(4, "most evidence chunks passed to the answerer", 1, 20)
    retriever: str = _f("hybrid", "how candidates are found: dense (cosine only) or hybrid (dense + BM25 + character "
                        "trigrams, fused by reciprocal rank); every candidate's score is its cosine either way",
                        choices=("hybrid", "dense"))
    dense_depth: int = _f(30, "hybrid: chunks taken from the dense (cosine) ranking before fusion", 1, 1000)
    lexical_depth: int = _f(30, "hybrid: chunks taken from each of the BM25 and trigram rankings before "
                                "fusion", 0, 1000)
    rrf_k: int = _f(60, "hybrid: reciprocal rank fusion constant k in 1/(k + rank); larger flattens the ranks", 1, 1000)
    fuzzy_min_similarity: float = _f(0.5, "hybrid: a question word the shelf never uses is read as the shelf word "
                                     "whose character-trigram Jaccard with it is at least this (0 switches it "
                                     "off)", 0, 1)
    correct_spelling: bool = _f(True, "hybrid: before retrieval and the gate, a misspelt question word (unknown to "
                                "the shelf, one or two letters from a shelf word within fuzzy_min_similarity) is read "
                                "as that word")
    # gate: context
    min_context_chars: int = _f(60, "least evidence text (characters) worth answering from", 0, 10_000)
    # gate: confidence bands
    min_confidence: float = _f(0.46, "best evidence score, less the unknown-term penalty, needed to answer", -1, 1)
    min_mean_confidence: float = _f(0.35, "mean score of the evidence chunks used", -1, 1)
    evidence_drop: float = _f(0.12, "a chunk is evidence if it scores within this of the best", 0, 2)
    evidence_fused_top: int = _f(0, "hybrid: once the gate has passed a short factual question on the band, the first "
                                    "this many chunks of the fused ranking (of the band's chapters) join the evidence "
                                    "the answer may quote, after the band (a chunk the question's words find that the "
                                    "cosine underrates); nothing the gate measured changes", 0, 20)
    near_miss_margin: float = _f(0.08, "chunks this far below the evidence band are logged as near misses", 0, 2)
    accept_definitions: bool = _f(True, "a sentence of the evidence that defines the term asked about is enough "
                                        "confidence")
    definition_lead: bool = _f(False, "a passed definition question's answer begins with a sentence that defines the "
                                      "term (tutor/safety/definitions.py), not the best-covering one or the span's")
    unknown_term_penalty: float = _f(0.3, "subtracted per unit of the question's weighted share of terms the shelf "
                                          "never uses", 0, 5)
    min_term_coverage: float = _f(0.1, "weighted share of the question's terms the evidence must contain", 0, 1)
    # gate: off-topic and wrong shelf
    offtopic_max_score: float = _f(0.3, "below this best score the question is off-topic for the shelf", -1, 1)
    wrong_shelf_margin: float = _f(0.08, "another shelf beating this one by this much names that shelf", 0, 2)
    # gate: optional checks
    require_clear_winner: bool = _f(False, "refuse when the top two chunks (different sections) score alike")
    min_top_ratio: float = _f(1.02, "top-1 over top-2 score ratio the clear-winner check needs", 1, 10)
    min_rerank_score: float = _f(2.0, "reranker relevance (0-3) a chunk needs to be evidence", 0, 3)
    # answerer
    answerer: str = _f("extractive", "which answerer writes answers", choices=("extractive", "local", "openai"))
    max_answer_sentences: int = _f(3, "most sentences in an extractive answer", 1, 10)
    min_direct_answer_probability: float = _f(0.1, "the reader's probability (0-1) of the answer span (its start and "
                                              "end softmaxes, multiplied) needed to show it as the bold first line",
                                              0, 1)
    # language model (the local and openai answerers, the reranker, the answerability judge)
    llm_max_tokens: int = _f(200, "most tokens the language model may write for one answer", 16, 4096)
    llm_timeout_s: float = _f(90.0, "seconds the language model has for one answer; past it the question is refused "
                                    "(llm_timeout)", 0.1, 3600)
    llm_context_tokens: int = _f(4096, "context window the local model is loaded with (prompt plus answer, in "
                                       "tokens)", 512, 131072)
    llm_threads: int = _f(0, "CPU threads for the local model (0: one per core)", 0, 256)
    llm_source_chars: int = _f(1500, "characters of each source shown to the language model", 100, 20000)
    rerank: bool = _f(False, "let the language model score the candidate chunks 0-3 (the gate's reranked tier)")
    rerank_mode: str = _f("per_chunk", "per_chunk: one yes/no call per candidate, relevance 3 x P(yes); batched: one "
                          "call scoring all 0-3 (the shipped 1.5B model gave every passage 3 that way)",
                          choices=("per_chunk", "batched"))
    rerank_candidates: int = _f(6, "most candidate chunks the reranker scores", 1, 20)
    rerank_timeout_s: float = _f(45.0, "seconds the reranker has; past it the gate falls back to retrieval "
                                       "scores", 0.1, 3600)
    judge: bool = _f(False, "ask the language model whether the best evidence states the answer, before answering")
    min_answerable_probability: float = _f(0.5, "the judge's probability of yes (0-1) the best evidence chunk "
                                                "needs", 0, 1)
    judge_chunks: int = _f(2, "evidence chunks the answerability judge reads (one call each, best first)", 1, 10)
    judge_timeout_s: float = _f(30.0, "seconds the judge has; past it the gate's decision stands, noted in "
                                      "diagnostics", 0.1, 3600)
    # the answerability reader (tutor/reader/model.py, a cross-encoder trained here): reads the best windows of the
    # evidence
    reader: bool = _f(True, "read the best evidence windows with the answerability reader after the gate passed, "
                      "before any answer is written (English questions and evidence)")
    min_reader_probability: float = _f(0.5, "the reader's probability (0-1) that some evidence window answers the "
                                       "question, needed to answer", 0, 1)
    min_rescue_confidence: float = _f(1.0, "a question the confidence check alone refused, its best evidence scoring "
                                      "at least this (after the unknown-term penalty), is read by the reader anyway "
                                      "(1: never)", 0, 1)
    min_rescue_reader_probability: float = _f(1.0, "the reader's probability such a question needs to be answered", 0,
                                              1)
    min_word_rescue_score: float = _f(1.0, "a question refused for its evidence's scores alone while one sentence "
                                      "holds every word of it, its best evidence scoring at least this, is read by "
                                      "the reader anyway (1: never)", 0, 1)
    min_word_rescue_reader_probability: float = _f(1.0, "the reader's probability such a question needs to be "
                                                   "answered", 0, 1)
    reader_windows: int = _f(3, "evidence windows (three sentences around a candidate sentence) the reader reads, "
                             "in one batch", 1, 10)
    reader_stop_early: bool = _f(True, "read the first window alone and the other reader_windows only when it falls "
                                 "short of the bar (the same decisions as reading them all at once)")
    reading_reader_windows: int = _f(0, "evidence windows the reader of readings reads for a Hindi or Hinglish "
                                     "question's English reading (0: as many as reader_windows)", 0, 10)
    reader_support: bool = _f(True, "in the answer checks, read each sentence an LLM wrote against the passage it "
                              "cites with the reader's support head")
    span_reader: bool = _f(True, "find the direct answer (the bold first line) and the sentence it leads with the span "
                           "reader trained on SQuAD 1.1 (data/models/span-reader), where it ships; the gate's reader "
                           "still decides whether to answer")
    min_thing_span_probability: float = _f(0.0, "a question typed in English that asks for something the book must "
                                           "name (who, where, when, which, how many: Question.asks_thing) is "
                                           "answered only when the span reader finds an answer of that kind in the "
                                           "sentence it leads with this probability (0-1; 0: not checked)", 0, 1)
    min_reading_thing_span_probability: float = _f(0.0, "the same for a Devanagari question's English reading that "
                                                   "asks for a thing, by the reader of readings' own span (0: not "
                                                   "checked)", 0, 1)
    reading_thing_span: bool = _f(False, "measure the span of the kind asked in a Devanagari reading's answer "
                                  "(thing_span_p; min_reading_thing_span_probability checks it)")
    reading_span_reader: bool = _f(False, "a Devanagari reading's span (its direct answer, and the span check where "
                                   "reading_thing_span is on) found by the span reader, as an English question's, "
                                   "not by the reader of readings")
    span_reader_windows: int = _f(1, "evidence windows the span reader reads for a short factual question's direct "
                                  "answer (the one with the reader's highest P leads; 0: as many as reader_windows)",
                                  0, 10)
    hindi_reader: bool = _f(True, "read a Hinglish or Devanagari question's English reading with the reader trained "
                            "also on questions written as readings (data/models/reader-readings), where it ships")
    min_hinglish_reader_probability: float = _f(0.0, "the reader's probability a Hinglish question's reading needs "
                                                "(0: min_reader_probability, as every question)", 0, 1)
    min_devanagari_reader_probability: float = _f(0.0, "the reader's probability a Devanagari question's dictionary "
                                                  "reading needs (0: min_reader_probability, as every question)", 0, 1)
    # the gate across languages (tutor/safety/crosslingual.py): what decides a Hindi question asked of a shelf with no
    # Hindi chapter, reading the student's own words
    cross_lingual: bool = _f(False, "let a cross-lingual judge decide Hindi (Devanagari) questions about English "
                             "chapters from the student's own words (the term checks do not apply across languages)")
    cross_lingual_judge: str = _f("e5", "e5: multilingual e5's cosine of the question and each evidence chunk; "
                                  "reader: the cross-lingual reader's P(the window answers)", choices=("e5", "reader"))
    cross_lingual_unit: str = _f("chunk", "what the e5 judge compares with the question: whole evidence chunks, or "
                                 "windows of three sentences (one centred on each sentence)",
                                 choices=("chunk", "window"))
    min_cross_lingual_score: float = _f(0.5, "the judge's score some evidence chunk (e5) or window (reader) needs "
                                        "for the question to be answered", 0, 1)
    min_cross_lingual_score_unread: float = _f(0.0, "the judge's score a Devanagari question whose reading left Hindi "
                                               "words unread needs; 0: min_cross_lingual_score", 0, 1)
    hinglish_cross_lingual_score: float = _f(0.0, "the judge's score a Hinglish question (Hindi in Latin letters) "
                                             "needs; 0: Hinglish questions are not judged across languages", 0, 1)
    hinglish_respelt_score: float = _f(0.0, "the judge's score a Hinglish question needs when the judge reads it "
                                       "respelt in Devanagari as Dakshina's annotators type (the shelf's English "
                                       "words kept); 0: not so read (hinglish_cross_lingual_score decides)", 0, 1)
    cross_lingual_chunks: int = _f(5, "evidence chunks the cross-lingual judge reads", 1, 20)
    min_support_probability: float = _f(0.5, "the support head's probability (0-1) each LLM sentence needs", 0, 1)
    min_sentence_coverage: float = _f(0.25, "weighted share of question terms the chosen sentences must cover", 0, 1)
    require_question_numbers: bool = _f(True, "numbers in the question must appear in the answer's sentences")
    require_negation_match: bool = _f(True, "a negated factual question needs a negation beside the answer")
    require_names: bool = _f(True, "proper names in the question must occur in the evidence")
    home_country: str = _f("India", "the country the books are written in: a question's name for it counts as "
                           "present in evidence that says 'our country' (require_names); empty: only as written")
    require_answer_type: bool = _f(True, "how-many, when and who questions need a number, a date or a name beside the "
                                         "answer")
    hinglish_dictionary: bool = _f(False, "read a Hinglish question's Hindi content words ('aasman neela kyon dikhta "
                                   "hai') through the English-Hindi dictionary on a shelf with no Hindi chapter; off: "
                                   "they are kept as typed and count as unknown (measured: tutor/policy.toml)")
    hindi_loanwords: bool = _f(False, "read an English word written in Devanagari ('केरोसिन', 'फ्लेमिंग') as the "
                               "shelf's word it sounds like, confirmed by multilingual e5 (tutor/text/loanwords.py), "
                               "where the dictionary has no entry for it")
    hindi_typed_english: bool = _f(False, "read an English word written in Devanagari that no dictionary reads "
                                   "('सर्किट', 'रिज़र्व') as most of Dakshina's annotators typed it in Latin letters, "
                                   "where that is an English word (tutor/text/hinglish_dictionary.py, "
                                   "english_as_typed)")
    min_loanword_similarity: float = _f(0.9, "e5's cosine a Devanagari word and the shelf's word that sounds like it "
                                        "need to be read as one", 0, 1)
    hindi_shabdanjali: bool = _f(False, "read a Devanagari question also with Shabdanjali's English-Hindi dictionary "
                                 "(data/lexicons/), after FreeDict: its senses count where FreeDict's are none the "
                                 "shelf uses (tutor/text/lexicons.py)")
    hindi_shabdanjali_first_listed: bool = _f(False, "with hindi_shabdanjali: Shabdanjali reads only the Hindi words "
                                              "and phrases FreeDict has no entry for (FreeDict's senses stand even "
                                              "where the shelf uses none of them)")
    hindi_sense_by_meaning: bool = _f(False, "choose a Devanagari word's English sense by what it means: multilingual "
                                      "e5's cosine of the Hindi and each English headword (data/lexicons/"
                                      "hindi-senses.tsv.gz), the shelf's use of the headword breaking near ties "
                                      "(sense_shelf_weight); off: the headword the shelf uses most")
    hindi_sense_by_neighbours: bool = _f(False, "two Devanagari words read side by side take the senses the shelf "
                                         "writes together ('food chain', not 'food series'), where their chosen senses "
                                         "are never written together and some others are")
    hindi_superlatives: bool = _f(False, "a Devanagari superlative (सबसे and an adjective) read as the English "
                                  "superlative the shelf writes ('सबसे बड़ा' -> 'largest'); off: सबसे dropped and "
                                  "the adjective read alone ('big')")
    hindi_which_noun: bool = _f(False, "a Devanagari reading's leading 'which' or 'how many' followed by the word it "
                                "asks about, as English writes it ('किस इंजीनियर ने ...' -> 'which engineer ...'), and "
                                "a bare कौन before है/था/थे read 'who'; off: the word stays where Hindi puts it")
    hindi_participles: bool = _f(False, "a Devanagari participle before है/था/थे read as its verb ('आते हैं' -> "
                                 "'come', not the noun आटा, 'flour'), and a bare कौन before one read 'who'")
    hinglish_superlatives: bool = _f(False, "the same for a Hinglish superlative ('sabse bada' -> 'largest')")
    hinglish_which_noun: bool = _f(False, "the same as hindi_which_noun for a Hinglish reading ('kis river basin me' "
                                   "-> 'which river ...', a bare 'kaun tha' -> 'who')")
    hinglish_participles: bool = _f(False, "the same as hindi_participles for a Hinglish reading ('aate hain' -> "
                                    "'come'; 'kaun khata hai' -> 'who eat')")
    hinglish_offshelf_english: bool = _f(False, "an English word the shelf does not use, typed in a Hinglish "
                                         "question, read as the Hindi word people type so where the dictionary reads "
                                         "it ('dank' -> डंक -> 'sting')")
    hinglish_name_words: bool = _f(False, "a word the shelf writes only inside names, typed in lower case in a "
                                   "Hinglish question, read as Hindi ('desh' -> 'country', though the book has "
                                   "'Desh' in a title); off: any word the shelf uses is kept as typed")
    hinglish_sense_by_meaning: bool = _f(False, "the same for a Hinglish word's English sense, by way of its "
                                         "Devanagari spelling")
    hindi_gloss_replaces: bool = _f(False, "a Devanagari question's bracketed English gloss of whole words "
                                    "('प्रतिवर्ती क्रिया (reflex action)') replaces the dictionary's reading of the "
                                    "Hindi words just before it; off: only the words no dictionary read")
    hinglish_common_spelling: bool = _f(False, "of the Devanagari words Dakshina lists for a typed Hindi word, read "
                                        "the commonest first (tutor/text/commonness.py: e5's tokenizer's "
                                        "probability), not the most consistently typed: 'taar' तार wire, not ताड़ palm; "
                                        "for a shelf of English chapters")
    hinglish_light_verbs: bool = _f(False, "read a Hinglish word before a light verb ('theek karte') as the pair the "
                                    "dictionary lists (ठीक करना, 'correct'), by its Devanagari spelling, before the "
                                    "word alone")
    hindi_rescue: bool = _f(False, "a Devanagari question's English reading that the confidence check alone refused "
                            "may be rescued as an English question is (min_rescue_confidence, "
                            "min_rescue_reader_probability), by the reader of readings")
    hinglish_rescue: bool = _f(False, "the same for a Hinglish question's reading")
    sense_shelf_weight: float = _f(0.02, "with *_sense_by_meaning: how much log(1 + the shelf's chunks that use an "
                                   "English headword) adds to its cosine", 0, 1)
    hinglish_shabdanjali: bool = _f(False, "read a Hinglish question's Hindi words (hinglish_dictionary) also with "
                                    "Shabdanjali's dictionary, after FreeDict")
    hinglish_dakshina: bool = _f(False, "read a Hinglish question's Hindi content words through Dakshina's "
                                 "romanisations (data/lexicons/): the Devanagari most people typed that way, then the "
                                 "dictionary; before the romanised dictionary's own phrases. On a shelf with Hindi "
                                 "chapters, the whole question is respelt in Devanagari that way instead")
    hinglish_transliteration: bool = _f(False, "read a Hinglish content word that neither Dakshina nor the romanised "
                                        "dictionary reads by spelling it in Devanagari with the model learnt from "
                                        "Dakshina's pairs (data/lexicons/latin-devanagari.tsv.gz), among the "
                                        "dictionary's words")
    min_transliteration_score: float = _f(-0.3, "the learnt spelling's log probability per Latin letter a Hinglish "
                                          "word's Devanagari needs to be read (0 is certain)", -10, 0)
    # follow-up questions (tutor/retrieval/followup.py)
    resolve_followups: bool = _f(True, "read a follow-up ('What are its uses?', 'Why?', 'And in plants?') against the "
                                 "previous answered turn before retrieval; off: every question is judged alone")
    followup_same_chapter: bool = _f(True, "a resolved follow-up is answered from the previous turn's evidence chapter "
                                     "when retrieval finds evidence there")
    min_followup_own_words: float = _f(1.0, "share of a follow-up's own words (its aspect: 'uses', 'discovered'; not "
                                       "the earlier topic) the evidence must contain", 0, 1)
    followup_kinds: bool = _f(True, "a follow-up that only asks 'Why?', 'Give an example.' or 'Tell me more.' is "
                              "answered from the book's sentences beside the previous answer (tutor/retrieval/kinds.py)"
                              "; off: it is resolved and retrieved like any follow-up")
    followup_kind_sentences: int = _f(2, "most sentences quoted for 'Why?' or 'Give an example.'", 1, 10)
    followup_more_sentences: int = _f(3, "most sentences quoted for 'Tell me more.'", 1, 10)
    followup_kind_window: int = _f(40, "how far (in sentences of the chapter) a reason or an example that names the "
                                   "whole topic may be from the previous answer", 1, 10_000)
    # answer checks
    min_token_overlap: float = _f(0.6, "share of a sentence's content words found in the chunk it cites", 0, 1)
    min_window_overlap: float = _f(1.0, "share of a sentence's content words found in one place of the text it cites "
                                   "(a sentence or two neighbours): a paraphrase may not gather its words across a "
                                   "chunk", 0, 1)
    min_sentence_similarity: float = _f(0.5, "cosine similarity of a sentence to the chunk it cites", -1, 1)
    min_supported_share: float = _f(1.0, "share of answer sentences that must be supported", 0, 1)
    min_answer_word_share: float = _f(0.8, "share of the answer's content words found in the cited text", 0, 1)
    # scale
    approximate_index_above: int = _f(200_000, "shelves larger than this use an approximate IVF index (8-bit codes, "
                                               "exact re-scoring) instead of exact search", 1, 10**9)
    pg_ef_search: int = _f(200, "with the shelves in PostgreSQL: pgvector's hnsw.ef_search, how widely a question's "
                           "HNSW search looks (higher finds more of the exact nearest chunks, slower)", 10, 1000)
    # limits: what one student, one upload or one stranger at the sign-in form may cost the server
    max_question_chars: int = _f(1000, "longest question accepted (characters, after trimming); a longer one is "
                                 "refused (question_too_long) before any embedding, and the chat box says the "
                                 "limit", 1, 10_000_000)
    max_passage_chars: int = _f(5000, "longest selected or pasted passage accepted (characters); a longer one is "
                                "refused (passage_too_long) before any embedding", 1, 1_000_000)
    question_time_budget_s: float = _f(120.0, "seconds one question may take; past it the work stops at the next stage "
                                       "and the question is refused (question_timeout)", 0.1, 3600)
    link_domains: str = _f("", "comma-separated web domains (e.g. ncert.nic.in) whose addresses in book text stay "
                           "clickable; any other address in quoted text or questions is shown as plain text")
    login_free_failures: int = _f(3, "wrong staff passwords allowed (per account and client address) before a "
                                     "delay", 0, 1000)
    login_delay_s: float = _f(2.0, "delay after the first failure past the free ones; it doubles with each further "
                                   "one", 0, 3600)
    login_max_failures: int = _f(10, "wrong staff passwords (per account and client address) that lock the "
                                     "sign-in", 1, 100_000)
    login_lockout_s: float = _f(900.0, "seconds the sign-in stays locked after login_max_failures", 1, 86_400)
    trusted_proxies: str = _f("", "comma-separated addresses or networks of reverse proxies (e.g. 127.0.0.1,::1) "
                              "whose X-Forwarded-For names the client the sign-in throttle counts against; empty: "
                              "the header is ignored")
    max_pdf_pages: int = _f(400, "most pages a chapter PDF may have (too_many_pages)", 1, 100_000)
    max_pdf_mb: float = _f(50.0, "largest chapter PDF accepted, in megabytes (too_large)", 0.001, 10_000)
    max_ingest_s: float = _f(300.0, "seconds one chapter may take to be read and embedded (OCR of damaged Hindi "
                                    "pages not counted); past it the chapter is refused (too_slow) and its shelf left "
                                    "as it was", 1, 86_400)
    # the shared PostgreSQL database (TUTOR_DATABASE_URL; tutor/store/pg_pool.py): one pool per process
    database_pool_min_size: int = _f(1, "connections the pool keeps open to the database even when idle", 0, 1000)
    database_pool_max_size: int = _f(10, "most connections one app process opens to the database (at least "
                                         "database_pool_min_size)", 1, 1000)
    database_pool_timeout_s: float = _f(3.0, "seconds a question, audit write or shelf read waits for a connection; "
                                             "past it the database counts as unreachable: the question is refused "
                                             "(library_unreachable) and saved to the spool", 0.1, 600)
    database_connect_timeout_s: float = _f(3.0, "seconds one new connection may take to open (libpq's "
                                                "connect_timeout, whole seconds, at least 1)", 1, 600)
    database_statement_timeout_s: float = _f(0.0, "seconds one statement may run before the server cancels it (0: no "
                                                  "limit; a large shelf's index build takes minutes on the same "
                                                  "connections)", 0, 86_400)
    database_lock_timeout_s: float = _f(0.0, "seconds one statement may wait for a lock (0: no limit)", 0, 86_400)
    database_keepalives_idle_s: int = _f(30, "TCP keepalive: seconds of silence before the first probe, so a server "
                                             "that vanished without closing the connection is noticed", 1, 86_400)
    database_keepalives_interval_s: int = _f(10, "TCP keepalive: seconds between unanswered probes", 1, 3600)
    database_keepalives_count: int = _f(3, "TCP keepalive: unanswered probes before the connection counts as "
                                           "dead", 1, 100)
    database_transaction_pooler: bool = _f(False, "TUTOR_DATABASE_URL names a transaction pooler (PgBouncer, "
                                           "pool_mode = transaction): the statement and lock timeouts are not sent "
                                           "as startup options (PgBouncer refuses them; set them on the database "
                                           "role) and returned connections are not reset (the pooler owns them)")
    ready_port: int = _f(0, "port of the readiness probe (GET /ready: 200 while the database answers, 503 when it "
                            "does not) that app.py starts once per process; 0: none (TUTOR_READY_PORT)", 0, 65535)
    ready_timeout_s: float = _f(2.0, "seconds the readiness probe gives the database to answer SELECT 1", 0.1, 60)
    release_refresh_s: float = _f(30.0, "seconds between two reads of the released sentences from the audit database "
                                        "(tutor/audit/releases.py): how soon a release or withdrawal made by another "
                                        "app process reaches this one", 1, 86_400)
    # per embedding model: its cosine scores sit in its own range, so score thresholds are calibrated per model
    models: dict = field(default_factory=dict, hash=False, metadata={
        "desc": "per embedding model (as a shelf's manifest names it), the settings that differ for shelves built "
                "with it: a TOML table [models.\"<name>\"]; see for_model", "lo": None, "hi": None, "choices": (),
        "table": True})

    def __post_init__(self) -> None:
        for f in fields(self):
            if f.metadata.get("table"):
                continue
            v = getattr(self, f.name)
            lo, hi, choices = f.metadata["lo"], f.metadata["hi"], f.metadata["choices"]
            if isinstance(f.default, bool):
                if not isinstance(v, bool):
                    raise PolicyError(f"policy {f.name} must be true or false, not {v!r}")
                continue
            if choices:
                if v not in choices:
                    raise PolicyError(f"policy {f.name} must be one of {', '.join(choices)}, not {v!r}")
                continue
            if isinstance(f.default, int) and (not isinstance(v, int) or isinstance(v, bool)):
                raise PolicyError(f"policy {f.name} must be a whole number, not {v!r}")
            if isinstance(f.default, float) and (not isinstance(v, (int, float)) or isinstance(v, bool) or v != v):
                raise PolicyError(f"policy {f.name} must be a number, not {v!r}")
            if lo is not None and v < lo or hi is not None and v > hi:
                raise PolicyError(f"policy {f.name}={v} is outside [{lo}, {hi}]: {f.metadata['desc']}")
        try:
            parse_networks(self.trusted_proxies)
        except ValueError as e:
            raise PolicyError(f"policy trusted_proxies (TUTOR_TRUSTED_PROXIES): {e}") from e
        if not isinstance(self.models, dict):
            raise PolicyError(f"policy models must be a table of tables, not {self.models!r}")
        for model in self.models:
            self.for_model(model)  # every model's settings are validated like the base ones

    def for_hindi(self, hinglish: bool) -> Policy:
        """The policy a Hindi question's English reading is read under: no low-confidence rescue
        (GateDecision.rescuable) unless `hindi_rescue` (Devanagari) or `hinglish_rescue` says so (the rescue for every
        word, min_word_rescue_score, as an English question's); a Hinglish one's
        reader threshold its own (min_hinglish_reader_probability, when set), a Devanagari one's too
        (min_devanagari_reader_probability), and the windows read `reading_reader_windows` (when set)."""
        values: dict[str, float] = {} if (self.hinglish_rescue if hinglish else self.hindi_rescue) else {
            "min_rescue_confidence": 1.0}
        if hinglish and self.min_hinglish_reader_probability:
            values["min_reader_probability"] = self.min_hinglish_reader_probability
        if not hinglish and self.min_devanagari_reader_probability:
            values["min_reader_probability"] = self.min_devanagari_reader_probability
        if self.reading_reader_windows:
            values["reader_windows"] = self.reading_reader_windows
        return self.with_values(**values)

    def for_model(self, name: str) -> Policy:
        """The policy for a shelf built with embedding model `name`: this policy with that model's settings on top
        (the same policy when the model has none). Environment variables override the base settings only."""
        over = self.models.get(name)
        if not over:
            return self
        if not isinstance(over, dict):
            raise PolicyError(f"policy models.{name!r} must be a table of settings, not {over!r}")
        known = {f.name for f in fields(self) if not f.metadata.get("table")}
        unknown = set(over) - known
        if unknown:
            raise PolicyError(f"unknown policy setting(s) for model {name!r}: {', '.join(sorted(unknown))}")
        try:
            return replace(self, models={}, **over)
        except PolicyError as e:
            raise PolicyError(f"model {name!r}: {e}") from e

    @classmethod
    def describe(cls) -> dict[str, str]:
        return {f.name: f.metadata["desc"] for f in fields(cls)}

    def with_values(self, **values: Any) -> Policy:
        unknown = set(values) - {f.name for f in fields(self)}
        if unknown:
            raise PolicyError(f"unknown policy setting(s): {', '.join(sorted(unknown))}")
        return replace(self, **values)

    def to_toml(self) -> str:
        def lit(v: Any) -> str:
            return ("true" if v else "false") if isinstance(v, bool) else (f'"{v}"' if isinstance(v, str) else repr(v))

        lines = []
        for f in fields(self):
            if f.metadata.get("table"):
                continue
            lines.append(f"# {f.metadata['desc']}\n{f.name} = {lit(getattr(self, f.name))}")
        for model, over in self.models.items():  # TOML tables come after the top-level keys
            lines.append(f'[models."{model}"]\n' + "\n".join(f"{k} = {lit(v)}" for k, v in over.items()))
        return "\n".join(lines) + "\n"


def _coerce(name: str, raw: str, default: Any) -> Any:
    try:
        if isinstance(default, bool):
            if raw.lower() in ("1", "true", "yes", "on"):
                return True
            if raw.lower() in ("0", "false", "no", "off"):
                return False
            raise ValueError(raw)
        if isinstance(default, int):
            return int(raw)
        if isinstance(default, float):
            return float(raw)
        return raw
    except ValueError as e:
        raise PolicyError(f"TUTOR_{name.upper()}={raw!r} is not a valid value") from e


def load_policy(path: str | Path | None = None, env: dict[str, str] | None = None) -> Policy:
    """Defaults from the shipped TOML, then `path` (or `$TUTOR_POLICY`), then `TUTOR_<FIELD>` variables."""
    env = dict(os.environ if env is None else env)
    values: dict[str, Any] = {}
    for p in (DEFAULT_POLICY_FILE, path or env.get("TUTOR_POLICY")):
        if p and Path(p).exists():
            with open(p, "rb") as fh:
                values.update(tomllib.load(fh))
        elif p:
            raise PolicyError(f"policy file {p} does not exist")
    base = Policy()
    for f in fields(Policy):
        if f.metadata.get("table"):
            continue
        key = f"TUTOR_{f.name.upper()}"
        if key in env:
            values[f.name] = _coerce(f.name, env[key], f.default)
    return base.with_values(**values)
