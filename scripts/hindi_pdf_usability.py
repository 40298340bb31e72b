"""Measure, page by page, how much of the text extracted from the NCERT Hindi PDFs is usable Hindi.

Usage:  .venv/bin/python scripts/hindi_pdf_usability.py [PDF ...] [--raw] [--ocr] [--dic PATH] [--worst N] [--json OUT]
        (default PDFs: ../shared/data/libraries/ncert-bilingual/**/*-hi.pdf)

The measure. Each page's text (as tutor.ingest.pdftext.extract_pdf gives it to the tutor, or plain pypdf with --raw)
goes through tutor.text.normalize.normalize_for_matching, the form the lexical side matches on, so differences that
normalisation already removes (ZWJ/ZWNJ, nukta encoding, candrabindu, punctuation) are not counted as damage. Every
whitespace token holding a Devanagari letter is put in the first class that fits:

  foreign    it holds a code point outside the Devanagari block. These PDFs' fonts map some conjunct glyphs to
             Ethiopic code points (U+1245-U+127C, e.g. "खा्ቕ" for खाद्य), so such a token can never match a typed word.
  malformed  it breaks the Devanagari syllable grammar: a vowel sign, virama, nukta or anusvara with no consonant
             (or vowel) to attach to, two vowel signs in a row, a vowel sign after a virama. This is the visible,
             dictionary-free sign of glyph-order damage ("ि" extracted before its consonant, "धजं़क" for ज़िंक).
  unknown    well-formed, but not a word of the reference vocabulary. This catches damage that still looks like
             Devanagari: the fonts' ToUnicode maps give "या" for the vowel sign ा, "दे" for े, "ध" for ि, so
             के comes out as "कदे" and लिए as "धिए"; no grammar can see that, a word list can.
  usable     well-formed and in the vocabulary.

The vocabulary is the Hindi Hunspell word list (Debian package hunspell-hi, /usr/share/hunspell/hi_IN.dic, about
16,000 full word forms), normalised the same way. It misses many inflected forms and technical words, so clean
Hindi does not score 100%: the script measures the same figures on a control of clean, hand-typed Hindi on the same
topics (tests/data/hindi-questions.jsonl) and reports each page's usable share relative to that ceiling. A page
counts as usable when its relative score is at least --page-threshold (default 0.8) and it holds at least
--min-tokens Devanagari tokens. Without the word list the script reports the dictionary-free figures only.

The classes, the word list and the OCR come from tutor/ingest/hindi_pdf.py, the same code the ingest uses to keep or
drop a Hindi page. With --ocr each page is also rendered (pdftoppm, 300 dpi) and read by Tesseract (hin), and the OCR
text is scored the same way: a check that the measure tells clean Hindi from damaged Hindi on the very same page, and a
figure for what an OCR fallback would recover (Debian packages poppler-utils, tesseract-ocr, tesseract-ocr-hin; about 8
s a page on 2 cores).
"""
from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tutor.ingest.hindi_pdf import (  # noqa: E402  (the measure the ingest uses: one implementation)
    CLASSES,
    HUNSPELL_HI,
    classify,
    devanagari_tokens,
    load_vocabulary,
    ocr_missing,
    ocr_page,
)

DEFAULT_DIR = ROOT.parent / "shared" / "data" / "libraries" / "ncert-bilingual"
DEFAULT_DIC = HUNSPELL_HI
DEFAULT_CONTROL = ROOT / "tests" / "data" / "hindi-questions.jsonl"


@dataclass
class Tally:
    """Counts of Devanagari tokens per class, with the commonest examples of each damaged class."""

    counts: Counter = field(default_factory=Counter)
    examples: dict[str, Counter] = field(default_factory=lambda: {c: Counter() for c in CLASSES[1:]})

    def add(self, tokens: list[str], vocabulary: frozenset[str] | None) -> None:
        for t in tokens:
            c = classify(t, vocabulary)
            self.counts[c] += 1
            if c != "usable":
                self.examples[c][t] += 1

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def share(self, cls: str | tuple[str, ...]) -> float:
        """Share of Devanagari tokens in the class(es), in [0, 1]; 0 for a page with no Devanagari token."""
        classes = (cls,) if isinstance(cls, str) else cls
        return sum(self.counts[c] for c in classes) / self.total if self.total else 0.0


