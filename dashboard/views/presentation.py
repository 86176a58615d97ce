"""Presentation: a tour that sweeps the preference from one extreme to the other and makes one
MP4 — the rollout beside its point moving on the front — ready to drop into a slide. For envs
with a known front, the front behind the tour is drawn beside it under the video."""

from __future__ import annotations

import numpy as np
import streamlit as st

from paretoscope.agents.loaded import LoadedAgent
from paretoscope.dashboard import loaders, sidebar
from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.known_front import describe_front, indicators_text
from paretoscope.dashboard.live import show_recording_live
from paretoscope.dashboard.messages import guard
from paretoscope.dashboard.widgets import charts
from paretoscope.envs.known_fronts import against_known, known_front
from paretoscope.figures.front import FrontSeries, front_figure
from paretoscope.recordings import TourRequest
from paretoscope.sweeps import mean_per_preference

ctx = sidebar.context()


def draw_known_front(axes: list[int]) -> None:
    """The tour's front (its plan's sweep) beside the env's known front at the same γ: the
    video's panel shows the agent's front only."""
    assert ctx.agent is not None and ctx.env_id is not None and ctx.spec is not None
    points = mean_per_preference(
        loaders.sweep_table(ctx.agent, ctx.catalog, gamma=ctx.gamma), ctx.env_id
    )
    against = against_known(ctx.env_id, ctx.gamma, points["returns"], points["preferences"])
    if against is None:
        return
    series = FrontSeries(
        ctx.agent.label,
        points["returns"],
        points["preferences"],
        seeds=points["seeds"],
        regret=against.regret,
        env_id=ctx.env_id,
    )
    figure = front_figure(
        ctx.spec.objective_names,
        [series],
        reference_point=ctx.reference_point,
        axes=[int(axis) for axis in axes],
        known_front=against.front,
        height=380,
        include_reference=charts.reference_toggle("tour_show_reference"),
    )
    st.plotly_chart(figure, key="tour_known_front", width="stretch")
    st.caption(describe_front(against.front) + ". " + indicators_text(against) + ".")


def make_tour(request: TourRequest, path: np.ndarray, loaded: LoadedAgent, horizon: int) -> None:
    """Record `request` (the stops `path`) as a job, showing its frames and a progress bar; the
    page reruns with the stored video when it is done. Its panel's data come from the sweeps
    (the bundled demo stores them: nothing to compute)."""
    assert ctx.agent is not None and ctx.env_id is not None and ctx.spec is not None
    asset, env_id = ctx.agent, ctx.env_id
    table = loaders.sweep_table(asset, ctx.catalog, preferences=path, gamma=ctx.gamma)
    arrays = mean_per_preference(table, env_id)
    # The sweep ran at the stops: each has its row (else `with_panel` says so).
    rows = [prefs.nearest_row(arrays["preferences"], p) for p in path]
    order = [row for row in rows if row is not None]
    front = mean_per_preference(loaders.sweep_table(asset, ctx.catalog, gamma=ctx.gamma), env_id)
    cloud = None
    if ctx.dataset is not None:
        cloud = loaders.dataset_summary(ctx.dataset).table.returns
    show_recording_live(
        ctx.library,
        request.with_panel(arrays["returns"][order], front["returns"], cloud),
        [loaded],
        ctx.spec.objective_names,
        horizon,
        file_name=f"tour-{asset.name}.mp4",
        widget_key="tour_video",
        chart=False,
        progress_total=request.frame_count,
    )


st.title("Presentation")
st.caption(
    "A tour from all weight on the first objective to all weight on the last: each stop plays "
    "the start of that preference's episode next to the front, where the point glides to the "
    "stop's full-episode return."
)

if ctx.spec is not None and ctx.spec.description:
    st.subheader(ctx.spec.description)
if ctx.spec is not None:
    st.markdown(
        "\n".join(
            f"- **{objective.name}**"
            + (f" ({objective.unit})" if objective.unit else "")
            + (f": {objective.description}" if objective.description else "")
            + ". Higher is better."
            for objective in ctx.spec.objectives
        )
    )

