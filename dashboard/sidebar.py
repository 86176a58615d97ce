"""The sidebar: the choices every page shares (assets, env, agent, dataset, seed, video size,
and the metric conventions: discount, reference point, normalisation), mirrored in the URL,
and the `Context` the pages read them from.

Every registered env can be opened: the catalog's envs (with agents or datasets) come first,
then the rest of the registry, each with the built-in agents beside the catalog's."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import streamlit as st

from paretoscope.agents.loaded import LoadedAgent
from paretoscope.catalog import AgentAsset, AssetCatalog, DatasetAsset, default_sweep_plan
from paretoscope.dashboard import loaders
from paretoscope.dashboard.activity import shared_activity
from paretoscope.dashboard.cluster_live import cluster_status
from paretoscope.dashboard.messages import inert, literal, plain_caption, show_problem
from paretoscope.dashboard.option_labels import label_details, short_labels
from paretoscope.dashboard.url_state import (
    DEFAULT_GAMMA,
    DEFAULT_VIDEO_SIZE,
    VIDEO_SIZES,
    load_url_once,
    note_unknown,
    notes_slot,
    set_url,
)
from paretoscope.dashboard.widgets.add_assets import add_assets_panel, import_uploads, show_imported
from paretoscope.dashboard.widgets.conventions import DEFAULT_NORMALISATION, metric_conventions
from paretoscope.dashboard.widgets.preference_control import set_preference
from paretoscope.envs import EnvSpec, get_spec, list_ids
from paretoscope.recordings import EpisodeRequest, RecordingLibrary
from paretoscope.results_store import LayeredStore
from paretoscope.sweeps import sweep_horizon

NO_DATASET = "(none)"


@dataclass
class Context:
    """The sidebar's choices and the process-wide stores."""

    catalog: AssetCatalog
    store: LayeredStore
    library: RecordingLibrary
    env_id: str | None
    agent: AgentAsset | None
    dataset: DatasetAsset | None
    seed: int
    size: int
    gamma: float = DEFAULT_GAMMA  # the discount of every sweep the pages show
    # The hypervolume reference point in force (the sidebar's metric conventions; None: no env)
    reference_point: tuple[float, ...] | None = None
    normalisation: str = DEFAULT_NORMALISATION  # of the many-objective views

    @property
    def spec(self) -> EnvSpec | None:
        return None if self.env_id is None else get_spec(self.env_id)

    @property
    def horizon(self) -> int:
        assert self.env_id is not None
        plan = self.agent.sweep_plan() if self.agent else None
        return sweep_horizon(plan, self.env_id) if plan else get_spec(self.env_id).horizon

    def episode_request(
        self,
        loaded: LoadedAgent,
        preference: Sequence[float] | np.ndarray,
        target: Sequence[float] | np.ndarray | None = None,
    ) -> EpisodeRequest:
        """The episode a page plays of `loaded` at `preference` (and `target`): the sidebar's
        env, agent, seed, size and horizon, with the frame stride of a real-time video."""
        return self.fingerprint_request(loaded.fingerprint, preference, target)

    def fingerprint_request(
        self,
        fingerprint: str,
        preference: Sequence[float] | np.ndarray,
        target: Sequence[float] | np.ndarray | None = None,
    ) -> EpisodeRequest:
        """`episode_request` of the agent whose fingerprint is `fingerprint`, not loaded."""
        from paretoscope.render import default_every

        assert self.env_id is not None and self.agent is not None
        return EpisodeRequest(
            fingerprint=fingerprint,
            env_id=self.env_id,
            preference=tuple(float(value) for value in preference),
            target=None if target is None else tuple(float(value) for value in target),
            seed=self.seed,
            size=self.size,
            horizon=self.horizon,
            every=default_every(self.env_id),
            label=self.agent.name,
        )

    def shows_defaults(self) -> bool:
        """Whether the sidebar is on the assets' default env and agent, seed 0 and the default
        video size: what most viewers watch, and what is worth pre-rendering."""
        defaults = self.catalog.defaults
        return (
            self.agent is not None
            and self.env_id == defaults.get("env")
            and self.agent.name == defaults.get("agent")
            and self.seed == 0
            and self.size == DEFAULT_VIDEO_SIZE
        )

    @property
    def default_preference(self) -> tuple[float, ...] | None:
        """The assets' opening preference (manifest defaults), on their default env only."""
        defaults = self.catalog.defaults
        preference = defaults.get("preference")
        if self.env_id is None or self.env_id != defaults.get("env") or preference is None:
            return None
        try:
            values = np.asarray(preference, dtype=np.float64).reshape(-1)
        except (TypeError, ValueError):
            return None  # a manifest's bad default opens at the middle, as without one
        if not (np.all(np.isfinite(values)) and np.all(values >= 0) and values.sum() > 0):
            return None
        return tuple(float(value) for value in values)

    @property
    def granularity(self) -> int:
        if self.agent is not None:
            return self.agent.sweep_plan().granularity
        spec = self.spec
        return default_sweep_plan(spec.n_obj if spec else 2).granularity


