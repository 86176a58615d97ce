"""Many objectives (`/decide`): a front of any number of objectives in linked views (scatter
matrix, parallel coordinates, a table), an aspiration to pick a policy by, pymoo's decision
helpers, and the replay of the chosen policy."""

from __future__ import annotations

from dataclasses import replace
from functools import partial
from math import comb

import numpy as np
import pandas as pd
import streamlit as st

from paretoscope.dashboard import loaders, sidebar
from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.live import show_recording_live
from paretoscope.dashboard.messages import describe, guard, inert
from paretoscope.dashboard.widgets.conventions import NORMALISATION_LABELS
from paretoscope.dashboard.widgets.linked_views import linked_views, view_arguments
from paretoscope.dashboard.widgets.paper_download import paper_downloads
from paretoscope.decision import (
    ASPIRATION_TOLERANCE,
    DecisionMarks,
    aspiration_pick,
    decision_marks,
    normalisation_scale,
)
from paretoscope.figures.objectives import (
    ViewPoints,
    aspiration_figure,
    parallel_coordinates_figure,
    parallel_scaled,
    scatter_matrix_figure,
)
from paretoscope.figures.paper import paper_objectives
from paretoscope.metrics import non_dominated
from paretoscope.recordings import EpisodeRequest
from paretoscope.sweeps import ignores_preference, mean_per_preference
from paretoscope.text import number

# A grid finer than this many policies is refused (each one is an episode per seed).
MOST_POLICIES = 5000


@st.cache_data(show_spinner=False, max_entries=16)
def _decision_marks(returns: np.ndarray) -> DecisionMarks:
    """The knees, compromise and pseudo-weights of a sweep: the same after every brush."""
    return decision_marks(returns)


@st.cache_data(show_spinner=False, max_entries=16)
def _view_arguments(
    names: tuple[str, ...],
    values: np.ndarray,
    dominated: np.ndarray,
    marks: tuple[tuple[int, ...], int, int],
    aspiration: np.ndarray,
) -> dict:
    """Both linked views, ready for the browser: built once per sweep, scale and aspiration,
    not again for a brush. `marks` are the knees, the compromise and the aspiration pick."""
    knees, compromise, pick = marks
    points = ViewPoints(
        names,
        values,
        dominated,
        marks={"knee": list(knees), "compromise": [compromise], "aspiration pick": [pick]},
        aspiration=aspiration,
    )
    return view_arguments(
        scatter_matrix_figure(points),
        parallel_coordinates_figure(points),
        points.values,
        parallel_scaled(points),
    )


def _table_key() -> str:
    only = "selected" if st.session_state.get("decide_only_selected") else "all"
    return f"decide_table_{only}_{st.session_state.get('_decide_table_version', 0)}"


def _table_selected() -> None:
    """Rows picked in the table become the selection (the rows shown: `_decide_table_ids`)."""
    event = st.session_state.get(_table_key())
    shown = st.session_state.get("_decide_table_ids", [])
    try:
        rows = list(event["selection"]["rows"])  # type: ignore[index]
    except (KeyError, TypeError):
        rows = []
    st.session_state["decide_selected"] = tuple(sorted({shown[r] for r in rows if r < len(shown)}))


def _follow_brush(brush: dict | None) -> None:
    """A new brush in the linked views becomes the selection; the table's own row picks are
    cleared (its key renewed) so that they do not stand for an older one."""
    if not brush or brush.get("nonce") == st.session_state.get("_decide_brush_nonce"):
        return
    st.session_state["_decide_brush_nonce"] = brush.get("nonce")
    st.session_state["decide_selected"] = tuple(sorted({int(i) for i in brush.get("ids", [])}))
    st.session_state["_decide_table_version"] = st.session_state.get("_decide_table_version", 0) + 1


ctx = sidebar.context()
st.title("Many objectives and decisions")
st.caption(
    "Every objective pair, parallel coordinates and a table of the agent's policies, linked: "
    "box- or lasso-select in either chart, or pick rows, and the same policies light up "
    "everywhere; the first selected one replays below. State an aspiration to have the policy "
    "that best meets it picked and rolled out."
)

if not sidebar.need(ctx):
    st.stop()
spec = ctx.spec
env_id = ctx.env_id
asset = ctx.agent
assert spec is not None and env_id is not None and asset is not None  # sidebar.need said so
loaded = None
with guard(f"agent {asset.name}"):
    loaded = loaders.fitting_agent(asset, env_id)
