"""Hindi PDF pages: how much of a page's extracted text is usable Hindi, a cheap repair, and an OCR fallback.

The NCERT Hindi PDFs' fonts map glyphs to the wrong code points (the vowel sign ा extracts as "या", े as "दे",
conjunct glyphs as Ethiopic letters), so their text layer is mostly not Hindi words. Each page of a Hindi PDF is
measured (`usability`); a damaged page is repaired where two substitutions are certain (`repair`), then read by
Tesseract OCR from its rendered image where Tesseract is installed (`ocr_page`, cached by the file's SHA-256);
a page still below `min_usable` is left out with the reason, as a legacy-font page is.

The measure: Devanagari tokens (after `normalize_for_matching`) that are well-formed syllables and words of the
Hindi Hunspell word list (Debian `hunspell-hi`, about 16,000 forms), as a share of all Devanagari tokens. Clean
typed Hindi (tests/data/hindi-questions.jsonl) scores about 0.87 (the list misses inflections and technical words);
the NCERT Hindi text layer about 0.30 (0.50 after `repair`); Tesseract's reading of the same pages more. Without the
word list only the syllable grammar is checked (`well_formed`), which cannot see "कदे" for के, so the threshold then
reads that.
"""
from __future__ import annotations

import hashlib
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from tutor.text.normalize import normalize_for_matching

HUNSPELL_HI = Path("/usr/share/hunspell/hi_IN.dic")
# a page is kept when at least this share of its Devanagari tokens is usable (vocabulary measure); between the
# damaged text layer (~0.30) and OCR (~0.75) and clean text (~0.87). `$TUTOR_MIN_HINDI_USABLE` overrides it.
MIN_USABLE = 0.55
# without a vocabulary: the share of well-formed tokens (the damaged layer reaches ~0.75 on it, clean text ~0.99)
MIN_WELL_FORMED = 0.9
MIN_TOKENS = 20  # fewer Devanagari tokens than this: the page is not judged as Hindi (figures, English, blank)

# Devanagari syllable grammar on normalised text (nukta as base + U+093C, no ZWJ/ZWNJ, candrabindu as anusvara)
_CONS = "[\u0915-\u0939\u0958-\u095f\u0978-\u097f]\u093c?"
_VOWEL = "[\u0904-\u0914\u0960\u0961\u0972-\u0977]"
_SIGN = "[\u093a\u093b\u093e-\u094c\u094e\u094f\u0955-\u0957\u0962\u0963]"
_MOD = "[\u0900-\u0903]"
_SYLLABLE = (f"(?:(?:{_CONS}\u094d)*{_CONS}{_SIGN}?{_MOD}?"
             f"|{_VOWEL}{_MOD}?"
             f"|(?:{_CONS}\u094d)+"
             "|[\u093d\u0950])")
_WELL_FORMED = re.compile(f"(?:{_SYLLABLE})+")
_DEVANAGARI_LETTER = re.compile("[\u0904-\u0939\u0958-\u0961\u0972-\u097f]")
_IN_BLOCK = re.compile("[\u0900-\u097f]+")
CLASSES = ("usable", "unknown", "malformed", "foreign")


@lru_cache(maxsize=2)
def load_vocabulary(path: str = str(HUNSPELL_HI)) -> frozenset[str] | None:
    """The Hunspell word list in normalised form, or None where it is not installed."""
    p = Path(path)
    if not p.is_file():
        return None
    lines = p.read_text(encoding="utf-8").splitlines()[1:]  # the first line is the entry count
    words = (normalize_for_matching(line.split("/", 1)[0]) for line in lines)
    return frozenset(w for w in words if w and " " not in w)


def classify(token: str, vocabulary: frozenset[str] | None) -> str:
    """foreign (a code point outside Devanagari), malformed (breaks the syllable grammar), unknown (not in the
    vocabulary) or usable. Without a vocabulary a well-formed token counts as usable."""
    if not _IN_BLOCK.fullmatch(token):
        return "foreign"
    if not _WELL_FORMED.fullmatch(token):
        return "malformed"
    if vocabulary is None:
        return "usable"
    return "usable" if token in vocabulary else "unknown"


def devanagari_tokens(text: str) -> list[str]:
    return [t for t in normalize_for_matching(text).split() if _DEVANAGARI_LETTER.search(t)]


@dataclass(frozen=True)
class Usability:
    """One page's Devanagari tokens and the shares of them that are usable and well-formed, each in [0, 1]."""

    tokens: int
    usable: float
    well_formed: float
    with_vocabulary: bool

    @property
    def score(self) -> float:
        """The share the threshold reads: usable with a vocabulary, else well-formed."""
        return self.usable if self.with_vocabulary else self.well_formed


