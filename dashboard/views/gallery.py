"""Gallery: N policies spread along the agent's front, each a small video labelled with its
preference and returns, all playing from one playhead; the front coloured by behaviour
cluster. Tiles appear as their recordings finish."""

from __future__ import annotations

import contextlib
from collections.abc import Sequence
from dataclasses import dataclass, replace

import numpy as np
import streamlit as st

from paretoscope.agents.loaded import LoadedAgent
from paretoscope.behaviour import (
    DEFAULT_TILES,
    MAX_TILES,
    EpisodeStates,
    GalleryTiles,
    cluster,
    describe,
    divergent_steps,
    embed,
    pick_tiles,
    return_difference,
)
from paretoscope.behaviour.difference import frames_at
from paretoscope.behaviour.gallery import tile_caption
from paretoscope.behaviour.saved_layout import GalleryLayout, GalleryLayouts, layout_key
from paretoscope.behaviour.states import episode_states
from paretoscope.dashboard import loaders, sidebar
from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.live import recording_started
from paretoscope.dashboard.messages import guard
from paretoscope.dashboard.streamlit_internals import media_url, server_logger
from paretoscope.dashboard.widgets.gallery import Tile, embedding_figure, front_figure, gallery
from paretoscope.figures.behaviour import difference_figure
from paretoscope.recordings import EpisodeRequest, Recording
from paretoscope.render.playback import playback_fps
from paretoscope.video import grid_shape

# Each tile's behaviour cluster, the clusters' names, the tiles' 2-D behaviour embedding.
Clusters = tuple[list[int], list[str], list[list[float]]]
TILE_SIZE = 240  # pixels: the largest a tile's video is recorded at, three or more a row

log = server_logger("paretoscope.dashboard")

st.title("Gallery")
st.caption(
    "Policies spread along the front, playing together: see where the gait changes. Hover a "
    "tile to find its point on the front (and a point to find its tile); click a tile to open "
    "it in Explore. Colours are behaviour clusters."
)


@st.cache_data(show_spinner="Re-running the tiles' episodes for their states…", max_entries=16)
def _tile_states(
    fingerprint: str, env_id: str, preferences: tuple[tuple[float, ...], ...], seed: int,
    horizon: int,
) -> list[EpisodeStates]:  # fmt: skip
    """Each tile's episode run once more for its states (recordings keep none) by the
    sidebar's agent (`fingerprint`: its weights, part of the key); cached by plain values."""
    ctx = sidebar.context()
    assert ctx.agent is not None
    loaded = loaders.fitting_agent(ctx.agent, env_id)
    with loaded.borrow() as agent:
        return [
            episode_states(agent, env_id, preference, seed, horizon=horizon)
            for preference in preferences
        ]


@st.cache_data(show_spinner="Describing the tiles' behaviour…", max_entries=16)
def _clusters(
    fingerprint: str, env_id: str, preferences: tuple[tuple[float, ...], ...], seed: int,
    horizon: int,
) -> Clusters:  # fmt: skip
    """Each tile's behaviour cluster, the clusters' names and the tiles' behaviour embedding
    (2-D)."""
    described = describe(_tile_states(fingerprint, env_id, preferences, seed, horizon))
    found = cluster(described, seed=0)
    return found.labels.tolist(), list(found.names), embed(described.values).tolist()


_MOST_CLUSTERED = 64


@st.cache_resource
def _clustered() -> dict[tuple, Clusters]:
    """What `_clusters` found in this process, by its key (a page script's globals last one
    run; this lasts the process), so a page can ask without computing."""
    return {}


def _remember(key: tuple, found: Clusters) -> None:
    known = _clustered()
    if len(known) >= _MOST_CLUSTERED:
        known.clear()
    known[key] = found


def _query(ctx: sidebar.Context, preference: Sequence[float]) -> str:
    assert ctx.env_id is not None and ctx.agent is not None
    parts = {
        "env": ctx.env_id,
        "agent": ctx.agent.name,
        "seed": str(ctx.seed),
        "size": str(ctx.size),
        "pref": prefs.format_vector(preference, 6),
    }
    from urllib.parse import urlencode

    return "?" + urlencode(parts)


@dataclass(frozen=True)
class _Plan:
    """The gallery apart from its videos: the agent's fingerprint, its front, the tiles spread
    along it and, when a saved layout has them, their behaviour clusters."""

    fingerprint: str
    front: np.ndarray  # (points, n_obj): mean returns per preference
    tiles: GalleryTiles
    clusters: Clusters | None = None


def _saved_key(ctx: sidebar.Context, count: int) -> str | None:
    """The key of this gallery's saved layout; None when the agent is no paretoscope
    checkpoint (`loaders.checkpoint_digest`)."""
    assert ctx.agent is not None and ctx.env_id is not None
    digest = loaders.checkpoint_digest(ctx.agent)
    if digest is None:
        return None
    plan = ctx.agent.sweep_plan().to_dict()
    return layout_key(digest, ctx.env_id, plan, count, ctx.seed, ctx.horizon)