if sidebar.need(ctx):
    spec = ctx.spec
    env_id = ctx.env_id
    asset = ctx.agent
    assert env_id is not None and spec is not None and asset is not None  # sidebar.need said so
    names = spec.objective_names
    loaded = None
    with guard(f"agent {asset.name}"):
        loaded = loaders.loaded_agent(asset)
    if loaded is not None:
        with guard("tour"):
            from paretoscope.render import default_every
            from paretoscope.render.tour import stop_label

            granularity = ctx.granularity
            horizon = ctx.horizon
            columns = st.columns(4)
            most_stops = min(granularity + 1, 21)
            fewest_steps = min(10, horizon)
            # The page's own tour: what it shows before the viewer changes anything.
            defaults = (min(most_stops, 11), min(horizon, 100), (0, spec.n_obj - 1))
            stops = (
                columns[0].slider("Stops", 2, most_stops, defaults[0], key="tour_stops")
                if most_stops > 2
                else 2
            )
            steps = (
                columns[1].slider(
                    "Steps per stop", fewest_steps, horizon, defaults[1], key="tour_steps"
                )
                if horizon > fewest_steps
                else horizon
            )
            axes = list(defaults[2])
            if spec.n_obj > 2:
                axes = [
                    charts.objective_picker(
                        columns[2 + axis],
                        f"front {'xy'[axis]} axis",
                        names,
                        key=f"tour_axes_{axis}",
                        index=defaults[2][axis],
                    )
                    for axis in range(2)
                ]
            path = np.array(
                [prefs.snap(p, granularity) for p in prefs.tour_path(spec.n_obj, stops)]
            )
            path = path[np.r_[True, np.abs(np.diff(path, axis=0)).sum(axis=1) > 1e-12]]
            st.markdown(
                f"**What you will see.** The agent is asked {len(path)} times to trade "
                + " against ".join(names)
                + ", from one extreme to the other. At each stop the video plays the start of "
                "its run; the chart beside it shows the best trade-offs the agent reached, and "
                "the orange dot moves to where this stop's whole run ends."
            )
            st.caption(
                "Stops: "
                + "; ".join(
                    stop_label(index, len(path), stop, names) for index, stop in enumerate(path)
                )
            )
            every = default_every(env_id)
            plan = asset.sweep_plan()
            dataset = ctx.dataset
            dataset_id = "" if dataset is None else f"{dataset.path}@{loaders.mtime(dataset.path)}"
            request = TourRequest(
                fingerprint=loaded.fingerprint,
                label=asset.label,
                env_id=env_id,
                stops=path,
                seed=ctx.seed,
                size=ctx.size,
                steps_per_stop=steps,
                every=every,
                # The panel shows the plan's sweep and the dataset's returns behind the stops.
                panel_source=f"plan={plan.to_dict()};dataset={dataset_id}"
                # The panel's returns are discounted like the sweeps (named only when not 1, so
                # undiscounted tours keep their keys).
                + ("" if ctx.gamma == 1.0 else f";gamma={ctx.gamma!r}"),
                axes=(int(axes[0]), int(axes[1])),
            )
            recording = ctx.library.get(request.key())
            if recording is None:
                # The page's own tour (its controls untouched) is made as soon as the page
                # opens, once per server: every later visitor gets the stored video at once. A
                # tour of other stops or steps waits for the button (no half-minute job per
                # slider move).
                untouched = (stops, steps, (int(axes[0]), int(axes[1]))) == defaults
                if untouched:
                    st.info(
                        "Making the tour (usually under a minute). This is done once: everyone "
                        "who opens this page later gets the finished video at once.",
                        icon=":material/movie:",
                    )
                if untouched or st.button("Make the tour", type="primary", key="tour_make"):
                    make_tour(request, path, loaded, horizon)
            if recording is not None:
                show_recording_live(
                    ctx.library,
                    request,
                    [loaded],
                    names,
                    horizon,
                    file_name=f"tour-{asset.name}.mp4",
                    widget_key="tour_video",
                    chart=False,
                )
                if known_front(env_id, ctx.gamma) is not None:
                    with guard("known front"):
                        draw_known_front(axes)
