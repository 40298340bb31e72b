"""Maintainers' page (password): add chapter PDFs to shelves, see what each shelf holds, remove or rebuild.

Uploads are written under a sanitised name to a temp folder, ingested (a new shelf version is swapped in only when
complete, so students keep reading the old one meanwhile), and the good ones kept under data/uploads for rebuilds.
"""
import tempfile
from pathlib import Path

import pandas as pd
import streamlit as st

from tutor import presentation as pres
from tutor.build import embedder_kind, shelf_embedder, upload_embedder
from tutor.errors import TutorError
from tutor.ingest import uploads
from tutor.retrieval.embedding import E5_NAME, MINILM_NAME
from tutor.store import chapters as chapter_text
from ui import auth, layout, render, resources
from ui import releases as release_ui

layout.through_app()
layout.page_header("Maintainers", "Add textbook chapters, check what each shelf holds, and remove or rebuild chapters.")
auth.password_gate("maintainer_password", resources.AUTH_MAINTAINER, "maintainers'")

ss = st.session_state
lib = resources.library()
store = lib.store
kind = embedder_kind()  # "hash" when the app runs on the test fake

if ss.get(resources.MAINT_NOTICE):
    level, text = ss.pop(resources.MAINT_NOTICE)
    if level == "ok":
        st.success(text, icon=":material/check_circle:")
    else:
        st.error(text, icon=":material/error:")

render.audit_health_panel(resources.audit_log())

# loads each live version once (checksums verified; the students' cache shares it) and reads each manifest: a shelf
# damaged while the app runs is listed with its repairs, never a failed page
manifests, damaged = lib.survey()
shelf_keys = set(manifests) | set(damaged)
m1, m2, m3 = st.columns(3)
m1.metric("Shelves", len(shelf_keys), border=True)
m2.metric("Chapters", sum(len(m.chapters) for m in manifests.values() if m), border=True)
m3.metric("Passages indexed", sum(m.n_chunks for m in manifests.values() if m), border=True)


