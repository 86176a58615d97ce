"""Messages that would echo megabytes, and output folders that cannot be made (issue 50): a
user's value (a config's field, a dataset's header, a `--set` option, a run's settings) is
quoted cut to a length, a collection a user made is named by a few items and a count, and an
output folder that cannot be made is one message naming it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.bad_inputs.cli_arguments import _envelope
from tests.bad_inputs.cli_harness import CliCase

_ASSETS = Path(__file__).resolve().parents[2] / "assets"
_AGENT = _ASSETS / "agents" / "swimmer-behaviour"
_DATASET = _ASSETS / "datasets" / "swimmer-amateur-uniform"
_DST = ["--env", "deep-sea-treasure-v0"]
_MEGABYTES_100 = 100_000_000
# The longest single argument Linux passes (MAX_ARG_STRLEN is 128 KiB).
_LONG_ARGUMENT = 100_000
# A folder no one can make: /proc takes no new entries.
_PROC = "/proc/paretoscope-x"
_CANNOT_MAKE = r"cannot make this folder"


def _agent_with(work: Path, field: str, value: object) -> str:
    """The swimmer policy set with one field of its config.json replaced."""
    folder = work / "agent"
    shutil.copytree(_AGENT, folder)
    config = json.loads((folder / "config.json").read_text())
    config[field] = value
    (folder / "config.json").write_text(json.dumps(config))
    return "agent"


def _dataset_with(work: Path, change: dict[str, object], column: str | None = None) -> str:
    """The swimmer dataset with fields of its header's `info` (or one column's) replaced."""
    folder = work / "dataset"
    shutil.copytree(_DATASET, folder)
    (folder / "summary.json").unlink()
    header_path = folder / "paretoscope-dataset.json"
    header = json.loads(header_path.read_text())
    header["columns"][column].update(change) if column else header["info"].update(change)
    header_path.write_text(json.dumps(header))
    return "dataset"


def _behaviour_run_left(work: Path, members: int) -> list[str]:
    """A behaviour run's folder whose run.json records `members` members (as one started with
    `--preferences` that many and interrupted would), rerun with 3 members."""
    from paretoscope.settings import BehaviourTrainingSettings
    from paretoscope.train.behaviour.resolved import behaviour_run

    settings = BehaviourTrainingSettings(members=3, iterations=1)
    record = behaviour_run("MO-Swimmer-v2", settings).record()
    record["preferences"] = [[index / members, 1 - index / members] for index in range(members)]
    training = work / "out" / "run" / "training"
    training.mkdir(parents=True)
    (training / "run.json").write_text(json.dumps(record))
    return [
        "train", "behaviour", "--env", "MO-Swimmer-v2", "--preferences", "3",
        "--iterations", "1", "--out", "out/run",
    ]  # fmt: skip


def _collect(*extra: str) -> list[str]:
    return [
        "data",
        "collect",
        "--agent",
        "random",
        *_DST,
        "--episodes",
        "2",
        "--out",
        "out/d",
        *extra,
    ]


CASES: list[CliCase] = [
    # A config's fields, 100 MB each: quoted cut, read in bounded memory.
    CliCase(
        "msg-config-kind-100mb",
        lambda work: ["agent", "show", _agent_with(work, "kind", "Z" * _MEGABYTES_100)],
        r"kind is 'Z+…'",
    ),
    CliCase(
        "msg-config-env-id-100mb",
        lambda work: [
            "evaluate",
            _agent_with(work, "env_id", "x" * _MEGABYTES_100),
            "--env",
            "MO-Swimmer-v2",
            "--out",
            "out",
        ],  # fmt: skip
        r"unknown environment id 'x+…'",
    ),
    CliCase(
        "msg-config-format-version-list",
        lambda work: ["agent", "show", _agent_with(work, "format_version", list(range(10**6)))],
        r"format_version is \[0, 1, 2, 3, 4 and 999,995 more\]",
    ),
    # `--set NAME=VALUE` of the longest argument Linux passes.
    CliCase(
        "msg-set-without-a-name",
        lambda work: [
            "agent",
            "import",
            str(_envelope(work)),
            *_DST,
            "--kind",
            "envelope",
            "--set",
            "x" * _LONG_ARGUMENT,
            "--out",
            "out/a",
        ],  # fmt: skip
        r"--set 'x+…': expected NAME=VALUE",
    ),
    CliCase(
        "msg-collect-preference-bounds-long",
        lambda work: [
            "data",
            "collect",
            "--agent",
            str(_AGENT),
            "--env",
            "MO-Swimmer-v2",
            "--episodes",
            "2",
            "--out",
            "out/d",
            "--preference-bounds",
            "z" * _LONG_ARGUMENT,
        ],  # fmt: skip
        r"--preference-bounds 'z+…': expected LOW:HIGH pairs",
    ),
    CliCase(
        "msg-set-long-name",
        lambda work: [
            "agent",
            "import",
            str(_envelope(work)),
            *_DST,
            "--kind",
            "envelope",
            "--set",
            "n" * _LONG_ARGUMENT + "=1",
            "--out",
            "out/a",
        ],  # fmt: skip
        r"--set n+…: the MORL-Baselines importer takes",
    ),
    # A dataset's header: a 100 MB source, a column's 1 MB dtype and million-entry shape.
    CliCase(
        "msg-dataset-source-100mb",
        lambda work: [
            "train",
            "morvs",
            "--data",
            _dataset_with(work, {"source": "S" * _MEGABYTES_100}),
            "--env",
            "MO-Ant-v2",
            "--out",
            "out/r",
        ],  # fmt: skip
        r"the dataset is for MO-Swimmer-v2, not MO-Ant-v2",
    ),
    CliCase(
        "msg-dataset-column-dtype-1mb",
        lambda work: [
            "data",
            "convert",
            _dataset_with(work, {"dtype": "D" * 10**6}, "actions"),
            "out/x.pkl",
        ],  # fmt: skip
        r"actions\.npy: column 'actions' is <f8 \[12500, 2\], the header says D+…",
    ),
    CliCase(
        "msg-dataset-column-shape-million",
        lambda work: [
            "data",
            "convert",
            _dataset_with(work, {"shape": [1] * 10**6}, "actions"),
            "out/x.pkl",
        ],  # fmt: skip
        r"the header says <f8 \[1, 1, 1, 1, 1 and 999,995 more\]",
    ),
    # A run folder left by a run of many members: a few of them named, and a count.
    CliCase(
        "msg-behaviour-run-of-30000-members",
        lambda work: _behaviour_run_left(work, 30_000),
        r"holds a run with other settings \(preferences: was \[\[0\.0, 1\.0\], .* and 29,995 "
        r"more\], now \[\[",
    ),
    # data collect's batch size and horizon: within their documented caps.
    CliCase(
        "msg-collect-batch-size-past-cap",
        lambda work: _collect("--batch-size", str(10**30)),
        r"--batch-size: expected a whole number from 1 to 1024, got 10{30}$",
    ),
    CliCase(
        "msg-collect-horizon-of-100k-digits",
        lambda work: _collect("--horizon", "9" * _LONG_ARGUMENT),
        r"--horizon: expected a whole number from 1 to 100000, got '9+…'",
    ),
    CliCase(
        "msg-evaluate-horizon-zero",
        lambda work: ["evaluate", "random", *_DST, "--horizon", "0", "--out", "out"],
        r"--horizon: expected a whole number from 1 to 100000, got 0",
    ),
    # Output folders that cannot be made.
    CliCase(
        "msg-train-morvs-out-proc",
        lambda work: ["train", "morvs", "--data", str(_DATASET), "--steps", "1", "--out", _PROC],
        _PROC + r"/training'?: " + _CANNOT_MAKE,
    ),
    CliCase(
        "msg-train-behaviour-out-proc",
        lambda work: [
            "train",
            "behaviour",
            "--env",
            "MO-Swimmer-v2",
            "--preferences",
            "2",
            "--iterations",
            "1",
            "--out",
            _PROC,
        ],  # fmt: skip
        _PROC + r"/training'?: " + _CANNOT_MAKE,
    ),
    CliCase(
        "msg-evaluate-out-proc",
        lambda work: ["evaluate", "random", *_DST, "--granularity", "2", "--out", _PROC],
        _PROC + r"'?: " + _CANNOT_MAKE,
    ),
    CliCase(
        "msg-render-out-proc",
        lambda work: [
            "render",
            "random",
            *_DST,
            "--preference",
            "0.5,0.5",
            "--out",
            _PROC + "/v.mp4",
        ],  # fmt: skip
        r"/proc/paretoscope-x/v\.mp4: the folder /proc/paretoscope-x does not exist",
    ),
]
