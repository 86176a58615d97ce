"""RTG following and metrics: PEDA's panels, interactive — target vs achieved weighted return,
preference vs return ratio, and hypervolume/sparsity above the sidebar's reference point, at the
sidebar's discount; for envs with a known front, the indicators against it (IGD, IGD+, maximum
utility loss, regret per preference); and the spread across seeds: every episode's return and
the best, median and worst attainment surfaces of the agent's seeds."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
import streamlit as st

from paretoscope.dashboard import loaders, messages, sidebar, uncertainty
from paretoscope.dashboard.known_front import describe_front, indicator_values
from paretoscope.dashboard.widgets import charts
from paretoscope.dashboard.widgets.paper_download import paper_downloads
from paretoscope.envs.known_fronts import against_known
from paretoscope.figures.attainment import attainment_figure
from paretoscope.figures.front import FrontSeries
from paretoscope.figures.hypervolume import hypervolume_figure
from paretoscope.figures.paper import paper_rtg
from paretoscope.figures.rtg import rtg_ratio_figure, rtg_target_figure
from paretoscope.metrics.attainment import median_level
from paretoscope.sweeps import mean_per_preference, objective_arrays
from paretoscope.text import number

SCALES = (0.25, 0.5, 0.75, 1.0, 1.25, 1.5, 2.0)

ctx = sidebar.context()
st.title("RTG following and metrics")

if sidebar.need(ctx):
    spec = ctx.spec
    env_id = ctx.env_id
    asset = ctx.agent
    assert env_id is not None and spec is not None and asset is not None  # sidebar.need said so
    names = spec.objective_names
    loaded = None
    with messages.guard(f"agent {asset.name}"):
        loaded = loaders.loaded_agent(asset)

    if loaded is not None:
        # RTG following compares returns with targets, which are undiscounted: its sweeps are
        # undiscounted; the metrics below are at the sidebar's gamma.
        base = None
        measured = None
        measured_table = None  # every episode at the sidebar's gamma (the spread across seeds)
        base_table = None
        with messages.guard("sweep"):
            if loaded.return_conditioned or ctx.gamma == 1.0:
                base_table = loaders.sweep_table(asset, ctx.catalog)
                base = mean_per_preference(base_table, env_id)
            measured_table = (
                base_table
                if ctx.gamma == 1.0
                else loaders.sweep_table(asset, ctx.catalog, gamma=ctx.gamma)
            )
            measured = base if ctx.gamma == 1.0 else mean_per_preference(measured_table, env_id)

        # --- RTG following ---------------------------------------------------------------------
        st.subheader("Return-to-go following")
        if not loaded.return_conditioned:
            st.info(
                f"{messages.inert(asset.label)} does not read a target return (a "
                f"{messages.inert(asset.kind)} agent), so RTG following does not apply; the "
                "metrics below do."
            )
        elif base is not None and len(base["returns"]):
            st.caption(
                "Each point is an episode asked for a target return: the agent's own target "
                "for its preference, times a scale. Perfect following lies on the dashed line."
                + ("" if ctx.gamma == 1.0 else " Targets and returns here are undiscounted.")
            )
            scales = st.multiselect(
                "Target scales (× the agent's own target)",
                SCALES,
                default=[1.0],
                key="rtg_scales",
                format_func=lambda s: f"× {s:g}",
            )
            with messages.guard("RTG sweeps"):
                from paretoscope.metrics import rtg_following

                targets_all, prefs_all, returns_all, labels = [], [], [], []
                for scale in scales or [1.0]:
                    if scale == 1.0:
                        arrays = base
                    else:
                        grid = base["preferences"]
                        own = np.asarray(loaded.agent.initial_target(grid))
                        arrays = mean_per_preference(
                            loaders.sweep_table(
                                asset, ctx.catalog, preferences=grid, targets=own * scale
                            ),
                            env_id,
                        )
                    targets_all.append(arrays["targets"])
                    prefs_all.append(arrays["preferences"])
                    returns_all.append(arrays["returns"])
                    labels += [f"scale × {scale:g}"] * len(arrays["returns"])
                targets = np.vstack(targets_all)
                preferences = np.vstack(prefs_all)
                returns = np.vstack(returns_all)
                low = high = None
                if ctx.dataset is not None:
                    summary = loaders.dataset_summary(ctx.dataset)
                    low, high = summary.return_min, summary.return_max
                st.plotly_chart(
                    rtg_target_figure(names, targets, preferences, returns, low, high, labels),
                    key="rtg_target",
                    width="stretch",
                )
                following = rtg_following(targets, preferences, returns)
                undefined = int(np.isnan(following.return_ratio).any(axis=1).sum())
                st.plotly_chart(
                    rtg_ratio_figure(names, preferences, following.return_ratio),
                    key="rtg_ratio",
                    width="stretch",
                )
                paper_downloads(
                    partial(
                        paper_rtg,
                        spec,
                        targets,
                        preferences,
                        returns,
                        following.return_ratio,
                        low,
                        high,
                    ),
                    f"{asset.name}-rtg",
                    "rtg_paper",
                )
                columns = st.columns(3)
                columns[0].metric(
                    "mean |p·target − p·return|", number(following.overall_weighted_error)
                )
                columns[1].metric(
                    "mean relative error", number(following.overall_relative_weighted_error, 3)
                )
                columns[2].metric(
                    "mean |p − return ratio|", number(following.overall_ratio_error, 3)
                )
                if undefined:
                    st.caption(
                        f"{undefined} episodes have no return ratio (a negative return or all "
                        "returns zero) and are left out of the ratio panel."
                    )

        # --- hypervolume and sparsity ---------------------------------------------------------
        st.subheader("Hypervolume and sparsity")
        if measured is not None and len(measured["returns"]):
            with messages.guard("metrics"):
                from paretoscope.metrics import front_summary

                assert ctx.reference_point is not None  # the sidebar has an env
                reference = np.asarray(ctx.reference_point, dtype=np.float64)
                changed = not np.allclose(reference, spec.reference_point)
                st.caption(
                    f"Reference point {tuple(float(v) for v in reference)}"
                    + (
                        " (edited in the sidebar's metric conventions; the env's own: "
                        f"{tuple(spec.reference_point)} — {spec.reference_point_source})."
                        if changed
                        else f" — {spec.reference_point_source}; edit it in the sidebar's "
                        "metric conventions."
                    )
                    + (
                        " Returns are undiscounted."
                        if ctx.gamma == 1.0
                        else f" Returns are discounted by γ = {ctx.gamma:g}."
                    )
                )
                summary = front_summary(measured["returns"], reference, measured["preferences"])
                against = against_known(
                    env_id, ctx.gamma, measured["returns"], measured["preferences"]
                )
                summary_columns = st.columns(4)
                summary_columns[0].metric("hypervolume", number(summary.hypervolume))
                summary_columns[1].metric(
                    "sparsity (lower is denser)",
                    number(summary.sparsity),
                    help="It rewards a few clustered points: read it with the cardinality "
                    "beside it.",
                )
                summary_columns[2].metric("cardinality", summary.cardinality)
                summary_columns[3].metric(
                    "expected utility",
                    number(summary.expected_utility),
                )
                if against is not None:
                    st.markdown("**Against the known front**")
                    st.caption(describe_front(against.front) + ".")
                    indicator_columns = st.columns(4)
                    for column, (label, value) in zip(
                        indicator_columns, indicator_values(against).items(), strict=False
                    ):
                        column.metric(f"{label} (lower is better)", number(value))
                    if against.regret is not None:
                        with st.expander("Regret per preference"):
                            st.caption(
                                "The best w·v on the known front minus the agent's w·v at each "
                                "of its sweep's preferences w."
                            )
                            frame = pd.DataFrame(
                                measured["preferences"],
                                columns=[f"preference {name}" for name in names],
                            )
                            frame["regret"] = against.regret
                            st.dataframe(frame, width="stretch", hide_index=True)
                axes = charts.axis_pickers(spec, "hv_axes")
                st.plotly_chart(
                    hypervolume_figure(
                        names,
                        [
                            FrontSeries(
                                asset.label,
                                measured["returns"],
                                measured["preferences"],
                                regret=None if against is None else against.regret,
                                env_id=env_id,
                            )
                        ],
                        reference,
                        axes=axes[:2],
                        known_front=None if against is None else against.front,
                        include_reference=charts.reference_toggle("hv_show_reference"),
                    ),
                    key="hv_figure",
                    width="stretch",
                )
                if spec.n_obj > 2:
                    st.caption(
                        "The shaded region is the 2-D projection on the chosen axes; the "
                        "hypervolume above is computed in all objectives."
                    )

        # --- uncertainty across seeds ---------------------------------------------------------
        st.subheader("Uncertainty across seeds")
        if measured_table is not None and measured is not None and len(measured["returns"]):
            with messages.guard("uncertainty across seeds"):
                episodes = objective_arrays(measured_table, env_id)
                seeds = sorted(int(seed) for seed in np.unique(episodes["seeds"]))
                if len(seeds) < 2:
                    st.info(
                        f"{messages.inert(asset.label)} was swept with one seed ({seeds[0]}): "
                        "there is no spread across seeds to show. A sweep plan with several "
                        'seeds (the manifest\'s "sweep": {"seeds": [...]}) shows it.'
                    )
                else:
                    eaf_axes = charts.axis_pickers(spec, "eaf_axes")[:2]
                    found = uncertainty.surfaces(
                        episodes["returns"][:, eaf_axes], episodes["seeds"]
                    )
                    st.plotly_chart(
                        attainment_figure(
                            names,
                            found,
                            eaf_axes,
                            episode_cloud=episodes["returns"],
                            cloud_seeds=episodes["seeds"],
                        ),
                        key="eaf_figure",
                        width="stretch",
                    )
                    discounted = (
                        "" if ctx.gamma == 1.0 else f" Returns are discounted by γ = {ctx.gamma:g}."
                    )
                    preferences_swept = len(np.unique(episodes["preferences"], axis=0))
                    st.caption(
                        f"{len(seeds)} seeds ({', '.join(map(str, seeds))}), "
                        f"{preferences_swept} preferences, {len(episodes['returns'])} episodes "
                        "(grey: each episode's return, so each preference's policy shows as a "
                        "small cloud). Each seed's returns over the preferences form one run; "
                        "a point is attained by a run when one of its returns is at least as "
                        "good in both objectives shown. Best: attained by at least one seed, "
                        f"median: by at least {median_level(found.runs)}, worst: by "
                        f"all {found.runs}."
                        + discounted
                        + (
                            " On the two objectives chosen (their own attainment surfaces)."
                            if spec.n_obj > 2
                            else ""
                        )
                    )
