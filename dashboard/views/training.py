"""Training: watch a front grow over a training run. A step scrubber and a play button move
through the run's snapshots; the front at the chosen step is drawn over the earlier ones
(fading), beside hypervolume and expected utility over the steps; below, the agent of that
step plays at the chosen preference. The fronts come from sweeping each snapshot or from the
evaluations the trainer logged (PEDA's logs, a W&B run's tables: read, never re-run); a sweep
of a run that logged its own shows both curves."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pandas as pd
import streamlit as st

from paretoscope.catalog import AgentAsset, snapshot_asset
from paretoscope.dashboard import loaders, runs, sidebar, url_state
from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.live import show_recording_live
from paretoscope.dashboard.messages import describe, guard, inert, show_problem
from paretoscope.dashboard.widgets import charts
from paretoscope.dashboard.widgets.paper_download import paper_downloads
from paretoscope.dashboard.widgets.preference_control import preference_control
from paretoscope.envs import EnvSpec
from paretoscope.figures.paper import paper_metrics, paper_training
from paretoscope.figures.training import evolution_figure, step_metrics_figure
from paretoscope.recordings import EpisodeRequest
from paretoscope.runs.evolution import evolution_mp4
from paretoscope.runs.fronts import STEP_COLUMN
from paretoscope.runs.run import RunNotice
from paretoscope.runs.wandb_run import disagrees
from paretoscope.text import number, numbers

STEP_KEY = "train_step"
SOURCE_KEY = "train_source"
PLAYING_KEY = "_train_playing"
# Set by the play button: the run it starts shows the step it starts from.
HOLD_KEY = "_train_hold"
PLAY_SECONDS = 1.0  # between steps while playing
FADE = 4  # earlier fronts drawn behind the current one
NOTICES_SHOWN = 5  # more than this go in an expander
# The exported MP4: two steps a second (each front readable), the last step held a second.
EXPORT_FPS = 2.0
EXPORT_HOLD = 1.0
LOGGED_HYPERVOLUME = "logged eval/hypervolume"  # dashboard.runs's column of the logged value
LOGGED_BESIDE = "the trainer's logged evaluations"  # its curves beside a sweep's


def explain_not_a_run(ctx: sidebar.Context, agent: AgentAsset) -> None:
    """Say that `agent` is no run, offer the env's runs, and how to get one here."""
    assert ctx.env_id is not None
    st.info(
        f"{inert(agent.label)} is a single agent, not a training run. This page shows a run: "
        "its snapshots, one per training step."
    )
    found = runs.run_agents(ctx.catalog, ctx.env_id)
    for run in found:
        st.button(
            f"Show {run.label} ({len(run.steps)} steps)",
            key=f"train_open_{run.name}",
            on_click=lambda name=run.name: st.session_state.__setitem__("agent", name),
        )
    if not found:
        st.caption(f"No training run for {inert(ctx.env_id)} in the assets.")
    st.caption(
        "To get a run here: `paretoscope train ... --snapshot-every N` saves a snapshot every N "
        "steps into the run folder (`snapshots/step=N/`); a PEDA run folder (`ckpt/step=N.ckpt`, "
        "with its `logs/`), a folder of MORL-Baselines saves with `step=N` in their names "
        "or a W&B run folder (`wandb/offline-run-*`, its logged `eval/front` tables) works "
        "too. Put the folder under the assets' `agents/` and choose it in the sidebar."
    )


def show_run_problems(ctx: sidebar.Context) -> None:
    """Run folders the catalog could not list (mixed envs or architectures, nothing readable)."""
    for problem in runs.run_problems(ctx.catalog):
        show_problem("warning", f"run {problem.path.name}", problem.message)


def show_notices(notices: Sequence[RunNotice]) -> None:
    """The snapshots (and logs) left out, each named with the reason."""
    lines = runs.notice_lines(notices)
    if len(lines) > NOTICES_SHOWN:
        st.warning(f"{len(lines)} snapshots or logs were left out; the rest of the run is shown.")
        with st.expander("What was left out"):
            for what, why in lines:
                show_problem("caption", what, why)
        return
    for what, why in lines:
        show_problem("warning", what, why)