if loaded is None:
    st.stop()  # guard showed why
names = list(spec.objective_names)
n_obj = spec.n_obj
plan = asset.sweep_plan()

columns = st.columns([1, 3], vertical_alignment="bottom")
granularity = int(
    columns[0].number_input(
        "Preference grid: multiples of 1/g",
        min_value=1,
        max_value=200,
        value=plan.granularity,
        key=f"decide_granularity_{env_id}",  # each env keeps its own grid
        help="The sweep the views show: every preference whose weights are multiples of "
        "1/g. Finer grids show more policies (each one is evaluated once per seed).",
    )
)
count = comb(granularity + n_obj - 1, n_obj - 1)
columns[1].caption(
    f"{count} preferences × {len(plan.seeds)} seed(s); views in "
    f"{NORMALISATION_LABELS[ctx.normalisation]} (sidebar: metric conventions)."
)
points = None
if count > MOST_POLICIES:
    st.warning(
        f"A grid of 1/{granularity} over {n_obj} objectives has {count} preferences; "
        f"choose a coarser one (at most {MOST_POLICIES} policies)."
    )
else:
    with guard("sweep"):
        table = loaders.sweep_table(
            replace(asset, sweep=replace(plan, granularity=granularity)),
            ctx.catalog,
            gamma=ctx.gamma,
        )
        points = mean_per_preference(table, env_id)