def rebuild(key) -> None:
    """Rebuild a shelf from its kept PDFs with a progress bar; the outcome is left for the next run to show."""
    with st.status("Rebuilding the shelf…", expanded=True):
        bar = st.progress(0.0, text="Starting…")
        try:
            result = uploads.rebuild_shelf(
                store, shelf_embedder(store, key.klass, key.subject, kind), key.klass, key.subject,
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


def remove_damaged(key, kept: int) -> None:
    """Take a damaged shelf off the library, so its chapters can be uploaded afresh (the repair for a shelf with no
    earlier version and no kept PDFs, e.g. one built from the command line)."""
    name = pres.shelf_label(key.klass, key.subject)
    try:
        store.delete(key.klass, key.subject)
    except TutorError as e:
        ss[resources.MAINT_NOTICE] = ("error", f"The shelf {name} was not removed: {e}")
        return
    ss[resources.MAINT_NOTICE] = ("ok", f"Removed the damaged shelf {name}. Upload its chapters again on the Add "
                                        "chapters tab" + (f" (its {kept} kept PDF(s) stay for that)." if kept else "."))


if damaged:
    with st.container(border=True):
        st.markdown("#### :material/build: Damaged shelves")
        st.caption("Students who ask on these shelves are told the book cannot be opened right now; every other shelf "
                   "keeps answering. Roll back to the version before the damage, rebuild from the kept PDFs, or "
                   "remove the shelf and upload its chapters again.")
        for key, problem in damaged.items():
            tag = f"{key.klass}_{key.subject}"
            st.error(f"**{pres.shelf_label(key.klass, key.subject)}** is damaged: {pres.md(problem.detail)}",
                     icon=":material/broken_image:")
            previous = store.previous_version(key.klass, key.subject)
            kept_here = uploads.kept_names(store, key.klass, key.subject)
            c1, c2, c3 = st.columns(3)
            if c1.button("Roll back to the previous version", icon=":material/history:", key=f"m_rollback_{tag}",
                         disabled=previous is None,
                         help="No earlier intact version is kept" if previous is None else f"Version {previous}"):
                try:
                    v = store.rollback(key.klass, key.subject)
                    shelf_name = pres.shelf_label(key.klass, key.subject)
                    ss[resources.MAINT_NOTICE] = ("ok", f"Rolled {shelf_name} back to version {v}.")
                except TutorError as e:
                    ss[resources.MAINT_NOTICE] = ("error", str(e))
                st.rerun()
            if c2.button(f"Rebuild from {len(kept_here)} kept PDF(s)", icon=":material/autorenew:",
                         key=f"m_rebuild_damaged_{tag}", disabled=not kept_here):
                rebuild(key)
                st.rerun()
            sure = c3.checkbox("Yes, remove this shelf", key=f"m_remove_damaged_sure_{tag}")
            if c3.button("Remove the shelf", icon=":material/delete_forever:", key=f"m_remove_damaged_{tag}",
                         disabled=not sure, help="Students lose it until its chapters are uploaded again"):
                remove_damaged(key, len(kept_here))
                st.rerun()

tab_add, tab_shelves = st.tabs([":material/upload_file: Add chapters", ":material/shelves: Shelves"])


def show_results(results: list[uploads.UploadResult]) -> None:
    """One line per uploaded file: what was added, what was skipped and why, or why the file was refused."""
    icons = {"success": ":material/check_circle:", "info": ":material/info:", "error": ":material/block:"}
    for r in results:
        level, text = pres.upload_message(r)
        getattr(st, level)(text, icon=icons[level])
        for page, reason in r.skipped:
            st.caption(f"{pres.md(r.file)}: page {page} skipped — {pres.md(reason)}")
        for note in r.notes:  # text the printed page does not show, legacy-font lines: left out, said here
            st.caption(f"{pres.md(r.file)}: {pres.md(note)}")
        show_flagged(r.file, r.flagged)


def show_flagged(file: str, flagged, released=()) -> None:
    """Planted sentences found in a chapter: never quoted to students (unless released), shown here so a maintainer
    can check the PDF."""
    if flagged:
        st.warning(pres.flagged_message(file, flagged, released), icon=":material/gpp_maybe:")


def show_releasable(key, chapters) -> None:
    """Each chapter's held-back sentences with a Release (or Withdraw) button, under the maintainer's name."""
    held = [c for c in chapters if c.flagged]
    audit = resources.audit_log()
    standing = release_ui.standing(audit) if held else {}
    for c in chapters:
        show_flagged(c.file, [(f["page"], f["sentence"]) for f in c.flagged], set(standing or ()))
    if not held or standing is None:
        return
    with st.expander(f"Release held-back sentences ({sum(len(c.flagged) for c in held)})", icon=":material/lock_open:"):
        st.caption("Only a sentence held back for a web or e-mail address can be released, once you have checked it; "
                   "the tutor then quotes it and counts it as evidence. Orders to the tutor and requests for personal "
                   "details are never released.")
        name = release_ui.name_field()
        for c in held:
            st.markdown(f"**{pres.md(c.file)}**")
            release_ui.controls(audit, key, c.file, [(f["page"], f["sentence"]) for f in c.flagged], standing, name)


# what a new shelf is embedded with; an existing shelf always keeps the model that built it
MODEL_CHOICES = {
    "auto": "Automatic: multilingual for a Hindi chapter, English otherwise",
    MINILM_NAME: f"English ({MINILM_NAME})",
    E5_NAME: f"Multilingual: Hindi and English ({E5_NAME})",
}


def add_files(files: list[uploads.Upload], model: str) -> list[uploads.UploadResult] | None:
    """Ingest the uploads with a progress bar; None when nothing was ingested (the problems are shown instead)."""
    problems = uploads.upload_problems(files)
    for p in problems:
        st.error(pres.md(p), icon=":material/error:")
    if problems or not files:
        return None
    with st.status(f"Adding {len(files)} file(s) to the library…", expanded=True) as status:
        bar = st.progress(0.0, text="Starting…")
        try:
            with tempfile.TemporaryDirectory(prefix="tutor-upload-") as tmp:
                results = uploads.add_uploads(
                    store, files, upload_embedder(model, kind), Path(tmp),
                    progress=lambda p: bar.progress(uploads.progress_fraction(p), text=uploads.progress_text(p)))
        except TutorError as e:
            status.update(label="Nothing was added", state="error")
            st.error(str(e), icon=":material/error:")
            return None
        status.update(label="Finished", state="complete")
    return results


# ------------------------------------------------------------------------------------------------ add chapters
with tab_add:
    if ss.get(resources.UPLOAD_RESULTS):
        st.markdown("**Last upload**")
        show_results(ss[resources.UPLOAD_RESULTS])
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
        results = add_files([uploads.Upload(f.name, f.getvalue(), *fields) for f, *fields in rows], model)
        if results is not None:
            ss[resources.UPLOAD_RESULTS] = results
            ss[resources.UPLOAD_ROUND] = ss.get(resources.UPLOAD_ROUND, 0) + 1
            st.rerun()
    st.caption("Good files are also kept under `data/uploads/class-<class>/<subject>/` so that a shelf can be rebuilt "
               "from them later. While a shelf is being updated, students keep getting answers from the old version.")

# ------------------------------------------------------------------------------------------------ shelves
with tab_shelves:
    keys = [k for k, m in manifests.items() if m is not None]
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
    kept = uploads.kept_names(store, key.klass, key.subject)
    chapters = chapter_text.chapters_in_order(manifest)
    if not chapters:
        st.warning("This shelf has no chapters left, so students do not see it.", icon=":material/warning:")
        if st.button("Delete this empty shelf", icon=":material/delete:", key="m_delete_shelf"):
            store.delete(key.klass, key.subject)
            ss[resources.MAINT_NOTICE] = ("ok", f"Deleted the empty shelf {pres.shelf_label(key.klass, key.subject)}.")
            st.rerun()
        st.stop()
    st.dataframe(pd.DataFrame([{
        "No.": c.chapter_number or "–", "Chapter": c.chapter, "File": c.file,
        "Pages read": f"{c.pages_used} of {c.pages}",
        "Skipped pages": ", ".join(f"{s['page']} ({s['reason']})" for s in c.pages_skipped) or "–",
        "Passages": c.chunks, "Added": c.ingested_at[:16].replace("T", " "),
        "PDF kept": "yes" if c.file in kept else "no", "Flagged sentences": len(c.flagged),
    } for c in chapters]), hide_index=True, width="stretch")
    show_releasable(key, chapters)

    left, right = st.columns(2, gap="large")
    with left, st.container(border=True):
        st.markdown("**Remove a chapter**")
        gone = st.selectbox("Chapter", [c.file for c in chapters], key="m_remove_file",
                            format_func=lambda f: f"{manifest.chapters[f].chapter} ({f})")
        sure = st.checkbox("Yes, take this chapter off the shelf", key="m_remove_sure")
        if st.button("Remove chapter", icon=":material/delete:", disabled=not sure, key="m_remove"):
            try:
                n = uploads.remove_upload(store, key.klass, key.subject, gone)
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
