"""Where a report's numbers come from: each agent's fingerprints, seeds and the command that
sweeps it again, the versions of paretoscope and the libraries that computed them, the date."""

from __future__ import annotations

import datetime
import platform
import shlex
from importlib import metadata

import numpy as np

from paretoscope.metrics import preference_grid
from paretoscope.report.content import Findings

# The libraries whose versions decide a report's numbers and pictures.
LIBRARIES = (
    "paretoscope",
    "numpy",
    "pandas",
    "torch",
    "mujoco",
    "gymnasium",
    "mo-gymnasium",
    "moocore",
    "plotly",
    "imageio-ffmpeg",
)
# The finest preference grid recognised when the command is written back (`evaluate`'s 1/G).
MAX_GRANULARITY = 1000


def versions() -> dict[str, str]:
    """Python's and each of `LIBRARIES`' installed version ("not installed" when missing)."""
    found = {"python": platform.python_version()}
    for name in LIBRARIES:
        try:
            found[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            found[name] = "not installed"
    return found


def now_text() -> str:
    """The date and time in UTC, to the second (ISO 8601)."""
    return datetime.datetime.now(datetime.timezone.utc).replace(microsecond=0).isoformat()


def granularity(preferences: np.ndarray) -> int | None:
    """The smallest G such that every weight is a multiple of 1/G (the grid `paretoscope
    evaluate --granularity G` sweeps), or None when there is none up to `MAX_GRANULARITY`."""
    weights = np.asarray(preferences, dtype=np.float64).reshape(-1)
    for grid in range(1, MAX_GRANULARITY + 1):
        scaled = weights * grid
        if np.allclose(scaled, np.round(scaled), rtol=0.0, atol=1e-6):
            return grid
    return None


def sweep_command(findings: Findings, env_id: str, results_dir: str | None) -> str:
    """The `paretoscope evaluate` command that sweeps the agent again (and, with the same
    results folder, reads its stored episodes back); a note where the sweep's preferences or
    seeds are no grid and range `evaluate` can name."""
    agent = findings.agent
    record = findings.record
    words = ["paretoscope", "evaluate", agent.location or agent.name, "--env", env_id]
    grid = granularity(findings.front["preferences"])
    seeds = findings.seeds
    notes = []
    n_obj = findings.front["preferences"].shape[1]
    if grid is not None and len(preference_grid(n_obj, grid)) == record["preferences"]:
        words += ["--granularity", str(grid)]
    else:
        notes.append(f"{record['preferences']} preferences that are no full grid")
    if seeds == list(range(seeds[0], seeds[0] + len(seeds))):
        words += ["--seed", str(seeds[0]), "--episodes", str(len(seeds))]
    else:
        notes.append(f"seeds {', '.join(map(str, seeds))}")
    if findings.horizon is not None:
        words += ["--horizon", str(findings.horizon)]
    if record["gamma"] != 1.0:
        words += ["--gamma", f"{record['gamma']:g}"]
    if results_dir is not None:
        words += ["--out", results_dir]
    command = shlex.join(words)
    return command if not notes else f"{command}  # not exactly: {'; '.join(notes)}"
