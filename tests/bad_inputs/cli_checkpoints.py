"""Hostile checkpoints for the CLI (issue 50): each case makes its small files in a work folder."""

from __future__ import annotations

import io
import json
import pickle
import struct
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import Any

import torch

from tests.bad_inputs.cli_harness import OUT, CliCase
from tests.bad_inputs.torch_zips import (
    records_of,
    save_records,
    storage_record,
    write_zip,
    zeros_bomb,
)

_ENVELOPE_ENV = "deep-sea-treasure-v0"
# More than the 1 GiB a record may inflate to, yet a stream of ~1.5 MB made in milliseconds.
_INFLATED = 1536 * 2**20


def _envelope(bomb: bool = False) -> dict[str, Any]:
    """A MORL-Baselines Envelope save for deep-sea-treasure; with `bomb`, 40000 hidden units
    whose every tensor is a stride-0 view of one float."""
    width = 40000 if bomb else 64
    make = _stride_zero if bomb else _random
    state = {
        "net.0.weight": make(width, 4),
        "net.0.bias": make(width),
        "net.2.weight": make(width, width),
        "net.2.bias": make(width),
        "net.4.weight": make(8, width),
        "net.4.bias": make(8),
    }
    return {"q_net_state_dict": state, "q_net_optimizer_state_dict": {"state": {}}}


def _peda_rvs(bomb: bool = False) -> dict[str, Any]:
    """A PEDA MORvS save for MO-Hopper (15 = 11 state + 2 preference + 2 goal inputs); with
    `bomb`, 40000 hidden units whose every tensor is a stride-0 view of one float."""
    width = 40000 if bomb else 128
    make = _stride_zero if bomb else _random
    net = "model.mlp_extractor.shared_net"
    model = {
        "model.log_std": _random(3),
        f"{net}.0.weight": make(width, 15),
        f"{net}.0.bias": make(width),
        f"{net}.2.weight": make(width, width),
        f"{net}.2.bias": make(width),
        f"{net}.4.weight": make(width, width),
        f"{net}.4.bias": make(width),
        "model.action_net.weight": make(3, width),
        "model.action_net.bias": _random(3),
    }
    return {"model": model, "optimizer": {"state": {}, "param_groups": []}}


def _random(*shape: int) -> torch.Tensor:
    return torch.randn(*shape, generator=torch.Generator().manual_seed(sum(shape)))


def _stride_zero(*shape: int) -> torch.Tensor:
    # torch.save keeps views as they are: one float of storage, the shape, strides of 0.
    return torch.zeros(1).expand(*shape)


def _stride_bomb_tar(work: Path) -> str:
    save_records(work / "Envelope.tar", _envelope(bomb=True), "Envelope")
    return "Envelope.tar"


def _stride_bomb_ckpt(work: Path) -> str:
    save_records(work / "step=1.ckpt", _peda_rvs(bomb=True), "step=1")
    return "step=1.ckpt"


def _legacy_stride_bomb(work: Path) -> str:
    """The stride-0 PEDA save in torch's legacy (non-zip) format."""
    torch.save(_peda_rvs(bomb=True), work / "step=1.ckpt", _use_new_zipfile_serialization=False)
    return "step=1.ckpt"


def _legacy_storage_bomb(work: Path) -> str:
    """A legacy torch file whose one storage declares 1.5e9 floats (torch allocates a legacy
    file's storages at their declared size before reading them); 52 bytes follow its pickle."""
    buffer = io.BytesIO()
    torch.save({"model": {"w": torch.zeros(4)}}, buffer, _use_new_zipfile_serialization=False)
    data = buffer.getvalue()
    stream = io.BytesIO(data)
    for _ in range(3):  # magic number, protocol version, system info
        pickle.load(stream)
    head, main = data[: stream.tell()], data[stream.tell() :]
    huge = b"J" + struct.pack("<i", 1_500_000_000)
    # The storage's numel (before its view metadata, None) and the tensor's size (a 1-tuple).
    main = main.replace(b"K\x04N", huge + b"N", 1).replace(b"K\x04\x85", huge + b"\x85", 1)
    (work / "step=1.ckpt").write_bytes(head + main)
    return "step=1.ckpt"


def _record_bomb_tar(work: Path) -> str:
    """Envelope.tar whose first storage inflates to 1.5 GB (a few MB on disk)."""
    records = records_of(_envelope(), "Envelope")
    index = storage_record(records)
    records[index] = zeros_bomb(records[index].name, _INFLATED)
    write_zip(work / "Envelope.tar", records)
    return "Envelope.tar"


def _pickle_bomb_ckpt(work: Path) -> str:
    """step=1.ckpt whose data.pkl inflates to 1.5 GB (a few MB on disk)."""
    records = records_of(_peda_rvs(), "step=1")
    index = next(i for i, record in enumerate(records) if record.name.endswith("/data.pkl"))
    records[index] = zeros_bomb(records[index].name, _INFLATED)
    write_zip(work / "step=1.ckpt", records)
    return "step=1.ckpt"


def _flagged_pickle(method: int, flags: int) -> Callable[[Path], str]:
    def make(work: Path) -> str:
        records = records_of(_envelope(), "Envelope")
        index = next(i for i, record in enumerate(records) if record.name.endswith("/data.pkl"))
        records[index] = replace(records[index], method=method, flags=flags)
        write_zip(work / "Envelope.tar", records)
        return "Envelope.tar"

    return make


def _deep(depth: int = 100_000) -> str:
    return "[" * depth + "]" * depth


def _deep_config_folder(work: Path) -> str:
    folder = work / "agent"
    folder.mkdir()
    (folder / "config.json").write_text('{"format": ' + _deep() + "}")
    return "agent"


