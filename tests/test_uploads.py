"""Upload bookkeeping without Streamlit (tutor.ingest.uploads): safe names, shelf guesses, one progress bar."""
from tutor.ingest import uploads
from tutor.ingest.builder import Progress


def test_safe_pdf_name_never_returns_a_path():
    assert uploads.safe_pdf_name("../../etc/passwd") == "passwd.pdf"
    assert uploads.safe_pdf_name("C:\\Users\\x\\Chapter 3 – Métaux.PDF") == "chapter-3-métaux.pdf"
    assert uploads.safe_pdf_name("...pdf") == "chapter.pdf"
    assert uploads.safe_pdf_name("a.pdf", taken={"a.pdf"}) == "a-2.pdf"


def test_upload_names_keep_their_letters_in_any_script():
    assert uploads.safe_pdf_name("अध्याय 1 – रासायनिक अभिक्रियाएँ.pdf") == "अध्याय-1-रासायनिक-अभिक्रियाएँ.pdf"
    assert uploads.safe_pdf_name("अध्याय 2 – अम्ल.pdf") != uploads.safe_pdf_name("अध्याय 1 – रासायनिक अभिक्रियाएँ.pdf")
    assert uploads.safe_pdf_name("পাঠ ৩.pdf") == "পাঠ-৩.pdf" and uploads.safe_pdf_name("第三章.pdf") == "第三章.pdf"
    assert uploads.safe_pdf_name("evil\u202egpj.pdf") == "evilgpj.pdf"  # a right-to-left override is dropped
    assert uploads.safe_pdf_name("../अध्याय/..\\x.pdf") == "x.pdf"


def test_a_different_pdf_under_a_used_name_never_replaces_it_unless_asked():
    on_shelf = {"अध्याय.pdf": "aaa", "light.pdf": "bbb"}
    assert uploads.upload_name("अध्याय.pdf", "ccc", on_shelf, set()) == "अध्याय-2.pdf"
    assert uploads.upload_name("अध्याय.pdf", "ccc", on_shelf, set(), replace=True) == "अध्याय.pdf"
    assert uploads.upload_name("अध्याय.pdf", "aaa", on_shelf, set()) == "अध्याय.pdf"  # the same PDF: unchanged
    assert uploads.upload_name("new.pdf", "ddd", on_shelf, set()) == "new.pdf"
    assert uploads.upload_name("new.pdf", "eee", on_shelf, {"new.pdf"}) == "new-2.pdf"  # twice in one batch


def test_one_progress_bar_for_a_whole_ingest():
    events = [Progress("hash", 0, 2, "a.pdf"), Progress("hash", 1, 2, "b.pdf"), Progress("extract", 1, 2, "a.pdf"),
              Progress("extract", 2, 2, "b.pdf"), Progress("embed", 64, 100), Progress("embed", 100, 100),
              Progress("write", 0, 1, message="writing"), Progress("write", 1, 1, message="swapped in"),
              Progress("done", 1, 1)]
    fractions = [uploads.progress_fraction(p) for p in events]
    assert fractions == sorted(fractions) and fractions[0] == 0.0 and fractions[-1] == 1.0
    assert uploads.progress_text(events[2]) == "Reading the text of a.pdf"
    assert uploads.progress_text(events[4]) == "Indexing passages: 64 of 100"


def test_guess_shelf_from_file_name():
    assert uploads.guess_shelf("class-10_social-science_money.pdf") == ("10", "social-science")
    assert uploads.guess_shelf("Class 9 Science motion.pdf") == ("9", "science")
    assert uploads.guess_shelf("jess302.pdf") == (None, None)
