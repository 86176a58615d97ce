"""Hostile store and options that change an episode, for the CLI (issue 50): each case makes its
small files in a work folder. `key-` cases: an option that cannot apply to the agent is refused
(it once ran anyway, under another option's stored rows); `store-` cases: a results folder
whose files are not what the store writes."""

from __future__ import annotations

import hashlib
import io
from pathlib import Path

import pandas as pd

from tests.bad_inputs.cli_harness import OUT, CliCase

_FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
_GPI_LS = _FIXTURES / "morl-baselines/gpi-ls/minecart-v0/GPI-LS.tar"
_PEDA_RVS = _FIXTURES / "peda/ckpts/MO-Hopper-v3/rvs/step=1.ckpt"


def _evaluate(agent: Path, env_id: str, *options: str) -> list[str]:
    return ["evaluate", str(agent), "--env", env_id, "--out", OUT, "--workers", "1", *options]


STORE_ENV = "deep-sea-treasure-v0"


def shard_name(data: bytes, prefix: str = "0123456789ab") -> str:
    """The name the results store gives a shard of these bytes."""
    return f"{prefix}-{hashlib.sha256(data).hexdigest()[:16]}.parquet"


def _shard_without_key(work: Path) -> list[str]:
    buffer = io.BytesIO()
    pd.DataFrame({"x": [1.0, 2.0]}).to_parquet(buffer, index=False)
    folder = work / OUT / STORE_ENV
    folder.mkdir(parents=True)
    (folder / shard_name(buffer.getvalue())).write_bytes(buffer.getvalue())
    return ["evaluate", "random", "--env", STORE_ENV, "--out", OUT, "--granularity", "1"]


CASES: list[CliCase] = [
    CliCase(
        "store-shard-without-episode-key",
        _shard_without_key,
        rf"out/{STORE_ENV}/0123456789ab-[0-9a-f]{{16}}\.parquet: named as a results shard but "
        "has no 'episode_key' column",
    ),
    CliCase(
        "key-peda-type-contradicts-file",
        lambda work: _evaluate(_PEDA_RVS, "MO-Hopper-v3", "--type", "bc"),
        r"--kind bc: PEDA rvs checkpoint step=1\.ckpt holds a 'rvs' model",
    ),
    CliCase(
        "key-device-bogus",
        lambda work: _evaluate(_GPI_LS, "minecart-v0", "--device", "bogus:7"),
        r"device: 'bogus:7' is not a torch device",
    ),
    CliCase(
        # Without CUDA it is not here; with it, a MORL-Baselines agent would not use it.
        "key-device-cuda-morlb",
        lambda work: _evaluate(_GPI_LS, "minecart-v0", "--device", "cuda"),
        r"device: 'cuda' (asked for, but CUDA is not available|cannot apply to .*GPI-LS\.tar)",
    ),
    CliCase(
        "key-option-of-another-importer",
        lambda work: _evaluate(_GPI_LS, "minecart-v0", "--set", "n_head=2"),
        r"--set n_head: the MORL-Baselines importer takes",
    ),
]
