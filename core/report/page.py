"""The report as one HTML page: the env in words, the fronts (plotly, its script inlined once),
the metrics table, the known front, RTG panels, episode videos and provenance, with every
number a machine may want in one JSON block (`DATA_ID`)."""

from __future__ import annotations

import base64
import html
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import plotly.graph_objects as go
import plotly.io

from paretoscope.envs import EnvSpec
from paretoscope.figures.front import FrontSeries, front_figure
from paretoscope.figures.rtg import rtg_ratio_figure, rtg_target_figure
from paretoscope.figures.style import titled_by_meaning
from paretoscope.report.content import Findings
from paretoscope.report.episodes import EpisodeVideo
from paretoscope.text import number, numbers

# The id of the JSON block that holds the report's numbers for machines.
DATA_ID = "paretoscope-report-data"
DATA_FORMAT = "paretoscope-report"
DATA_VERSION = 1
PLOT_CONFIG = {"displaylogo": False, "responsive": True}

STYLE = """
body { font-family: system-ui, sans-serif; max-width: 1100px; margin: 2em auto; padding: 0 1em;
       color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ddd; }
table { border-collapse: collapse; margin: 0.5em 0; font-size: 0.92em; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.6em; text-align: right; }
th:first-child, td:first-child { text-align: left; }
caption, .note { color: #555; font-size: 0.9em; caption-side: bottom; text-align: left; }
.videos { display: flex; flex-wrap: wrap; gap: 1em; }
figure.episode { margin: 0; width: 320px; } figure.episode video { width: 100%; }
code, pre { background: #f4f4f4; padding: 0.1em 0.3em; font-size: 0.88em; }
pre { padding: 0.6em; white-space: pre-wrap; word-break: break-all; }
"""


@dataclass(frozen=True)
class VideoLink:
    """Where a report's video lives: `src` is a data: URI (inline) or a path beside the page."""

    video: EpisodeVideo
    src: str


def inline_src(video: EpisodeVideo) -> str:
    return "data:video/mp4;base64," + base64.b64encode(video.mp4).decode("ascii")


def _text(value: object) -> str:
    return html.escape(str(value), quote=True)