def context() -> Context:
    """The context built by the sidebar in this run (see `sidebar`). Every page run calls it:
    it marks the server busy (`paretoscope.dashboard.activity`)."""
    shared_activity().touch()
    found = st.session_state.get("_context")
    if found is None:
        found = sidebar()
    return found


def _choose(key: str, options: Sequence[str], default: str | None) -> None:
    """Keep the session's value for `key` among `options` (falling back to `default`)."""
    if st.session_state.get(key) not in options:
        st.session_state[key] = default if default in options else (options[0] if options else None)


def env_options(found: AssetCatalog) -> tuple[list[str], str | None]:
    """Every registered env id, the catalog's first (they have agents or datasets), and the
    default: the manifest's, else the catalog's first env; None when there is neither (the
    page then says so, and any env can still be chosen)."""
    catalog_envs = found.env_ids()
    present = set(catalog_envs)
    envs = catalog_envs + [env_id for env_id in list_ids() if env_id not in present]
    default = found.defaults.get("env")
    if default not in envs:
        default = catalog_envs[0] if catalog_envs else None
    return envs, default


def env_details(spec: EnvSpec) -> str:
    """What the env's short entry in the list leaves out: its objectives."""
    return f"{spec.n_obj} objectives (" + ", ".join(spec.objective_names) + ")"


