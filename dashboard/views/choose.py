"""Choose (`/choose`): find the policy a person prefers by showing them pairs of rollouts.

Each question plays two policies of the agent's front side by side on the same seed; the
viewer answers A, B, "about the same" or "can't tell", and the elicitation
(`paretoscope.decision.elicitation`) updates its posterior over their utility weights, asks
the most informative pair next and recommends the policy of highest expected utility, until
its probability of being the best reaches the level the viewer set. The answers live in the
link (``ans``), so a copied link resumes the session; the next pairs' recordings are made
while the viewer watches; the decision record downloads as JSON and Markdown.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Sequence
from typing import Any

import streamlit as st

from paretoscope.agents.loaded import LoadedAgent
from paretoscope.dashboard import choosing, loaders, sidebar, trace, url_state
from paretoscope.dashboard import preferences as prefs
from paretoscope.dashboard.jobs import Job
from paretoscope.dashboard.limits import prerender_enabled
from paretoscope.dashboard.live import (
    live_places,
    move_waits,
    recording_started,
    rerun_view,
    show_recording_live,
    stop_if_asked,
)
from paretoscope.dashboard.messages import describe, guard, inert, literal
from paretoscope.dashboard.posterior_svg import segment_svg
from paretoscope.dashboard.prerender import shared_prerenderer
from paretoscope.dashboard.widgets import charts
from paretoscope.dashboard.widgets.front_chart import front_chart
from paretoscope.dashboard.widgets.pair_video import pair_video
from paretoscope.decision.elicitation import (
    Answer,
    Elicitation,
    Question,
    decode_answers,
    encode_answers,
)
from paretoscope.decision.record import DecisionContext
from paretoscope.errors import ParetoscopeError
from paretoscope.figures.front import FrontSeries, Marker, front_figure
from paretoscope.figures.posterior import posterior_figure, segment_mass
from paretoscope.figures.style import titled_by_meaning
from paretoscope.recordings import EpisodeRequest, RecordingLibrary

ANSWER_LABELS = {"A": "A", "B": "B", "same": "About the same", "skip": "Can't tell"}
# Seconds between a pair's looks for a viewer's move while its episodes are recorded.
MOVE_POLL = 0.1


def _answer(front_key: tuple, question: Question, choice: str) -> None:
    """A button's answer to `question`, with how long the viewer took (from its first showing)."""
    asked = st.session_state.get("_choose_asked")
    seconds = None
    if asked is not None and asked[0] == (front_key, question):
        seconds = round(time.monotonic() - asked[1], 2)
    answers = tuple(st.session_state.get("choose_answers", ()))
    if any(item.question.pair == question.pair for item in answers):
        return  # a second click on a question already answered
    choosing.set_answers((*answers, Answer(question, choice, seconds)))  # type: ignore[arg-type]


def _undo(index: int) -> None:
    answers = list(st.session_state.get("choose_answers", ()))
    del answers[index]
    choosing.set_answers(answers)


def _change(index: int, key: str) -> None:
    answers = list(st.session_state.get("choose_answers", ()))
    old = answers[index]
    answers[index] = Answer(old.question, st.session_state[key], old.seconds)
    choosing.set_answers(answers)


def _from_link(front: choosing.ChooseFront) -> None:
    """Once per session: the link's answers (``ans``) and level (``pbest``)."""
    if st.session_state.get("_choose_link_read"):
        return
    st.session_state["_choose_link_read"] = True
    level = url_state.url_value_as(
        "pbest", _parse_level, "expected a probability from 0.5 to 0.999"
    )
    if level is not None:
        st.session_state["choose_level"] = level
    asked = url_state.url_value("ans")
    if asked:
        try:
            answers = decode_answers(asked)
            Elicitation.replay(front.returns, answers, choosing.SETTINGS)  # they must fit
        except ParetoscopeError as error:
            url_state.note_ignored("ans", asked, inert(str(error)))
        else:
            choosing.set_answers(answers)


def _parse_level(text: str | None) -> float | None:
    try:
        value = float(text) if text else None
    except ValueError:
        return None
    return value if value is not None and 0.5 <= value <= 0.999 else None


def _policy_text(front: choosing.ChooseFront, names: Sequence[str], row: int) -> str:
    preference = describe(names, front.preferences[row], 2)
    target = f", target {describe(names, front.targets[row])}" if front.explicit[row] else ""
    return f"preference {preference}{target}: mean return {describe(names, front.returns[row])}"


