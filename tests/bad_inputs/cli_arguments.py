"""Hostile command-line arguments (issue 50): values no file is needed for. Each is refused by
argparse itself (the shared option types of `paretoscope.cli.options`) or by one message."""

from __future__ import annotations

from pathlib import Path

from tests.bad_inputs.cli_harness import CliCase

_DST = ["--env", "deep-sea-treasure-v0"]
_SEED_RANGE = r"--seed: expected a whole number from 0 to 4294967295"
_LONG = "a" * 100_000


def _collect(*extra: str) -> list[str]:
    return ["data", "collect", "--agent", "random", *_DST, "--out", "out/data", *extra]


# A folder no one can make: /proc takes no new entries.
_PROC = "/proc/paretoscope-x"


def _envelope(work: Path) -> Path:
    """A tiny MORL-Baselines Envelope save for deep-sea-treasure (4 inputs, 4 actions x 2)."""
    import torch

    generator = torch.Generator().manual_seed(0)
    sizes = [4, 8, 8]
    tensors = {}
    for index, (inputs, outputs) in enumerate(zip(sizes[:-1], sizes[1:], strict=True)):
        tensors[f"net.{2 * index}.weight"] = torch.randn(outputs, inputs, generator=generator)
        tensors[f"net.{2 * index}.bias"] = torch.randn(outputs, generator=generator)
    path = work / "deep-sea-treasure-v0" / "Envelope.tar"
    path.parent.mkdir()
    torch.save({"q_net_state_dict": tensors}, path)
    return path


# A small dataset of the repository's own demo assets.
_DATASET = Path(__file__).resolve().parents[2] / "assets" / "datasets" / "swimmer-amateur-uniform"


CASES: list[CliCase] = [
    CliCase(
        "missing-agent-file",
        lambda work: ["evaluate", "nope.tar", "--env", "deep-sea-treasure-v0"],
        r"nope\.tar",
    ),
    CliCase(
        "arg-evaluate-negative-seed",
        lambda work: ["evaluate", "random", *_DST, "--seed", "-1", "--out", "out"],
        _SEED_RANGE + r", got -1",
    ),
    CliCase(
        "arg-render-negative-seed",
        lambda work: ["render", "random", *_DST, "--preference", "0.5,0.5", "--seed", "-1"],
        _SEED_RANGE,
    ),
    CliCase(
        "arg-collect-negative-seed",
        lambda work: _collect("--episodes", "2", "--seed", "-1"),
        _SEED_RANGE,
    ),
    CliCase(
        "arg-evaluate-seed-past-64-bits",
        lambda work: ["evaluate", "random", *_DST, "--seed", str(2**64), "--out", "out"],
        _SEED_RANGE,
    ),
    CliCase(
        "arg-seed-of-100k-digits",
        lambda work: ["evaluate", "random", *_DST, "--seed", "9" * 100_000, "--out", "out"],
        _SEED_RANGE + r", got '9+…'",
    ),
    CliCase(
        "arg-collect-episodes-1e9",
        lambda work: _collect("--episodes", "1e9"),
        r"--episodes: expected a whole number from 1 to 100000",
    ),
    CliCase(
        "arg-collect-episodes-billion",
        lambda work: _collect("--episodes", "1000000000"),
        r"--episodes: expected a whole number from 1 to 100000, got 1000000000",
    ),
    CliCase(
        "arg-evaluate-episodes-billion",
        lambda work: ["evaluate", "random", *_DST, "--episodes", "1000000000", "--out", "out"],
        r"--episodes: expected a whole number from 1 to 100000, got 1000000000",
    ),
    CliCase(
        "arg-evaluate-seeds-past-range",
        lambda work: [
            "evaluate",
            "random",
            *_DST,
            "--seed",
            str(2**32 - 1),
            "--episodes",
            "2",
            "--out",
            "out",
        ],
        r"seed: the seeds S\.\.S\+E-1 end past 4294967295",
    ),
    CliCase(
        "arg-agent-path-100k",
        lambda work: ["agent", "show", _LONG],
        r"path of 100000 characters .* longer than the system takes.*'a+…'",
    ),
    CliCase(
        "arg-evaluate-out-100k",
        lambda work: ["evaluate", "random", *_DST, "--out", _LONG],
        r"--out: a path of 100000 characters",
    ),
    CliCase(
        "arg-evaluate-empty-out",
        lambda work: ["evaluate", "random", *_DST, "--out", ""],
        r"--out: expected a path, got an empty one",
    ),
    CliCase(
        "arg-collect-empty-out",
        lambda work: [
            "data",
            "collect",
            "--agent",
            "random",
            *_DST,
            "--episodes",
            "1",
            "--out",
            "",
        ],
        r"--out: expected a path, got an empty one",
    ),
    CliCase(
        "arg-train-layers-100000",
        lambda work: ["train", "morvs", "--data", "nope", "--out", "out/run", "--layers", "100000"],
        r"--layers: expected a whole number from 1 to 16, got 100000",
    ),
    CliCase(
        "arg-train-behaviour-million-members",
        lambda work: ["train", "behaviour", *_DST, "--out", "out/run", "--preferences", "1000000"],
        r"--preferences: expected a whole number from 1 to 1000, got 1000000",
    ),
    CliCase(
        "arg-agent-import-out-in-proc",
        lambda work: ["agent", "import", str(_envelope(work)), "--out", _PROC],
        r"'/proc/paretoscope-x': cannot make this folder",
    ),
    CliCase(
        "arg-data-convert-out-in-proc",
        lambda work: ["data", "convert", str(_DATASET), _PROC + "/set", "--to", "native"],
        r"'/proc/paretoscope-x': cannot make this folder",
    ),
    CliCase(
        "arg-env-id-100k-quoted-cut",
        lambda work: ["evaluate", "random", "--env", "x" * 100_000, "--out", "out"],
        r"unknown environment id 'x{100,300}…'",
    ),
]
