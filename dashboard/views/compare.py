"""Compare: two or more agents on one env — overlaid fronts (with the env's known front), a
metrics table with the best per column marked (and bootstrapped 95% intervals across seeds),
training runs' hypervolume and expected utility over their steps, where each agent's EAF beats
the other's, and their rollouts at the same preference side by side in one video. Agents of
other envs are left out, with a note: fronts of different tasks are never drawn or ranked
together (`paretoscope.mixing`)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from functools import partial

import pandas as pd
import streamlit as st

from paretoscope.catalog import AgentAsset
from paretoscope.dashboard import loaders, runs, sidebar, uncertainty, url_state
from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.known_front import describe_front
from paretoscope.dashboard.live import show_recording_live
from paretoscope.dashboard.messages import guard, inert, show_problem
from paretoscope.dashboard.tables import (
    AgentMetrics,
    distinct_labels,
    metrics_table,
    styled_metrics,
)
from paretoscope.dashboard.widgets import charts
from paretoscope.dashboard.widgets.paper_download import paper_downloads
from paretoscope.dashboard.widgets.preference_control import preference_control
from paretoscope.dashboard.widgets.report_button import report_button
from paretoscope.envs import EnvSpec
from paretoscope.envs.known_fronts import against_known
from paretoscope.figures.attainment import attainment_figure, eaf_difference_figure
from paretoscope.figures.front import FrontSeries, front_figure
from paretoscope.figures.paper import paper_front
from paretoscope.figures.style import titled_by_meaning
from paretoscope.figures.training import METRICS, runs_curve_figure, runs_spread_figure
from paretoscope.metrics import attainment_surfaces
from paretoscope.recordings import SideBySideRequest
from paretoscope.report import ReportAgent
from paretoscope.runs.fronts import STEP_COLUMN, StepFront
from paretoscope.runs.seeds import curve_spread, final_fronts, seed_groups
from paretoscope.sweeps import mean_per_preference, objective_arrays
from paretoscope.text import MISSING, number, numbers


def left_out_note(left_out: Mapping[str, str], env_id: str) -> str:
    """ "x (MO-Hopper-v2), y (mo-hopper-v5) left out: only agents of <env> are compared"."""
    listed = ", ".join(
        f"{inert(name)} ({inert(other)})" for name, other in list(left_out.items())[:5]
    )
    more = f" and {len(left_out) - 5} more" if len(left_out) > 5 else ""
    return (
        f"{listed}{more} left out: other environments are other tasks, so only agents of "
        f"{inert(env_id)} are compared"
    )


def agents_from_link(
    asked: str | None,
    names: Sequence[str],
    current: str | None,
    env_id: str,
    elsewhere: Mapping[str, str] | None = None,
    builtin: Sequence[str] = (),
) -> list[str]:
    """The agents a link's ``agents=a,b`` names, each once and only those of this env (a note
    for the rest: those of another env, in `elsewhere` (name -> env id), are named with their
    env); fewer than two: the current agent and the next two, the `builtin` ones only where
    the folders have fewer than two (chance is one click away, not a sweep on every visit)."""
    chosen: list[str] = []
    elsewhere = elsewhere or {}
    if asked is not None:
        listed = [name for name in asked.split(",") if name]
        other_env = {
            name: elsewhere[name] for name in listed if name not in names and name in elsewhere
        }
        unknown = [name for name in listed if name not in names and name not in other_env]
        chosen = list(dict.fromkeys(name for name in listed if name in names))
        if other_env:
            url_state.note_ignored("agents", asked, left_out_note(other_env, env_id))
        if unknown:
            url_state.note_ignored(
                "agents",
                asked,
                f"no agent named {', '.join(map(inert, unknown[:5]))} for {inert(env_id)}",
            )
        unknown += list(other_env)
        if len(chosen) < len(listed) - len(unknown):
            url_state.note_ignored("agents", asked, "an agent listed twice is compared once")
        if len(chosen) < 2:
            url_state.note_ignored(
                "agents", asked, "fewer than two agents; comparing the first ones"
            )
    if len(chosen) < 2:
        ordered = ([current] if current else []) + [n for n in names if n != current]
        from_folders = [name for name in ordered if name not in builtin]
        # Without a link, the first three: a link names as many as it wants.
        chosen = (from_folders if len(from_folders) >= 2 else ordered)[:3]
    return chosen


def show_eaf_difference(
    episodes: Mapping[str, dict], labels: Mapping[str, str], spec: EnvSpec
) -> None:
    """Two chosen agents on two chosen objectives: where each one's EAF (the fraction of its
    seeds that attain a point) exceeds the other's."""
    names = [name for name, arrays in episodes.items() if len(arrays["returns"])]
    st.subheader("EAF difference")
    if len(names) < 2:
        st.info("The EAF difference needs two agents with episodes.")
        return
    columns = st.columns(2)
    first = columns[0].selectbox(
        "Agent A", names, index=0, key="eafdiff_a", format_func=lambda n: labels.get(n, n)
    )
    second = columns[1].selectbox(
        "Agent B", names, index=1, key="eafdiff_b", format_func=lambda n: labels.get(n, n)
    )
    axes = charts.axis_pickers(spec, "eafdiff_axes")[:2]
    if first == second:
        st.info("Choose two different agents.")
        return
    a, b = episodes[first], episodes[second]
    keep_a, keep_b, counts = uncertainty.equal_runs(a["seeds"], b["seeds"])
    difference = uncertainty.difference(
        a["returns"][keep_a][:, axes],
        a["seeds"][keep_a],
        b["returns"][keep_b][:, axes],
        b["seeds"][keep_b],
    )
    st.plotly_chart(
        eaf_difference_figure(
            [spec.objective_names[axis] for axis in axes],
            difference,
            (labels.get(first, first), labels.get(second, second)),
        ),
        key="compare_eaf_difference",
        width="stretch",
    )
    unequal = (
        f" {inert(labels.get(first, first))} has {counts[0]} seeds and "
        f"{inert(labels.get(second, second))} {counts[1]}: each side's first "
        f"{difference.runs} are compared."
        if counts[0] != counts[1]
        else ""
    )
    st.caption(
        f"Each agent's runs are its {difference.runs} seed(s), every preference's episode of a "
        "seed forming one set of returns. A point is attained by a run when one of its returns "
        "is at least as good in both objectives; coloured regions are attained by a larger "
        "fraction of one agent's runs than of the other's (darker: a larger difference)." + unequal
    )


