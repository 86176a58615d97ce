"""The Streamlit layer shared by every page: the sidebar (assets, env, agent, dataset, seed,
video size, all mirrored in the URL), cached loading, error display and the preference control.

Pages call `context()` for the choices made in the sidebar and the cached helpers below for
agents, sweeps and datasets; everything slow is cached by plain values (paths with their
modification times, fingerprints, preferences).
"""

from __future__ import annotations

import argparse
import contextlib
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from core.assets import (
    AgentAsset,
    AssetCatalog,
    DatasetAsset,
    SweepPlan,
    default_assets_dir,
    discover_many,
    write_manifest,
)
from core.envs import EnvSpec, get_spec, list_specs
from core.errors import ParetoscopeError
from dashboard import preferences as prefs
from dashboard.limits import allowed_dirs, max_upload_bytes
from dashboard.paths import confine_catalog, resolve_user_path
from dashboard.services import (
    DEFAULT_VIDEO_SIZE,
    VIDEO_SIZES,
    LayeredStore,
    LoadedAgent,
    RolloutLibrary,
    cache_dir,
    load_agent,
    make_store,
    objective_arrays,
    run_sweep,
    sweep_horizon,
)
from dashboard.uploads import (
    ACCEPTED_TYPES,
    AGENT_SUFFIXES,
    SessionFolder,
    human_bytes,
    remove_stale_folders,
    store_upload,
)

__all__ = ["store_upload"]  # kept here for the pages and tests that import it from ui

# Query parameters that mirror the sidebar, and the session keys of their widgets.
URL_KEYS = ("env", "agent", "dataset", "seed", "size")
NO_DATASET = "(none)"


# --- errors ---------------------------------------------------------------------------------------


@contextlib.contextmanager
def guard(what: str) -> Iterator[None]:
    """Show any error inside the block as a message in the page, never a traceback; the rest of
    the page goes on. (Streamlit's own rerun/stop signals are not exceptions and pass.)"""
    from core.render import RenderingUnavailable

    try:
        yield
    except RenderingUnavailable as error:
        st.warning(f"{what}: video unavailable. {error}")
    except ParetoscopeError as error:
        st.error(f"{what}: {error}")
    except Exception as error:  # noqa: BLE001 - the page must survive anything
        st.error(f"{what}: unexpected {type(error).__name__}: {error}")


# --- the assets folders ---------------------------------------------------------------------------


def assets_root() -> Path:
    """``--assets DIR`` after ``--`` on the streamlit command line, else the default folder."""
    parser = argparse.ArgumentParser(add_help=False)
    parser.add_argument("--assets", type=Path, default=None)
    known, _ = parser.parse_known_args(sys.argv[1:])
    return known.assets.expanduser() if known.assets else default_assets_dir()


def _session_id() -> str:
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    run_context = get_script_run_ctx(suppress_warning=True)
    return str(getattr(run_context, "session_id", "") or "anonymous")


def _session_is_active(session_id: str) -> bool:
    try:
        from streamlit.runtime import Runtime

        return bool(Runtime.instance().is_active_session(session_id))
    except Exception:  # noqa: BLE001 - no runtime (AppTest): count every session as active
        return True


def _upload_dir() -> Path:
    """This session's private upload folder (0700, removed when the session ends)."""
    holder = st.session_state.get("_upload_folder")
    if not isinstance(holder, SessionFolder) or not holder.path.is_dir():
        with contextlib.suppress(OSError):
            remove_stale_folders(_session_is_active)
        holder = SessionFolder(_session_id())
        st.session_state["_upload_folder"] = holder
    holder.touch()
    return holder.path


def _session_uploads() -> Path | None:
    holder = st.session_state.get("_upload_folder")
    if isinstance(holder, SessionFolder) and holder.path.is_dir():
        holder.touch()
        return holder.path
    return None


def readable_roots() -> list[Path]:
    """The folders a user may read from: the assets folder and the ``--allow-dir`` folders."""
    return [assets_root(), *allowed_dirs()]


