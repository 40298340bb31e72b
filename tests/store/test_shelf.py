"""Shelves: score direction (inner product of unit vectors, higher is closer), versions on disk, and the Library.

Vectors come from HashEmbedder, a deterministic fake whose cosine scores follow shared words. Tests taking `store`
run on both backends: FAISS folders and pgvector on the PostgreSQL test server (tests/helpers_postgres.py).
"""
from __future__ import annotations

import faiss
import numpy as np
import pytest

from tutor.errors import EmptyQuestion, ShelfDamaged, ShelfNotFound
from tutor.ingest.builder import discover, ingest
from tutor.retrieval.search import Library
from tutor.store.faiss_index import build_index
from tutor.store.pg_shelf import PgShelfStore
from tutor.store.shelf import Manifest, ShelfKey, ShelfStore, check_name
from tutor.testing import HashEmbedder
from tutor.types import Chunk

from helpers_library import make_library, make_pdf
from helpers_postgres import SHELF_BACKENDS

EMB = HashEmbedder()


def _chunk(i: int, text: str, file: str = "a.pdf") -> Chunk:
    return Chunk(
        chunk_id=f"a:{i:04d}", klass="10", subject="science", chapter="Light", chapter_code="a", file=file,
        page_start=1, page_end=1, section_kind="body", section="", text=text, sentences=((0, len(text), 1),),
    )


TEXTS = [
    "Refraction is the bending of light when it passes from air into water.",
    "Acids turn blue litmus paper red and bases turn red litmus blue.",
    "The heart pumps blood through arteries and veins to every organ.",
]


@pytest.fixture(params=SHELF_BACKENDS)
def store(request, tmp_path):
    """An empty store: FAISS folders under tmp_path, or a fresh PostgreSQL database."""
    if request.param == "faiss":
        return ShelfStore(tmp_path / "index")
    return PgShelfStore(request.getfixturevalue("pg_url"), tmp_path / "index")


def _write_shelf(root, texts=TEXTS, index_type="flat-ip") -> tuple[ShelfStore, str]:
    """A three-chunk shelf written into `root` (a folder, or a store of either backend)."""
    store = root if isinstance(root, (ShelfStore, PgShelfStore)) else ShelfStore(root)
    chunks = [_chunk(i, t) for i, t in enumerate(texts)]
    manifest = Manifest("10", "science", EMB.name, EMB.dim, index_type)
    version = store.write(manifest, chunks, EMB.embed(texts))
    return store, version


# ---------------------------------------------------------------- score direction and scale


def test_hash_embedder_vectors_are_unit_length_and_closer_text_scores_higher():
    q, near, far = EMB.embed(["bending of light in water", TEXTS[0], TEXTS[1]])
    assert np.allclose(np.linalg.norm(EMB.embed(TEXTS), axis=1), 1.0, atol=1e-5)
    assert float(q @ near) > float(q @ far) + 0.2


@pytest.mark.parametrize("index_type", ["flat-ip", "hnsw-ip"])
def test_search_returns_the_closer_chunk_first_with_the_higher_cosine(tmp_path, index_type):
    store, _ = _write_shelf(tmp_path, index_type=index_type)
    shelf = store.load("10", "science")
    q = EMB.embed(["Why does light bend when it passes into water?"])[0]
    hits = shelf.search(q, 3)
    assert [h.chunk.text for h in hits][0] == TEXTS[0]
    assert [h.rank for h in hits] == [0, 1, 2]
    scores = [h.score for h in hits]
    assert scores == sorted(scores, reverse=True)
    assert scores[0] > scores[1]
    assert all(-1.0 - 1e-5 <= s <= 1.0 + 1e-5 for s in scores)


def test_search_score_is_the_cosine_similarity_not_an_l2_distance(store):
    _write_shelf(store)
    shelf = store.load("10", "science")
    q = EMB.embed(["Why does light bend when it passes into water?"])[0]
    vecs = EMB.embed(TEXTS)
    for h in shelf.search(q, 3):
        i = TEXTS.index(h.chunk.text)
        cos = float(q @ vecs[i])
        assert h.score == pytest.approx(cos, abs=1e-5)
        # an L2 index would report |q - v|^2 = 2 - 2 cos, which grows as chunks get worse
        assert h.score != pytest.approx(float(np.sum((q - vecs[i]) ** 2)), abs=1e-3)


