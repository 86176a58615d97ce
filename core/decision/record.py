"""A decision record: what was asked, what was answered, and what it led to, as JSON and Markdown.

`decision_record` turns a finished elicitation (`paretoscope.decision.elicitation`) and what it
was about (env, agent, the table of preferences and returns) into a JSON-friendly dict: the
front, every question with both policies, the answer, its timing and the posterior after it,
the recommendation with its preference, mean returns and the command that replays one of its
stored episodes. `record_markdown` writes the same for people. The answers are also kept as the
short text `encode_answers` writes: `decode_answers` + `Elicitation.replay` rebuild the session.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np

from paretoscope.decision.elicitation import Elicitation, encode_answers

FORMAT = "paretoscope-decision"
VERSION = 1


@dataclass(frozen=True)
class DecisionContext:
    """What the front is of: one agent's sweep on one env, and the table rows it came from."""

    env: str
    agent: str
    agent_fingerprint: str
    gamma: float
    objectives: Sequence[str]
    preferences: np.ndarray  # (N, k), the rows the elicitation's returns came from


@dataclass(frozen=True)
class ReplayEpisode:
    """One stored episode of the recommended policy, and how to play it again."""

    seed: int
    horizon: int
    returns: Sequence[float]  # as stored (discounted when gamma < 1)
    target: Sequence[float] | None  # given explicitly when the sweep gave one
    agent_path: str

    def command(self, env: str, preference: Sequence[float]) -> str:
        """The `paretoscope render` command that rolls this episode out again."""
        words = [
            "paretoscope",
            "render",
            self.agent_path,
            "--env",
            env,
            "--preference",
            ",".join(f"{value:.12g}" for value in preference),
        ]
        if self.target is not None:
            words.append("--target=" + ",".join(f"{value:.12g}" for value in self.target))
        words += ["--seed", str(self.seed), "--horizon", str(self.horizon)]
        return shlex.join(words)


def _posterior(state: Elicitation) -> dict[str, Any]:
    summary = state.summary()
    return {
        "recommendation": state.recommendation,
        "probability_best": state.probability_best,
        "mean_weights": summary.mean.tolist(),
        "weights_low": summary.low.tolist(),
        "weights_high": summary.high.tolist(),
        "credible": summary.credible,
        "noise_mean": summary.noise_mean,
        "effective_sample_size": summary.effective_sample_size,
    }


def _point(state: Elicitation, context: DecisionContext, position: int) -> dict[str, Any]:
    row = int(state.front.rows[position])
    return {
        "position": position,
        "row": row,
        "preference": np.asarray(context.preferences[row], dtype=np.float64).tolist(),
        "returns": state.front.returns[position].tolist(),
    }


def decision_record(
    state: Elicitation,
    context: DecisionContext,
    episode: ReplayEpisode | None = None,
    strategy: str | None = None,
) -> dict[str, Any]:
    """The record of the session `state` ends (its answers replayed to give each step)."""
    steps = state.history()
    questions = []
    for number, (item, after) in enumerate(zip(state.answers, steps[1:], strict=True), 1):
        questions.append(
            {
                "step": number,
                "a": _point(state, context, item.question.a),
                "b": _point(state, context, item.question.b),
                "answer": item.choice,
                "seconds": item.seconds,
                "posterior": _posterior(after),
            }
        )
    recommendation = _point(state, context, state.recommendation)
    recommendation["expected_utility"] = float(state.expected_utilities()[state.recommendation])
    if episode is not None:
        recommendation["episode"] = {
            **{key: value for key, value in asdict(episode).items() if key != "returns"},
            "returns": list(map(float, episode.returns)),
            "command": episode.command(context.env, recommendation["preference"]),
        }
    return {
        "format": FORMAT,
        "version": VERSION,
        "env": context.env,
        "agent": context.agent,
        "agent_fingerprint": context.agent_fingerprint,
        "gamma": context.gamma,
        "objectives": list(context.objectives),
        "model": {**asdict(state.settings), "strategy": strategy},
        "front": [_point(state, context, position) for position in range(len(state.front))],
        "prior": _posterior(steps[0]),
        "questions": questions,
        "answers": encode_answers(state.answers),
        "recommendation": recommendation,
        "probability_best": state.probability_best,
    }


def _numbers(values: Sequence[float], digits: int = 4) -> str:
    return ", ".join(f"{value:.{digits}g}" for value in values)


def record_markdown(record: dict[str, Any]) -> str:
    """The record `decision_record` made, for people."""
    names = record["objectives"]
    model = record["model"]
    noise = "estimated" if model["noise"] is None else f"{model['noise']:g}"
    lines = [
        f"# Decision record: {record['agent']} on {record['env']}",
        "",
        f"- agent fingerprint: `{record['agent_fingerprint']}`; gamma {record['gamma']:g}",
        f"- objectives: {', '.join(names)}",
        f"- model: {model['utility']} utility on the front-normalised objectives, "
        f"{model['likelihood']} choices, noise {noise}, {model['particles']} particles, "
        f"seed {model['seed']}" + (f", strategy {model['strategy']}" if model["strategy"] else ""),
        f"- front: {len(record['front'])} policies; answers (replayable): "
        f"`{record['answers'] or '(none)'}`",
        "",
        "## Questions",
        "",
        "| # | A: preference (returns) | B: preference (returns) | answer | seconds "
        "| best after (preference) | P(best) | mean weights |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for item in record["questions"]:
        posterior = item["posterior"]
        seconds = "" if item["seconds"] is None else f"{item['seconds']:.2f}"
        lines.append(
            f"| {item['step']} | {_numbers(item['a']['preference'], 3)} "
            f"({_numbers(item['a']['returns'])}) | {_numbers(item['b']['preference'], 3)} "
            f"({_numbers(item['b']['returns'])}) | {item['answer']} | {seconds} "
            f"| {_numbers(record['front'][posterior['recommendation']]['preference'], 3)} "
            f"| {posterior['probability_best']:.3f} "
            f"| {_numbers(posterior['mean_weights'], 3)} |"
        )
    pick = record["recommendation"]
    lines += [
        "",
        "## Recommendation",
        "",
        f"- policy at preference {_numbers(pick['preference'], 4)} (front position "
        f"{pick['position']}), probability best {record['probability_best']:.3f}",
        "- mean returns: "
        + ", ".join(f"{n} {v:.6g}" for n, v in zip(names, pick["returns"], strict=True)),
    ]
    episode = pick.get("episode")
    if episode is not None:
        lines += [
            f"- stored episode (seed {episode['seed']}, {episode['horizon']} steps): "
            + ", ".join(f"{n} {v:.6g}" for n, v in zip(names, episode["returns"], strict=True)),
            f"- replay: `{episode['command']}`",
        ]
    return "\n".join(lines) + "\n"