def _layouts(ctx: sidebar.Context) -> GalleryLayouts:
    """The saved layouts, in the recording library's folders (its read-only ones first)."""
    return GalleryLayouts(ctx.library.read_dirs, ctx.library.write_dir)


def _saved_plan(ctx: sidebar.Context, key: str | None, count: int) -> _Plan | None:
    """The layout saved under `key`, if any: read without loading the agent or its sweep."""
    assert ctx.spec is not None
    if key is None:
        return None
    layout = _layouts(ctx).get(key, ctx.spec.n_obj, count)
    if layout is None:
        return None
    tiles = GalleryTiles(layout.preferences, layout.returns, layout.rows)
    clusters = (list(layout.labels), list(layout.names), layout.embedding.tolist())
    return _Plan(layout.fingerprint, layout.front, tiles, clusters)


def _computed_plan(ctx: sidebar.Context, loaded: LoadedAgent, count: int) -> _Plan | None:
    """The agent's front from its sweep, and the tiles spread along it (None: no episodes)."""
    assert ctx.agent is not None
    front = loaders.sweep_points(ctx.agent, ctx.catalog, gamma=1.0).front
    if not len(front["returns"]):
        return None
    chosen = pick_tiles(front["preferences"], front["returns"], count)
    return _Plan(loaded.fingerprint, front["returns"], chosen)


def _tile_requests(ctx: sidebar.Context, plan: _Plan) -> list[EpisodeRequest]:
    """Each tile's episode; with three tiles or more a row each is a third of the gallery wide
    or less, so recorded at `TILE_SIZE` at most (faster to record and to load)."""
    _, columns = grid_shape(len(plan.tiles.preferences))
    size = min(ctx.size, TILE_SIZE) if columns >= 3 else ctx.size
    return [
        replace(ctx.fingerprint_request(plan.fingerprint, preference), size=size)
        for preference in plan.tiles.preferences
    ]


