"""Dataset: trajectory returns coloured by preference, preference coverage, the non-dominated
set, and a browser that replays a stored trajectory's actions in the env as video."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from paretoscope.dashboard import loaders, sidebar, url_state
from paretoscope.dashboard.folders import hidden_folders
from paretoscope.dashboard.live import show_recording_live
from paretoscope.dashboard.messages import as_viewer_sees, describe, guard, inert
from paretoscope.dashboard.widgets import charts
from paretoscope.data.collection_plan import collected_env_seed
from paretoscope.figures.dataset import (
    dataset_returns_figure,
    preference_coverage_figure,
)
from paretoscope.recordings import ReplayRequest
from paretoscope.text import number

ctx = sidebar.context()
st.title("Dataset")

if sidebar.need(ctx, agent=False):
    spec = ctx.spec
    assert spec is not None  # sidebar.need said so
    names = spec.objective_names
    if ctx.dataset is None:
        st.info(f"No dataset chosen: pick one for {inert(ctx.env_id)} in the sidebar.")
    else:
        asset = ctx.dataset
        summary = None
        with guard(f"dataset {asset.name}"):
            summary = loaders.dataset_summary(asset)
        if summary is not None:
            info = summary.info
            where = info.source or as_viewer_sees(str(asset.path), hidden_folders())
            facts = [asset.label, where, info.behaviour, info.preference_distribution]
            st.caption(" · ".join(inert(fact) for fact in facts if fact))
            columns = st.columns(5)
            columns[0].metric("trajectories", f"{summary.n_trajectories:,}")
            columns[1].metric("steps", f"{summary.n_steps:,}")
            columns[2].metric("mean length", number(summary.length_mean, 3))
            columns[3].metric("non-dominated", summary.n_non_dominated)
            columns[4].metric("hypervolume", number(summary.hypervolume))
            table = summary.table
            count = len(table)

            if "trajectory" not in st.session_state:
                asked = url_state.url_value("traj")  # digits only (checked with the link)
                st.session_state["trajectory"] = int(asked or 0)
                if not 0 <= st.session_state["trajectory"] < count:
                    url_state.note_ignored(
                        "traj", asked, f"this dataset has trajectories 0 to {count - 1}"
                    )
            if not 0 <= int(st.session_state["trajectory"]) < count:
                st.session_state["trajectory"] = 0

            left, right = st.columns([3, 2])
            with left, guard("returns"):
                controls = st.columns(3)
                colour = charts.objective_picker(
                    controls[0], "Colour by the weight of", names, key="dataset_colour"
                )
                axes = [0, 1]
                if spec.n_obj > 2:
                    axes = [
                        charts.objective_picker(
                            controls[1 + axis],
                            f"{'xy'[axis]} axis",
                            names,
                            key=f"dataset_axes_{axis}",
                            index=axis,
                        )
                        for axis in range(2)
                    ]
                figure = dataset_returns_figure(
                    names,
                    table.returns,
                    table.preferences,
                    colour_objective=colour,
                    front_indices=summary.non_dominated,
                    selected=int(st.session_state["trajectory"]),
                    axes=axes,
                )
                event = st.plotly_chart(
                    figure,
                    key=f"dataset_returns_{st.session_state.get('_dataset_version', 0)}",
                    on_select="rerun",
                    selection_mode="points",
                    width="stretch",
                )
                for data in charts.clicked_points(figure, event)[:1]:
                    url_state.request_change(
                        widgets={"trajectory": int(data[0])}, bump="_dataset_version"
                    )
                st.caption("Click a trajectory to open it in the browser below.")
            with right, guard("coverage"):
                st.markdown("**Preference coverage**")
                st.plotly_chart(
                    preference_coverage_figure(
                        names, summary.preference_bin_edges, summary.preference_histograms
                    ),
                    key="dataset_coverage",
                    width="stretch",
                )
                st.markdown("**Non-dominated trajectories**")
                front = np.asarray(summary.non_dominated, dtype=int)
                front_table = pd.DataFrame(
                    {
                        "trajectory": front,
                        **{f"return {n}": table.returns[front, i] for i, n in enumerate(names)},
                        **{f"pref {n}": table.preferences[front, i] for i, n in enumerate(names)},
                        "length": table.lengths[front],
                    }
                ).sort_values(f"return {names[0]}", ascending=False)
                st.dataframe(front_table, hide_index=True, width="stretch", height=240)

            # --- the trajectory browser -------------------------------------------------------
            st.subheader("Trajectory browser")
            index = int(
                st.number_input("Trajectory", min_value=0, max_value=count - 1, key="trajectory")
            )
            url_state.set_url(traj=str(index))
            details = st.columns(3)
            details[0].markdown("**preference** " + describe(names, table.preferences[index], 2))
            details[1].markdown("**stored return** " + describe(names, table.returns[index]))
            details[2].markdown(f"**length** {int(table.lengths[index])} steps")
            with guard("replay"):
                from paretoscope.render import default_every

                data = loaders.trajectories(asset)
                trajectory = data.trajectory(index)
                seed = collected_env_seed(info, np.asarray(trajectory.preference))
                if seed is None:
                    st.caption(
                        "This dataset does not record its episodes' initial states: the actions "
                        "are replayed from the env's reset for seed 0, so the motion may drift "
                        "from the original."
                    )
                request = ReplayRequest(
                    dataset=f"{asset.path}@{loaders.mtime(asset.path)}",
                    trajectory=index,
                    env_id=asset.env_id,
                    actions=np.asarray(trajectory.actions),
                    preference=tuple(float(v) for v in trajectory.preference),
                    seed=0 if seed is None else seed,
                    size=ctx.size,
                    every=default_every(asset.env_id),
                    label=f"{asset.name}#{index}",
                )
                shown = show_recording_live(
                    ctx.library,
                    request,
                    [],
                    names,
                    request.horizon,
                    file_name=f"{asset.name}-trajectory-{index}.mp4",
                    widget_key="replay",
                )
                if shown is not None:
                    replayed = shown.returns[0]
                    same = np.allclose(replayed, table.returns[index], rtol=1e-6, atol=1e-6)
                    st.caption(
                        "replayed return: "
                        + describe(names, replayed)
                        + (
                            " (the same as stored)"
                            if same
                            else " (differs from the stored return: not the original start state)"
                        )
                    )