def choose_source(asset: AgentAsset, gamma: float) -> str:
    """The trainer's logs or a sweep here (a choice only where the run has logs)."""
    if runs.default_source(asset) != runs.LOGGED:
        return runs.SWEEP
    if not runs.training_run(asset).snapshots:  # a W&B run: logged fronts, nothing to sweep
        return runs.LOGGED
    if st.session_state.get(SOURCE_KEY) not in runs.SOURCE_LABELS:
        st.session_state[SOURCE_KEY] = runs.LOGGED
    source = st.radio(
        "Source",
        list(runs.SOURCE_LABELS),
        format_func=runs.SOURCE_LABELS.get,
        horizontal=True,
        key=SOURCE_KEY,
        help="The trainer saved its own evaluation at each step: shown as it is, without "
        "running anything. A sweep here evaluates every snapshot on the sweep plan's grid.",
    )
    if source == runs.LOGGED and gamma != 1.0:
        st.caption(
            "The trainer's logs hold undiscounted returns: the sidebar's γ applies to sweeps here."
        )
    return str(source)


def choose_step(steps: list[int]) -> int:
    """The session's step among `steps` (the link's on first use; the last one by default)."""
    asked = url_state.url_value("step")
    if asked is not None:
        if int(asked) in steps:
            st.session_state[STEP_KEY] = int(asked)
        else:
            url_state.note_ignored(
                "step", asked, f"no step {int(asked)} in this run (steps {steps[0]}–{steps[-1]})"
            )
    if st.session_state.get(STEP_KEY) not in steps:
        st.session_state[STEP_KEY] = steps[-1]
    return int(st.session_state[STEP_KEY])


def play_controls(steps: list[int]) -> bool:
    """Play (from the first step when at the last) or pause; True while playing."""

    def play() -> None:
        st.session_state[PLAYING_KEY] = True
        st.session_state[HOLD_KEY] = True
        if st.session_state.get(STEP_KEY) == steps[-1]:
            st.session_state[STEP_KEY] = steps[0]

    def pause() -> None:
        st.session_state[PLAYING_KEY] = False

    playing = bool(st.session_state.get(PLAYING_KEY))
    if len(steps) < 2:
        st.session_state[PLAYING_KEY] = False
        return False
    if playing:
        st.button("Pause", icon=":material/pause:", key="train_pause", on_click=pause)
    else:
        st.button(
            "Play",
            icon=":material/play_arrow:",
            key="train_play",
            on_click=play,
            help=f"Move through the steps, one every {PLAY_SECONDS:g} s, to the last.",
        )
    return playing


def advance(steps: list[int]) -> None:
    """The next step while playing; playing stops at the last."""
    current = st.session_state.get(STEP_KEY)
    position = steps.index(current) if current in steps else -1
    if position + 1 < len(steps):
        st.session_state[STEP_KEY] = steps[position + 1]
    else:
        st.session_state[PLAYING_KEY] = False


