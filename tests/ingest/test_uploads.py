"""Uploads without Streamlit (tutor.ingest.uploads): safe names, shelf guesses, one progress bar, and adding uploaded
PDFs to a real shelf on disk with what the maintainers' page says of each."""
import shutil

import pytest

from tutor import presentation as pres
from tutor.ingest import uploads
from tutor.ingest.builder import Progress
from tutor.store.shelf import ShelfStore
from tutor.testing import HashEmbedder

from helpers_library import LIGHT_PAGES, SOIL_PAGES, make_pdf


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


# ------------------------------------------------------------------ adding uploads (real PDFs, a real shelf on disk)

@pytest.fixture
def data(tmp_path, monkeypatch):
    monkeypatch.setenv("TUTOR_DATA_DIR", str(tmp_path / "data"))
    return tmp_path / "data"


def _upload(name, data, klass="9", subject="geography", **kw):
    return uploads.Upload(name, data, klass, subject, **kw)


def test_add_uploads_keeps_the_good_file_and_reports_the_bad_one_by_its_cause(data, tmp_path):
    good = make_pdf(tmp_path / "src" / "soil.pdf", SOIL_PAGES).read_bytes()
    store = ShelfStore(data / "index")
    work = tmp_path / "work"
    work.mkdir()
    results = uploads.add_uploads(store, [_upload("../Soils Chapter.pdf", good),
                                          _upload("notes.pdf", b"my notes, not a PDF")], HashEmbedder(), work)
    by_file = {r.file: r for r in results}
    good = by_file["soils-chapter.pdf"]
    assert good.status == "added" and good.uploaded == "../Soils Chapter.pdf"
    bad = by_file["notes.pdf"]
    assert (bad.status, bad.error_code) == ("refused", "not_pdf")
    assert bad.cause.startswith("is not a PDF") and "notes.pdf" not in bad.cause  # the cause is said of the file
    assert list(store.manifest("9", "geography").chapters) == ["soils-chapter.pdf"]
    assert sorted(uploads.kept_pdfs("9", "geography")) == ["soils-chapter.pdf"]  # only the good file is kept

    level, text = pres.upload_message(bad)
    assert level == "error" and text.startswith("**notes.pdf** is not a PDF") and "shelf is unchanged" in text
    level, text = pres.upload_message(by_file["soils-chapter.pdf"])
    assert level == "success" and "Added" in text and "passages indexed" in text


def test_a_different_pdf_under_a_taken_name_is_kept_beside_it_and_the_same_pdf_is_not_added_twice(data, tmp_path):
    first = make_pdf(tmp_path / "a.pdf", SOIL_PAGES).read_bytes()
    second = make_pdf(tmp_path / "b.pdf", SOIL_PAGES[::-1]).read_bytes()
    store, work = ShelfStore(data / "index"), tmp_path / "work"
    work.mkdir()
    uploads.add_uploads(store, [_upload("soil.pdf", first)], HashEmbedder(), work)
    (again,) = uploads.add_uploads(store, [_upload("soil.pdf", second)], HashEmbedder(), work)
    assert again.file == "soil-2.pdf" and again.renamed and "already taken" in pres.upload_message(again)[1]
    (twin,) = uploads.add_uploads(store, [_upload("copy.pdf", first)], HashEmbedder(), work)
    assert twin.duplicate_of == "soil.pdf" and pres.upload_message(twin)[0] == "info"
    assert uploads.names_on_shelf(store, "9", "geography").keys() == {"soil.pdf", "soil-2.pdf"}


def test_upload_problems_name_the_file_and_add_uploads_refuses_a_bad_field(data, tmp_path):
    bad = _upload("x.pdf", b"%PDF-", subject="Science/../../etc")
    problems = uploads.upload_problems([_upload("ok.pdf", b""), bad])
    assert len(problems) == 1 and problems[0].startswith("x.pdf: ") and "not valid" in problems[0]
    with pytest.raises(ValueError):
        uploads.add_uploads(ShelfStore(data / "index"), [bad], HashEmbedder(), tmp_path)
    assert not (data / "index").exists() or not ShelfStore(data / "index").keys()


def test_removing_an_uploaded_chapter_also_drops_its_kept_pdf_so_a_rebuild_cannot_bring_it_back(data, tmp_path):
    first = make_pdf(tmp_path / "a.pdf", SOIL_PAGES).read_bytes()
    other = make_pdf(tmp_path / "b.pdf", SOIL_PAGES[::-1]).read_bytes()
    store, work = ShelfStore(data / "index"), tmp_path / "work"
    work.mkdir()
    uploads.add_uploads(store, [_upload("soil.pdf", first), _upload("more.pdf", other)], HashEmbedder(), work)
    assert uploads.remove_upload(store, "9", "geography", "soil.pdf") > 0
    assert list(store.manifest("9", "geography").chapters) == ["more.pdf"]
    assert sorted(uploads.kept_pdfs("9", "geography")) == ["more.pdf"]
    uploads.rebuild_shelf(store, HashEmbedder(), "9", "geography")
    assert list(store.manifest("9", "geography").chapters) == ["more.pdf"]


