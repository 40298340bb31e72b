# Two commands set everything up: `make run` and `make test`. Both create .venv when it is missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
INDEX := data/index
SAMPLE := data/sample/library
SHARED ?= ../shared/data

.PHONY: run test test-fast install sample-index browser-deps ocr-deps eval eval-hindi bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# the CPU build of torch first: an unpinned torch pulls gigabytes of CUDA
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# the bundled sample library, ingested once (a no-op when the shelves are up to date)
sample-index: $(STAMP)
	test -f $(INDEX)/class-10/science/CURRENT || $(BIN)/python -m tutor --index-dir $(INDEX) ingest $(SAMPLE) --quiet

run: sample-index ocr-deps
	$(BIN)/streamlit run app.py

# Chromium and its driver for the browser test (Debian packages; root on these machines)
browser-deps:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || \
	  { (apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null) || \
	    echo "warning: could not install chromium; the browser test will be skipped"; }

# Tesseract (Hindi) and pdftoppm read the damaged pages of the NCERT Hindi PDFs; hunspell-hi measures how readable a
# page is. Debian packages; without them damaged Hindi pages are left out and the OCR tests skip.
ocr-deps:
	@command -v tesseract >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 && \
	  tesseract --list-langs 2>/dev/null | grep -qx hin && test -f /usr/share/hunspell/hi_IN.dic || \
	  { (apt-get update -qq && apt-get install -y -qq tesseract-ocr tesseract-ocr-hin poppler-utils hunspell-hi >/dev/null) || \
	    echo "warning: could not install tesseract-ocr-hin, poppler-utils, hunspell-hi; damaged Hindi pages will be left out and the OCR tests skipped"; }

test: $(STAMP) browser-deps ocr-deps
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow and not browser"

eval: $(STAMP)
	$(BIN)/python -m tutor eval $(SHARED)/questions/ncert-class10.jsonl --libraries $(SHARED)/libraries --json out/eval-ncert.json
	$(BIN)/python -m tutor eval $(SHARED)/questions/squad2-in-library.jsonl --libraries $(SHARED)/libraries --json out/eval-squad2.json

# the Hindi questions and their English twins on the bilingual chapters (accuracy = answered citing the chapter in
# either language, or refused, as labelled)
eval-hindi: $(STAMP) ocr-deps
	$(BIN)/python -m tutor eval tests/data/hindi-questions.jsonl --libraries $(SHARED)/libraries --json out/eval-hindi.json
	$(BIN)/python -m tutor eval tests/data/hindi-questions-en.jsonl --libraries $(SHARED)/libraries --json out/eval-hindi-en.json

bench: $(STAMP)
	$(BIN)/python -m tutor bench --libraries $(SHARED)/libraries --json out/bench.json

clean:
	rm -rf $(VENV) $(INDEX) .pytest_cache