def _request(
    ctx: sidebar.Context, loaded: LoadedAgent, front: choosing.ChooseFront, row: int
) -> EpisodeRequest:
    target = front.targets[row] if front.explicit[row] else None
    return ctx.episode_request(loaded, front.preferences[row], target)


def _prepare(
    ctx: sidebar.Context,
    loaded: LoadedAgent,
    front: choosing.ChooseFront,
    state: Elicitation,
    question: Question,
) -> None:
    """Have the pre-renderer record the episodes of the pairs asked after each answer (the
    likelier first) while the viewer watches this pair, so that they play at once. Which pairs
    those are is worked out there too, once the page is drawn: this run's pair loads meanwhile.
    They are drawn without anti-aliasing: the viewer may answer after one look at the pair,
    and four episodes (the pairs after A and after B) must be ready by then; anti-aliased,
    one takes 2.6 times as long to draw in software GL, and edges do not change a behaviour."""
    rows = state.front.rows

    def next_pairs() -> list[EpisodeRequest]:
        requests = [
            _request(ctx, loaded, front, int(rows[position]))
            for following in choosing.likely_next(state, question)
            for position in (following.a, following.b)
        ]
        return list({request.key(): request for request in requests}.values())

    shared_prerenderer().offer_later(ctx.library, next_pairs, loaded, smooth=False)


def _follow_pair(jobs: Sequence[Job | None], places: Sequence[object]) -> None:
    """Wait for both recordings (their frames painted in `places` by the server's feed, or
    drawn here without it), then rerun so that the finished pair plays in step. Nothing to
    wait for (both stored, one without a video): nothing to do."""
    if all(job is None for job in jobs):
        return
    seen = [0] * len(jobs)
    while True:
        for index, job in enumerate(jobs):
            if job is None:
                continue
            state = job.wait(seen[index], None, timeout=MOVE_POLL / len(jobs))
            place = places[index]
            if state.frames != seen[index] and state.latest is not None:
                seen[index] = state.frames
                image = state.latest.image
                if getattr(place, "feed", None) is None and image is not None:
                    place.picture.image(image, output_format="JPEG", width="stretch")  # type: ignore[attr-defined]
            if state.done and state.error is not None:
                raise state.error
        stop_if_asked()
        if move_waits():
            return
        if all(job is None or job.wait(0, None, 0).done for job in jobs):
            break
    rerun_view()


def _recorded_pair(
    library: RecordingLibrary, requests: Sequence[EpisodeRequest], labels: Sequence[str], where: Any
) -> bool:
    """Play both episodes in step in `where` if both are recorded with a video (True)."""
    recordings = [library.get(request.key()) for request in requests]
    videos = [recording.video for recording in recordings if recording is not None]
    if len(videos) < len(requests) or not all(videos):
        return False
    with where:
        pair_video(videos, labels, "choose_pair")
    trace.mark("pair sent")
    return True


def _show_pair(
    ctx: sidebar.Context,
    loaded: LoadedAgent,
    names: Sequence[str],
    requests: Sequence[EpisodeRequest],
    labels: Sequence[str],
    where: object,
) -> None:
    """The two episodes side by side, streamed live until both are recorded (then the page
    reruns and `_recorded_pair` plays them in step)."""
    columns = where.columns(2)  # type: ignore[attr-defined]
    with contextlib.ExitStack() as stack:
        jobs = [
            stack.enter_context(recording_started(ctx.library, request, [loaded]))
            for request in requests
        ]
        places = []
        for column, job, request, label in zip(columns, jobs, requests, labels, strict=True):
            column.markdown(f"**{label}**")
            places.append(
                stack.enter_context(live_places(column, job, request.horizon, f"{label}.mp4"))
            )
        for column, job, request, label in zip(columns, jobs, requests, labels, strict=True):
            if job is None:  # recorded (without a video: the page says why)
                with column:
                    show_recording_live(
                        ctx.library,
                        request,
                        [loaded],
                        names,
                        request.horizon,
                        f"{label}.mp4",
                        widget_key=f"choose_{label[-1]}",
                        chart=False,
                    )
        _follow_pair(jobs, places)