def usability(text: str, vocabulary: frozenset[str] | None = None, use_vocabulary: bool = True) -> Usability:
    vocab = (vocabulary or load_vocabulary()) if use_vocabulary else None
    toks = devanagari_tokens(text)
    if not toks:
        return Usability(0, 0.0, 0.0, vocab is not None)
    classes = [classify(t, vocab) for t in toks]
    n = len(toks)
    return Usability(n, classes.count("usable") / n,
                     (classes.count("usable") + classes.count("unknown")) / n, vocab is not None)


def min_usable(with_vocabulary: bool) -> float:
    env = os.environ.get("TUTOR_MIN_HINDI_USABLE")
    if env and with_vocabulary:
        value = float(env)
        if not 0 <= value <= 1:
            raise ValueError(f"TUTOR_MIN_HINDI_USABLE={env} is outside [0, 1]")
        return value
    return MIN_USABLE if with_vocabulary else MIN_WELL_FORMED


def is_hindi_page(text: str) -> bool:
    return len(devanagari_tokens(text)) >= MIN_TOKENS


# ------------------------------------------------------------------------------------------ cheap repair

# Two substitutions these fonts make for every occurrence, so undoing them is safe: the vowel sign ा extracts as
# "या" and े as "दे" after the consonant they belong to; a real या or दे then extracts as "यया" or "ददे", which the
# same rule turns back into या and दे. ZWJ that the fonts put inside clusters ("ग‍यया") goes first.
_CONSONANT = "[\u0915-\u0939\u0958-\u095f]\u093c?"
_AA = re.compile(f"({_CONSONANT})\u092f\u093e")  # C + या -> C + ा
_E = re.compile(f"({_CONSONANT})\u0926\u0947")  # C + दे -> C + े


def repair(text: str) -> str:
    """Undo the vowel-sign substitutions that are certain (see above); other damage is left to OCR."""
    text = text.replace("\u200d", "")
    text = _E.sub("\\1\u0947", text)
    return _AA.sub("\\1\u093e", text)


# ------------------------------------------------------------------------------------------ OCR

def ocr_missing() -> str | None:
    """Why OCR cannot run here (with the packages to install), or None when it can."""
    if not (shutil.which("pdftoppm") and shutil.which("tesseract")):
        return "pdftoppm or tesseract not found (apt-get install poppler-utils tesseract-ocr tesseract-ocr-hin)"
    langs = _tesseract_langs()
    return None if "hin" in langs else "Tesseract has no Hindi data (apt-get install tesseract-ocr-hin)"


@lru_cache(maxsize=1)
def _tesseract_langs() -> tuple[str, ...]:
    try:
        out = subprocess.run(["tesseract", "--list-langs"], capture_output=True, text=True, timeout=60).stdout
    except (OSError, subprocess.SubprocessError):
        return ()
    return tuple(out.split())


def ocr_cache_dir() -> Path:
    from tutor.config import data_dir

    return Path(os.environ.get("TUTOR_OCR_CACHE", data_dir() / "ocr-cache"))


def ocr_page(pdf: Path, page: int, sha256: str | None = None, cache: Path | None = None) -> str:
    """Tesseract's reading (Hindi) of one page rendered at 300 dpi, cached by the file's SHA-256 and page."""
    digest = sha256 or hashlib.sha256(Path(pdf).read_bytes()).hexdigest()
    cached = (cache or ocr_cache_dir()) / digest / f"p{page:04d}.txt"
    if cached.is_file():
        return cached.read_text(encoding="utf-8")
    with tempfile.TemporaryDirectory(prefix="tutor-ocr-") as tmp:
        stem = Path(tmp) / "page"
        subprocess.run(["pdftoppm", "-r", "300", "-gray", "-png", "-f", str(page), "-l", str(page), "-singlefile",
                        str(pdf), str(stem)], check=True, capture_output=True, timeout=300)
        # one thread per tesseract: ingestion already runs one extraction per core
        env = {**os.environ, "OMP_THREAD_LIMIT": "1"}
        # Hindi alone: with hin+eng the danda of "है।" was read as Latin ("Ml"), which breaks sentences; the cost is
        # an English unit now and then ("kg" read as Devanagari)
        text = subprocess.run(["tesseract", f"{stem}.png", "stdout", "-l", "hin"], check=True,
                              capture_output=True, text=True, timeout=600, env=env).stdout
    cached.parent.mkdir(parents=True, exist_ok=True)
    tmp_file = cached.with_suffix(".tmp")
    tmp_file.write_text(text, encoding="utf-8")
    tmp_file.replace(cached)
    return text


