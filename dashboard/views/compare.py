"""Compare: two or more agents on one env — overlaid fronts, a metrics table with the best per
column marked, and their rollouts at the same preference side by side in one video."""

from __future__ import annotations

import contextlib

import numpy as np
import pandas as pd
import streamlit as st

from core.assets import RolloutRecording, rollout_key
from dashboard import preferences as prefs
from dashboard import ui
from dashboard.figures import FrontSeries, front_figure
from dashboard.live import queued_notice, show_recording, stream_frames_into_page
from dashboard.pool import shared_pool
from dashboard.tables import AgentMetrics, metrics_table, styled_metrics

ctx = ui.context()
st.title("Compare")
st.caption("Several agents on one environment: their fronts, their metrics, their behaviour.")

if ui.need(ctx, agent=False):
    spec = ctx.spec
    env_id = ctx.env_id
    agents = ctx.catalog.agents_for(env_id)
    names = [agent.name for agent in agents]
    labels = {agent.name: agent.label for agent in agents}
    if "compare_agents" not in st.session_state:
        from_url = ui.url_value("agents")
        chosen = [n for n in (from_url or "").split(",") if n in names]
        if len(chosen) < 2:
            chosen = ([ctx.agent.name] if ctx.agent else []) + [
                n for n in names if not ctx.agent or n != ctx.agent.name
            ]
        st.session_state["compare_agents"] = chosen[:3]
    else:
        st.session_state["compare_agents"] = [
            n for n in st.session_state["compare_agents"] if n in names
        ]
    selected = st.multiselect(
        "Agents", names, key="compare_agents", format_func=lambda n: labels.get(n, n)
    )
    ui.set_url(agents=",".join(selected) if selected else None)
    if len(selected) < 2:
        st.info(f"Choose at least two agents ({len(names)} available for {env_id}).")
    else:
        assets = [ctx.catalog.agent(name) for name in selected]
        series: list[FrontSeries] = []
        metrics: list[AgentMetrics] = []
        loaded_agents = {}
        for asset in assets:
            with ui.guard(f"agent {asset.name}"):
                from core.metrics import rtg_following

                loaded = ui.loaded_agent(asset)
                table = ui.sweep_table(asset)
                points = ui.mean_per_preference(table, env_id)
                series.append(
                    FrontSeries(
                        asset.label,
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
                    AgentMetrics(asset.label, points["returns"], points["preferences"], rtg)
                )
                loaded_agents[asset.name] = loaded

        front_column, table_column = st.columns([3, 2])
        with front_column, ui.guard("fronts"):
            cloud = None
            if ctx.dataset is not None:
                cloud = ui.dataset_summary(ctx.dataset).table.returns
            axes = ui.axis_pickers(spec, "compare_axes") if spec.n_obj > 3 else None
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
        with table_column, ui.guard("metrics"):
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
        preference = ui.preference_control(spec, ctx.granularity, prefix="cmp_")
        ready = [name for name in selected if name in loaded_agents]
        if len(ready) >= 2:
            with ui.guard("synchronised rollouts"):
                from core.render import default_every, side_by_side, stream_frames
                from core.render.frames import playback_fps
                from core.video import Mp4Encoder

                every = default_every(env_id)
                horizon = ctx.horizon
                key = rollout_key(
                    "+".join(loaded_agents[name].fingerprint for name in ready),
                    env_id,
                    preference,
                    None,
                    ctx.seed,
                    (ctx.size, ctx.size),
                    horizon,
                    extra=f"compare;every={every}",
                )
                recording = ctx.library.get(key)
                if recording is None:
                    fps = playback_fps(env_id, every)
                    ordered = sorted(ready)
                    totals: dict[str, np.ndarray] = {}
                    video_slot = st.empty()
                    with contextlib.ExitStack() as stack:
                        # One worker of the server's pool renders all the agents in lockstep.
                        stack.enter_context(shared_pool().slot(queued_notice(video_slot)))
                        borrowed = {
                            name: stack.enter_context(loaded_agents[name].borrow())
                            for name in ordered
                        }
                        encoder = stack.enter_context(Mp4Encoder(fps))

                        def tracked(name: str):  # noqa: ANN202 - a FrameRecord generator
                            stream = stream_frames(
                                borrowed[name],
                                env_id,
                                preference,
                                ctx.seed,
                                every=every,
                                size=(ctx.size, ctx.size),
                                horizon=horizon,
                            )
                            with contextlib.closing(stream):
                                for frame in stream:
                                    totals[name] = frame.record.cumulative_return
                                    yield frame

                        tiles = side_by_side(
                            [tracked(name) for name in ready],
                            [labels[name] for name in ready],
                            env_id,
                            columns=len(ready) if len(ready) <= 3 else None,
                        )
                        count = stream_frames_into_page(
                            tiles,
                            on_each=encoder.add,
                            caption=lambda frame_count: f"frame {frame_count}",
                            slot=video_slot,
                        )
                        video = encoder.finish()
                    recording = RolloutRecording(
                        video=video,
                        rewards=np.zeros((count, spec.n_obj)),
                        fps=fps,
                        meta={
                            "agents": ready,
                            "returns": {n: [float(v) for v in totals[n]] for n in totals},
                        },
                    )
                    ctx.library.put(key, recording)
                    st.rerun()
                show_recording(
                    recording,
                    spec.objective_names,
                    horizon,
                    file_name=f"compare-{prefs.format_vector(preference, 3)}.mp4",
                    chart=False,
                    key="compare_video",
                )
                returns = recording.meta.get("returns", {})
                if returns:
                    st.dataframe(
                        pd.DataFrame(
                            {labels.get(n, n): values for n, values in returns.items()},
                            index=list(spec.objective_names),
                        ),
                        width="stretch",
                    )
                st.session_state["compare_result"] = {
                    "key": key,
                    "agents": ready,
                    "has_video": bool(recording.video),
                }
