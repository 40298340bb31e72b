"""Maintainers' page (password): add chapter PDFs to shelves, see what each shelf holds, remove or rebuild.

Uploads are written under a sanitised name to a temp folder, ingested (a new shelf version is swapped in only when
complete, so students keep reading the old one meanwhile), and the good ones kept under data/uploads for rebuilds.
"""
import hashlib
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from tutor import presentation as pres
from tutor.errors import ShelfDamaged, TutorError
from tutor.files import sha256_file
from tutor.ingest import uploads
from tutor.ingest.builder import IngestItem, ingest, remove_chapter
from tutor.retrieval.embedding import E5_NAME, MINILM_NAME, embedder_by_name
from tutor.store import chapters as chapter_text
from tutor.store.shelf import check_name
from ui import auth, layout, render, resources

layout.through_app()
layout.page_header("Maintainers", "Add textbook chapters, check what each shelf holds, and remove or rebuild chapters.")
auth.password_gate("maintainer_password", resources.AUTH_MAINTAINER, "maintainers'")

ss = st.session_state
lib = resources.library()
store = lib.store
embedder = resources.get_embedder(resources.embedder_kind())

if ss.get(resources.MAINT_NOTICE):
    kind, text = ss.pop(resources.MAINT_NOTICE)
    (st.success if kind == "ok" else st.error)(text, icon=":material/check_circle:" if kind == "ok" else ":material/error:")

render.audit_health_panel(resources.audit_log())

shelf_keys = lib.keys()
damaged = lib.damaged()  # loads each live version once (checksums verified); the students' cache shares it
manifests = {k: store.manifest(k.klass, k.subject) for k in shelf_keys if k not in damaged}
m1, m2, m3 = st.columns(3)
m1.metric("Shelves", len(shelf_keys), border=True)
m2.metric("Chapters", sum(len(m.chapters) for m in manifests.values() if m), border=True)
m3.metric("Passages indexed", sum(m.n_chunks for m in manifests.values() if m), border=True)



def shelf_embedder(key):
    """The embedder a rebuild must use: the shelf's own model (from its manifest, or its previous version's when the
    live manifest is damaged), or the test fake when the app runs on it."""
    if resources.embedder_kind() == "hash":
        return embedder
    for version in [store.current_version(key.klass, key.subject)] + store.versions(key.klass, key.subject):
        try:
            return embedder_by_name(store.manifest_of(key.klass, key.subject, version).embedding_model)
        except ShelfDamaged:
            continue
    return embedder_by_name(MINILM_NAME)


def rebuild(key) -> None:
    """Rebuild a shelf from its kept PDFs with a progress bar; the outcome is left for the next run to show."""
    with st.status("Rebuilding the shelf…", expanded=True):
        bar = st.progress(0.0, text="Starting…")
        try:
            result = uploads.rebuild_shelf(store, shelf_embedder(key), key.klass, key.subject,
                                   progress=lambda p: bar.progress(uploads.progress_fraction(p), text=uploads.progress_text(p)))
            msg = (f"Rebuilt {pres.shelf_label(key.klass, key.subject)}: {len(result.reingested)} chapter(s) re-read, "
                   f"{len(result.carried)} carried over, {result.chunks} passages.")
            if result.refused:
                msg += f" Refused on re-reading: {', '.join(result.refused)} (carried over unchanged)."
            if result.lost:
                msg += (f" Not on the rebuilt shelf (no kept PDF, and the damaged files could not be read): "
                        f"{', '.join(result.lost)}; upload them again.")
            ss[resources.MAINT_NOTICE] = ("ok", msg)
        except TutorError as e:
            ss[resources.MAINT_NOTICE] = ("error", f"The shelf was not rebuilt: {e}")


if damaged:
    with st.container(border=True):
        st.markdown("#### :material/build: Damaged shelves")
        st.caption("Students who ask on these shelves are told the book cannot be opened right now; every other shelf "
                   "keeps answering. Roll back to the version before the damage, or rebuild from the kept PDFs.")
        for key, problem in damaged.items():
            tag = f"{key.klass}_{key.subject}"
            st.error(f"**{pres.shelf_label(key.klass, key.subject)}** is damaged: {pres.md(problem.detail)}",
                     icon=":material/broken_image:")
            previous = store.previous_version(key.klass, key.subject)
            kept_here = uploads.kept_pdfs(key.klass, key.subject)
            c1, c2 = st.columns(2)
            if c1.button("Roll back to the previous version", icon=":material/history:", key=f"m_rollback_{tag}",
                         disabled=previous is None,
                         help="No earlier intact version is kept" if previous is None else f"Version {previous}"):
                try:
                    v = store.rollback(key.klass, key.subject)
                    ss[resources.MAINT_NOTICE] = ("ok", f"Rolled {pres.shelf_label(key.klass, key.subject)} back to version {v}.")
                except TutorError as e:
                    ss[resources.MAINT_NOTICE] = ("error", str(e))
                st.rerun()
            if c2.button(f"Rebuild from {len(kept_here)} kept PDF(s)", icon=":material/autorenew:",
                         key=f"m_rebuild_damaged_{tag}", disabled=not kept_here):
                rebuild(key)
                st.rerun()