def catalog() -> AssetCatalog:
    """Everything in the assets folder, the folders the user added and this session's uploads;
    entries that lead outside those folders (links) are refused."""
    roots: list[Path] = [assets_root(), *map(Path, st.session_state.get("_extra_roots", []))]
    uploads = _session_uploads()
    if uploads is not None and any(uploads.iterdir()):
        roots.append(uploads)
    allowed = [*readable_roots(), *([uploads] if uploads is not None else [])]
    return _discover(
        tuple(str(root) for root in roots),
        _folder_stamps(roots),
        tuple(str(root) for root in allowed),
    )


def _folder_stamps(roots: Sequence[Path]) -> tuple[float, ...]:
    """Modification times of the folders whose entries discovery lists: adding, removing or
    replacing an agent or dataset changes one of them."""
    stamps = []
    for root in roots:
        for folder in (root, root / "agents", root / "datasets"):
            try:
                stamps.append(folder.stat().st_mtime)
            except OSError:
                stamps.append(0.0)
            if folder != root and folder.is_dir():
                stamps.extend(_mtime(child) for child in folder.iterdir())
        manifest = root / "manifest.json"
        stamps.append(manifest.stat().st_mtime if manifest.is_file() else 0.0)
    return tuple(stamps)


@st.cache_resource(show_spinner=False, max_entries=32)
def _discover(
    roots: tuple[str, ...], stamps: tuple[float, ...], allowed: tuple[str, ...]
) -> AssetCatalog:
    del stamps  # part of the cache key only
    return confine_catalog(discover_many([Path(root) for root in roots]), allowed)


@st.cache_resource(show_spinner=False)
def _store(results_dirs: tuple[str, ...], cache: str) -> LayeredStore:
    return make_store([Path(folder) for folder in results_dirs], Path(cache))


@st.cache_resource(show_spinner=False)
def _library(rollout_dirs: tuple[str, ...], cache: str) -> RolloutLibrary:
    return RolloutLibrary([Path(folder) for folder in rollout_dirs], Path(cache) / "rollouts")


def _mtime(path: Path) -> float:
    try:
        stamps = [path.stat().st_mtime]
        if path.is_dir():
            stamps += [child.stat().st_mtime for child in path.iterdir()]
        return max(stamps)
    except OSError:
        return 0.0


@st.cache_resource(show_spinner="Loading the agent…", max_entries=16)
def _loaded_agent(
    path: str, mtime: float, fmt: str, env_id: str | None, kind: str, name: str
) -> LoadedAgent:
    del mtime  # part of the cache key only
    asset = AgentAsset(
        name=name,
        path=Path(path),
        format=fmt,  # type: ignore[arg-type]
        env_id=env_id,
        kind=kind,
        return_conditioned=True,
        label=name,
    )
    peda_type = kind if fmt == "peda" and kind in ("dt", "rvs", "bc") else None
    return load_agent(asset, env_id=env_id, peda_type=peda_type)


def loaded_agent(asset: AgentAsset) -> LoadedAgent:
    """The agent of `asset`, loaded once per process (reloaded when its files change)."""
    return _loaded_agent(
        str(asset.path), _mtime(asset.path), asset.format, asset.env_id, asset.kind, asset.name
    )


@st.cache_data(show_spinner=False, max_entries=64)
def _sweep_table(
    path: str,
    mtime: float,
    fmt: str,
    env_id: str,
    kind: str,
    name: str,
    plan: tuple[int, tuple[int, ...], int | None],
    preferences: tuple[tuple[float, ...], ...] | None,
    targets: tuple[tuple[float, ...], ...] | None,
    results_dirs: tuple[str, ...],
    cache: str,
) -> pd.DataFrame:
    loaded = _loaded_agent(path, mtime, fmt, env_id, kind, name)
    store = _store(results_dirs, cache)
    return run_sweep(
        loaded,
        env_id,
        SweepPlan(granularity=plan[0], seeds=plan[1], horizon=plan[2]),
        store,
        preferences=None if preferences is None else np.asarray(preferences),
        targets=None if targets is None else np.asarray(targets),
    )