def _deep_single_file(work: Path) -> str:
    text = '{"format": ' + _deep() + "}"
    header = json.dumps({"__metadata__": {"paretoscope_config": text}}).encode()
    (work / "agent.safetensors").write_bytes(struct.pack("<Q", len(header)) + header)
    return "agent.safetensors"


def _envelope_checkpoint(work: Path, change: Callable[[dict[str, Any]], None]) -> str:
    """A paretoscope checkpoint of the Envelope save above, its config changed by `change`."""
    from paretoscope.agents import save
    from paretoscope.agents.importers import import_agent

    source = save_records(work / "Envelope.tar", _envelope(), "Envelope")
    agent = import_agent(source, env_id=_ENVELOPE_ENV)
    folder = save(agent, work / "agent")
    source.unlink()
    config = json.loads((folder / "config.json").read_text())
    change(config)
    (folder / "config.json").write_text(json.dumps(config))
    return "agent"


def _huge_layer(config: dict[str, Any]) -> None:
    config["members"][0]["parts"]["net"][0] = ["linear", 2, 10**12]


def _weights_text(config: dict[str, Any]) -> None:
    config["weights"] = "abc"


def _case(name: str, make: Callable[[Path], str], args: list[str], expect: str) -> CliCase:
    def argv(work: Path) -> list[str]:
        target = make(work)
        return [target if arg == "{}" else arg for arg in args]

    return CliCase(name, argv, expect)


_IMPORT_ENVELOPE = ["agent", "import", "{}", "--env", _ENVELOPE_ENV, "--out", f"{OUT}/agent"]
_EVALUATE_ENVELOPE = ["evaluate", "{}", "--env", _ENVELOPE_ENV, "--out", f"{OUT}/store"]
_IMPORT_PEDA = ["agent", "import", "{}", "--env", "MO-Hopper-v2", "--out", f"{OUT}/agent"]
_STRIDE = r"tensor 'q_net_state_dict\.net\.0\.weight' declares 160,000 elements"
_PEDA_STRIDE = (
    r"tensor 'model\.model\.mlp_extractor\.shared_net\.0\.weight' declares 600,000 elements "
    "over a storage of 1 float"
)
_INFLATES = r"record '[^']+' inflates to 1,610,612,736 bytes"

CASES: list[CliCase] = [
    _case("ckpt-morlb-stride-zero-import", _stride_bomb_tar, _IMPORT_ENVELOPE, _STRIDE),
    _case("ckpt-morlb-stride-zero-evaluate", _stride_bomb_tar, _EVALUATE_ENVELOPE, _STRIDE),
    _case("ckpt-peda-stride-zero-import", _stride_bomb_ckpt, _IMPORT_PEDA, _PEDA_STRIDE),
    _case(
        "ckpt-legacy-stride-zero-import",
        _legacy_stride_bomb,
        [*_IMPORT_PEDA, "--kind", "rvs"],
        _PEDA_STRIDE,
    ),
    _case(
        "ckpt-legacy-storage-bomb-import",
        _legacy_storage_bomb,
        [*_IMPORT_PEDA, "--kind", "rvs"],
        r"step=1\.ckpt: its storages declare 6,000,000,000 bytes, but the file holds 52 after",
    ),
    _case("ckpt-morlb-record-bomb-show", _record_bomb_tar, ["agent", "show", "{}"], _INFLATES),
    _case("ckpt-morlb-record-bomb-import", _record_bomb_tar, _IMPORT_ENVELOPE, _INFLATES),
    _case("ckpt-peda-pickle-bomb-show", _pickle_bomb_ckpt, ["agent", "show", "{}"], _INFLATES),
    _case(
        "ckpt-peda-pickle-bomb-import",
        _pickle_bomb_ckpt,
        [*_IMPORT_PEDA, "--kind", "rvs"],
        _INFLATES,
    ),
    _case(
        "ckpt-zip-unknown-method",
        _flagged_pickle(method=99, flags=0),
        ["agent", "show", "{}"],
        r"Envelope\.tar: record 'Envelope/data\.pkl' .*compression method 99",
    ),
    _case(
        "ckpt-zip-encrypted",
        _flagged_pickle(method=0, flags=1),
        ["agent", "show", "{}"],
        r"Envelope\.tar: record 'Envelope/data\.pkl' is encrypted",
    ),
    _case(
        "ckpt-config-deep-json-show",
        _deep_config_folder,
        ["agent", "show", "{}"],
        r"config\.json: .*nested deeper than",
    ),
    _case(
        "ckpt-config-deep-json-evaluate",
        _deep_config_folder,
        ["evaluate", "{}", "--env", _ENVELOPE_ENV, "--out", f"{OUT}/store"],
        r"config\.json: .*nested deeper than",
    ),
    _case(
        "ckpt-single-file-deep-json",
        _deep_single_file,
        ["agent", "show", "{}"],
        r"agent\.safetensors: .*nested deeper than",
    ),
    _case(
        "ckpt-config-huge-layer",
        lambda work: _envelope_checkpoint(work, _huge_layer),
        ["evaluate", "{}", "--env", _ENVELOPE_ENV, "--out", f"{OUT}/store"],
        r"agent: members\[0\] declares 3,000,000,00\d,\d{3} parameters, more than the",
    ),
    _case(
        "ckpt-config-weights-not-an-object",
        lambda work: _envelope_checkpoint(work, _weights_text),
        ["evaluate", "{}", "--env", _ENVELOPE_ENV, "--out", f"{OUT}/store"],
        r"config\.json: weights must be an object",
    ),
]