tab_add, tab_shelves = st.tabs([":material/upload_file: Add chapters", ":material/shelves: Shelves"])


def show_reports(reports: list[dict]) -> None:
    """One line per uploaded file: what was added, what was skipped and why, or why the file was refused."""
    for r in reports:
        where = pres.shelf_label(r["klass"], r["subject"])
        name = pres.md(r["file"])
        if r.get("uploaded") and uploads.safe_pdf_name(r["uploaded"]) != r["file"]:
            name += f" (uploaded as {pres.md(r['uploaded'])}; that name was already taken)"
        if r.get("duplicate_of"):
            st.info(f"**{name}** — the same PDF is already on {where} as {pres.md(r['duplicate_of'])}, so it was not "
                    "added again.", icon=":material/info:")
        elif r["status"] in ("added", "replaced"):
            verb = "Added" if r["status"] == "added" else "Replaced"
            st.success(f"**{name}** — {verb} *{pres.md(r['chapter'])}* on {where}: {r['pages_used']} of {r['pages']} "
                       f"pages read, {r['chunks']} passages indexed.", icon=":material/check_circle:")
        elif r["status"] == "unchanged":
            st.info(f"**{name}** — already on {where} and unchanged, so nothing was redone.", icon=":material/info:")
        else:
            cause = r["error"]
            prefix = f"{r['file']}: "
            cause = cause.removeprefix(prefix)
            joiner = " " if cause.split(" ", 1)[0] in ("is", "has", "cannot", "uses") else ": "
            st.error(f"**{name}**{joiner}{pres.md(cause)}. It was not added; the shelf is unchanged.",
                     icon=":material/block:")
        for page, reason in r["skipped"]:
            st.caption(f"{name}: page {page} skipped — {pres.md(reason)}")
        show_flagged(r["file"], r.get("flagged", []))


def show_flagged(file: str, flagged) -> None:
    """Planted sentences found in a chapter: never quoted to students, shown here so a maintainer can check the PDF."""
    if not flagged:
        return
    lines = "\n".join(f"- page {p}: {pres.md(t)}" for p, t in flagged)
    st.warning(f"**{pres.md(file)}** has {len(flagged)} sentence(s) that give orders to the tutor or ask for a "
               f"password. They are never quoted to students; check where this PDF came from.\n{lines}",
               icon=":material/gpp_maybe:")


# what a new shelf is embedded with; an existing shelf always keeps the model that built it
MODEL_CHOICES = {
    "auto": "Automatic: multilingual for a Hindi chapter, English otherwise",
    MINILM_NAME: f"English ({MINILM_NAME})",
    E5_NAME: f"Multilingual: Hindi and English ({E5_NAME})",
}


def upload_embedder(choice: str):
    """The embedder passed to ingest: the test fake when the app runs on it, None for the automatic choice."""
    if resources.embedder_kind() == "hash":
        return embedder
    return None if choice == "auto" else embedder_by_name(choice)