def show_gallery() -> None:
    ctx = sidebar.context()
    if not sidebar.need(ctx):
        return
    spec, env_id, asset = ctx.spec, ctx.env_id, ctx.agent
    assert spec is not None and env_id is not None and asset is not None
    count = st.slider("Tiles", 1, MAX_TILES, DEFAULT_TILES, key="gallery_tiles")
    # A saved layout draws recorded tiles without the agent: it loads only to record one.
    saved_key = _saved_key(ctx, count)
    plan = _saved_plan(ctx, saved_key, count)
    loaded: LoadedAgent | None = None
    requests = [] if plan is None else _tile_requests(ctx, plan)
    recordings: list[Recording | None] = [ctx.library.get(r.key()) for r in requests]
    if plan is None or not all(recordings):
        loaded = loaders.fitting_agent(asset, env_id)
        if plan is not None and plan.fingerprint != loaded.fingerprint:
            log.warning("gallery layout %s names another fingerprint: computed again", saved_key)
            plan = None
        if plan is None:
            plan = _computed_plan(ctx, loaded, count)
            if plan is None:
                st.info("The agent's sweep has no episodes yet.")
                return
            requests = _tile_requests(ctx, plan)
            recordings = [ctx.library.get(r.key()) for r in requests]
    chosen = plan.tiles
    _, columns = grid_shape(len(chosen.preferences))
    key = (
        plan.fingerprint,
        env_id,
        tuple(tuple(float(v) for v in p) for p in chosen.preferences),
        int(ctx.seed),
        int(requests[0].horizon),
    )
    slot = st.empty()
    names = spec.objective_names
    fps = playback_fps(env_id, requests[0].every)

    # Behaviour in detail (a toggle under the gallery, off at first): the embedding is drawn
    # in the gallery's component, linked to the tiles and the front by hover.
    detail = len(requests) > 1 and bool(st.session_state.get("gallery_detail", False))

    def draw(found: Clusters | None = None) -> None:
        labels, cluster_names = (None, ()) if found is None else (found[0], found[1])
        done = sum(recording is not None for recording in recordings)
        played = [recording.fps for recording in recordings if recording is not None]
        tiles = []
        for index, (recording, preference) in enumerate(
            zip(recordings, chosen.preferences, strict=True)
        ):
            returns = chosen.returns[index] if recording is None else recording.returns[0]
            url = None
            if recording is not None and recording.video:
                url = media_url(recording.video, "video/mp4", f"paretoscope:gallery{index}")
            tiles.append(
                Tile(
                    url,
                    (f"#{index + 1}", *tile_caption(preference, returns, names)),
                    (float(chosen.returns[index][0]), float(chosen.returns[index][-1])),
                    _query(ctx, preference),
                    None if labels is None else labels[index],
                )
            )
        progress = (
            f"{done} of {len(tiles)} recorded" if done < len(tiles) else f"{len(tiles)} policies"
        )
        shown = plan.front[:, [0, -1]] if spec.n_obj > 2 else plan.front
        embedding = None
        if detail and found is not None:
            embedding = embedding_figure(np.asarray(found[2]), tiles, cluster_names)
        with slot.container():
            gallery(
                tiles,
                front_figure(names, shown, tiles, cluster_names),
                columns,
                min(played, default=fps),
                progress,
                embedding,
            )
            if done < len(tiles):
                st.progress(done / len(tiles), text=f"Recording the tiles: {progress}")

    # Clusters known already (a saved layout, or found before in this process) are drawn at
    # once: a recorded gallery is drawn once (a second draw replaces the frame, its videos
    # loaded again).
    known = plan.clusters if plan.clusters is not None else _clustered().get(key)
    draw(known)
    with contextlib.ExitStack() as stack:
        jobs = {}
        if loaded is not None:
            jobs = {
                index: stack.enter_context(recording_started(ctx.library, request, [loaded]))
                for index, request in enumerate(requests)
                if recordings[index] is None
            }
        waiting = {index: job for index, job in jobs.items() if job is not None}
        while waiting:
            for index, job in list(waiting.items()):
                state = job.wait(0, None, timeout=0.2)
                if state.done:
                    del waiting[index]
                    if state.error is not None:
                        raise state.error
                    recordings[index] = state.result
                    draw(known)
    with guard("behaviour clusters"):
        found = known if known is not None else _clusters(*key)
        if known is None:
            draw(found)
            _remember(key, found)
        if saved_key is not None and plan.clusters is None:
            _layouts(ctx).put(
                saved_key,
                GalleryLayout(
                    plan.fingerprint,
                    plan.front,
                    chosen.rows,
                    chosen.preferences,
                    chosen.returns,
                    tuple(found[0]),
                    tuple(found[1]),
                    np.asarray(found[2], dtype=np.float64),
                ),
            )
        cluster_names = found[1]
        st.caption(
            "Behaviour clusters (k-means on per-episode descriptors, k by silhouette): "
            + "; ".join(f"{index + 1}: {name}" for index, name in enumerate(cluster_names))
        )
        # On request: its charts and frames would load while the tiles start.
        if len(requests) > 1 and st.toggle(
            "Behaviour in detail: the tiles in two dimensions, and why two of them differ",
            key="gallery_detail",
        ):
            st.caption(
                "Under the tiles, their behaviour in two dimensions (PCA of their standardised "
                "descriptors): near points behave alike, whatever their returns. Hover a point "
                "to find its tile, or a tile to find its point."
            )
            if all(recordings):
                with guard("why two tiles differ"):
                    show_difference(
                        names, key, [r for r in recordings if r is not None], chosen.preferences
                    )


def show_difference(
    names: Sequence[str],
    key: tuple,
    recordings: Sequence[Recording],
    preferences: np.ndarray,
) -> None:
    """Two tiles: where their return difference accrues over the episode, the moments their
    states diverge most, and both videos' frames at those moments."""
    st.subheader("Why do these two differ?")
    count = len(recordings)
    left, right = st.columns(2)

    def tile_name(index: int) -> str:
        return f"#{index + 1}: preference {prefs.format_vector(preferences[index], 2)}"

    first = left.selectbox("Tile A", range(count), 0, format_func=tile_name, key="gallery_a")
    second = right.selectbox(
        "Tile B", range(count), count - 1, format_func=tile_name, key="gallery_b"
    )
    if first == second:
        st.info("Choose two different tiles.")
        return
    a, b = f"#{first + 1}", f"#{second + 1}"
    states = _tile_states(*key)
    moments = divergent_steps(states[first], states[second])
    difference = return_difference(recordings[first], recordings[second])
    st.plotly_chart(
        difference_figure(names, difference, moments.tolist(), a, b),
        key="gallery_difference",
        width="stretch",
    )
    st.caption(
        f"Each objective's return collected so far by {a} minus {b}, step by step: where the "
        "line climbs or falls, that objective's difference accrues. Dotted: the steps where "
        "their states differ most (each observation entry scaled by its spread over both)."
    )
    shown_a, shown_b = frames_at(recordings[first], moments), frames_at(recordings[second], moments)
    for step, frame_a, frame_b in zip(moments.tolist(), shown_a, shown_b, strict=True):
        columns = st.columns(2)
        columns[0].image(frame_a, caption=f"{a} at step {step}", width="stretch")
        columns[1].image(frame_b, caption=f"{b} at step {step}", width="stretch")


with guard("gallery"):
    show_gallery()