def show_training_curves(
    ctx: sidebar.Context, run_assets: Sequence[AgentAsset], labels: Mapping[str, str]
) -> None:
    """Two or more training runs: hypervolume and expected utility over their steps, one line
    per run (each from its trainer's logs where it has them, else from sweeping each snapshot)."""
    st.subheader("Training curves")
    curves = {}
    fronts: dict[str, Sequence[StepFront]] = {}
    algorithms: dict[str, str | None] = {}
    sources = []
    for asset in run_assets:
        label = labels[asset.name]
        with guard(f"run {asset.name}"):
            source = runs.default_source(asset)
            data = runs.run_fronts(asset, ctx.catalog, source, ctx.gamma, ctx.reference_point)
            for what, why in runs.notice_lines(data.notices):
                show_problem("caption", f"{label}: {what}", why)
            if len(data.metrics):
                curves[label] = data.metrics
                fronts[label] = data.fronts
                algorithms[label] = runs.algorithm(asset)
                sources.append(f"{inert(label)} from {runs.SOURCE_LABELS[source]}")
    if not curves:
        return
    for column, metric in zip(st.columns(2), METRICS, strict=True):
        column.plotly_chart(
            runs_curve_figure(metric, curves), key=f"compare_curve_{metric}", width="stretch"
        )
    st.caption(
        "; ".join(sources) + f". Hypervolume above the reference point {ctx.reference_point}; "
        "expected utility over each step's preferences. Logged evaluations are undiscounted."
    )
    groups = seed_groups(algorithms)
    if any(len(members) > 1 for members in groups.values()):
        show_seed_spread(ctx, groups, curves, fronts)


def show_seed_spread(
    ctx: sidebar.Context,
    groups: Mapping[str, Sequence[str]],
    curves: Mapping[str, pd.DataFrame],
    fronts: Mapping[str, Sequence[StepFront]],
) -> None:
    """The runs grouped by algorithm (its seeds): each metric's median and range across them
    over the steps, and the attainment surfaces of their final fronts."""
    assert ctx.spec is not None
    st.subheader("Across seeds")
    for column, metric in zip(st.columns(2), METRICS, strict=True):
        spreads = {
            name: curve_spread(
                [(curves[label][STEP_COLUMN], curves[label][metric]) for label in members]
            )
            for name, members in groups.items()
        }
        column.plotly_chart(
            runs_spread_figure(metric, spreads), key=f"compare_spread_{metric}", width="stretch"
        )
    names = list(ctx.spec.objective_names)
    axes = charts.axis_pickers(ctx.spec, "compare_seed_axes")
    shown = [(name, members) for name, members in groups.items() if len(members) > 1]
    for column, (name, members) in zip(st.columns(len(shown)), shown, strict=True):
        with column, guard(f"attainment of {name}"):
            points, owners = final_fronts([fronts[label] for label in members])
            # moocore's EAF takes 2 or 3 objectives: beyond, the two shown.
            attained = points if ctx.spec.n_obj <= 3 else points[:, list(axes)]
            st.markdown(f"**{inert(name)}: final fronts of {len(members)} runs**")
            st.plotly_chart(
                attainment_figure(
                    names,
                    attainment_surfaces(attained, owners),
                    axes,
                    episode_cloud=points,
                ),
                key=f"compare_seed_attainment_{name}",
                width="stretch",
            )
    st.caption(
        "Runs of one algorithm (the trainer's name for it, else the model kind) are taken as its "
        "seeds. Curves: at each step, the median of the runs' latest evaluations with a band "
        "from the lowest to the highest. Attainment: each run's front at its last step; a point "
        "is attained by a run when one of its returns is at least as good in every objective "
        "(best: by one run, median: by half, worst: by all). Grey points: the final fronts."
    )