@dataclass
class PageScore:
    """One page: 1-based number, token counts, and the shares that decide whether it is usable."""

    page: int
    tokens: int
    well_formed: float
    usable: float
    relative: float | None
    verdict: str
    counts: dict[str, int]
    examples: dict[str, list[tuple[str, int]]]
    ocr_usable: float | None = None


def page_texts(pdf: Path, raw: bool) -> list[tuple[int, str]]:
    if raw:
        from pypdf import PdfReader

        return [(i, p.extract_text() or "") for i, p in enumerate(PdfReader(pdf).pages, 1)]
    from tutor.ingest.pdftext import extract_pdf

    out = extract_pdf(pdf)
    got = {p.page: p.text for p in out.pages}
    return [(i, got.get(i, "")) for i in range(1, out.n_pages + 1)]


def score_pages(pdf: Path, raw: bool, vocabulary, ceiling: float | None, threshold: float,
                min_tokens: int, ocr: bool = False) -> tuple[list[PageScore], Tally, Tally | None]:
    pages, whole, ocr_whole = [], Tally(), (Tally() if ocr else None)
    for n, text in page_texts(pdf, raw):
        t = Tally()
        tokens = devanagari_tokens(text)
        t.add(tokens, vocabulary)
        whole.add(tokens, vocabulary)
        rel = t.share("usable") / ceiling if ceiling else None
        if t.total < min_tokens:
            verdict = "near-empty"
        elif rel is None:
            verdict = "n/a"
        else:
            verdict = "usable" if rel >= threshold else "damaged"
        ocr_usable = None
        if ocr:
            o = Tally()
            ocr_tokens = devanagari_tokens(ocr_page(pdf, n))  # cached by file digest, as at ingest
            o.add(ocr_tokens, vocabulary)
            ocr_whole.add(ocr_tokens, vocabulary)
            ocr_usable = o.share("usable")
        pages.append(PageScore(n, t.total, t.share(("usable", "unknown")), t.share("usable"), rel, verdict,
                               dict(t.counts), {c: t.examples[c].most_common(6) for c in CLASSES[1:]}, ocr_usable))
    return pages, whole, ocr_whole


def control_tally(path: Path, vocabulary) -> Tally | None:
    if not path.is_file():
        return None
    t = Tally()
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip():
            t.add(devanagari_tokens(json.loads(line)["question"]), vocabulary)
    return t