def sidebar() -> Context:
    """Draw the sidebar and return the choices; call once per run, before the page."""
    st.session_state.pop("_url_notes_slot", None)  # last run's: pages' notes wait for this run's
    load_url_once()
    apply_pending()
    found = loaders.catalog()
    defaults = found.defaults
    ctx_store = loaders.store(found)
    ctx_library = loaders.library(found)
    with st.sidebar:
        st.markdown(f"### {inert(found.title)}")
        if found.description:
            plain_caption(found.description)
        envs, default_env = env_options(found)
        note_unknown("env", envs)
        if st.session_state.get("env") not in envs:
            st.session_state["env"] = default_env
        env_id = st.selectbox(
            "Environment",
            envs,
            key="env",
            placeholder="choose an environment",
            help="The assets' environments first, then every other registered one (each "
            "with the built-in random agent).",
        )
        if env_id is not None:
            st.caption(inert(env_details(get_spec(env_id))))
        agent_asset = None
        dataset_asset = None
        if env_id is not None:
            agents = found.agent_choices(env_id)
            names = [agent.name for agent in agents]
            note_unknown("agent", names)
            _choose("agent", names, defaults.get("agent"))
            labels = {agent.name: agent.label for agent in agents}
            shown = short_labels(labels)
            chosen = st.selectbox(
                "Agent",
                names,
                key="agent",
                format_func=lambda name: shown.get(name, name),
                placeholder="no agent for this environment",
            )
            if chosen is not None and label_details(labels, chosen):
                st.caption(inert(label_details(labels, chosen)))
            agent_asset = next((a for a in agents if a.name == chosen), None)
            datasets = found.datasets_for(env_id)
            dataset_names = [NO_DATASET] + [d.name for d in datasets]
            preferred = (agent_asset.dataset if agent_asset else None) or defaults.get("dataset")
            if preferred not in dataset_names and len(dataset_names) > 1:
                preferred = dataset_names[1]
            note_unknown("dataset", dataset_names)
            _choose("dataset", dataset_names, preferred)
            dataset_labels = {d.name: d.label for d in datasets}
            dataset_shown = short_labels(dataset_labels)
            dataset_choice = st.selectbox(
                "Dataset (optional)",
                dataset_names,
                key="dataset",
                format_func=lambda name: dataset_shown.get(name, name),
            )
            if dataset_choice is not None and label_details(dataset_labels, dataset_choice):
                st.caption(inert(label_details(dataset_labels, dataset_choice)))
            dataset_asset = next((d for d in datasets if d.name == dataset_choice), None)
        seed_value = st.session_state.get("seed")
        if not isinstance(seed_value, int) or not 0 <= seed_value <= 2**31 - 1:
            st.session_state["seed"] = 0
        seed = st.number_input("Seed", min_value=0, max_value=2**31 - 1, step=1, key="seed")
        conventions = metric_conventions(None if env_id is None else get_spec(env_id))
        if st.session_state.get("size") not in VIDEO_SIZES:
            st.session_state["size"] = DEFAULT_VIDEO_SIZE
        size = st.selectbox(
            "Video size", VIDEO_SIZES, key="size", format_func=lambda s: f"{s} × {s}"
        )
        assert size is not None  # a selectbox with options and no index=None: always one
        add_assets_panel(found)
        notes_slot()
        notice_unwritable_cache(ctx_library)
        if (cluster := cluster_status()) is not None:
            st.caption(literal(cluster))
        if found.problems:
            with st.expander(f"{len(found.problems)} entries could not be read"):
                for problem in found.problems:
                    show_problem("caption", str(problem.path), problem.message)
    # Above the page: what the viewer just did (an upload to import, an import done).
    show_imported(agent_asset.name if agent_asset else None)
    import_uploads(found)
    ctx = Context(
        catalog=found,
        store=ctx_store,
        library=ctx_library,
        env_id=env_id,
        agent=agent_asset,
        dataset=dataset_asset,
        seed=int(seed),
        size=int(size),
        gamma=conventions.gamma,
        reference_point=conventions.reference_point,
        normalisation=conventions.normalisation,
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


def notice_unwritable_cache(library: RecordingLibrary) -> None:
    """Once per session: the video cache cannot be written, so new videos live in memory only
    (the server's log says where and why)."""
    if library.write_problem and not st.session_state.get("_cache_noticed"):
        st.session_state["_cache_noticed"] = True
        st.toast(
            "The server's video cache cannot be written: new videos play from memory and are "
            "made again after a restart. The server's log says why.",
            icon=":material/warning:",
        )


def apply_pending() -> None:
    """Apply the changes `request_change` asked for (called before the sidebar's widgets)."""
    pending = st.session_state.pop("_pending", None)
    if not pending:
        return
    if pending.get("preference") is not None:
        set_preference(pending["preference"])
    for key, value in (pending.get("widgets") or {}).items():
        st.session_state[key] = value


def need(ctx: Context, agent: bool = True) -> bool:
    """Tell the user what is missing (no env, no agent); True when the page can go on."""
    if ctx.env_id is None:
        st.info(
            "No agents or datasets were found. Start with `paretoscope dashboard --assets DIR`, "
            "add a folder or upload files in the sidebar, or choose an environment there to "
            "try the built-in random agent."
        )
        return False
    if agent and ctx.agent is None:
        st.info(f"No agent for {inert(ctx.env_id)}: add one in the sidebar.")
        return False
    return True
