"""The add-assets panel: a folder to add, uploads (checked and kept in the session's private
folder) and the import form of another tool's checkpoint (PEDA, MORL-Baselines, an installed
importer's) that leaves questions open: its env, its kind, an importer's option, or trust for a
file that can only be read by running code from it (asked only for files on the server's disk:
uploads are never trusted). An uploaded file's form is at the top of the page; a file on the
server's disk has its form in the panel. An imported agent is named by its file and env
("Envelope · deep-sea-treasure-v0"), and the page switches to it with a note saying so."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from paretoscope.agents.importers import ImportPlan
from paretoscope.catalog import AgentAsset, AssetCatalog, read_manifest, write_manifest
from paretoscope.dashboard.folders import readable_roots
from paretoscope.dashboard.limits import max_upload_bytes
from paretoscope.dashboard.messages import guard, inert
from paretoscope.dashboard.paths import is_inside, resolve_user_path
from paretoscope.dashboard.session import session_uploads, upload_dir
from paretoscope.dashboard.stamps import mtime
from paretoscope.dashboard.uploads import (
    accepted_types,
    human_bytes,
    store_upload,
    upload_root_if_made,
)
from paretoscope.dashboard.url_state import request_change
from paretoscope.envs import list_ids
from paretoscope.errors import ParetoscopeError


def add_assets_panel(found: AssetCatalog) -> None:
    with st.expander("Add agents and datasets"):
        folder = st.text_input("A folder with agents or datasets", key="_folder_input")
        if st.button("Add folder", key="_add_folder") and folder:
            with guard("add folder"):
                path = resolve_user_path(folder, readable_roots(), "folder")
                if not path.is_dir():
                    raise ParetoscopeError(f"folder {folder!r}: no such folder")
                roots = st.session_state.setdefault("_extra_roots", [])
                if str(path) not in roots:
                    roots.append(str(path))
                st.rerun()
        env_names = list_ids()  # ids only: building every spec to list names costs seconds
        st.selectbox(
            "Env of uploaded datasets whose name does not say (D4MORL files)",
            env_names,
            key="_upload_env",
        )
        limit = max_upload_bytes()
        files = st.file_uploader(
            "Upload checkpoints (.safetensors, PEDA .ckpt, MORL-Baselines .tar or .pt, zipped "
            "folders) or datasets (.pkl), "
            f"at most {human_bytes(limit)} each",
            accept_multiple_files=True,
            key="_uploads",
            type=accepted_types(),
        )
        for uploaded in files or []:
            done = st.session_state.setdefault("_uploaded_ids", set())
            marker = (uploaded.name, uploaded.size)
            if marker in done:
                continue
            with guard(f"upload {uploaded.name}"):
                if uploaded.size > limit:
                    done.add(marker)
                    raise ParetoscopeError(
                        f"{uploaded.name}: {human_bytes(uploaded.size)}, more than the upload "
                        f"limit of {human_bytes(limit)}"
                    )
                done.add(marker)  # a refused file is reported once, not on every rerun
                stored = store_upload(upload_dir(), uploaded.name, uploaded.getvalue(), limit)
                if _dataset_without_env(stored):
                    _note_upload_env(stored.stem, st.session_state["_upload_env"])
                st.rerun()
        for pending in found.pending_agents():
            if _is_upload(pending.path):
                st.caption(
                    f"{inert(pending.path.name)} is uploaded: say what it needs in the form at "
                    "the top of the page."
                )
            else:
                _import_form(pending)


def import_uploads(found: AssetCatalog) -> None:
    """The import form of each uploaded file that leaves questions open, at the top of the page
    (where the viewer looks after uploading), in a box that says what it is for."""
    for pending in found.pending_agents():
        if _is_upload(pending.path):
            with st.container(border=True, key=f"_import_box_{pending.name}"):
                st.subheader(f"Import {inert(pending.path.name)}")
                _import_form(pending)
                if st.button("Remove this upload", key=f"_upload_remove_{pending.name}"):
                    pending.path.unlink(missing_ok=True)
                    st.rerun()


def show_imported(agent: str | None) -> None:
    """Above the page, while the imported agent is the one chosen: which agent was imported
    (a note, not a toast: it stays through the reruns that follow, a finished video's or a
    moved preference's, and goes once another agent is chosen)."""
    imported = st.session_state.get("_imported_note")
    if not imported:
        return
    name, note = imported
    if name != agent:
        del st.session_state["_imported_note"]
        return
    st.success(note, icon=":material/check_circle:")


def _dataset_without_env(path: Path) -> bool:
    """Whether `path` is a dataset file whose name and header do not say its env (a D4MORL
    file named otherwise than ``{env}_{count}_...pkl``): the env chosen above is noted for it."""
    from paretoscope.data.formats import sniff_dataset

    try:
        header = sniff_dataset(path)
    except ParetoscopeError:
        return False  # unreadable: discovery lists the problem
    return path.is_file() and header is not None and header.env_id is None


def _note_upload_env(name: str, env_id: str) -> None:
    _note_upload("datasets", name, {"env": env_id})


def _note_upload(section: str, name: str, note: dict[str, str]) -> None:
    """Write `note` for the entry `name` of `section` ("agents", "datasets") in the manifest of
    the session's upload folder (what discovery reads: labels, envs)."""
    folder = upload_dir()
    manifest = read_manifest(folder)
    notes = dict(manifest.get(section) or {})
    notes[name] = note
    write_manifest(
        folder,
        {
            **{k: v for k, v in manifest.items() if k not in ("format", "version")},
            section: notes,
        },
    )


@st.cache_data(show_spinner=False, max_entries=64)
def _import_plan(path: str, mtime: float) -> tuple[ImportPlan | None, tuple[str, ...], str | None]:
    """The importer's plan for `path` and, when the env is open and the importer can inspect the
    file (torch: which envs its tensors fit, and its guess), those envs and the guess. Cached by
    path and modification time: reruns of the page read nothing again."""
    from paretoscope.agents.importers import get_importer, sniff_import

    del mtime  # part of the cache key only
    plan = sniff_import(path)
    if plan is None:
        return None, (), None
    candidates: tuple[str, ...] = ()
    guess = None
    inspect = getattr(get_importer(plan.format), "inspect", None)
    # Never for a file that needs trust: only a trusted import may read it. A file that cannot
    # be read (refused globals, truncated) raises here: the form says so at once.
    if plan.env_id is None and not plan.needs_trust and callable(inspect):
        info = inspect(Path(path))
        candidates = tuple(str(env_id) for env_id in info.get("env_candidates") or ())
        guess = info.get("env_guess")
    return plan, candidates, None if guess is None else str(guess)


def _is_upload(path: Path) -> bool:
    """Whether `path` lies in an upload folder (this session's, or any under the server's upload
    root): such a file came from a viewer and is never trusted."""
    folders = [folder for folder in (session_uploads(), upload_root_if_made()) if folder]
    return bool(folders) and is_inside(path, folders)


def _label(prompt: str) -> str:
    return inert(prompt[:1].upper() + prompt[1:])


def _import_form(asset: AgentAsset) -> None:
    """Ask what another tool's checkpoint does not say (its open questions only: env, kind, the
    importer's options without a default, trust), then import it into the session's folder."""
    if asset.is_run:
        # A run folder is read where it lies, snapshot by snapshot: nothing to import, but
        # what its files do not say must be in the manifest.
        asked = ", ".join(asset.open_questions)
        st.info(
            f"Run {inert(asset.name)}: its files do not say {inert(asked)}. Write it in the "
            "assets' manifest.json, under `agents` and the run's name (for example "
            '`{"env": "MO-HalfCheetah-v2", "kind": "rvs"}`), to show the run.'
        )
        return
    with guard(f"import {asset.path.name}"):
        with st.spinner(f"Reading {inert(asset.path.name)}: which environments it fits…"):
            plan, candidates, guess = _import_plan(str(asset.path), mtime(asset.path))
        if plan is None:
            raise ParetoscopeError(f"{asset.path.name}: no importer reads this file")
        open_questions = set(asset.open_questions)
        uploaded = _is_upload(asset.path)
        st.markdown(
            f"{inert(plan.description)}. Answer what the file does not say, then press "
            "**Import**: it is converted into a safe paretoscope checkpoint for this session."
        )
        if "trust" in open_questions and uploaded:
            st.warning(
                f"{inert(asset.path.name)} can only be read by running code from it, and "
                "uploads are never trusted: nothing from it ran. If you trust it, import it on "
                "the command line (`paretoscope agent import FILE --trust --out DIR`) and "
                "upload the folder it writes, zipped."
            )
            return
        env_id = asset.env_id
        if "env" in open_questions:
            question = plan.question("env")
            envs = list(question.choices) if question and question.choices else list_ids()
            fitting = [env for env in candidates if env in envs]
            envs = fitting or envs
            default = (question.default if question else None) or guess
            if len(fitting) == 1:
                st.caption(
                    "Listed: the one environment whose observation and action sizes fit the file."
                )
            elif fitting:
                st.caption(
                    f"Listed: the {len(fitting)} environments whose observation and action "
                    "sizes fit the file, the best guess first."
                )
            env_id = st.selectbox(
                _label(question.prompt if question else "its environment"),
                envs,
                index=envs.index(default) if default in envs else 0,
                key=f"_import_env_{asset.name}",
            )
        kind_question = plan.question("kind")
        kind = asset.import_kind or plan.kind or (kind_question.default if kind_question else None)
        if "kind" in open_questions:
            kinds = list(plan.kinds or (kind_question.choices if kind_question else ()))
            kind = st.selectbox(
                _label(kind_question.prompt if kind_question else "its kind"),
                kinds,
                index=kinds.index(kind) if kind in kinds else 0,
                key=f"_import_kind_{asset.name}",
            )
        options: dict[str, str] = {}
        for name in asset.open_questions:
            question = plan.question(name)
            if name in ("env", "kind", "trust") or question is None:
                continue
            key = f"_import_opt_{name}_{asset.name}"
            if question.choices:
                choice = st.selectbox(_label(question.prompt), question.choices, key=key)
                assert choice is not None  # a selectbox with options and no index=None: always one
                options[name] = choice
            else:
                typed = st.text_input(_label(question.prompt), key=key).strip()
                if typed:
                    options[name] = typed
        trust = False
        if "trust" in open_questions:
            trust = st.checkbox(
                "I trust this file (it can run code on the server)",
                key=f"_import_trust_{asset.name}",
            )
        if st.button("Import", key=f"_import_{asset.name}"):
            from paretoscope.agents import save
            from paretoscope.agents.importers import import_agent

            agent = import_agent(asset.path, env_id, kind, trust=trust, options=options)
            imported_env = agent.spec.env_id
            name = f"{asset.name}-{imported_env}"
            label = f"{asset.name} · {imported_env}"
            _note_upload("agents", name, {"label": label})
            save(agent, upload_dir() / "agents" / name)
            if uploaded:
                asset.path.unlink(missing_ok=True)
            st.session_state["_imported_note"] = (
                name,
                f"Imported {inert(asset.name)} · {inert(imported_env)}: it is the agent now shown, "
                f"on {inert(imported_env)}.",
            )
            request_change(widgets={"env": imported_env, "agent": name})