def test_an_identical_text_scores_one(store):
    _write_shelf(store)
    hits = store.load("10", "science").search(EMB.embed([TEXTS[1]])[0], 1)
    assert hits[0].chunk.text == TEXTS[1]
    assert hits[0].score == pytest.approx(1.0, abs=1e-5)


def test_the_index_on_disk_is_inner_product(tmp_path):
    store, _ = _write_shelf(tmp_path)
    shelf = store.load("10", "science")
    assert shelf.index.metric_type == faiss.METRIC_INNER_PRODUCT
    assert shelf.manifest.index_type == "flat-ip"
    assert build_index(np.zeros((0, 8), np.float32), "hnsw-ip").metric_type == faiss.METRIC_INNER_PRODUCT
    with pytest.raises(ValueError, match="unknown index type"):
        build_index(np.zeros((0, 8), np.float32), "flat-l2")


def test_search_edge_cases(store):
    _write_shelf(store)
    shelf = store.load("10", "science")
    q = EMB.embed(["light"])[0]
    assert shelf.search(q, 0) == []
    assert len(shelf.search(q, 50)) == 3  # k larger than the shelf: every chunk once
    assert len({h.chunk.chunk_id for h in shelf.search(q, 50)}) == 3


# ---------------------------------------------------------------- versions on disk


def test_write_then_load_round_trips_chunks_vectors_and_manifest(tmp_path):
    store, version = _write_shelf(tmp_path)
    sdir = tmp_path / "class-10" / "science"
    assert (sdir / "CURRENT").read_text() == version
    assert {p.name for p in (sdir / version).iterdir()} == {"chunks.jsonl", "vectors.npy", "index.faiss",
                                                            "manifest.json"}
    shelf = store.load("10", "science")
    assert shelf.version == version and len(shelf) == 3
    assert [c.text for c in shelf.chunks] == TEXTS
    assert np.allclose(shelf.vectors, EMB.embed(TEXTS))
    assert shelf.manifest.n_chunks == 3 and shelf.manifest.embedding_model == EMB.name
    assert shelf.key == ShelfKey("10", "science")
    assert store.keys() == [ShelfKey("10", "science")]


def test_write_refuses_chunks_and_vectors_of_different_lengths(store):
    with pytest.raises(ValueError, match="2 chunks but 3 vectors"):
        store.write(Manifest("10", "science", EMB.name, EMB.dim), [_chunk(0, "a"), _chunk(1, "b")],
                    EMB.embed(["a", "b", "c"]))
    assert store.current_version("10", "science") is None


def test_failed_swap_leaves_the_old_version_current(store):
    _, v1 = _write_shelf(store)
    with pytest.raises(RuntimeError, match="simulated crash"):
        store.write(Manifest("10", "science", EMB.name, EMB.dim), [_chunk(0, "new text only")],
                    EMB.embed(["new text only"]),
                    fail_before_swap=True)
    assert store.current_version("10", "science") == v1
    assert [c.text for c in store.load("10", "science").chunks] == TEXTS


def test_old_versions_are_pruned_but_the_previous_one_is_kept(tmp_path):
    store, v1 = _write_shelf(tmp_path)
    _, v2 = _write_shelf(tmp_path, TEXTS[:2])
    _, v3 = _write_shelf(tmp_path, TEXTS[:1])
    sdir = tmp_path / "class-10" / "science"
    versions = sorted(p.name for p in sdir.iterdir() if p.is_dir())
    assert versions == sorted([v2, v3])
    assert store.current_version("10", "science") == v3


def test_write_then_load_round_trips_on_either_backend(store):
    _, version = _write_shelf(store)
    assert store.current_version("10", "science") == version and store.versions("10", "science") == [version]
    shelf = store.load("10", "science")
    assert shelf.version == version and len(shelf) == 3
    assert [c.text for c in shelf.chunks] == TEXTS and shelf.chunks[0].chunk_id == "a:0000"
    assert np.allclose(shelf.vectors, EMB.embed(TEXTS), atol=1e-6)
    assert shelf.manifest.n_chunks == 3 and shelf.manifest.embedding_model == EMB.name
    assert store.manifest("10", "science").dim == EMB.dim
    assert store.keys() == [ShelfKey("10", "science")]


