"""Explore: drag a preference, watch the rollout, see its point on the Pareto front."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from paretoscope.dashboard import loaders, sidebar, trace, url_state
from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.jobs import Job
from paretoscope.dashboard.known_front import describe_front, indicators_text
from paretoscope.dashboard.limits import prerender_enabled
from paretoscope.dashboard.live import (
    LivePlaces,
    follow_channel,
    live_channel,
    live_places,
    recording_started,
    show_recording_live,
)
from paretoscope.dashboard.messages import describe, guard, inert, literal
from paretoscope.dashboard.page_style import EXPLORE_COLUMNS_KEY
from paretoscope.dashboard.prerender import offer_grid
from paretoscope.dashboard.widgets import charts
from paretoscope.dashboard.widgets.front_chart import front_chart
from paretoscope.dashboard.widgets.paper_download import paper_downloads
from paretoscope.dashboard.widgets.preference_control import preference_control
from paretoscope.dashboard.widgets.report_button import report_button
from paretoscope.decision import aspiration_pick
from paretoscope.envs.known_fronts import against_known
from paretoscope.figures.front import FrontSeries, Marker, front_figure, target_grid
from paretoscope.figures.paper import paper_front
from paretoscope.figures.style import titled_by_meaning
from paretoscope.report import ReportAgent

st.title("Explore")
st.caption(
    "Drag the preference and watch the agent change its behaviour while its point moves along "
    "the front. Hover a point for its preference, target, returns and seed; click it to replay "
    "that episode."
)


# Everything below the title reruns alone when the viewer moves the preference or clicks the
# front (a fragment): the sidebar and the page around it are neither run again on the server
# nor drawn again in the browser, which was most of a move's cost with many viewers.
@st.fragment
def explore() -> None:
    trace.mark_fragment_start()
    # From the session, in a fragment's own rerun too: the call marks the server busy, which
    # keeps idle pre-rendering off the cores while viewers move.
    ctx = sidebar.context()
    if not sidebar.need(ctx):
        return
    spec = ctx.spec
    env_id = ctx.env_id
    asset = ctx.agent
    assert env_id is not None and spec is not None and asset is not None  # sidebar.need said so
    # The slider first: it works while the agent loads.
    preference = preference_control(spec, ctx.granularity, default=ctx.default_preference)
    trace.mark("run", preference=[float(value) for value in preference])
    loaded = None
    with guard(f"agent {asset.name}"):
        loaded = loaders.fitting_agent(asset, env_id)
    if loaded is None:
        return
    names = spec.objective_names
    n_obj = spec.n_obj

    # --- target mode (return-conditioned agents) ----------------------------------------------
    target = None
    asked_target = False  # a target the viewer set, not the agent's own
    target_mode = False
    if not loaded.return_conditioned:
        for key in ("tm", "target"):
            asked = url_state.url_value(key)
            if asked is not None and (key, asked) != ("tm", "0"):
                url_state.note_ignored(
                    key, asked, f"{inert(asset.name)} does not read a target return"
                )
    else:
        if "target_mode" not in st.session_state:
            st.session_state["target_mode"] = url_state.url_value("tm") == "1"
        target_mode = st.toggle(
            "Target mode: click a point in objective space (or type a target) and the agent "
            "tries to reach it",
            key="target_mode",
        )
        own_target = np.asarray(loaded.agent.initial_target(preference[None, :]))[0]
        if target_mode:
            keys = [f"w_target_{index}" for index in range(n_obj)]
            if any(key not in st.session_state for key in keys):
                from_url = url_state.url_value_as(
                    "target",
                    lambda text: prefs.parse_vector_or_none(text, n_obj),
                    f"expected {n_obj} returns, one per objective",
                )
                start = own_target if from_url is None else from_url
                for key, value in zip(keys, start, strict=True):
                    st.session_state[key] = float(round(value, 1))

            def reset_target() -> None:
                current = np.asarray(st.session_state["preference"], dtype=np.float64)
                values = np.asarray(loaded.agent.initial_target(current[None, :]))[0]
                for key, value in zip(keys, values, strict=True):
                    st.session_state[key] = float(round(value, 1))

            columns = st.columns(n_obj + 1, vertical_alignment="bottom")
            for index, column in enumerate(columns[:-1]):
                column.number_input(
                    f"target {names[index]}", key=keys[index], step=10.0, format="%.1f"
                )
            columns[-1].button(
                "Agent's own target", on_click=reset_target, help="the target its model gives"
            )
            target = np.array([float(st.session_state[key]) for key in keys])
            asked_target = not np.allclose(target, np.round(own_target, 1), rtol=0.0, atol=0.051)
            url_state.set_url(tm="1", target=prefs.format_vector(target, 6))
        else:
            asked = url_state.url_value("target")
            if asked is not None:
                url_state.note_ignored("target", asked, "a target is used in target mode (tm=1)")
            url_state.set_url(tm=None, target=None)
            st.caption(
                "Left to itself at this preference, the agent aims to collect "
                + describe(names, own_target)
                + ". Switch on target mode to ask it for other returns."
            )

    request = ctx.episode_request(loaded, preference, target)
    if ctx.shows_defaults() and not target_mode and prerender_enabled():
        offer_grid(ctx, loaded, preference)
    key = request.key()
    recording = ctx.library.get(key)
    achieved = None if recording is None else recording.returns[0]

    # In a keyed container: on a phone the front comes first, under the slider (`page_style`).
    video_column, front_column = st.container(key=EXPLORE_COLUMNS_KEY).columns([1, 1], gap="medium")
    # The live picture, first in its column and the same at every run: the browser keeps it
    # and its feed, so a move's first frame comes without waiting for the page to redraw.
    channel = live_channel(video_column, request.horizon)
    # Targets are undiscounted returns to collect: in target mode the front is undiscounted too,
    # so a clicked point and the target are in the same units. Videos' returns are undiscounted.
    front_gamma = 1.0 if target_mode else ctx.gamma

    # --- the front (before a streamed video: it shows while frames come) --------------------
    def draw_front() -> None:
        with front_column, guard("front"):
            swept = loaders.sweep_points(asset, ctx.catalog, gamma=front_gamma)
            points = swept.front
            against = against_known(
                request.env_id, front_gamma, points["returns"], points["preferences"]
            )
            series = FrontSeries(
                asset.label,
                points["returns"],
                points["preferences"],
                points["targets"],
                points["seeds"],
                regret=None if against is None else against.regret,
                env_id=request.env_id,
            )
            cloud = None
            if ctx.dataset is not None:
                with guard(f"dataset {ctx.dataset.name}"):
                    cloud = loaders.dataset_summary(ctx.dataset).table.returns
            current = None
            if achieved is not None and front_gamma == 1.0:
                current = Marker(achieved, "this rollout")
            elif target is None and len(swept.episodes["seeds"]):
                arrays = swept.episodes
                same = (
                    (np.abs(arrays["preferences"] - preference[None, :]) < 1e-9).all(axis=1)
                    & (arrays["seeds"] == ctx.seed)
                    & ~arrays["explicit"]
                )
                if same.any():
                    current = Marker(arrays["returns"][np.flatnonzero(same)[0]], "this preference")
            axes = None
            if n_obj == 3:
                view = st.radio(
                    "Front view",
                    ["3-D", "2-D projection (clickable)"],
                    horizontal=True,
                    key="front_view",
                    label_visibility="collapsed",
                )
                if view != "3-D":
                    axes = charts.axis_pickers(spec, "front_axes", count=2)
                else:
                    st.caption("Rotate with the mouse; to click points, use the 2-D projection.")
            elif n_obj > 3:
                axes = charts.axis_pickers(spec, "front_axes")
            grid = None
            if target_mode and (n_obj == 2 or (axes is not None and len(axes) == 2)):
                shown = [0, 1] if axes is None else list(axes)
                everything = [series.returns[:, shown]]
                if cloud is not None:
                    everything.append(np.asarray(cloud)[:, shown])
                if target is not None:
                    everything.append(target[None, shown])
                stacked = np.vstack(everything)
                low, high = stacked.min(axis=0), stacked.max(axis=0)
                span = np.where(high > low, high - low, 1.0)
                grid_2d = target_grid(low - 0.15 * span, high + 0.15 * span, steps=25)
                # A full objective vector per grid point: the hidden objectives keep the
                # target's.
                base = target if target is not None else series.returns.mean(axis=0)
                grid = np.tile(base, (len(grid_2d), 1))
                grid[:, shown] = grid_2d
            figure = front_figure(
                names,
                [series],
                dataset_returns=cloud,
                reference_point=ctx.reference_point,
                current=current,
                target=None if target is None else Marker(target, "target"),
                axes=axes,
                target_grid=grid,
                known_front=None if against is None else against.front,
                include_reference=charts.reference_toggle("front_show_reference"),
            )
            titled_by_meaning(figure, spec)
            event = front_chart(figure, key=f"front_{st.session_state.get('_front_version', 0)}")
            paper_downloads(
                lambda: paper_front(
                    spec,
                    [series],
                    None if against is None else against.front,
                    objectives=[0, 1] if axes is None else list(axes)[:2],
                ),
                f"{asset.name}-front",
                "explore_paper",
            )
            discount = (
                "undiscounted returns"
                if front_gamma == 1.0
                else f"returns discounted by γ = {front_gamma:g} (the reward of step t counts γ^t)"
            )
            if target_mode and ctx.gamma != 1.0:
                discount += ": target mode works on undiscounted returns"
            st.caption(f"The sweep's {len(series.returns)} preferences, {discount}.")
            st.caption(
                "What the axes mean: "
                + "; ".join(literal(objective.meaning) for objective in spec.objectives)
                + "\\. Each axis is a return summed over the episode: higher is better\\."
            )
            # Only a target the viewer set (not the agent's own, which a target starts at).
            if target is not None and asked_target and len(series.returns):
                closest = aspiration_pick(series.returns, target)
                if not closest.met.all():
                    short = [name for name, met in zip(names, closest.met, strict=True) if not met]
                    st.warning(
                        "No episode of the agent's sweep reached this target in "
                        + ", ".join(short)
                        + ": it may be out of the agent's reach (its sweep got at most "
                        + describe(names, series.returns.max(axis=0))
                        + "). An agent asked for the unreachable may act as if given no target.",
                        icon=":material/info:",
                    )
            if against is not None:
                st.caption(describe_front(against.front) + ". " + indicators_text(against) + ".")
            with guard("report"):
                report_button(
                    "explore",
                    request.env_id,
                    lambda: [
                        ReportAgent(
                            asset.name,
                            loaders.sweep_table(asset, ctx.catalog, gamma=front_gamma),
                            loaded.agent,
                            location=str(asset.path),
                            label=asset.label,
                        )
                    ],
                    (asset.name, front_gamma),
                )
            for series_index, row in charts.clicked_points(figure, event)[:1]:
                widgets: dict[str, object] = {}
                new_target = None
                new_preference = None
                if series_index == -1 and grid is not None:
                    new_target = grid[row]
                elif series_index == 0 and target_mode:
                    new_target = series.returns[row]
                elif series_index == 0:
                    new_preference = series.preferences[row]
                    widgets["seed"] = int(points["seeds"][row])
                    if points["explicit"][row]:
                        widgets["target_mode"] = True
                        new_target = points["targets"][row]
                if new_target is not None:
                    for index in range(n_obj):
                        widgets[f"w_target_{index}"] = float(round(new_target[index], 1))
                url_state.request_change(
                    preference=new_preference, widgets=widgets, bump="_front_version"
                )
            if target is not None and achieved is not None:
                st.dataframe(
                    pd.DataFrame(
                        {"target": target, "achieved": achieved},
                        index=list(names),
                    ).assign(difference=lambda frame: frame["achieved"] - frame["target"]),
                    width="stretch",
                )

    # --- the live rollout ---------------------------------------------------------------------
    file_name = f"{asset.name}-{prefs.format_vector(preference, 3)}.mp4"

    def draw_video(started: Job | None, places: LivePlaces | None = None) -> None:
        with video_column:
            # The caption says which episode plays (neighbouring preferences of a policy set can
            # give the same video). It is placed first and written from the recording shown: a
            # recording started above may be stored at any moment, also while this draws.
            caption = st.empty()
            shown = None
            with guard("rollout"):
                shown = show_recording_live(
                    ctx.library,
                    request,
                    [loaded],
                    names,
                    request.horizon,
                    file_name=file_name,
                    started=started,
                    places=places,
                )
            if shown is not None:
                asked = "" if target is None else f"target {describe(names, target)}, "
                undiscounted = "" if front_gamma == 1.0 else " (undiscounted)"
                returns = describe(names, shown.returns[0])
                caption.caption(
                    f"Preference {describe(names, preference, 2)} · {asked}"
                    f"seed {request.seed} → return {returns}" + undiscounted
                )

    # A finished video goes first (it then plays sooner); a new one is placed first and
    # followed after the front, its first frames drawn (and, from the server's feed,
    # painted) while the front is.
    if recording is not None:
        follow_channel(channel, None)
        draw_video(None)
        draw_front()
    else:
        with (
            recording_started(ctx.library, request, [loaded]) as started,
            live_places(video_column, started, request.horizon, file_name, channel) as places,
        ):
            draw_front()
            draw_video(started, places)


explore()
