"""What showing the book as printed costs: render time per page, the disk cache for a whole library, and the time an
answer's page images add to it.

    python scripts/page_render_cost.py ../shared/data/libraries/ncert \\
        --questions ../shared/data/questions/ncert-class10.jsonl

1. Every page of every PDF under the folder is rendered once into an empty cache (cold), timed page by page.
2. The cache's files and bytes are counted.
3. The answerable questions are asked of the evaluation shelves (data/eval-index/<library>, as `python -m tutor eval`
   builds them); for each answered one, the page images its sources show (every page a quoted sentence is on, with
   the sentences highlighted, as ui/render.py draws them) are timed from an empty cache and again from a warm one, and
   set against the time the answer itself took. Pages not found highlighted are counted too.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from tutor.config import data_dir, setup_offline  # noqa: E402
from tutor.store.pages import PageRenderer, file_digest  # noqa: E402


def pct(values: list[float], p: float) -> float:
    values = sorted(values)
    return round(values[min(len(values) - 1, int(round(p / 100 * (len(values) - 1))))], 1) if values else 0.0


def render_all(folder: Path, cache: Path) -> dict:
    import pypdfium2 as pdfium

    r = PageRenderer(cache)
    times: list[float] = []
    pdfs = sorted(folder.rglob("*.pdf"))
    for pdf in pdfs:
        sha = file_digest(pdf)
        doc = pdfium.PdfDocument(str(pdf))
        n = len(doc)
        doc.close()
        for page in range(1, n + 1):
            t = time.perf_counter()
            r.render(pdf, page, sha)
            times.append((time.perf_counter() - t) * 1000)
    files, size = r.cache_size()
    return {"pdfs": len(pdfs), "pages": len(times), "render_ms_mean": round(statistics.mean(times), 1),
            "render_ms_p50": pct(times, 50), "render_ms_p95": pct(times, 95), "cache_files": files,
            "cache_mb": round(size / 2**20, 1), "cache_kb_per_page": round(size / 1024 / max(files, 1), 1)}


def answers_with_pages(folder: Path, questions: Path, index: Path, limit: int | None) -> dict:
    from tutor.evaluation.questions import load_questions
    from tutor.pipeline import Tutor
    from tutor.policy import load_policy
    from tutor.retrieval.search import Library

    tutor = Tutor(Library(index), load_policy())
    qs = [q for q in load_questions(questions) if q.expect == "answer"][:limit]
    k = tutor.library.keys()[0]
    tutor.ask("warm up", k.klass, k.subject)
    answer_ms, cold_ms, warm_ms, pages_shown, highlighted, answered = [], [], [], 0, 0, 0
    with tempfile.TemporaryDirectory(prefix="page-cache-") as tmp:
        r = PageRenderer(tmp)
        for q in qs:
            t = time.perf_counter()
            ans = tutor.ask(q.question, q.klass, q.subject)
            answer_ms.append((time.perf_counter() - t) * 1000)
            if ans.was_refusal:
                continue
            answered += 1
            jobs = []
            manifest = tutor.library.store.manifest(q.klass, q.subject)
            for src in ans.cited_sources:
                entry = manifest.chapters[src.file]
                pages: dict[int, list[str]] = {}
                for s in ans.sentences:
                    if src.n in s.citations:
                        pages.setdefault(s.page or src.page, []).append(s.text)
                jobs += [(Path(entry.source), entry.sha256, p, texts) for p, texts in pages.items()]
            for label, out in (("cold", cold_ms), ("warm", warm_ms)):
                t = time.perf_counter()
                shown = [r.show(pdf, p, texts, sha256=sha) for pdf, sha, p, texts in jobs]
                out.append((time.perf_counter() - t) * 1000)
                if label == "cold":
                    pages_shown += len(shown)
                    highlighted += sum(img.highlighted for img in shown)
    return {"questions": len(qs), "answered": answered, "answer_ms_p50": pct(answer_ms, 50),
            "answer_ms_p95": pct(answer_ms, 95), "pages_per_answer": round(pages_shown / max(answered, 1), 2),
            "pages_highlighted": highlighted, "pages_shown": pages_shown,
            "added_ms_cold_p50": pct(cold_ms, 50), "added_ms_cold_p95": pct(cold_ms, 95),
            "added_ms_warm_p50": pct(warm_ms, 50), "added_ms_warm_p95": pct(warm_ms, 95)}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("library", type=Path, help="a library folder, e.g. ../shared/data/libraries/ncert")
    ap.add_argument("--questions", type=Path, help="labelled questions (their answerable ones are asked)")
    ap.add_argument("--eval-index", type=Path, default=None, help="default data/eval-index/<library name>")
    ap.add_argument("--limit", type=int, default=None)
    ap.add_argument("--json", type=Path, dest="json_out")
    args = ap.parse_args()
    setup_offline()
    out = {}
    with tempfile.TemporaryDirectory(prefix="page-cache-") as tmp:
        out["render"] = render_all(args.library, Path(tmp))
    print(json.dumps(out["render"]))
    if args.questions:
        index = args.eval_index or data_dir() / "eval-index" / args.library.name
        out["answers"] = answers_with_pages(args.library, args.questions, index, args.limit)
        print(json.dumps(out["answers"]))
    if args.json_out:
        args.json_out.parent.mkdir(parents=True, exist_ok=True)
        args.json_out.write_text(json.dumps(out, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