def test_only_the_live_version_and_the_one_before_it_are_kept(store):
    _, v1 = _write_shelf(store)
    _, v2 = _write_shelf(store, TEXTS[:2])
    _, v3 = _write_shelf(store, TEXTS[:1])
    assert store.versions("10", "science") == [v3, v2]
    assert store.previous_version("10", "science") == v2
    assert len(store.load("10", "science", v2)) == 2  # the one before stays loadable


def test_after_a_crashed_write_the_next_write_keeps_the_version_that_was_live(tmp_path):
    store, v1 = _write_shelf(tmp_path)
    with pytest.raises(RuntimeError):
        store.write(Manifest("10", "science", EMB.name, EMB.dim), [_chunk(0, "orphan")], EMB.embed(["orphan"]),
                    fail_before_swap=True)
    _, v3 = _write_shelf(tmp_path, TEXTS[:2])
    assert (tmp_path / "class-10" / "science" / v1).is_dir()


def test_delete_removes_the_shelf(store):
    _write_shelf(store)
    store.delete("10", "science")
    assert store.keys() == []
    assert store.current_version("10", "science") is None


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("bad", ["../etc", "..", "a/b", "", "-x", "Science!", "x" * 60, "class 10/../../"])
def test_check_name_rejects_path_tricks_and_junk(bad):
    with pytest.raises(ValueError, match="not valid"):
        check_name(bad, "subject")


def test_shelf_dir_refuses_a_traversing_subject(tmp_path):
    with pytest.raises(ValueError, match="'../etc'"):
        ShelfStore(tmp_path).shelf_dir("10", "../etc")


@pytest.mark.parametrize("raw, norm", [("Social Science", "social-science"), ("social_science", "social-science"),
                                       ("10", "10"), (10, "10")])
def test_check_name_normalises(raw, norm):
    assert check_name(raw, "subject") == norm


# ---------------------------------------------------------------- the Library


@pytest.fixture
def library(tmp_path, store):
    src = make_library(tmp_path / "src")
    report = ingest(discover([src]), store, EMB, workers=1)
    assert not report.refused
    return Library(tmp_path / "index", EMB, store=store), src


def test_library_search_ranks_the_matching_chapter_first(library):
    lib, _ = library
    hits = lib.search("What is the bending of light called when it passes into water?", "10", "science", k=5)
    assert hits[0].chunk.file == "light.pdf"
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_shelf_scores_ranks_the_right_shelf_first(library):
    lib, _ = library
    scores = lib.shelf_scores("Which soil is ideal for growing cotton?")
    assert [s.key for s in scores] == [ShelfKey("10", "social-science"), ShelfKey("10", "science")]
    assert scores[0].best > scores[1].best
    scores = lib.shelf_scores("Why do acids turn blue litmus red?")
    assert scores[0].key == ShelfKey("10", "science")


def test_library_shelf_is_cached_and_reloaded_after_a_new_version(library, tmp_path):
    lib, src = library
    first = lib.shelf("10", "science")
    assert lib.shelf("10", "science") is first  # same version: no reload
    make_pdf(src / "class-10" / "science" / "heart.pdf", ["The Heart\nThe heart pumps blood to every organ of the "
                                                          "body.\nArteries carry blood away from the heart."])
    ingest(discover([src]), lib.store, EMB, workers=1)
    second = lib.shelf("10", "science")
    assert second is not first
    assert second.version != first.version
    assert len(second) > len(first)
    assert lib.search("Which organ pumps blood?", "10", "science", k=1)[0].chunk.file == "heart.pdf"


def test_library_without_an_embedder_uses_the_one_named_by_the_manifest(library):
    lib, _ = library
    bare = Library(lib.root, store=lib.store)
    hits = bare.search("bending of light", "10", "science", k=1)
    assert hits[0].chunk.file == "light.pdf"
    assert bare.embedder_for(bare.shelf("10", "science")).name == HashEmbedder.name


def test_unknown_shelf_raises_shelf_not_found_naming_what_exists(library):
    lib, _ = library
    with pytest.raises(ShelfNotFound) as exc:
        lib.shelf("10", "mathematics")
    msg = str(exc.value)
    assert "class 10 mathematics" in msg
    assert "10/science" in msg and "10/social-science" in msg


def test_a_subject_written_another_way_opens_its_shelf_and_a_name_no_shelf_can_have_is_not_found(library):
    lib, _ = library
    shelf = lib.shelf("10", "social-science")
    for written in ("social_science", "Social Science", " SOCIAL-SCIENCE "):
        assert lib.shelf("10", written) is shelf, written  # not "damaged": the store's folder is the same
    with pytest.raises(ShelfNotFound, match="10/social-science"):
        lib.shelf("10", "../science")