def sweep_table(
    asset: AgentAsset,
    preferences: np.ndarray | None = None,
    targets: np.ndarray | None = None,
) -> pd.DataFrame:
    """The agent's sweep (its plan's grid, or `preferences` with `targets`), from the stores or
    computed once; cached by plain values."""
    ctx = context()
    plan = asset.sweep_plan()
    assert asset.env_id is not None
    as_rows = None if preferences is None else tuple(tuple(map(float, row)) for row in preferences)
    target_rows = None if targets is None else tuple(tuple(map(float, row)) for row in targets)
    with st.spinner(f"Evaluating {asset.label}…"):
        return _sweep_table(
            str(asset.path),
            _mtime(asset.path),
            asset.format,
            asset.env_id,
            asset.kind,
            asset.name,
            (plan.granularity, tuple(plan.seeds), plan.horizon),
            as_rows,
            target_rows,
            tuple(str(folder) for folder in ctx.catalog.results_dirs),
            str(cache_dir()),
        )


def mean_per_preference(table: pd.DataFrame, env_id: str) -> dict[str, np.ndarray]:
    """Episodes averaged per (preference, target): what a front shows, one point each."""
    from core.evaluate import objective_columns

    spec = get_spec(env_id)
    if len(table) == 0:
        return objective_arrays(table, env_id)
    keys = objective_columns("preference", spec) + objective_columns("target", spec)
    returns = objective_columns("return", spec)
    grouped = table.groupby(keys, sort=False, as_index=False)
    means = grouped[returns].mean()
    means["seed"] = grouped["seed"].min()["seed"].to_numpy()
    if "explicit_target" in table:
        means["explicit_target"] = grouped["explicit_target"].max()["explicit_target"].to_numpy()
    return objective_arrays(means, env_id)


@st.cache_data(show_spinner="Reading the dataset…", max_entries=16)
def _dataset_summary(path: str, mtime: float, env_id: str) -> Any:
    from core.data import dataset_summary

    del mtime
    return dataset_summary(path, env_id=env_id)


def dataset_summary(asset: DatasetAsset) -> Any:
    """The dataset's `DatasetSummary` (with its per-trajectory table), cached."""
    return _dataset_summary(str(asset.path), _mtime(asset.path), asset.env_id)


@st.cache_resource(show_spinner="Opening the dataset…", max_entries=4)
def _trajectories(path: str, mtime: float, env_id: str) -> Any:
    from core.data import open_dataset

    del mtime
    return open_dataset(path, env_id=env_id)


def trajectories(asset: DatasetAsset) -> Any:
    """The dataset's `Trajectories` (memory-mapped for native datasets), cached."""
    return _trajectories(str(asset.path), _mtime(asset.path), asset.env_id)


# --- the sidebar ----------------------------------------------------------------------------------


@dataclass
class Context:
    """The sidebar's choices and the process-wide stores."""

    catalog: AssetCatalog
    store: LayeredStore
    library: RolloutLibrary
    env_id: str | None
    agent: AgentAsset | None
    dataset: DatasetAsset | None
    seed: int
    size: int

    @property
    def spec(self) -> EnvSpec | None:
        return None if self.env_id is None else get_spec(self.env_id)

    @property
    def horizon(self) -> int:
        assert self.env_id is not None
        plan = self.agent.sweep_plan() if self.agent else None
        return sweep_horizon(plan, self.env_id) if plan else get_spec(self.env_id).horizon

    @property
    def granularity(self) -> int:
        if self.agent is not None:
            return self.agent.sweep_plan().granularity
        spec = self.spec
        from core.assets import default_sweep_plan

        return default_sweep_plan(spec.n_obj if spec else 2).granularity


def context() -> Context:
    """The context built by the sidebar in this run (see `sidebar`)."""
    found = st.session_state.get("_context")
    if found is None:
        found = sidebar()
    return found