def choose_page() -> None:
    ctx = sidebar.context()
    if not sidebar.need(ctx):
        return
    spec, env_id, asset = ctx.spec, ctx.env_id, ctx.agent
    assert spec is not None and env_id is not None and asset is not None  # sidebar.need said so
    loaded = None
    with guard(f"agent {asset.name}"):
        loaded = loaders.fitting_agent(asset, env_id)
    if loaded is None:
        return
    names = list(spec.objective_names)
    points = loaders.sweep_points(asset, ctx.catalog, gamma=ctx.gamma).front
    front = choosing.ChooseFront.of(env_id, asset.name, ctx.gamma, points)
    choosing.current_answers(front)  # none when the front changed
    _from_link(front)
    answers = choosing.current_answers(front)
    if len(front.returns) == 0:
        st.info("The sweep has no episodes.")
        return
    state = choosing.state_of(front, answers)
    if len(state.front) < 2:
        st.info(
            f"{inert(asset.label)}'s front has a single policy: there is nothing to choose "
            "between. Choose another agent in the sidebar."
        )
        return

    st.session_state.setdefault("choose_level", choosing.DEFAULT_LEVEL)
    level = st.number_input(
        "Done when the recommendation's probability of being the best reaches",
        min_value=0.5,
        max_value=0.999,
        step=0.05,
        format="%.3g",
        key="choose_level",
    )
    url_state.set_url(
        ans=encode_answers(answers) or None,
        pbest=None if level == choosing.DEFAULT_LEVEL else f"{level:g}",
    )
    recommended = int(state.front.rows[state.recommendation])
    chance = state.probability_best
    status = st.columns(3)
    status[0].metric("Questions answered", len(answers))
    status[1].metric("Recommended policy", prefs.format_vector(front.preferences[recommended], 2))
    status[2].metric("Probability it is the best", f"{chance:.2f}")

    question = choosing.next_question(state)
    done = chance >= level or question is None
    requests: list[EpisodeRequest] = []
    labels: list[str] = []
    shown = False
    if done:
        why = (
            f"its probability of being the best, {chance:.2f}, reached {level:g}"
            if chance >= level
            else "every pair has been asked"
        )
        st.success(
            f"Done: the recommended policy is {literal(_policy_text(front, names, recommended))} "
            f"({why}). Raise the level, or undo or change an answer below, to go on.",
            icon=":material/check_circle:",
        )
        video_area = st.container()
        video_area.markdown("**The recommended policy**")
        requests = [_request(ctx, loaded, front, recommended)]
    else:
        assert question is not None
        rows = state.front.rows
        row_a, row_b = int(rows[question.a]), int(rows[question.b])
        if st.session_state.get("_choose_asked", (None,))[0] != (front.key, question):
            st.session_state["_choose_asked"] = ((front.key, question), time.monotonic())
        video_area = st.container()
        video_area.markdown(
            f"**Question {len(answers) + 1}: which behaviour would you rather have, A (left) or "
            f"B (right)?** Both run the same episode (seed {ctx.seed}), in step."
        )
        st.markdown(
            f"- **A**: {literal(_policy_text(front, names, row_a))}\n"
            f"- **B**: {literal(_policy_text(front, names, row_b))}"
        )
        buttons = st.columns(4)
        for column, (choice, label) in zip(buttons, ANSWER_LABELS.items(), strict=True):
            column.button(
                label,
                key=f"choose_answer_{choice}",
                on_click=_answer,
                args=(front.key, question, choice),
                width="stretch",
                type="primary" if choice in ("A", "B") else "secondary",
            )
        requests = [_request(ctx, loaded, front, row) for row in (row_a, row_b)]
        labels = ["Policy A", "Policy B"]
        # Recorded (prepared while the viewer watched the last pair): sent to the browser now,
        # before the rest of the page is drawn.
        shown = _recorded_pair(ctx.library, requests, labels, video_area)
    st.caption(
        "What the objectives mean (each a return summed over the episode, higher is better): "
        + "; ".join(literal(objective.meaning) for objective in spec.objectives)
        + "\\."
    )

    # --- the posterior and the recommendation on the front ----------------------------------
    posterior_column, front_column = st.columns(2)
    summary = state.summary()
    with posterior_column, guard("posterior"):
        st.markdown("**What your answers say about your weights**")
        if len(names) == 2:  # a picture: a Plotly redraw would hold the browser (module doc)
            mass = segment_mass(state.weights, state.probabilities)
            picture = segment_svg(names, mass, summary.mean[0], summary.low[0], summary.high[0])
            st.image(picture, width="stretch")
        else:
            st.plotly_chart(
                posterior_figure(
                    names,
                    state.weights,
                    state.probabilities,
                    summary.mean,
                    summary.low,
                    summary.high,
                ),
                key="choose_posterior",
                width="stretch",
            )
        st.caption(
            f"Posterior of the weights you seem to give the objectives, each on the front's "
            f"own range (0: its worst, 1: its best); mean {describe(names, summary.mean, 2)}, "
            f"{summary.credible:.0%} credible intervals "
            + ", ".join(
                f"{name} {low:.2f}–{high:.2f}"
                for name, low, high in zip(names, summary.low, summary.high, strict=True)
            )
            + "."
        )
    with front_column, guard("front"):
        axes = charts.axis_pickers(spec, "choose_axes") if spec.n_obj > 3 else None
        figure = front_figure(
            names,
            [
                FrontSeries(
                    asset.label,
                    front.returns,
                    front.preferences,
                    front.targets,
                    front.seeds,
                    env_id=env_id,
                )
            ],
            current=Marker(front.returns[recommended], f"recommended (P best {chance:.2f})"),
            axes=axes,
            height=380,
        )
        titled_by_meaning(figure, spec)
        front_chart(figure, key="choose_front")

    # --- the answers so far -----------------------------------------------------------------
    st.subheader("Your answers")
    if not answers:
        st.caption("None yet.")
    for index, item in enumerate(answers):
        # Keyed by the answer itself, not the whole history: at each answer the browser then
        # draws the new row only (keys made from the history redrew every row's widgets, an
        # answer's time growing with their number).
        answer_key = f"{index}_{item.question.a}_{item.question.b}_{item.choice}"
        text, change, remove = st.columns([4, 2, 1], vertical_alignment="center")
        rows = state.front.rows
        text.markdown(
            f"{index + 1}. A: preference "
            f"{prefs.format_vector(front.preferences[int(rows[item.question.a])], 2)} vs B: "
            f"{prefs.format_vector(front.preferences[int(rows[item.question.b])], 2)}"
            + ("" if item.seconds is None else f" ({item.seconds:.1f} s)")
        )
        key = f"choose_change_{answer_key}"
        change.selectbox(
            "answer",
            list(ANSWER_LABELS),
            index=list(ANSWER_LABELS).index(item.choice),
            format_func=ANSWER_LABELS.__getitem__,
            key=key,
            on_change=_change,
            args=(index, key),
            label_visibility="collapsed",
        )
        remove.button(
            "Undo",
            key=f"choose_undo_{answer_key}",
            on_click=_undo,
            args=(index,),
            help="Remove this answer (the others stay)",
        )

    # --- the decision record ----------------------------------------------------------------
    with guard("decision record"):
        table = loaders.sweep_table(asset, ctx.catalog, gamma=ctx.gamma)
        episode = choosing.stored_episode(
            table, spec, front, recommended, ctx.seed, str(asset.path)
        )
        context = DecisionContext(
            env=env_id,
            agent=asset.name,
            agent_fingerprint=loaded.fingerprint,
            gamma=ctx.gamma,
            objectives=names,
            preferences=front.preferences,
        )
        as_json, as_markdown = choosing.record_files(state, context, episode, float(level))
        record_columns = st.columns(2)
        record_columns[0].download_button(
            "Decision record (JSON)",
            as_json,
            file_name=f"decision-{asset.name}.json",
            mime="application/json",
            key="choose_record_json",
            on_click="ignore",
        )
        record_columns[1].download_button(
            "Decision record (Markdown)",
            as_markdown,
            file_name=f"decision-{asset.name}.md",
            mime="text/markdown",
            key="choose_record_markdown",
            on_click="ignore",
        )

    if not done and prerender_enabled():
        assert question is not None
        with guard("preparing the next pairs"):
            _prepare(ctx, loaded, front, state, question)

    # --- the rollouts (last: recording them live holds this run) -----------------------------
    with guard("rollouts"):
        if done:
            with video_area:
                show_recording_live(
                    ctx.library,
                    requests[0],
                    [loaded],
                    names,
                    requests[0].horizon,
                    f"{asset.name}-{prefs.format_vector(requests[0].preference, 3)}.mp4",
                    widget_key="choose_recommended",
                    chart=False,
                )
        elif not shown:
            _show_pair(ctx, loaded, names, requests, labels, video_area)


st.title("Choose")
st.caption(
    "Not sure what weights you would give the objectives? Watch two behaviours of the agent and "
    "say which you would rather have: after a handful of answers the page recommends the policy "
    "you most likely prefer. The link keeps your answers: copy it to resume."
)
choose_page()