if points is not None and len(points["returns"]):
    returns = points["returns"]
    preferences = points["preferences"]
    count = len(returns)
    sweep_id = (env_id, asset.name, granularity, ctx.gamma, count)
    if st.session_state.get("_decide_sweep") != sweep_id:
        st.session_state["_decide_sweep"] = sweep_id
        st.session_state["decide_selected"] = ()
    selected_ids = [i for i in st.session_state.get("decide_selected", ()) if i < count]
    selected = np.zeros(count, dtype=bool)
    selected[selected_ids] = True
    marks = _decision_marks(returns)
    dominated = ~non_dominated(returns)
    if ignores_preference(returns):
        st.info(
            f"{inert(asset.label)} returns the same at every preference: it ignores the "
            "preference (as a baseline such as random does), so all its policies below are one "
            "and the same behaviour.",
            icon=":material/info:",
        )

    # --- aspiration --------------------------------------------------------------------
    st.subheader("Aspiration")
    front = returns[~dominated]
    ideal, nadir = front.max(axis=0), front.min(axis=0)
    keys = [f"decide_aspiration_{index}" for index in range(n_obj)]
    if st.session_state.get("_decide_aspiration_sweep") != sweep_id:
        st.session_state["_decide_aspiration_sweep"] = sweep_id
        for key, value in zip(keys, (ideal + nadir) / 2, strict=True):
            st.session_state[key] = float(f"{value:.4g}")
    inputs = st.columns(min(n_obj, 6))
    for index, key in enumerate(keys):
        inputs[index % len(inputs)].number_input(
            f"{names[index]} at least",
            key=key,
            format="%.4g",
            help=f"on the front: {number(nadir[index])} to {number(ideal[index])}",
        )
    aspiration = np.array([float(st.session_state[key]) for key in keys])
    pick = aspiration_pick(returns, aspiration)
    picked_preference = describe(names, preferences[pick.index], 2)
    st.caption(
        f"Policy {pick.index} (preference {picked_preference}) "
        "best meets the aspiration: it minimises the achievement scalarizing function, the "
        "largest shortfall below the aspiration in units of each objective's range on the "
        f"front (ideal − nadir). It meets {int(pick.met.sum())} of {n_obj} levels"
        f" (a level missed by less than {ASPIRATION_TOLERANCE:.1%} of its range counts as met)."
    )
    span = np.where(ideal > nadir, ideal - nadir, 1.0)
    # A difference within the tolerance is drawn as 0, not as a sliver of red or green.
    shown_difference = np.where(np.abs(pick.difference) <= pick.tolerance, 0.0, pick.difference)
    bars, numbers = st.columns([3, 2], vertical_alignment="center")
    bars.plotly_chart(
        aspiration_figure(names, shown_difference / span),
        key="decide_aspiration_bars",
        width="stretch",
    )
    numbers.dataframe(
        pd.DataFrame(
            {
                "aspiration": aspiration,
                "picked policy": pick.returns,
                "difference": pick.difference,
            },
            index=names,
        ).style.format(number),
        width="stretch",
    )

    # --- linked views ------------------------------------------------------------------
    offset, scale = normalisation_scale(returns, ctx.normalisation, ctx.reference_point)
    with guard("linked views"):
        arguments = _view_arguments(
            tuple(names),
            (returns - offset) / scale,
            dominated,
            (tuple(marks.knees), marks.compromise, pick.index),
            (aspiration - offset) / scale,
        )
        _follow_brush(linked_views(arguments, selected_ids, key="decide_views"))
        # The paper figure shows raw returns (its axes carry the objectives' units).
        paper_downloads(
            partial(
                paper_objectives,
                spec,
                ViewPoints(
                    names,
                    returns,
                    dominated,
                    marks={
                        "knee": list(marks.knees),
                        "compromise": [marks.compromise],
                        "aspiration pick": [pick.index],
                    },
                ),
            ),
            f"{asset.name}-objectives",
            "decide_paper",
        )
        selected_ids = [i for i in st.session_state["decide_selected"] if i < count]
        selected[:] = False
        selected[selected_ids] = True
    st.caption(
        (
            f"{len(selected_ids)} of {count} policies selected."
            if selected_ids
            else f"No policy selected yet (of {count})."
        )
        + " Filled points are "
        "non-dominated, hollow ones dominated; ◆ knee (high trade-off), ■ compromise "
        "(closest to the ideal), ★ the aspiration pick, × the aspiration. Drag a box or "
        "lasso in either view (in parallel coordinates over one axis) or click a point; "
        "double-click to clear."
    )

    frame = pd.DataFrame(
        {
            "selected": selected,
            "preference": [prefs.format_vector(row, 3) for row in preferences],
            **{names[i]: returns[:, i] for i in range(n_obj)},
            "non-dominated": ~dominated,
            "pseudo-weights": [
                "" if not np.isfinite(row).all() else prefs.format_vector(row, 2)
                for row in marks.pseudo_weights
            ],
            "knee": np.isin(np.arange(count), marks.knees),
            "compromise": np.arange(count) == marks.compromise,
            "aspiration pick": np.arange(count) == pick.index,
            "seed": points["seeds"],
        }
    )
    frame.index.name = "policy"
    only = st.toggle(
        "Only the selected policies",
        key="decide_only_selected",
        disabled=not selected_ids,
        help="Picking rows selects those policies; with this on, only the selected rows "
        "are listed (pick among them to narrow the selection).",
    )
    if only and selected_ids:
        frame = frame[frame["selected"]]
    st.session_state["_decide_table_ids"] = [int(i) for i in frame.index]
    st.dataframe(
        frame,
        key=_table_key(),
        on_select=_table_selected,
        selection_mode="multi-row",
        height=260,
        width="stretch",
    )
    st.caption(
        "Pseudo-weights: the preference each non-dominated policy effectively expresses "
        "(its normalised distance from the worst value of each objective, summed to 1). "
        "Decision helpers use raw returns, so the normalisation changes only the views."
    )

    # --- replay ------------------------------------------------------------------------
    st.subheader("Replay")
    choices = selected_ids or [pick.index]
    focus = st.selectbox(
        "Policy",
        choices,
        format_func=lambda i: f"policy {i}: preference {describe(names, preferences[i], 2)}",
        key=f"decide_focus_{hash(tuple(choices))}",
    )
    st.caption(
        ("" if selected_ids else "Nothing selected: the aspiration pick plays. ")
        + f"Policy {focus}'s mean return {describe(names, returns[focus])} over "
        f"{len(plan.seeds)} seed(s); this replay is seed {int(points['seeds'][focus])}."
    )
    from paretoscope.render import default_every

    request = EpisodeRequest(
        fingerprint=loaded.fingerprint,
        env_id=env_id,
        preference=tuple(float(v) for v in preferences[focus]),
        target=None,
        seed=int(points["seeds"][focus]),
        size=ctx.size,
        horizon=ctx.horizon,
        every=default_every(env_id),
        label=asset.name,
    )
    # What the fragment plays, bound here: mypy does not carry the page's checks of `loaded`
    # and `asset` into a function.
    replayed = [loaded]
    file_name = f"{asset.name}-{prefs.format_vector(request.preference, 3)}.mp4"

    @st.fragment
    def replay() -> None:
        with guard("rollout"):
            show_recording_live(
                ctx.library,
                request,
                replayed,
                names,
                request.horizon,
                file_name=file_name,
                widget_key="decide_video",
            )

    replay()
elif points is not None:
    st.info("The sweep has no episodes.")