def _load_url_once() -> None:
    """Copy the URL's query parameters into the session on the first run of a session; values
    that cannot be right are ignored, with a note saying which and why."""
    if st.session_state.get("_url_loaded"):
        return
    st.session_state["_url_loaded"] = True
    notes: list[str] = []
    params = st.query_params
    for key in ("env", "agent", "dataset"):
        if key in params:
            value = str(params[key])
            if len(value) > 200 or any(c in value for c in "/\\\x00"):
                notes.append(f"{key}={value[:40]!r}: not a name")
            else:
                st.session_state[key] = value
                st.session_state[f"_url_asked_{key}"] = value
    for key, low, high in (("seed", 0, 2**31 - 1), ("size", 1, 10_000)):
        if key in params:
            try:
                number = int(params[key])
            except ValueError:
                notes.append(f"{key}={str(params[key])[:40]!r}: not an integer")
                continue
            if not low <= number <= high:
                notes.append(f"{key}={number}: expected {low} to {high}")
                continue
            st.session_state[key] = number
    if "size" in st.session_state and st.session_state["size"] not in VIDEO_SIZES:
        notes.append(
            f"size={st.session_state['size']}: expected one of {', '.join(map(str, VIDEO_SIZES))}"
        )
        del st.session_state["size"]
    for key in ("pref", "target", "tm", "agents", "ref", "traj"):
        if key in params:
            value = str(params[key])
            problem = _url_problem(key, value)
            if problem:
                notes.append(f"{key}={value[:40]!r}: {problem}")
            else:
                st.session_state[f"_url_{key}"] = value
    st.session_state["_url_notes"] = notes


def _url_problem(key: str, value: str) -> str | None:
    """Why a URL value cannot be used (None when it can)."""
    if len(value) > 1000:
        return "too long"
    if key in ("pref", "target", "ref"):
        try:
            numbers = np.asarray([float(part) for part in value.split(",")], dtype=np.float64)
        except ValueError:
            return "expected numbers separated by commas"
        if not np.isfinite(numbers).all():
            return "expected finite numbers"
        if key == "pref" and ((numbers < 0).any() or numbers.sum() <= 0):
            return "expected non-negative weights with a positive sum"
    if key == "traj" and (not value.isdigit() or len(value) > 12):
        return "expected a trajectory number (0, 1, ...)"
    if key == "tm" and value not in ("0", "1"):
        return "expected 0 or 1"
    return None


def _note_unknown(key: str, options: Sequence[str]) -> None:
    """A URL name that is not among the choices: say so (once) and use the default."""
    asked = st.session_state.pop(f"_url_asked_{key}", None)
    if asked is not None and asked not in options:
        st.session_state.setdefault("_url_notes", []).append(
            f"{key}={asked[:40]!r}: no such {key} here"
        )