def test_the_same_file_name_uploaded_to_two_shelves_keeps_each_its_own_pdf(data, tmp_path):
    soil = make_pdf(tmp_path / "a.pdf", SOIL_PAGES).read_bytes()
    light = make_pdf(tmp_path / "b.pdf", LIGHT_PAGES).read_bytes()
    store, work = ShelfStore(data / "index"), tmp_path / "work"
    work.mkdir()
    uploads.add_uploads(store, [_upload("chapter1.pdf", soil, "9", "geography"),
                                _upload("chapter1.pdf", light, "10", "science")], HashEmbedder(), work)
    assert uploads.kept_pdfs("9", "geography")["chapter1.pdf"].read_bytes() == soil
    assert uploads.kept_pdfs("10", "science")["chapter1.pdf"].read_bytes() == light
    assert store.manifest("9", "geography").chapters["chapter1.pdf"].chapter != \
        store.manifest("10", "science").chapters["chapter1.pdf"].chapter


# ------------------------------------------------------------------ on PostgreSQL: uploads kept in the database


def test_on_postgres_uploads_are_kept_in_the_database_and_another_replica_rebuilds_from_them(data, tmp_path, pg_url,
                                                                                             monkeypatch):
    import hashlib

    from tutor.store.pg_shelf import PgShelfStore

    soil = make_pdf(tmp_path / "a.pdf", SOIL_PAGES).read_bytes()
    more = make_pdf(tmp_path / "b.pdf", SOIL_PAGES[::-1]).read_bytes()
    here, work = PgShelfStore(pg_url, data / "index"), tmp_path / "work"
    work.mkdir()
    uploads.add_uploads(here, [_upload("soil.pdf", soil), _upload("more.pdf", more)], HashEmbedder(), work)
    assert not (data / "uploads").exists()  # nothing kept on this machine's disk
    assert here.uploads.digests("9", "geography") == {"more.pdf": hashlib.sha256(more).hexdigest(),
                                                      "soil.pdf": hashlib.sha256(soil).hexdigest()}
    assert uploads.names_on_shelf(here, "9", "geography").keys() == {"soil.pdf", "more.pdf"}
    assert uploads.kept_names(here, "9", "geography") == ["more.pdf", "soil.pdf"]  # what the maintainers' page lists

    monkeypatch.setenv("TUTOR_DATA_DIR", str(tmp_path / "replica"))  # another machine: its own empty disk
    shutil.rmtree(work)  # and the PDFs the first one read are gone
    there = PgShelfStore(pg_url, tmp_path / "replica" / "index")
    result = uploads.rebuild_shelf(there, HashEmbedder(), "9", "geography")
    assert (result.reingested, result.carried, result.lost) == (["more.pdf", "soil.pdf"], [], [])
    assert uploads.remove_upload(there, "9", "geography", "soil.pdf") > 0
    assert list(here.uploads.digests("9", "geography")) == ["more.pdf"]
    uploads.rebuild_shelf(here, HashEmbedder(), "9", "geography")  # a rebuild cannot bring it back
    assert list(here.manifest("9", "geography").chapters) == ["more.pdf"]


def test_on_postgres_a_command_line_ingest_keeps_its_pdfs_in_the_database_too(data, tmp_path, pg_url, monkeypatch,
                                                                            capsys):
    """Issue 36: PDFs ingested from the command line reached the shelves but not the database, so a replica or a
    restore elsewhere could not rebuild the shelf from them."""
    import hashlib

    from tutor.cli import main
    from tutor.retrieval.embedding import HASH_EMBEDDER_NAME
    from tutor.store.pg_shelf import PgShelfStore

    soil = make_pdf(tmp_path / "src" / "soil.pdf", SOIL_PAGES)
    monkeypatch.setenv("TUTOR_DATABASE_URL", pg_url)
    monkeypatch.setenv("TUTOR_CROSS_LINGUAL", "false")
    assert main(["--index-dir", str(data / "index"), "ingest", str(soil), "--class", "9", "--subject", "geography",
                 "--quiet", "--embedding", HASH_EMBEDDER_NAME]) == 0
    assert "kept soil.pdf in the database" in capsys.readouterr().out
    there = PgShelfStore(pg_url, tmp_path / "replica" / "index")
    assert there.uploads.digests("9", "geography") == {"soil.pdf": hashlib.sha256(soil.read_bytes()).hexdigest()}
    assert not (data / "uploads").exists()
