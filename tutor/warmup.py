"""Warming the shelves at server start, so no student pays the first-question cost (issue 37: 0.2-3.9 s for the first
question on a shelf): every shelf loaded and checked, its term statistics and lexical index built, each
embedder (MiniLM, e5 for Hindi questions) run once, and the dictionaries Hindi and Hinglish questions are read with
loaded, in a background thread while the first page draws.

Nothing is asked of the tutor itself, so the audit log records no question; a shelf that cannot be read is
reported by name and left for the page to report as it does today.
"""
from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass, field

log = logging.getLogger(__name__)

PROBE = "warm up"  # a question-sized text: its vector is thrown away


@dataclass
class WarmReport:
    """What a warm-up did: the shelves now cached (class/subject), those that could not be read and why, seconds."""

    shelves: list[str] = field(default_factory=list)
    failed: dict[str, str] = field(default_factory=dict)
    seconds: float = 0.0
    done: bool = False
    readings: list[str] = field(default_factory=list)  # the Hindi dictionaries loaded (warm_readings)


def warm_library(library, report: WarmReport | None = None) -> WarmReport:
    """Every shelf of `library` loaded into its cache, with what a first question builds on it (term statistics,
    the lexical index, a search: the shelf's embedder and FAISS index touched)."""
    report = report or WarmReport()
    t0 = time.perf_counter()
    for key in library.keys():
        name = f"{key.klass}/{key.subject}"
        try:
            shelf = library.shelf(key.klass, key.subject)
            library.term_stats(shelf)
            _ = shelf.lexical
            library.search(PROBE, key.klass, key.subject)
            report.shelves.append(name)
        except Exception as e:  # noqa: BLE001 - a damaged shelf is the page's to report; the others still warm
            report.failed[name] = f"{type(e).__name__}: {e}"
    report.seconds += time.perf_counter() - t0
    return report


def warm_readings(policy) -> list[str]:
    """The dictionaries a Hindi or Hinglish question is read with (tutor/text/readings.py), loaded as `policy` reads
    them: FreeDict and Shabdanjali merged, the English words Dakshina's annotators typed for Devanagari ones (0.4 s),
    Dakshina's romanisations with e5's tokenizer that ranks them (tutor/text/commonness.py), the romanised index and
    the learnt spelling, and the senses' cosines
    (tutor/text/senses.py) where a reading chooses senses by meaning. The first such question paid for them (0.6 s for
    Devanagari, 2.8 s more for Hinglish, measured 2026-11-27). Returns what was loaded."""
    from tutor.text.commonness import log_probability
    from tutor.text.hinglish_dictionary import dakshina, latin_index, learnt_spelling, typed_spellings
    from tutor.text.lexicons import english_words, reading_dictionary
    from tutor.text.senses import meanings

    loaded = []
    if (policy.hindi_sense_by_meaning or policy.hinglish_sense_by_meaning) and meanings().table:
        loaded.append("senses' cosines")
    if reading_dictionary(policy.hindi_shabdanjali) is not None:
        loaded.append("Devanagari dictionary")
        if policy.hindi_typed_english and english_words() is not None and typed_spellings():
            loaded.append("typed spellings")
    d = reading_dictionary(policy.hinglish_shabdanjali) if policy.hinglish_dictionary else None
    if d is not None:
        latin_index(d)
        loaded.append("Hinglish dictionary")
        if policy.hinglish_dakshina and dakshina() is not None:
            loaded.append("Dakshina")
            if policy.hinglish_common_spelling and log_probability("तार") is not None:
                loaded.append("word commonness")
        if policy.hinglish_transliteration and learnt_spelling(d, policy.min_transliteration_score) is not None:
            loaded.append("learnt spelling")
    return loaded


def warm_tutor(tutor, report: WarmReport | None = None) -> WarmReport:
    """`warm_library` on the tutor's library, then its cross-lingual judge's embedder (e5 loads on first use) and the
    dictionaries its policy reads Hindi questions with (`warm_readings`)."""
    report = warm_library(tutor.library, report)
    t0 = time.perf_counter()
    judge = getattr(tutor, "cross_judge", None)
    embedder = getattr(judge, "embedder", None) if judge is not None else None
    if embedder is not None and hasattr(embedder, "embed_query"):
        try:
            embedder.embed_query([PROBE])
        except Exception as e:  # noqa: BLE001 - Hindi questions will load it themselves
            report.failed["cross-lingual judge"] = f"{type(e).__name__}: {e}"
    policy = getattr(tutor, "policy", None)
    if policy is not None:
        try:
            report.readings = warm_readings(policy)
        except Exception as e:  # noqa: BLE001 - Hindi questions will load them themselves, and say what fails
            report.failed["Hindi readings"] = f"{type(e).__name__}: {e}"
    report.seconds += time.perf_counter() - t0
    report.done = True
    log.info("warmed %d shelves in %.1f s%s", len(report.shelves), report.seconds,
             f" ({len(report.failed)} could not be)" if report.failed else "")
    return report


def start_warm_up(tutor) -> tuple[threading.Thread, WarmReport]:
    """`warm_tutor` in a daemon thread (a server stopping does not wait for it); the report fills as it goes."""
    report = WarmReport()
    thread = threading.Thread(target=warm_tutor, args=(tutor, report), name="tutor-warm-up", daemon=True)
    thread.start()
    return thread, report