def _choose(key: str, options: Sequence[str], default: str | None) -> None:
    """Keep the session's value for `key` among `options` (falling back to `default`)."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else (options[0] if options else None)


def sidebar() -> Context:
    """Draw the sidebar and return the choices; call once per run, before the page."""
    _load_url_once()
    apply_pending()
    found = catalog()
    defaults = found.defaults
    ctx_store = _store(tuple(str(p) for p in found.results_dirs), str(cache_dir()))
    ctx_library = _library(tuple(str(p) for p in found.rollout_dirs), str(cache_dir()))
    with st.sidebar:
        st.markdown(f"### {found.title}")
        if found.description:
            st.caption(found.description)
        envs = found.env_ids()
        _note_unknown("env", envs)
        _choose("env", envs, defaults.get("env"))
        env_id = st.selectbox(
            "Environment",
            envs,
            key="env",
            format_func=lambda env: f"{env} ({get_spec(env).n_obj} objectives)",
            placeholder="no agents or datasets found",
        )
        agent_asset = None
        dataset_asset = None
        if env_id is not None:
            agents = found.agents_for(env_id)
            names = [agent.name for agent in agents]
            _note_unknown("agent", names)
            _choose("agent", names, defaults.get("agent"))
            labels = {agent.name: agent.label for agent in agents}
            chosen = st.selectbox(
                "Agent",
                names,
                key="agent",
                format_func=lambda name: labels.get(name, name),
                placeholder="no agent for this environment",
            )
            agent_asset = next((a for a in agents if a.name == chosen), None)
            datasets = found.datasets_for(env_id)
            dataset_names = [NO_DATASET] + [d.name for d in datasets]
            preferred = (agent_asset.dataset if agent_asset else None) or defaults.get("dataset")
            if preferred not in dataset_names and len(dataset_names) > 1:
                preferred = dataset_names[1]
            _note_unknown("dataset", dataset_names)
            _choose("dataset", dataset_names, preferred)
            dataset_labels = {d.name: d.label for d in datasets}
            dataset_choice = st.selectbox(
                "Dataset (optional)",
                dataset_names,
                key="dataset",
                format_func=lambda name: dataset_labels.get(name, name),
            )
            dataset_asset = next((d for d in datasets if d.name == dataset_choice), None)
        seed_value = st.session_state.get("seed")
        if not isinstance(seed_value, int) or not 0 <= seed_value <= 2**31 - 1:
            st.session_state["seed"] = 0
        seed = st.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key="seed")
        if st.session_state.get("size") not in VIDEO_SIZES:
            st.session_state["size"] = DEFAULT_VIDEO_SIZE
        size = st.selectbox(
            "Video size", VIDEO_SIZES, key="size", format_func=lambda s: f"{s} × {s}"
        )
        _add_assets_panel(found)
        notes = st.session_state.get("_url_notes") or []
        if notes:
            st.warning("This link's values were ignored: " + "; ".join(notes))
        if found.problems:
            with st.expander(f"{len(found.problems)} entries could not be read"):
                for problem in found.problems:
                    st.caption(f"`{problem.path}`: {problem.message}")
    ctx = Context(
        catalog=found,
        store=ctx_store,
        library=ctx_library,
        env_id=env_id,
        agent=agent_asset,
        dataset=dataset_asset,
        seed=int(seed),
        size=int(size),
    )
    st.session_state["_context"] = ctx
    set_url(
        env=env_id,
        agent=agent_asset.name if agent_asset else None,
        dataset=dataset_asset.name if dataset_asset else None,
        seed=str(int(seed)),
        size=str(int(size)),
    )
    return ctx


def set_url(**values: str | None) -> None:
    """Mirror values in the URL (None removes a key), so a copied link reproduces the view."""
    for key, value in values.items():
        if value is None:
            if key in st.query_params:
                del st.query_params[key]
        elif st.query_params.get(key) != value:
            st.query_params[key] = value


def url_value(key: str) -> str | None:
    """A value the page's URL carried when the session started (consumed once)."""
    return st.session_state.pop(f"_url_{key}", None)


# --- adding assets: folders, uploads, PEDA imports -----------------------------------------------

_AGENT_SUFFIXES = AGENT_SUFFIXES


def _add_assets_panel(found: AssetCatalog) -> None:
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
        env_names = [spec.id for spec in list_specs()]
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
                store_upload(_upload_dir(), uploaded.name, uploaded.getvalue(), limit)
                if uploaded.name.endswith(".pkl"):
                    _note_upload_env(Path(uploaded.name).stem, st.session_state["_upload_env"])
                st.rerun()
        for pending in found.pending_agents():
            _peda_import_form(pending)


def _note_upload_env(name: str, env_id: str) -> None:
    from core.assets import read_manifest
    from core.data.d4morl import parse_d4morl_name

    if parse_d4morl_name(f"{name}.pkl") is not None:
        return
    folder = _upload_dir()
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
        peda_type, candidates, guess = _inspect_peda(str(asset.path), _mtime(asset.path))
        st.markdown(f"**PEDA checkpoint `{asset.path.name}`**")
        envs = candidates or [spec.id for spec in list_specs() if spec.family == "d4morl"]
        env_id = st.selectbox(
            "Its environment",
            envs,
            index=envs.index(guess) if guess in envs else 0,
            key=f"_peda_env_{asset.name}",
        )
        types = ["dt", "rvs", "bc"]
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
            save(agent, _upload_dir() / "agents" / f"{asset.name}-{chosen_type}")
            if asset.path.parent == _upload_dir() / "agents":
                asset.path.unlink(missing_ok=True)
            st.rerun()


