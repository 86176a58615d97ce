"""Compare: two or more agents on one env — overlaid fronts, a metrics table with the best per
column marked, and their rollouts at the same preference side by side in one video."""

from __future__ import annotations

from collections.abc import Sequence

import pandas as pd
import streamlit as st

from core.recordings import SideBySideRequest
from core.sweeps import mean_per_preference
from dashboard import loaders, sidebar, url_state
from dashboard import preferences as prefs
from dashboard.figures import FrontSeries, front_figure
from dashboard.live import show_recording_live
from dashboard.messages import guard, inert
from dashboard.tables import AgentMetrics, distinct_labels, metrics_table, styled_metrics
from dashboard.widgets import charts
from dashboard.widgets.preference_control import preference_control


def agents_from_link(
    asked: str | None, names: Sequence[str], current: str | None, env_id: str
) -> list[str]:
    """The agents a link's ``agents=a,b`` names, each once and only those of this env (a note
    for the rest); fewer than two: the current agent and the next ones."""
    chosen: list[str] = []
    if asked is not None:
        listed = [name for name in asked.split(",") if name]
        unknown = [name for name in listed if name not in names]
        chosen = list(dict.fromkeys(name for name in listed if name in names))
        if unknown:
            url_state.note_ignored(
                "agents",
                asked,
                f"no agent named {', '.join(map(inert, unknown[:5]))} for {inert(env_id)}",
            )
        if len(chosen) < len(listed) - len(unknown):
            url_state.note_ignored("agents", asked, "an agent listed twice is compared once")
        if len(chosen) < 2:
            url_state.note_ignored(
                "agents", asked, "fewer than two agents; comparing the first ones"
            )
    if len(chosen) < 2:
        chosen = ([current] if current else []) + [n for n in names if n != current]
    return chosen[:3]


ctx = sidebar.context()
st.title("Compare")
st.caption("Several agents on one environment: their fronts, their metrics, their behaviour.")

if sidebar.need(ctx, agent=False):
    spec = ctx.spec
    env_id = ctx.env_id
    agents = ctx.catalog.agents_for(env_id)
    names = [agent.name for agent in agents]
    labels = distinct_labels(agents)
    if "compare_agents" not in st.session_state:
        st.session_state["compare_agents"] = agents_from_link(
            url_state.url_value("agents"), names, ctx.agent.name if ctx.agent else None, env_id
        )
    else:
        st.session_state["compare_agents"] = [
            n for n in st.session_state["compare_agents"] if n in names
        ]
    selected = st.multiselect(
        "Agents", names, key="compare_agents", format_func=lambda n: labels.get(n, n)
    )
    url_state.set_url(agents=",".join(selected) if selected else None)
    if len(selected) < 2:
        st.info(f"Choose at least two agents ({len(names)} available for {inert(env_id)}).")
    else:
        assets = [ctx.catalog.agent(name) for name in selected]
        series: list[FrontSeries] = []
        metrics: list[AgentMetrics] = []
        loaded_agents = {}
        for asset in assets:
            with guard(f"agent {asset.name}"):
                from core.metrics import rtg_following

                loaded = loaders.loaded_agent(asset)
                table = loaders.sweep_table(asset, ctx.catalog)
                points = mean_per_preference(table, env_id)
                series.append(
                    FrontSeries(
                        labels[asset.name],
                        points["returns"],
                        points["preferences"],
                        points["targets"],
                        points["seeds"],
                    )
                )
                rtg = None
                if loaded.return_conditioned and len(points["returns"]):
                    rtg = rtg_following(points["targets"], points["preferences"], points["returns"])
                metrics.append(
                    AgentMetrics(labels[asset.name], points["returns"], points["preferences"], rtg)
                )
                loaded_agents[asset.name] = loaded

        front_column, table_column = st.columns([3, 2])
        with front_column, guard("fronts"):
            cloud = None
            if ctx.dataset is not None:
                cloud = loaders.dataset_summary(ctx.dataset).table.returns
            axes = charts.axis_pickers(spec, "compare_axes") if spec.n_obj > 3 else None
            st.plotly_chart(
                front_figure(
                    spec.objective_names,
                    series,
                    dataset_returns=cloud,
                    reference_point=spec.reference_point,
                    axes=axes,
                ),
                key="compare_front",
                width="stretch",
            )
        with table_column, guard("metrics"):
            st.markdown("**Metrics** (best per column highlighted)")
            table = metrics_table(metrics, spec.reference_point)
            st.session_state["compare_metrics"] = table
            st.dataframe(styled_metrics(table), width="stretch")
            st.caption(
                f"Hypervolume above the reference point {tuple(spec.reference_point)} "
                f"({spec.reference_point_source}); sparsity: lower is denser; expected utility "
                "over each agent's sweep preferences; RTG errors: mean |p·target − p·return| "
                "and |p − return ratio| (return-conditioned agents only)."
            )

        st.subheader("Side by side at one preference")
        preference = preference_control(spec, ctx.granularity, prefix="cmp_")
        ready = [name for name in selected if name in loaded_agents]
        if len(ready) >= 2:
            with guard("synchronised rollouts"):
                from core.render import default_every

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
                    st.dataframe(
                        pd.DataFrame(
                            recording.returns.T,
                            index=list(spec.objective_names),
                            columns=list(recording.lanes),
                        ),
                        width="stretch",
                    )
                    st.session_state["compare_result"] = {
                        "key": request.key(),
                        "agents": ready,
                        "returns": {
                            name: [float(v) for v in returns]
                            for name, returns in zip(ready, recording.returns, strict=True)
                        },
                        "has_video": bool(recording.video),
                    }