def show_evolution(
    spec: EnvSpec,
    data: runs.RunFronts,
    shown_step: int,
    axes: list[int],
    reference_point: Sequence[float] | None,
    logged_reference: Sequence[float] | None = None,
    beside: tuple[str, pd.DataFrame] | None = None,
) -> None:
    """The scrubber, the front at its step and the metrics over steps (with `beside`, the
    run's other source, dashed): one fragment, so that playing reruns only this part of this
    viewer's page."""
    steps = data.steps
    playing = bool(st.session_state.get(PLAYING_KEY))

    @st.fragment(run_every=PLAY_SECONDS if playing else None)
    def scrubber_and_charts() -> None:
        still_playing = bool(st.session_state.get(PLAYING_KEY))
        if still_playing and not st.session_state.pop(HOLD_KEY, False):
            advance(steps)
        step = st.select_slider(
            "Step",
            steps,
            key=STEP_KEY,
            on_change=lambda: st.session_state.__setitem__(PLAYING_KEY, False),
            help="The training step whose front is drawn; earlier fronts fade behind it.",
        )
        url_state.set_url(step=str(step))
        front_column, metrics_column = st.columns(2, gap="medium")
        figure = evolution_figure(
            spec.objective_names, data.fronts, step, axes, FADE, reference_point
        )
        front_column.plotly_chart(figure, key="train_front", width="stretch")
        metrics_column.plotly_chart(
            step_metrics_figure(data.metrics, step, beside=beside),
            key="train_metrics",
            width="stretch",
        )
        with front_column:
            paper_downloads(
                lambda: paper_training(spec, data.fronts, step, FADE, axes),
                f"training-front-step-{step}",
                "train_front_paper",
            )
        with metrics_column:
            paper_downloads(
                lambda: paper_metrics(data.metrics, step),
                "training-metrics",
                "train_metrics_paper",
            )
        row = data.metrics[data.metrics[STEP_COLUMN] == step]
        if len(row):
            metrics_column.caption(
                f"Step {step}: hypervolume {number(float(row['hypervolume'].iloc[0]), 6)} above "
                f"the reference point ({numbers(reference_point or ())}), expected utility "
                f"{number(float(row['expected_utility'].iloc[0]), 6)} over the front's "
                "preferences."
            )
            flag_logged_hypervolume(metrics_column, row, reference_point, logged_reference)
        if bool(st.session_state.get(PLAYING_KEY)) != still_playing or (
            not still_playing and step != shown_step
        ):
            st.rerun()  # the whole page: the video follows the step played or chosen

    scrubber_and_charts()


def flag_logged_hypervolume(
    column: Any,
    row: Any,
    reference_point: Sequence[float] | None,
    logged_reference: Sequence[float] | None,
) -> None:
    """Where the trainer logged a hypervolume that differs from the one recomputed here, say
    so with both reference points."""
    if LOGGED_HYPERVOLUME not in row:
        return
    logged, here = float(row[LOGGED_HYPERVOLUME].iloc[0]), float(row["hypervolume"].iloc[0])
    if disagrees(logged, here):
        theirs = f"({numbers(logged_reference)})" if logged_reference else "not in its config"
        column.warning(
            f"The run logged hypervolume {number(logged, 6)} here, recomputed {number(here, 6)}: "
            f"its reference point {theirs}, the sidebar's ({numbers(reference_point or ())})."
        )


def export_evolution(
    spec: EnvSpec,
    asset: AgentAsset,
    data: runs.RunFronts,
    axes: list[int],
    reference_point: Sequence[float] | None,
) -> None:
    """The evolution as one MP4 for slides (`paretoscope.runs.evolution`): drawn when asked (a few
    seconds), then offered for download until what it shows changes."""
    reference = tuple(reference_point or ())
    key = (asset.name, data.source, data.gamma, reference, tuple(axes), tuple(data.steps))
    if st.button("Export the evolution as MP4", key="train_export", icon=":material/movie:"):
        with st.spinner("Drawing the evolution…"):
            video = evolution_mp4(
                data.fronts,
                spec.objective_names,
                fps=EXPORT_FPS,
                hold=EXPORT_HOLD,
                axes=axes,
                fade=FADE,
                reference_point=reference_point,
                hypervolumes=data.metrics["hypervolume"].tolist(),
                title=asset.label,
            )
        st.session_state["_train_mp4"] = (key, video)
    made = st.session_state.get("_train_mp4")
    if made is not None and made[0] == key:
        st.download_button(
            "Download the evolution MP4",
            made[1],
            file_name=f"{asset.name}-evolution.mp4",
            mime="video/mp4",
            key="train_mp4_download",
            on_click="ignore",
        )
        st.caption(
            f"One step every {1 / EXPORT_FPS:g} s ({len(data.steps)} steps), the last held "
            f"{EXPORT_HOLD:g} s; the same fronts, axes and hypervolumes as above."
        )