# --- the preference control -----------------------------------------------------------------------


def clicked_points(figure: Any, event: Any) -> list[list[int]]:
    """The ``customdata`` of the points a `st.plotly_chart(..., on_select="rerun")` returned."""
    from dashboard.figures import selected_custom_data

    try:
        points = event["selection"]["points"]
    except (KeyError, TypeError):
        return []
    return selected_custom_data(figure, points or [])


def request_change(
    preference: Sequence[float] | None = None,
    widgets: dict[str, Any] | None = None,
    bump: str | None = None,
) -> None:
    """Change widgets that are already on the page: remembered now, applied at the start of the
    next run (before any widget exists), which starts at once. `bump` names a counter that
    renews a chart's key, clearing its selection."""
    pending = st.session_state.setdefault("_pending", {})
    if preference is not None:
        pending["preference"] = tuple(float(v) for v in preference)
    pending.setdefault("widgets", {}).update(widgets or {})
    if bump:
        st.session_state[bump] = st.session_state.get(bump, 0) + 1
    st.rerun()


def apply_pending() -> None:
    """Apply the changes `request_change` asked for (called before the sidebar's widgets)."""
    pending = st.session_state.pop("_pending", None)
    if not pending:
        return
    if pending.get("preference") is not None:
        set_preference(pending["preference"])
    for key, value in (pending.get("widgets") or {}).items():
        st.session_state[key] = value


def current_preference(n_obj: int, granularity: int) -> np.ndarray:
    """The session's preference for this objective count (from the URL on first use)."""
    stored = st.session_state.get("preference")
    if stored is not None and len(stored) == n_obj:
        return np.asarray(stored, dtype=np.float64)
    from_url = prefs.parse_preference(url_value("pref"), n_obj, granularity)
    value = from_url if from_url is not None else prefs.snap(prefs.uniform(n_obj), granularity)
    st.session_state["preference"] = tuple(map(float, value))
    return value


def set_preference(preference: Sequence[float], prefix: str = "") -> None:
    """Make `preference` current and move every preference widget to it (call from callbacks
    or before the widgets are drawn)."""
    value = tuple(float(v) for v in preference)
    st.session_state["preference"] = value
    for key_prefix in {prefix, "", "cmp_", "tour_"}:
        _sync_widgets(value, key_prefix)


def _sync_widgets(value: tuple[float, ...], prefix: str) -> None:
    n_obj = len(value)
    if n_obj == 2:
        st.session_state[f"{prefix}w_pref2"] = value[1]
    elif n_obj == 3:
        for index in range(3):
            st.session_state[f"{prefix}w_pref3_{index}"] = value[index]
    else:
        for index in range(n_obj):
            st.session_state[f"{prefix}w_prefn_{index}"] = value[index]