def add_files(rows, tmp: Path, model: str = "auto") -> list[dict] | None:
    """Validate the fields, write each upload under a sanitised name in `tmp`, ingest with a progress bar.

    Returns one result per file, or None when nothing was ingested (the problems are shown instead).
    """
    problems, items, taken, uploaded = [], [], set(), []
    for f, klass, subject, chapter, replace in rows:
        try:
            klass, subject = check_name(klass, "class"), check_name(subject, "subject")
        except ValueError as e:
            problems.append(f"**{pres.md(f.name)}**: {pres.md(str(e))}")
            continue
        data = f.getvalue()
        name = uploads.upload_name(f.name, hashlib.sha256(data).hexdigest(), names_on_shelf(klass, subject),
                              {n for (k, s_, n) in taken if (k, s_) == (klass, subject)}, replace)
        taken.add((klass, subject, name))
        path = tmp / name  # never the uploaded name as a path: only the sanitised base name, inside our temp folder
        path.write_bytes(data)
        items.append(IngestItem(path, klass, subject, chapter=chapter.strip() or None, name=name))
        uploaded.append(f.name)
    for p in problems:
        st.error(p, icon=":material/error:")
    if problems or not items:
        return None
    with st.status(f"Adding {len(items)} file(s) to the library…", expanded=True) as status:
        bar = st.progress(0.0, text="Starting…")
        try:
            # in-process extraction (workers=1): never fork the threaded Streamlit server, and a refused file's
            # PdfRefused cannot cross a process boundary (it does not pickle)
            report = ingest(items, store, upload_embedder(model), workers=1,
                            progress=lambda p: bar.progress(uploads.progress_fraction(p), text=uploads.progress_text(p)))
        except TutorError as e:
            status.update(label="Nothing was added", state="error")
            st.error(str(e), icon=":material/error:")
            return None
        status.update(label="Finished", state="complete")
    by_name = {(it.klass, it.subject, it.file): it for it in items}
    by_upload = {(it.klass, it.subject, it.file): up for it, up in zip(items, uploaded)}
    results = []
    for r in report.files:
        it = by_name.get((r.shelf.klass, r.shelf.subject, r.file))
        if it is not None and r.status in ("added", "replaced", "unchanged") and not r.duplicate_of:
            uploads.keep_upload(it.path, it.klass, it.subject, it.file)
        results.append({"file": r.file, "klass": r.shelf.klass, "subject": r.shelf.subject, "status": r.status,
                        "chapter": r.chapter, "pages": r.pages, "pages_used": r.pages_used, "chunks": r.chunks,
                        "skipped": list(r.skipped), "error": r.error, "flagged": list(r.flagged),
                        "duplicate_of": r.duplicate_of, "uploaded": by_upload.get((r.shelf.klass, r.shelf.subject, r.file), "")})
    return results


def names_on_shelf(klass: str, subject: str) -> dict[str, str]:
    """Every file name in use on a shelf, chapters and kept PDFs, with its content digest ("" when unknown)."""
    out = {name: sha256_file(path) for name, path in uploads.kept_pdfs(klass, subject).items()}
    try:
        manifest = store.manifest(klass, subject)
    except ShelfDamaged:
        manifest = None
    for name, entry in (manifest.chapters.items() if manifest else ()):
        out[name] = entry.sha256
    return out


# ------------------------------------------------------------------------------------------------ add chapters
with tab_add:
    if ss.get(resources.UPLOAD_RESULTS):
        st.markdown("**Last upload**")
        show_reports(ss[resources.UPLOAD_RESULTS])
        st.divider()
    st.markdown("Upload one or more chapter PDFs (up to 50 MB each) and say which class and subject shelf each goes "
                "on. Leave the chapter title empty to use the title printed in the PDF.")
    files = st.file_uploader("Chapter PDFs", type=["pdf"], accept_multiple_files=True,
                             key=f"uploader_{ss.get(resources.UPLOAD_ROUND, 0)}")
    default_class, default_subject = ss.get(resources.KLASS, ""), ss.get(resources.SUBJECT, "")
    rows = []
    if files:
        head = st.columns([3, 1, 2, 3, 2])
        for col, title in zip(head, ("File", "Class", "Subject", "Chapter title (optional)", "Same name on the shelf")):
            col.markdown(f"**{title}**")
        for f in files:
            guess_class, guess_subject = uploads.guess_shelf(f.name)
            c_file, c_class, c_subject, c_chapter, c_replace = st.columns([3, 1, 2, 3, 2], vertical_alignment="center")
            c_file.markdown(f":material/picture_as_pdf: {pres.md(f.name)}  \n:gray[{f.size / 1024:,.0f} KB]")
            klass = c_class.text_input("Class", value=guess_class or default_class, key=f"up_class_{f.file_id}",
                                       label_visibility="collapsed", placeholder="e.g. 10")
            subject = c_subject.text_input("Subject", value=guess_subject or default_subject,
                                           key=f"up_subject_{f.file_id}", label_visibility="collapsed",
                                           placeholder="e.g. science")
            chapter = c_chapter.text_input("Chapter title", key=f"up_chapter_{f.file_id}", label_visibility="collapsed",
                                           placeholder="found in the PDF")
            replace = c_replace.checkbox("Replace it", key=f"up_replace_{f.file_id}",
                                         help="Without this, a different PDF whose name is already used on the shelf "
                                              "is added beside it as name-2.pdf; the same PDF is never added twice.")
            rows.append((f, klass, subject, chapter, replace))
    model = st.selectbox("Embedding model for a new shelf", list(MODEL_CHOICES), format_func=MODEL_CHOICES.get,
                         key="up_model", help="A shelf that already exists keeps the model it was built with. "
                         "Hindi questions need the multilingual model.")
    add = st.button("Add to the library", type="primary", icon=":material/library_add:", disabled=not files,
                    key="up_add")
    if add and files:
        results = None
        with tempfile.TemporaryDirectory(prefix="tutor-upload-") as tmpdir:
            results = add_files(rows, Path(tmpdir), model)
        if results is not None:
            ss[resources.UPLOAD_RESULTS] = results
            ss[resources.UPLOAD_ROUND] = ss.get(resources.UPLOAD_ROUND, 0) + 1
            st.rerun()
    st.caption("Good files are also kept under `data/uploads/class-<class>/<subject>/` so that a shelf can be rebuilt "
               "from them later. While a shelf is being updated, students keep getting answers from the old version.")