def show_video(
    ctx: sidebar.Context, asset: AgentAsset, step: int, playing: bool, snapshot_steps: list[int]
) -> None:
    """The agent of `step` at the chosen preference: streamed frames, then the MP4."""
    spec = ctx.spec
    assert spec is not None and ctx.env_id is not None
    st.subheader("The agent at each step" if playing else f"The agent at step {step}")
    preference = preference_control(spec, ctx.granularity, default=ctx.default_preference)
    if playing:
        st.caption("Playing: pause to watch the agent of the step shown.")
        return
    if step not in snapshot_steps:
        st.info(f"The run has no snapshot at step {step}: the trainer logged it without saving.")
        return
    run = runs.training_run(asset)
    with guard(f"step {step}"):
        loaded = loaders.fitting_agent(snapshot_asset(asset, step, run), ctx.env_id)
        from paretoscope.render import default_every

        request = EpisodeRequest(
            fingerprint=loaded.fingerprint,
            env_id=ctx.env_id,
            preference=tuple(float(v) for v in preference),
            target=None,
            seed=ctx.seed,
            size=ctx.size,
            horizon=ctx.horizon,
            every=default_every(ctx.env_id),
            label=f"{asset.name}@step={step}",
        )

        chosen = prefs.format_vector(list(preference), 3)

        @st.fragment
        def video_part() -> None:
            with guard("rollout"):
                shown = show_recording_live(
                    ctx.library,
                    request,
                    [loaded],
                    spec.objective_names,
                    request.horizon,
                    file_name=f"{asset.name}-step{step}-{chosen}.mp4",
                    widget_key="train_video",
                )
                if shown is not None:
                    names = spec.objective_names
                    st.caption(
                        f"Step {step}, preference {describe(names, list(preference), 2)}, "
                        f"seed {request.seed} → return "
                        f"{describe(names, list(shown.returns[0]))} (undiscounted)"
                    )

        video_part()


def training_page(ctx: sidebar.Context, asset: AgentAsset) -> None:
    spec = ctx.spec
    assert spec is not None
    source = choose_source(asset, ctx.gamma)
    data = runs.run_fronts(asset, ctx.catalog, source, ctx.gamma, ctx.reference_point)
    show_notices(data.notices)
    if not data.fronts:
        st.warning(f"No step of {inert(asset.label)} could be shown.")
        url_state.set_url(step=None)
        return
    steps = data.steps
    step = choose_step(steps)
    playing = play_controls(steps)
    axes = charts.axis_pickers(spec, "train_axes")
    logged_reference = runs.logged_reference(asset) if data.source == runs.LOGGED else None
    beside = None
    # A sweep of a run that logged its own evaluations: both curves together (undiscounted
    # only: the logs are, and two discounts are never drawn as one quantity).
    if data.source == runs.SWEEP and data.gamma == 1.0 and runs.logged_fronts(asset)[0]:
        beside = (LOGGED_BESIDE, runs.logged(asset, ctx.reference_point).metrics)
    show_evolution(spec, data, step, axes, ctx.reference_point, logged_reference, beside)
    if beside is not None:
        st.caption(
            "Dashed: the same metrics of the fronts the trainer logged at its own evaluations "
            "(its episodes, not this sweep's)."
        )
    with st.expander("Metrics per step"):
        st.dataframe(data.metrics, hide_index=True, width="stretch")
        discount = "undiscounted returns" if data.gamma == 1.0 else f"γ = {data.gamma:g}"
        st.caption(
            f"At {discount}; hypervolume above the reference point {ctx.reference_point} (the "
            "sidebar's metric conventions); expected utility over each step's preferences."
        )
    with guard("export"):
        export_evolution(spec, asset, data, axes, ctx.reference_point)
    show_video(ctx, asset, step, playing, runs.training_run(asset).steps)


ctx = sidebar.context()
st.title("Training")
st.caption(
    "Watch a front grow over a training run: scrub or play through its steps, compare the "
    "front with the earlier ones and the metrics over the run, and watch the agent of any step."
)
show_run_problems(ctx)  # also when nothing else is there: the user sees why the run is missing
if sidebar.need(ctx):
    assert ctx.agent is not None
    if not ctx.agent.is_run:
        url_state.set_url(step=None)
        explain_not_a_run(ctx, ctx.agent)
    else:
        with guard(f"run {ctx.agent.name}"):
            training_page(ctx, ctx.agent)