# ------------------------------------------------------------------------------------------ a whole PDF

@dataclass(frozen=True)
class PageRepair:
    """What happened to one Hindi page: usable share of the text layer, after repair, after OCR, and the verdict."""

    page: int
    tokens: int
    text_layer: float
    repaired: float
    ocr: float | None
    kept: str  # "text_layer", "repaired", "ocr" or "" (left out)
    threshold: float


def fix_hindi_pages(pdf, path: Path, sha256: str | None = None, use_ocr: bool = True):
    """Measure, repair, OCR and keep or drop each Hindi page of an extracted PDF (English pages pass untouched).

    Returns the ExtractedPdf with repaired or OCR'd page texts, damaged pages moved to `skipped` with the reason,
    a note per page, and `hindi_pages` (PageRepair per Hindi page). Raises PdfRefused (code "damaged_hindi") when
    the file has Hindi pages and none of them is usable.
    """
    from tutor.errors import PdfRefused
    from tutor.ingest.pdftext import PageText, SkippedPage, clean_pages

    vocab = load_vocabulary()
    why_no_ocr = ocr_missing() if use_ocr else "OCR switched off"
    digest = sha256
    results: dict[int, tuple[str, PageRepair]] = {}
    need_ocr: list = []
    for pg in pdf.pages:
        if not is_hindi_page(pg.text):
            continue
        u0 = usability(pg.text, vocab)
        thr = min_usable(u0.with_vocabulary)
        if u0.score >= thr:
            results[pg.page] = (pg.text, PageRepair(pg.page, u0.tokens, u0.score, u0.score, None, "text_layer", thr))
            continue
        fixed = repair(pg.text)
        u1 = usability(fixed, vocab)
        results[pg.page] = (fixed, PageRepair(pg.page, u0.tokens, u0.score, u1.score, None,
                                              "repaired" if u1.score >= thr else "", thr))
        if why_no_ocr is None:  # the repair only reaches ~0.5: OCR, where installed, usually does far better
            need_ocr.append(pg.page)
    if need_ocr:
        if digest is None:
            digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()
        raw = [ocr_page(Path(path), n, digest) for n in need_ocr]
        cleaned, _, _ = clean_pages(raw)
        for n, text in zip(need_ocr, cleaned):
            old_text, r = results[n]
            u2 = usability(text, vocab)
            better = u2.score > r.repaired
            results[n] = (text if better else old_text,
                          PageRepair(n, r.tokens, r.text_layer, r.repaired, u2.score,
                                     "ocr" if better and u2.score >= r.threshold else r.kept, r.threshold))
    if not results:
        return pdf
    kept_pages, skipped = [], list(pdf.skipped)
    for pg in pdf.pages:
        if pg.page not in results:
            kept_pages.append(pg)
            continue
        text, r = results[pg.page]
        ocr_txt = f", OCR {r.ocr:.0%}" if r.ocr is not None else ""
        if r.kept:
            kept_pages.append(PageText(pg.page, text))
            if r.kept != "text_layer":
                pdf.notes.append(f"page {pg.page}: Hindi text layer {r.text_layer:.0%} readable, repaired "
                                 f"{r.repaired:.0%}{ocr_txt}; kept the {r.kept.replace('_', ' ')} text")
        else:
            extra = "" if r.ocr is not None else f"; OCR could not help: {why_no_ocr}"
            skipped.append(SkippedPage(pg.page, f"page {pg.page}: only {max(r.repaired, r.ocr or 0):.0%} of its Hindi "
                                                f"words are readable (text layer {r.text_layer:.0%}, repaired "
                                                f"{r.repaired:.0%}{ocr_txt}; at least {r.threshold:.0%} needed): the "
                                                f"PDF's font maps letters to the wrong characters{extra}"))
    skipped.sort(key=lambda s: s.page)
    pdf.pages = kept_pages
    pdf.skipped = skipped
    pdf.hindi_pages = [results[n][1] for n in sorted(results)]
    if not any(r.kept for _, r in results.values()) and not any(pg.page not in results for pg in kept_pages):
        bad = ", ".join(str(n) for n in sorted(results))
        raise PdfRefused(pdf.file, f"has a damaged Hindi text layer: none of its pages ({bad}) reaches "
                                   f"{min_usable(vocab is not None):.0%} readable Hindi words, even after repair"
                                   + ("" if why_no_ocr is None else f" (OCR not available: {why_no_ocr})")
                                   + " (a Unicode-font version of the file is needed)", "damaged_hindi")
    return pdf