def preference_control(spec: EnvSpec, granularity: int, prefix: str = "") -> np.ndarray:
    """A preference widget fitted to the objective count; returns the current preference.

    Two objectives: one slider with the objective names at its ends. Three: three sliders that
    stay on the simplex plus a clickable ternary plot. More: one slider per objective,
    normalised. Values snap to the sweep grid (multiples of 1/granularity) so that they match
    precomputed episodes.
    """
    names = spec.objective_names
    n_obj = spec.n_obj
    preference = current_preference(n_obj, granularity)
    step = 1.0 / granularity
    if n_obj == 2:
        key = f"{prefix}w_pref2"
        if key not in st.session_state:
            st.session_state[key] = float(preference[1])

        def moved() -> None:
            weight = float(st.session_state[key])
            set_preference(prefs.snap((1.0 - weight, weight), granularity), prefix)

        left, middle, right = st.columns([2, 7, 2], vertical_alignment="center")
        left.markdown(f"**{names[0]}**  \n{preference[0]:.2f}")
        middle.slider(
            f"Preference between {names[0]} and {names[1]}",
            min_value=0.0,
            max_value=1.0,
            step=step,
            key=key,
            on_change=moved,
            label_visibility="collapsed",
            format=f"{names[1]} %.2f",
        )
        right.markdown(f"**{names[1]}**  \n{preference[1]:.2f}")
    elif n_obj == 3:
        columns = st.columns([3, 2])
        with columns[0]:
            for index in range(3):
                key = f"{prefix}w_pref3_{index}"
                if key not in st.session_state:
                    st.session_state[key] = float(preference[index])

                def moved(index: int = index, key: str = key) -> None:
                    current = np.asarray(st.session_state.get("preference"), dtype=np.float64)
                    new_value = float(st.session_state[key])
                    rebalanced = prefs.rebalance(current, index, new_value)
                    snapped = prefs.snap(rebalanced, granularity)
                    set_preference(snapped, prefix)

                st.slider(
                    names[index],
                    min_value=0.0,
                    max_value=1.0,
                    step=step,
                    key=key,
                    on_change=moved,
                )
        with columns[1]:
            candidates = _grid(3, granularity)
            from dashboard.figures import ternary_figure

            chart_key = f"{prefix}ternary_{st.session_state.get('_ternary_version', 0)}"

            figure = ternary_figure(names, candidates, preference)
            event = st.plotly_chart(
                figure,
                key=chart_key,
                on_select="rerun",
                selection_mode="points",
                width="stretch",
            )
            for data in clicked_points(figure, event):
                if data[0] is not None and 0 <= data[0] < len(candidates):
                    request_change(preference=candidates[int(data[0])], bump="_ternary_version")
    else:
        columns = st.columns(min(n_obj, 4))
        for index in range(n_obj):
            key = f"{prefix}w_prefn_{index}"
            if key not in st.session_state:
                st.session_state[key] = float(preference[index])

            def moved() -> None:
                raw = [float(st.session_state[f"{prefix}w_prefn_{i}"]) for i in range(n_obj)]
                st.session_state["preference"] = tuple(map(float, prefs.normalise(raw)))

            columns[index % len(columns)].slider(
                f"{names[index]} (weight)",
                min_value=0.0,
                max_value=1.0,
                step=0.05,
                key=key,
                on_change=moved,
            )
        st.caption(
            "normalised preference: "
            + ", ".join(f"{n} {v:.2f}" for n, v in zip(names, preference, strict=True))
        )
    preference = np.asarray(st.session_state["preference"], dtype=np.float64)
    set_url(pref=prefs.format_vector(preference))
    return preference


def _grid(n_obj: int, granularity: int) -> np.ndarray:
    from core.metrics import preference_grid

    return preference_grid(n_obj, granularity)


def describe(names: Sequence[str], values: Sequence[float], digits: str = ".4g") -> str:
    """ "run 1.2, energy 3.4": objective names with values."""
    return ", ".join(f"{n} {float(v):{digits}}" for n, v in zip(names, values, strict=True))


# --- small helpers --------------------------------------------------------------------------------


def need(ctx: Context, agent: bool = True) -> bool:
    """Tell the user what is missing (no env, no agent); True when the page can go on."""
    if ctx.env_id is None:
        st.info(
            "No agents or datasets were found. Start with `paretoscope dashboard --assets DIR`, "
            "add a folder or upload files in the sidebar."
        )
        return False
    if agent and ctx.agent is None:
        st.info(f"No agent for {ctx.env_id}: add one in the sidebar.")
        return False
    return True


def axis_pickers(spec: EnvSpec, key: str, count: int = 2) -> list[int]:
    """Selectboxes choosing which objectives a 2-D view shows (only above `count` objectives)."""
    if spec.n_obj <= count:
        return list(range(spec.n_obj))
    columns = st.columns(count)
    chosen = []
    for axis, column in enumerate(columns):
        chosen.append(
            column.selectbox(
                f"{'xyz'[axis]} axis",
                range(spec.n_obj),
                index=axis,
                format_func=lambda index: spec.objective_names[index],
                key=f"{key}_{axis}",
            )
        )
    return chosen
