"""The whole-ingest estimate on ingest's progress events (tutor/ingest/progress.py): one percentage and time left
across every PDF and both embedding passes, shown by the CLI and the Maintainers page.

Unit tests on a fake clock, then a real ingest of tiny reportlab PDFs (HashEmbedder, two worker processes so the
PDFs are read in the pool that reports each file) whose events carry the estimate.
"""
from __future__ import annotations

import pytest

from tutor.ingest import uploads
from tutor.ingest.builder import Progress, discover, ingest
from tutor.ingest.progress import SHARES, Estimate, eta_text, overall_text
from tutor.store.shelf import ShelfStore
from tutor.testing import HashEmbedder

from helpers_library import make_library


class Clock:
    def __init__(self):
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def test_each_phase_fills_its_share_and_the_time_left_scales_the_time_spent():
    clock = Clock()
    est = Estimate(n_shelves=2, cross=True, clock=clock)
    assert est.update(Progress("extract", 0, 4, "a.pdf")).eta_s is None  # nothing done: no estimate yet
    clock.t += 9
    p = est.update(Progress("extract", 2, 4, "b.pdf"))
    assert p.overall == pytest.approx(SHARES["read"] / 2)
    assert p.eta_s == pytest.approx(9 * (1 - p.overall) / p.overall)
    est.enter("shelves")
    est.shelf(1)  # the first shelf is done, the second half embedded
    p = est.update(Progress("embed", 50, 100))
    assert p.overall == pytest.approx(SHARES["read"] + SHARES["shelves"] * 0.75)
    est.enter("cross")
    first = est.update(Progress("embed", 64, 64, message="embedding 10/science for Hindi questions"))
    second = est.update(Progress("embed", 0, 64, message="embedding 10/maths for Hindi questions"))
    assert first.overall == pytest.approx(SHARES["read"] + SHARES["shelves"] + SHARES["cross"] * 0.5)
    assert second.overall == first.overall  # a new shelf begun: one of two done
    done = est.update(Progress("done", 1, 1))
    assert done.overall == 1.0 and done.eta_s == 0.0


def test_without_e5_vectors_the_other_phases_make_the_whole():
    est = Estimate(n_shelves=1, cross=False)
    est.enter("shelves")
    p = est.update(Progress("embed", 100, 100))
    assert p.overall == pytest.approx(0.999)  # all done but the closing event


def test_the_estimate_never_moves_backwards():
    est = Estimate(n_shelves=1, cross=False)
    a = est.update(Progress("extract", 3, 4))
    b = est.update(Progress("extract", 1, 4))  # a late event of an earlier file
    assert b.overall == a.overall


def test_an_unknown_phase_is_refused_by_name():
    with pytest.raises(ValueError, match="unknown ingest phase 'ocr'"):
        Estimate(1, False).enter("ocr")


def test_the_words_a_person_reads():
    assert eta_text(None) == "estimating…"
    assert eta_text(40.4) == "about 40 s left"
    assert eta_text(130) == "about 2 min 10 s left"
    p = Progress("embed", 5, 10, overall=0.42, eta_s=65)
    assert overall_text(p) == "42 % of the whole ingest, about 1 min 5 s left"
    assert uploads.progress_text(p) == "Indexing passages: 5 of 10 · 42 % of the whole ingest, about 1 min 5 s left"
    assert uploads.progress_fraction(p) == 0.42
    assert overall_text(Progress("embed", 5, 10)) == ""  # an event without the estimate: the stage alone


class Warming:
    """What ingest hands the English shelves' chunks to (E5Similarity.warm), reporting in two steps."""

    def passages_of(self, chunks):
        return [c.text for c in chunks]

    def warm(self, texts, progress=None):
        if progress is not None:
            progress(len(texts) // 2, len(texts))
            progress(len(texts), len(texts))
        return len(texts)


def test_a_real_ingest_reports_one_rising_estimate_across_both_passes(tmp_path):
    src = make_library(tmp_path / "src")
    events: list[Progress] = []
    ingest(discover([src]), ShelfStore(tmp_path / "index"), HashEmbedder(), workers=2, cross_judge=Warming(),
           progress=events.append)
    overall = [e.overall for e in events]
    assert all(o is not None for o in overall)
    assert overall == sorted(overall) and overall[-1] == 1.0
    reads = [e for e in events if e.stage == "extract" and e.overall <= SHARES["read"]]
    assert [e.done for e in reads][:3] == [1, 2, 3]  # the pool reported each of the three PDFs
    hindi = [e for e in events if "Hindi" in e.message]
    assert hindi and min(e.overall for e in hindi) >= SHARES["read"] + SHARES["shelves"] - 1e-9
