"""A self-contained report of agents on one env: one HTML file that opens offline in any
browser, for people who were not in the room.

It holds the env in words (objectives, units, directions), the agents' fronts as interactive
plotly figures (the dashboard's figure code, `paretoscope.figures`; plotly's script inlined
once), the metrics table with seed-bootstrap intervals (`paretoscope evaluate`'s summary), the
known front and the indicators against it where the env has one, RTG panels for
return-conditioned agents, a few episodes as MP4 videos (each agent's extremes and knee by
default; inline as data: URIs, or files in an assets folder beside it) and provenance
(fingerprints, the commands that sweep again, seeds, versions, date). Every number a machine
may want is in one JSON block (`page.DATA_ID`).

`write_report` writes it; `paretoscope report` and the dashboard's "Download report" buttons
call it. `store.agents_from_results` reads the agents of a results folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from paretoscope.atomic import write_bytes_atomically
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.mixing import one_env
from paretoscope.report.content import Findings, ReportAgent, measure
from paretoscope.report.episodes import (
    VIDEO_SIZE,
    EpisodeVideo,
    choose_episodes,
    record_episodes,
)
from paretoscope.report.page import DATA_ID, VideoLink, inline_src, report_html
from paretoscope.report.provenance import now_text, sweep_command, versions

__all__ = [
    "DATA_ID",
    "ReportAgent",
    "ReportFile",
    "build_report",
    "write_report",
]


@dataclass(frozen=True)
class ReportFile:
    """A written report: its path, its size in bytes and how many videos it shows."""

    path: Path
    size: int
    videos: int


def _check_gamma(findings: Sequence[Findings]) -> None:
    discounts = sorted({float(item.record["gamma"]) for item in findings})
    if len(discounts) > 1:
        raise ParetoscopeError(
            f"the agents' episodes are at several discounts {discounts}: a report compares "
            "one discount"
        )


def build_report(
    env_id: str,
    agents: Sequence[ReportAgent],
    *,
    videos: int | None = None,
    video_size: tuple[int, int] = VIDEO_SIZE,
    assets_dir: str | os.PathLike[str] | None = None,
    page_dir: str | os.PathLike[str] | None = None,
    results_dir: str | None = None,
    command: str | None = None,
    on_video: Callable[[int, int], None] | None = None,
) -> tuple[str, list[EpisodeVideo]]:
    """The report's page for `agents` on `env_id`, and the videos it shows.

    `videos` per agent: None for its extremes and knee, 0 for none (agents without a loaded
    `agent` have none). Videos are inline (data: URIs) unless `assets_dir` is given: then they
    are written there and linked relative to `page_dir` (the folder the page will be in).
    `results_dir` goes into each agent's sweep command, `command` is the one that made the
    report. `on_video(done, total)` is told after each video is recorded."""
    if not agents:
        raise ParetoscopeError("a report needs at least one agent with stored episodes")
    spec = get_spec(env_id)
    findings = [measure(agent, env_id) for agent in agents]
    one_env([(item.agent.title, str(item.record["env"])) for item in findings], "report")
    _check_gamma(findings)
    choices = [
        choice
        for item in findings
        for choice in choose_episodes(item, spec.objective_names, videos)
    ]
    recorded = record_episodes(env_id, choices, video_size, on_video)
    links = [VideoLink(video, inline_src(video)) for video in recorded]
    if assets_dir is not None:
        links = _written_beside(recorded, Path(assets_dir), Path(page_dir or "."))
    missing = sorted({item.agent.title for item in findings if item.agent.agent is None})
    note = (
        f"No videos of {', '.join(missing)}: no checkpoint was found for them."
        if missing and (videos is None or videos > 0)
        else ""
    )
    provenance = {
        "date": now_text(),
        "versions": versions(),
        "report_command": command,
        "agents": [
            {
                "agent": item.agent.name,
                "fingerprints": item.fingerprints,
                "seeds": item.seeds,
                "command": sweep_command(item, env_id, results_dir),
            }
            for item in findings
        ],
    }
    return report_html(spec, findings, links, provenance, note), recorded


def _written_beside(
    recorded: Sequence[EpisodeVideo], assets_dir: Path, page_dir: Path
) -> list[VideoLink]:
    """Each video written into `assets_dir`, linked by its path from `page_dir`."""
    assets_dir.mkdir(parents=True, exist_ok=True)
    links = []
    for index, video in enumerate(recorded):
        choice = video.choice
        name = f"{index:02d}-{_safe(choice.findings.agent.name)}-{_safe(choice.role)}.mp4"
        path = assets_dir / name
        write_bytes_atomically(path, video.mp4)
        relative = os.path.relpath(path.resolve(), page_dir.resolve())
        links.append(VideoLink(video, Path(relative).as_posix()))
    return links


def _safe(text: str) -> str:
    return "".join(char if char.isalnum() or char in "-_." else "-" for char in text)[:60]


def write_report(
    out: str | os.PathLike[str],
    env_id: str,
    agents: Sequence[ReportAgent],
    *,
    videos: int | None = None,
    assets_dir: str | os.PathLike[str] | None = None,
    results_dir: str | None = None,
    command: str | None = None,
    on_video: Callable[[int, int], None] | None = None,
) -> ReportFile:
    """`build_report` written to `out` (atomically), its videos linked from there."""
    path = Path(out)
    if path.suffix.lower() not in (".html", ".htm"):
        raise ParetoscopeError(f"--out: expected an .html file name, got {str(path)!r}")
    page, recorded = build_report(
        env_id,
        agents,
        videos=videos,
        assets_dir=assets_dir,
        page_dir=path.parent,
        results_dir=results_dir,
        command=command,
        on_video=on_video,
    )
    payload = page.encode("utf-8")
    path.parent.mkdir(parents=True, exist_ok=True)
    write_bytes_atomically(path, payload)
    return ReportFile(path, len(payload), len(recorded))