def _plain(value: Any) -> Any:
    """JSON-ready: non-finite floats become None (JSON has no NaN), arrays lists."""
    if isinstance(value, Mapping):
        return {str(key): _plain(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain(item) for item in value]
    if hasattr(value, "tolist"):
        return _plain(value.tolist())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


def _figure_html(figure: go.Figure, div_id: str) -> str:
    return plotly.io.to_html(
        figure, full_html=False, include_plotlyjs=False, div_id=div_id, config=PLOT_CONFIG
    )


def _env_section(spec: EnvSpec, gamma: float) -> str:
    rows = "".join(
        f"<tr><td>{_text(objective.name)}</td><td>{_text(objective.unit or '—')}</td>"
        f"<td>{_text(objective.description or '—')}</td><td>higher is better</td></tr>"
        for objective in spec.objectives
    )
    discount = (
        "undiscounted returns"
        if gamma == 1.0
        else f"returns discounted by γ = {gamma:g} (the reward of step t counts γ^t)"
    )
    source = f" ({_text(spec.reference_point_source)})" if spec.reference_point_source else ""
    description = f"<p>{_text(spec.description)}</p>" if spec.description else ""
    return (
        f'<section id="env"><h2>The environment: {_text(spec.id)}</h2>{description}'
        f"<table><thead><tr><th>objective</th><th>unit</th><th>what its reward is</th>"
        f"<th>direction</th></tr></thead><tbody>{rows}</tbody></table>"
        f'<p class="note">Each objective is a return summed over an episode of at most '
        f"{spec.horizon} steps ({_text(discount)}). Hypervolume is measured above the reference "
        f"point ({_text(numbers(spec.reference_point))}){source}.</p></section>"
    )


def _front_section(spec: EnvSpec, findings: Sequence[Findings]) -> str:
    known = next((item.against.front for item in findings if item.against is not None), None)
    series = [
        FrontSeries(
            item.agent.title,
            item.front["returns"],
            item.front["preferences"],
            item.front["targets"],
            item.front["seeds"],
            regret=None if item.against is None else item.against.regret,
            env_id=spec.id,
        )
        for item in findings
    ]
    figure = front_figure(
        spec.objective_names,
        series,
        reference_point=spec.reference_point,
        known_front=known,
    )
    titled_by_meaning(figure, spec)
    return (
        '<section id="fronts"><h2>Fronts</h2>'
        + _figure_html(figure, "front")
        + '<p class="note">One point per preference: the mean return over its episodes; '
        "non-dominated points filled, dominated ones hollow. Hover a point for its preference, "
        "target and seed; drag to zoom, double-click to reset.</p></section>"
    )


def _interval_text(findings: Findings, metric: str) -> str:
    if findings.intervals is None:
        return "—"
    interval = findings.intervals[metric]
    return f"[{number(interval.low)}, {number(interval.high)}]"


def _metrics_section(findings: Sequence[Findings]) -> str:
    known = any("known_front" in item.record for item in findings)
    rtg = any("rtg_weighted_error" in item.record for item in findings)
    header = [
        "agent",
        "episodes",
        "seeds",
        "hypervolume",
        "95% CI",
        "expected utility",
        "95% CI",
        "sparsity",
        "non-dominated",
        "diverged",
    ]
    if known:
        header += ["IGD", "IGD+", "max utility loss", "mean regret"]
    if rtg:
        header += ["RTG weighted error", "RTG ratio error"]
    rows = []
    for item in findings:
        record = item.record
        cells = [
            _text(item.agent.title),
            str(record["episodes"]),
            _text(", ".join(map(str, record["seeds"]))),
            f'<span data-hypervolume="{record["hypervolume"]!r}">'
            f"{number(record['hypervolume'])}</span>",
            _interval_text(item, "hypervolume"),
            number(record["expected_utility"]),
            _interval_text(item, "expected utility"),
            number(record["sparsity"]),
            str(record["cardinality"]),
            str(record["diverged_episodes"]),
        ]
        if known:
            against = record.get("known_front", {})
            cells += [
                number(against.get(key))
                for key in ("igd", "igd_plus", "maximum_utility_loss", "mean_regret")
            ]
        if rtg:
            cells += [
                number(record.get("rtg_weighted_error")),
                number(record.get("rtg_ratio_error")),
            ]
        rows.append("<tr>" + "".join(f"<td>{cell}</td>" for cell in cells) + "</tr>")
    head = "".join(f"<th>{_text(name)}</th>" for name in header)
    lower = (
        " IGD, IGD+, maximum utility loss and mean regret against the known front: lower is better."
        if known
        else ""
    )
    return (
        '<section id="metrics"><h2>Metrics</h2><table id="metrics-table">'
        f"<thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody>"
        "<caption>Hypervolume above the reference point and expected utility over each agent's "
        "sweep preferences, of the mean front. 95% CI: bootstrapped intervals across seeds "
        "(1000 resamples of the seeds, random seed 0; — for an agent swept with one seed), as "
        "on the dashboard's Compare page. Sparsity: lower is denser. RTG errors: mean "
        "|p·target − p·return| and |p − return ratio| (return-conditioned agents)."
        f"{lower}</caption></table></section>"
    )


def _known_section(findings: Sequence[Findings]) -> str:
    known = next((item.against.front for item in findings if item.against is not None), None)
    if known is None:
        return ""
    kind = "exact" if known.exact else "approximate: an agent can beat it, a regret can be < 0"
    return (
        '<section id="known-front"><h2>The known front</h2>'
        f"<p>{len(known.points)} points ({_text(kind)}; γ = {known.gamma:g}): "
        f"{_text(known.source)}. It is drawn on the fronts above; the metrics table measures "
        "each agent against it (IGD, IGD+, maximum utility loss, mean regret).</p></section>"
    )


def _rtg_section(spec: EnvSpec, findings: Sequence[Findings]) -> str:
    parts = []
    for index, item in enumerate(findings):
        if item.rtg is None:
            continue
        front = item.front
        names = spec.objective_names
        target = rtg_target_figure(names, front["targets"], front["preferences"], front["returns"])
        ratio = rtg_ratio_figure(names, front["preferences"], item.rtg.return_ratio)
        parts.append(
            f"<h3>{_text(item.agent.title)}</h3>"
            + _figure_html(target, f"rtg-target-{index}")
            + _figure_html(ratio, f"rtg-ratio-{index}")
        )
    if not parts:
        return ""
    return (
        '<section id="rtg"><h2>RTG following (return-conditioned agents)</h2>'
        '<p class="note">Per objective: the weighted return asked for (p·target) against the '
        "one achieved, and the preference against the achieved return ratio; on the dashed "
        "line the agent does what it was asked.</p>" + "".join(parts) + "</section>"
    )


def _episodes_section(spec: EnvSpec, links: Sequence[VideoLink], note: str) -> str:
    if not links and not note:
        return ""
    figures = []
    for link in links:
        video = link.video
        choice = video.choice
        target = "" if choice.target is None else f", target {numbers(choice.target)}"
        returns = ", ".join(
            f"{name} {number(value)}"
            for name, value in zip(spec.objective_names, video.returns, strict=True)
        )
        figures.append(
            '<figure class="episode">'
            f'<video controls muted loop playsinline preload="auto" src="{_text(link.src)}">'
            "</video><figcaption>"
            f"<b>{_text(choice.findings.agent.title)}</b>, {_text(choice.role)}: preference "
            f"{_text(numbers(choice.preference))}{_text(target)}, seed {choice.seed}; "
            f"{video.steps} steps, return {_text(returns)} (undiscounted); "
            f"{_text(video.speed_text)}.</figcaption></figure>"
        )
    text = f'<p class="note">{_text(note)}</p>' if note else ""
    return (
        '<section id="episodes"><h2>Episodes</h2>'
        '<p class="note">Each agent\'s episodes at the ends of its front and at its knee, '
        "rolled out again with the sweep's seed.</p>"
        f'{text}<div class="videos">{"".join(figures)}</div></section>'
    )


def _provenance_section(provenance: Mapping[str, Any]) -> str:
    agents = "".join(
        f"<tr><td>{_text(entry['agent'])}</td><td><code>{_text(', '.join(entry['fingerprints']))}"
        f"</code></td><td>{_text(', '.join(map(str, entry['seeds'])))}</td>"
        f"<td><code>{_text(entry['command'])}</code></td></tr>"
        for entry in provenance["agents"]
    )
    libraries = ", ".join(f"{name} {version}" for name, version in provenance["versions"].items())
    command = provenance.get("report_command")
    again = f"<p>This report: <code>{_text(command)}</code></p>" if command else ""
    return (
        '<section id="provenance"><h2>Provenance</h2>'
        "<table><thead><tr><th>agent</th><th>fingerprints</th><th>seeds</th>"
        f"<th>sweep command</th></tr></thead><tbody>{agents}</tbody></table>{again}"
        f"<p>Made {_text(provenance['date'])} with {_text(libraries)}.</p></section>"
    )


def report_html(
    spec: EnvSpec,
    findings: Sequence[Findings],
    links: Sequence[VideoLink],
    provenance: Mapping[str, Any],
    video_note: str = "",
) -> str:
    """The whole page: plotly's script once in the head, every figure drawn by it."""
    from plotly.offline import get_plotlyjs

    gamma = float(findings[0].record["gamma"])
    data = {
        "format": DATA_FORMAT,
        "version": DATA_VERSION,
        "env": spec.id,
        "gamma": gamma,
        "agents": [
            {
                "name": item.agent.name,
                "label": item.agent.title,
                "summary": item.record,
                "intervals": None
                if item.intervals is None
                else {
                    name: {
                        "estimate": value.estimate,
                        "low": value.low,
                        "high": value.high,
                        "level": value.level,
                        "resamples": value.resamples,
                    }
                    for name, value in item.intervals.items()
                },
            }
            for item in findings
        ],
        "videos": [
            {
                "agent": link.video.choice.findings.agent.name,
                "role": link.video.choice.role,
                "preference": link.video.choice.preference,
                "target": link.video.choice.target,
                "seed": link.video.choice.seed,
                "steps": link.video.steps,
                "returns": link.video.returns,
                "bytes": len(link.video.mp4),
                "inline": link.src.startswith("data:"),
            }
            for link in links
        ],
        "provenance": provenance,
    }
    machine = json.dumps(_plain(data), allow_nan=False).replace("</", "<\\/")
    names = ", ".join(item.agent.title for item in findings)
    body = "".join(
        [
            f"<h1>paretoscope report: {_text(spec.id)}</h1>",
            f'<p class="note">{_text(names)}; made {_text(provenance["date"])}. '
            "Everything on this page is in this one file: it opens offline.</p>",
            _env_section(spec, gamma),
            _front_section(spec, findings),
            _metrics_section(findings),
            _known_section(findings),
            _rtg_section(spec, findings),
            _episodes_section(spec, links, video_note),
            _provenance_section(provenance),
            f'<script type="application/json" id="{DATA_ID}">{machine}</script>',
        ]
    )
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>paretoscope report: {_text(spec.id)}</title><style>{STYLE}</style>"
        '<script type="text/javascript">window.PlotlyConfig = {MathJaxConfig: "local"};</script>'
        f'<script type="text/javascript">{get_plotlyjs()}</script>'
        f"</head><body>{body}</body></html>\n"
    )