ctx = sidebar.context()
st.title("Compare")
st.caption("Several agents on one environment: their fronts, their metrics, their behaviour.")

if sidebar.need(ctx, agent=False):
    spec = ctx.spec
    env_id = ctx.env_id
    assert env_id is not None and spec is not None  # sidebar.need said so
    reference_point = ctx.reference_point
    assert reference_point is not None  # the sidebar's metric conventions: one with an env
    agents = ctx.catalog.agent_choices(env_id)
    names = [agent.name for agent in agents]
    by_name = {agent.name: agent for agent in agents}
    labels = distinct_labels(agents)
    elsewhere = {
        agent.name: agent.env_id
        for agent in ctx.catalog.agents
        if agent.env_id is not None and agent.env_id != env_id
    }
    if "compare_agents" not in st.session_state:
        st.session_state["compare_agents"] = agents_from_link(
            url_state.url_value("agents"),
            names,
            ctx.agent.name if ctx.agent else None,
            env_id,
            elsewhere,
            [agent.name for agent in agents if agent.builtin],
        )
    else:
        kept = [n for n in st.session_state["compare_agents"] if n in names]
        dropped = {
            n: elsewhere.get(n, "no longer listed")
            for n in st.session_state["compare_agents"]
            if n not in names
        }
        if dropped:
            st.session_state["_compare_left_out"] = left_out_note(dropped, env_id)
        st.session_state["compare_agents"] = kept
    left_out = st.session_state.pop("_compare_left_out", None)
    if left_out:
        st.caption(left_out)
    selected = st.multiselect(
        "Agents", names, key="compare_agents", format_func=lambda n: labels.get(n, n)
    )
    url_state.set_url(agents=",".join(selected) if selected else None)
    if len(selected) < 2:
        st.info(f"Choose at least two agents ({len(names)} available for {inert(env_id)}).")
    else:
        assets = [by_name[name] for name in selected]
        series: list[FrontSeries] = []
        metrics: list[AgentMetrics] = []
        loaded_agents = {}
        episodes: dict[str, dict] = {}  # name -> every episode's preferences, returns, seeds
        tables: dict[str, pd.DataFrame] = {}  # name -> its sweep's episodes (the report's)
        known = None
        logged_only = [asset.name for asset in assets if runs.logged_only(asset)]
        if logged_only:
            st.caption(
                ", ".join(inert(labels[name]) for name in logged_only)
                + ": logged fronts only (no agent to sweep or play); the run's curves are under "
                "Training curves."
            )
        for asset in assets:
            if asset.name in logged_only:
                continue
            with guard(f"agent {asset.name}"):
                from paretoscope.metrics import rtg_following

                loaded = loaders.loaded_agent(asset)
                table = loaders.sweep_table(asset, ctx.catalog, gamma=ctx.gamma)
                points = mean_per_preference(table, env_id)
                tables[asset.name] = table
                episodes[asset.name] = objective_arrays(table, env_id)
                seeds = episodes[asset.name]["seeds"]
                intervals = None
                if len(seeds) and uncertainty.seed_count(seeds) > 1:
                    intervals = uncertainty.front_intervals(
                        episodes[asset.name]["preferences"],
                        episodes[asset.name]["returns"],
                        seeds,
                        tuple(float(v) for v in reference_point),
                    )
                against = against_known(env_id, ctx.gamma, points["returns"], points["preferences"])
                known = None if against is None else against.front
                series.append(
                    FrontSeries(
                        labels[asset.name],
                        points["returns"],
                        points["preferences"],
                        points["targets"],
                        points["seeds"],
                        regret=None if against is None else against.regret,
                        env_id=asset.env_id or env_id,
                    )
                )
                rtg = None
                # Targets are undiscounted: RTG following is measured on undiscounted sweeps.
                if loaded.return_conditioned and len(points["returns"]) and ctx.gamma == 1.0:
                    rtg = rtg_following(points["targets"], points["preferences"], points["returns"])
                metrics.append(
                    AgentMetrics(
                        labels[asset.name],
                        points["returns"],
                        points["preferences"],
                        rtg,
                        env_id=asset.env_id or env_id,
                        intervals=intervals,
                    )
                )
                loaded_agents[asset.name] = loaded

        # The table under the front, as wide as the page: beside it, it had room for one column.
        front_column, table_column = st.container(), st.container()
        with front_column, guard("fronts"):
            cloud = None
            if ctx.dataset is not None:
                cloud = loaders.dataset_summary(ctx.dataset).table.returns
            axes = charts.axis_pickers(spec, "compare_axes") if spec.n_obj > 3 else None
            figure = front_figure(
                spec.objective_names,
                series,
                dataset_returns=cloud,
                reference_point=reference_point,
                axes=axes,
                known_front=known,
                include_reference=charts.reference_toggle("compare_show_reference"),
            )
            titled_by_meaning(figure, spec)
            st.plotly_chart(
                figure,
                key="compare_front",
                width="stretch",
            )
            paper_downloads(
                partial(
                    paper_front,
                    spec,
                    series,
                    known,
                    objectives=[0, 1] if axes is None else list(axes)[:2],
                    width="double",
                ),
                f"{env_id}-fronts",
                "compare_paper",
            )
            if known is not None:
                st.caption(describe_front(known) + ".")
        with table_column, guard("metrics"):
            st.markdown("**Metrics** (best per column highlighted)")
            table = metrics_table(metrics, reference_point, known_front=known)
            st.dataframe(styled_metrics(table), width="stretch", placeholder=MISSING)
            discount = "undiscounted returns" if ctx.gamma == 1.0 else f"γ = {ctx.gamma:g}"
            against_text = (
                "; IGD, IGD+, maximum utility loss and mean regret (the best w·v on the known "
                "front minus the agent's, over its preferences) against the known front at the "
                "same γ: lower is better"
                if known is not None
                else ""
            )
            st.caption(
                f"All at {discount}. Hypervolume above the reference point "
                f"({numbers(reference_point)}) (the sidebar's metric conventions); sparsity: "
                "lower is denser but rewards a few clustered points, so read it with cardinality; "
                "expected utility over each agent's sweep preferences; RTG errors: "
                "mean |p·target − p·return| and |p − return ratio| (return-conditioned agents, "
                f"undiscounted only){against_text}. CI columns: bootstrapped "
                f"{uncertainty.CI_LEVEL:.0%} intervals across seeds "
                f"({uncertainty.CI_RESAMPLES} resamples of the seeds, random seed "
                f"{uncertainty.CI_RANDOM_SEED}); — for an agent swept with one seed only."
            )

        with guard("report"):
            shown = [name for name in selected if name in loaded_agents and len(tables[name])]
            report_button(
                "compare",
                env_id,
                lambda: [
                    ReportAgent(
                        name,
                        tables[name],
                        loaded_agents[name].agent,
                        location=str(by_name[name].path),
                        label=labels[name],
                    )
                    for name in shown
                ],
                (shown, ctx.gamma),
            )

        run_assets = [asset for asset in assets if asset.is_run]
        if len(run_assets) >= 2:
            show_training_curves(ctx, run_assets, labels)

        with guard("EAF difference"):
            show_eaf_difference(episodes, labels, spec)

        st.subheader("Side by side at one preference")
        preference = preference_control(
            spec, ctx.granularity, prefix="cmp_", default=ctx.default_preference
        )
        ready = [name for name in selected if name in loaded_agents]
        if len(ready) >= 2:
            with guard("synchronised rollouts"):
                from paretoscope.render import default_every

                request = SideBySideRequest(
                    fingerprints=tuple(loaded_agents[name].fingerprint for name in ready),
                    labels=tuple(labels[name] for name in ready),
                    env_id=env_id,
                    preference=tuple(float(v) for v in preference),
                    seed=ctx.seed,
                    size=ctx.size,
                    horizon=ctx.horizon,
                    every=default_every(env_id),
                    columns=len(ready) if len(ready) <= 3 else None,
                )
                recording = show_recording_live(
                    ctx.library,
                    request,
                    [loaded_agents[name] for name in ready],
                    spec.objective_names,
                    ctx.horizon,
                    file_name=f"compare-{prefs.format_vector(preference, 3)}.mp4",
                    widget_key="compare_video",
                    chart=False,
                )
                if recording is not None:
                    if ctx.gamma != 1.0:
                        st.caption("The video's returns (undiscounted):")
                    st.dataframe(
                        pd.DataFrame(
                            recording.returns.T,
                            index=list(spec.objective_names),
                            columns=list(recording.lanes),
                        ).style.format(number),
                        width="stretch",
                    )
