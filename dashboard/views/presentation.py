"""Presentation: a tour that sweeps the preference from one extreme to the other and makes one
MP4 — the rollout beside its point moving on the front — ready to drop into a slide."""

from __future__ import annotations

import numpy as np
import streamlit as st

from core.assets import RolloutRecording, rollout_key
from dashboard import preferences as prefs
from dashboard import ui
from dashboard.live import queued_notice, show_recording, stream_frames_into_page
from dashboard.services import tour_frames
from dashboard.tour import FrontPanel

ctx = ui.context()
st.title("Presentation")
st.caption(
    "A tour from all weight on the first objective to all weight on the last: each stop plays "
    "the start of that preference's episode next to the front, where the point glides to the "
    "stop's full-episode return."
)

if ui.need(ctx):
    spec = ctx.spec
    env_id = ctx.env_id
    names = spec.objective_names
    asset = ctx.agent
    loaded = None
    with ui.guard(f"agent {asset.name}"):
        loaded = ui.loaded_agent(asset)
    if loaded is not None:
        with ui.guard("tour"):
            from core.render import default_every
            from core.render.frames import playback_fps
            from core.video import Mp4Encoder

            granularity = ctx.granularity
            horizon = ctx.horizon
            columns = st.columns(4)
            most_stops = min(granularity + 1, 21)
            stops = (
                columns[0].slider("Stops", 2, most_stops, min(most_stops, 11), key="tour_stops")
                if most_stops > 2
                else 2
            )
            fewest_steps = min(10, horizon)
            steps = (
                columns[1].slider(
                    "Steps per stop", fewest_steps, horizon, min(horizon, 100), key="tour_steps"
                )
                if horizon > fewest_steps
                else horizon
            )
            axes = [0, 1]
            if spec.n_obj > 2:
                axes = [
                    columns[2 + axis].selectbox(
                        f"front {'xy'[axis]} axis",
                        range(spec.n_obj),
                        index=[0, spec.n_obj - 1][axis],
                        format_func=lambda index: names[index],
                        key=f"tour_axes_{axis}",
                    )
                    for axis in range(2)
                ]
            path = np.array(
                [prefs.snap(p, granularity) for p in prefs.tour_path(spec.n_obj, stops)]
            )
            path = path[np.r_[True, np.abs(np.diff(path, axis=0)).sum(axis=1) > 1e-12]]
            st.caption(
                f"{len(path)} stops: "
                + " → ".join("(" + prefs.format_vector(p, 2) + ")" for p in path)
            )
            every = default_every(env_id)
            key = rollout_key(
                loaded.fingerprint,
                env_id,
                path.ravel(),
                None,
                ctx.seed,
                (ctx.size, ctx.size),
                steps,
                extra=f"tour;every={every};axes={axes}",
            )
            recording = ctx.library.get(key)
            if recording is None and st.button("Make the tour", type="primary", key="tour_make"):
                table = ui.sweep_table(asset, preferences=path)
                arrays = ui.mean_per_preference(table, env_id)
                order = [prefs.nearest_row(arrays["preferences"], p) for p in path]
                stop_returns = arrays["returns"][order]
                everything = ui.mean_per_preference(ui.sweep_table(asset), env_id)["returns"]
                cloud = None
                if ctx.dataset is not None:
                    cloud = ui.dataset_summary(ctx.dataset).table.returns
                panel = FrontPanel(
                    names,
                    np.vstack([everything, stop_returns]),
                    ctx.size,
                    axes=axes,
                    cloud=cloud,
                    title=asset.label,
                )
                fps = playback_fps(env_id, every)
                total = len(path) * max(1, -(-steps // every))
                progress = st.progress(0.0, text="Rendering the tour…")
                counter = [0]

                def advance(_: np.ndarray) -> None:
                    counter[0] += 1
                    progress.progress(min(1.0, counter[0] / total), text="Rendering the tour…")

                video_slot = st.empty()
                with Mp4Encoder(fps) as encoder:

                    def add(frame: np.ndarray) -> None:
                        encoder.add(frame)
                        advance(frame)

                    stream_frames_into_page(
                        tour_frames(
                            loaded,
                            env_id,
                            path,
                            stop_returns,
                            panel,
                            ctx.seed,
                            ctx.size,
                            steps,
                            every,
                            on_wait=queued_notice(video_slot),
                        ),
                        on_each=add,
                        slot=video_slot,
                    )
                    video = encoder.finish()
                ctx.library.put(
                    key,
                    RolloutRecording(
                        video=video,
                        rewards=np.zeros((counter[0], spec.n_obj)),
                        fps=fps,
                        meta={"stops": path.tolist(), "frames": counter[0]},
                    ),
                )
                st.rerun()
            if recording is not None:
                show_recording(
                    recording,
                    names,
                    horizon,
                    file_name=f"tour-{asset.name}.mp4",
                    chart=False,
                    key="tour_video",
                )
                st.session_state["tour_result"] = {
                    "key": key,
                    "frames": int(recording.meta.get("frames", 0)),
                    "stops": len(path),
                    "bytes": len(recording.video),
                }
