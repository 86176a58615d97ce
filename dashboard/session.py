"""This browser session: its id, whether it is still connected, and its private upload folder
(0700, removed when the session ends)."""

from __future__ import annotations

import contextlib
from pathlib import Path

import streamlit as st

from paretoscope.dashboard import streamlit_internals as internals
from paretoscope.dashboard.uploads import SessionFolder, remove_stale_folders


def session_id() -> str:
    return internals.session_id()


def session_is_active(session_id: str) -> bool:
    """True where that cannot be known (no runtime: an AppTest)."""
    return internals.session_is_active(session_id)


def upload_dir() -> Path:
    """This session's private upload folder (0700, removed when the session ends)."""
    holder = st.session_state.get("_upload_folder")
    if not isinstance(holder, SessionFolder) or not holder.path.is_dir():
        with contextlib.suppress(OSError):
            remove_stale_folders(session_is_active)
        holder = SessionFolder(session_id())
        st.session_state["_upload_folder"] = holder
    holder.touch()
    return holder.path


def session_uploads() -> Path | None:
    holder = st.session_state.get("_upload_folder")
    if isinstance(holder, SessionFolder) and holder.path.is_dir():
        holder.touch()
        return holder.path
    return None
