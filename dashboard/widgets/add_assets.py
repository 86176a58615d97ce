"""The add-assets panel: a folder to add, uploads (checked and kept in the session's private
folder) and the import form of a PEDA checkpoint whose env or type is unknown."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from core.agents.peda_importer import PEDA_TYPES
from core.catalog import AgentAsset, AssetCatalog, read_manifest, write_manifest
from core.envs import list_ids
from core.errors import ParetoscopeError
from dashboard.limits import max_upload_bytes
from dashboard.loaders import mtime, readable_roots
from dashboard.messages import guard, inert
from dashboard.paths import resolve_user_path
from dashboard.session import upload_dir
from dashboard.uploads import ACCEPTED_TYPES, human_bytes, store_upload


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
            "Env of uploaded D4MORL files whose name does not say",
            env_names,
            key="_upload_env",
        )
        limit = max_upload_bytes()
        files = st.file_uploader(
            "Upload checkpoints (.safetensors, PEDA .ckpt, zipped folders) or datasets (.pkl), "
            f"at most {human_bytes(limit)} each",
            accept_multiple_files=True,
            key="_uploads",
            type=ACCEPTED_TYPES,
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
                store_upload(upload_dir(), uploaded.name, uploaded.getvalue(), limit)
                if uploaded.name.endswith(".pkl"):
                    _note_upload_env(Path(uploaded.name).stem, st.session_state["_upload_env"])
                st.rerun()
        for pending in found.pending_agents():
            _peda_import_form(pending)


def _note_upload_env(name: str, env_id: str) -> None:
    from core.data.d4morl import parse_d4morl_name

    if parse_d4morl_name(f"{name}.pkl") is not None:
        return
    folder = upload_dir()
    manifest = read_manifest(folder)
    notes = dict(manifest.get("datasets") or {})
    notes[name] = {"env": env_id}
    write_manifest(
        folder,
        {
            **{k: v for k, v in manifest.items() if k not in ("format", "version")},
            "datasets": notes,
        },
    )


@st.cache_data(show_spinner=False)
def _inspect_peda(path: str, mtime: float) -> tuple[str | None, list[str], str | None]:
    from core.agents.peda import inspect_peda

    del mtime
    info = inspect_peda(path)
    return info.peda_type, list(info.env_candidates), info.env_guess


def _peda_import_form(asset: AgentAsset) -> None:
    """Ask for the env (and type) of a PEDA checkpoint that does not say, then import it."""
    with guard(f"PEDA checkpoint {asset.path.name}"):
        peda_type, candidates, guess = _inspect_peda(str(asset.path), mtime(asset.path))
        st.markdown(f"**PEDA checkpoint** {inert(asset.path.name)}")
        envs = candidates or list_ids("d4morl")
        env_id = st.selectbox(
            "Its environment",
            envs,
            index=envs.index(guess) if guess in envs else 0,
            key=f"_peda_env_{asset.name}",
        )
        types = list(PEDA_TYPES)
        chosen_type = st.selectbox(
            "Its PEDA type",
            types,
            index=types.index(peda_type) if peda_type in types else 0,
            key=f"_peda_type_{asset.name}",
            disabled=peda_type is not None,
        )
        if st.button("Import", key=f"_peda_import_{asset.name}"):
            from core.agents import save
            from core.agents.peda import import_peda

            agent = import_peda(asset.path, env_id, chosen_type)
            save(agent, upload_dir() / "agents" / f"{asset.name}-{chosen_type}")
            if asset.path.parent == upload_dir() / "agents":
                asset.path.unlink(missing_ok=True)
            st.rerun()