def test_unknown_shelf_in_an_empty_library_says_it_is_empty(tmp_path):
    with pytest.raises(ShelfNotFound, match="library is empty"):
        Library(tmp_path / "nothing", EMB).shelf("10", "science")


@pytest.mark.parametrize("question", ["", "   \n"])
def test_empty_question_is_refused(library, question):
    lib, _ = library
    with pytest.raises(EmptyQuestion):
        lib.search(question, "10", "science")


# ---------------------------------------------------------------- damage: checksums, isolation, rollback


def _flip_byte(path, at: int = -20) -> None:
    data = bytearray(path.read_bytes())
    data[at] ^= 0xFF
    path.write_bytes(bytes(data))


def test_the_manifest_records_a_checksum_of_every_data_file(tmp_path):
    store, version = _write_shelf(tmp_path)
    files = store.manifest("10", "science").files
    assert set(files) == {"chunks.jsonl", "vectors.npy", "index.faiss"} and all(len(h) == 64 for h in files.values())


@pytest.mark.parametrize("name", ["index.faiss", "vectors.npy", "chunks.jsonl"])
def test_a_damaged_data_file_fails_its_checksum_at_load(tmp_path, name):
    store, version = _write_shelf(tmp_path)
    _flip_byte(tmp_path / "class-10" / "science" / version / name)
    with pytest.raises(ShelfDamaged, match=f"{name} fails its checksum"):
        store.load("10", "science")


@pytest.mark.parametrize("junk", [b"", b"{not json", b'{"class": "10"}'])
def test_a_damaged_manifest_is_named_not_a_json_error(tmp_path, junk):
    store, version = _write_shelf(tmp_path)
    (tmp_path / "class-10" / "science" / version / "manifest.json").write_bytes(junk)
    with pytest.raises(ShelfDamaged, match="manifest.json cannot be read"):
        store.manifest("10", "science")
    with pytest.raises(ShelfDamaged):
        store.load("10", "science")


def test_rollback_returns_to_the_previous_intact_version(tmp_path):
    store, first = _write_shelf(tmp_path, TEXTS[:2])
    with pytest.raises(ShelfDamaged, match="no earlier intact version"):
        store.rollback("10", "science")  # only one version so far
    _, second = _write_shelf(tmp_path, TEXTS)
    _flip_byte(tmp_path / "class-10" / "science" / second / "index.faiss")
    assert store.previous_version("10", "science") == first
    assert store.rollback("10", "science") == first
    assert store.current_version("10", "science") == first and len(store.load("10", "science")) == 2


def damage_shelf(store, klass: str, subject: str, version: str) -> None:
    """Damage one version as its backend can be damaged: a flipped byte on disk, a lost chunk row in the database."""
    if isinstance(store, ShelfStore):
        _flip_byte(store.shelf_dir(klass, subject) / version / "index.faiss")
        return
    import psycopg

    with psycopg.connect(store.url) as con:  # the version's own table (tutor/store/pg_version.py)
        (table,) = con.execute("SELECT chunk_table FROM shelf_versions WHERE class = %s AND subject = %s AND"
                               " version = %s", (klass, subject, version)).fetchone()
        con.execute(f"DELETE FROM {table} WHERE row = 0")


def test_rollback_returns_to_the_previous_intact_version_on_either_backend(store):
    _, first = _write_shelf(store, TEXTS[:2])
    _, second = _write_shelf(store, TEXTS)
    damage_shelf(store, "10", "science", second)
    with pytest.raises(ShelfDamaged):
        store.load("10", "science")
    assert store.rollback("10", "science") == first
    assert store.current_version("10", "science") == first and len(store.load("10", "science")) == 2


def test_one_damaged_shelf_never_stops_the_others(library):
    lib, _ = library
    version = lib.store.current_version("10", "science")
    damage_shelf(lib.store, "10", "science", version)
    with pytest.raises(ShelfDamaged):
        lib.shelf("10", "science")
    assert [s.key.subject for s in lib.shelf_scores("Which soil is ideal for growing cotton?")] == ["social-science"]
    assert set(lib.damaged()) == {ShelfKey("10", "science")}