def pct(x: float | None) -> str:
    return "  n/a" if x is None else f"{100 * x:5.1f}"


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pdfs", nargs="*", type=Path, help="Hindi PDFs (default: every *-hi.pdf under ncert-bilingual)")
    ap.add_argument("--raw", action="store_true", help="measure plain pypdf text instead of tutor.ingest.pdftext's "
                                                       "pages")
    ap.add_argument("--ocr", action="store_true", help="also score Tesseract OCR of each page (slow: ~8 s a page)")
    ap.add_argument("--dic", type=Path, default=DEFAULT_DIC, help="Hunspell .dic word list (hunspell-hi)")
    ap.add_argument("--control", type=Path, default=DEFAULT_CONTROL, help="JSONL of clean Hindi questions")
    ap.add_argument("--page-threshold", type=float, default=0.8,
                    help="a page is usable when its usable share is at least this fraction of the control's")
    ap.add_argument("--min-tokens", type=int, default=20, help="pages with fewer Devanagari tokens are near-empty")
    ap.add_argument("--worst", type=int, default=5, help="how many worst pages to show per file")
    ap.add_argument("--json", type=Path, help="also write every page's figures to this JSON file")
    args = ap.parse_args(argv)
    if not 0 < args.page_threshold <= 1:
        ap.error("--page-threshold must be in (0, 1]")

    pdfs = args.pdfs or sorted(DEFAULT_DIR.glob("**/*-hi.pdf"))
    if not pdfs:
        print(f"no Hindi PDFs given and none found under {DEFAULT_DIR} (../shared/data absent?)", file=sys.stderr)
        return 2
    if args.ocr and (why := ocr_missing()):
        ap.error(f"--ocr: {why}")
    vocabulary = load_vocabulary(str(args.dic))
    if vocabulary is None:
        print(f"word list {args.dic} not found (apt-get install hunspell-hi, or pass --dic): "
              "reporting dictionary-free figures only, 'usable' below means well-formed\n")
    control = control_tally(args.control, vocabulary)
    ceiling = control.share("usable") if control and vocabulary is not None else None

    print(f"source: {'plain pypdf' if args.raw else 'tutor.ingest.pdftext.extract_pdf'}; tokens: Devanagari tokens "
          f"after "
          f"normalize_for_matching; vocabulary: {len(vocabulary) if vocabulary else 0} words from {args.dic}")
    if control:
        print(f"control (clean typed Hindi, {args.control.name}): {control.total} tokens, well-formed "
              f"{pct(control.share(('usable', 'unknown')))}%, usable {pct(control.share('usable'))}% "
              f"= the ceiling a clean page would reach")
    print()

    report = {}
    for pdf in pdfs:
        pages, whole, ocr_whole = score_pages(pdf, args.raw, vocabulary, ceiling, args.page_threshold, args.min_tokens,
                                   args.ocr)
        verdicts = Counter(p.verdict for p in pages)
        print(f"== {pdf.name}: {len(pages)} pages, {whole.total} Devanagari tokens")
        print(f"   foreign {pct(whole.share('foreign'))}%  malformed {pct(whole.share('malformed'))}%  "
              f"unknown {pct(whole.share('unknown'))}%  usable {pct(whole.share('usable'))}%"
              + (f"  (relative to control: {pct(whole.share('usable') / ceiling)}%)" if ceiling else ""))
        if ocr_whole is not None:
            print(f"   the same pages through OCR: {ocr_whole.total} tokens, malformed "
                  f"{pct(ocr_whole.share('malformed'))}%, usable {pct(ocr_whole.share('usable'))}%"
                  + (f" (relative to control: {pct(ocr_whole.share('usable') / ceiling)}%)" if ceiling else ""))
        print("   pages: " + ", ".join(f"{v} {n}" for v, n in sorted(verdicts.items())))
        print("   page  tokens  well-formed%  usable%  relative%  verdict" + ("     ocr-usable%" if args.ocr else ""))
        for p in pages:
            print(f"   {p.page:4d}  {p.tokens:6d}  {pct(p.well_formed):>12}  {pct(p.usable):>7}  "
                  f"{pct(p.relative):>9}  {p.verdict:<10}" + (f"  {pct(p.ocr_usable):>11}" if args.ocr else ""))
        ranked = sorted((p for p in pages if p.tokens >= args.min_tokens), key=lambda p: p.usable)[: args.worst]
        print(f"   worst {len(ranked)} pages, with their commonest damaged tokens:")
        for p in ranked:
            ex = "; ".join(f"{c}: " + " ".join(f"{t}×{k}" for t, k in p.examples[c][:4])
                           for c in CLASSES[1:] if p.examples[c])
            print(f"     p.{p.page} usable {pct(p.usable).strip()}%  {ex}")
        for c in CLASSES[1:]:
            common = whole.examples[c].most_common(12)
            if common:
                print(f"   commonest {c}: " + " ".join(f"{t}×{k}" for t, k in common))
        print()
        report[pdf.name] = {"tokens": whole.total, "shares": {c: whole.share(c) for c in CLASSES},
                            "pages": [asdict(p) for p in pages]}
    if args.json:
        args.json.write_text(json.dumps({"ceiling": ceiling, "files": report}, ensure_ascii=False, indent=1),
                             encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