# ------------------------------------------------------------------------------------------------ shelves
with tab_shelves:
    keys = [k for k in shelf_keys if k not in damaged]
    if not keys:
        st.info("The library is empty: add chapter PDFs on the first tab." if not damaged else
                "Every shelf is damaged: repair them above.", icon=":material/inbox:")
        st.stop()
    overview = pd.DataFrame([{
        "Class": k.klass, "Subject": pres.subject_label(k.subject), "Chapters": len(m.chapters), "Passages": m.n_chunks,
        "Last built": m.built_at[:16].replace("T", " "), "Embedding model": m.embedding_model,
    } for k, m in manifests.items() if m is not None])
    st.dataframe(overview, hide_index=True, width="stretch")

    key = st.selectbox("Manage a shelf", keys, format_func=lambda k: pres.shelf_label(k.klass, k.subject),
                       key="m_shelf")
    manifest = manifests[key]
    kept = uploads.kept_pdfs(key.klass, key.subject)
    chapters = chapter_text.chapters_in_order(manifest)
    if not chapters:
        st.warning("This shelf has no chapters left, so students do not see it.", icon=":material/warning:")
        if st.button("Delete this empty shelf", icon=":material/delete:", key="m_delete_shelf"):
            store.delete(key.klass, key.subject)
            ss[resources.MAINT_NOTICE] = ("ok", f"Deleted the empty shelf {pres.shelf_label(key.klass, key.subject)}.")
            st.rerun()
        st.stop()
    st.dataframe(pd.DataFrame([{
        "No.": c.chapter_number or "–", "Chapter": c.chapter, "File": c.file, "Pages read": f"{c.pages_used} of {c.pages}",
        "Skipped pages": ", ".join(f"{s['page']} ({s['reason']})" for s in c.pages_skipped) or "–",
        "Passages": c.chunks, "Added": c.ingested_at[:16].replace("T", " "),
        "PDF kept": "yes" if c.file in kept else "no", "Flagged sentences": len(c.flagged),
    } for c in chapters]), hide_index=True, width="stretch")
    for c in chapters:
        show_flagged(c.file, [(f["page"], f["sentence"]) for f in c.flagged])

    left, right = st.columns(2, gap="large")
    with left, st.container(border=True):
        st.markdown("**Remove a chapter**")
        gone = st.selectbox("Chapter", [c.file for c in chapters], key="m_remove_file",
                            format_func=lambda f: f"{manifest.chapters[f].chapter} ({f})")
        sure = st.checkbox("Yes, take this chapter off the shelf", key="m_remove_sure")
        if st.button("Remove chapter", icon=":material/delete:", disabled=not sure, key="m_remove"):
            try:
                n = remove_chapter(store, key.klass, key.subject, gone)
                if gone in kept:
                    kept[gone].unlink(missing_ok=True)
                ss[resources.MAINT_NOTICE] = ("ok", f"Removed {manifest.chapters[gone].chapter} ({n} passages) from "
                                             f"{pres.shelf_label(key.klass, key.subject)}.")
            except TutorError as e:
                ss[resources.MAINT_NOTICE] = ("error", str(e))
            ss.pop("m_remove_sure", None)
            st.rerun()
    with right, st.container(border=True):
        st.markdown("**Rebuild the shelf**")
        missing = [c.chapter for c in chapters if c.file not in kept]
        st.caption("Reads every chapter again from its kept PDF and builds a fresh version of the shelf. "
                   + (f"{len(missing)} chapter(s) have no kept PDF (added from the command line) and are carried over "
                      "as they are." if missing else "Every chapter has its PDF kept."))
        if st.button("Rebuild shelf", icon=":material/autorenew:", key="m_rebuild"):
            rebuild(key)  # a rebuild keeps the shelf's own model (the app's default embedder may be another one)
            st.rerun()
