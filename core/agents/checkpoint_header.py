"""paretoscope checkpoints seen from outside: the file layout and the config, without torch.

A checkpoint is a folder with ``config.json`` and ``weights.safetensors``, or one
``.safetensors`` file whose header metadata holds the config (`paretoscope.agents.checkpoint` loads
both). Reading the config here parses only JSON and the safetensors header's first bytes, so
listing a folder of agents never imports torch or touches weights.
"""

from __future__ import annotations

import struct
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from paretoscope.agents.header import AgentHeader
from paretoscope.errors import ParetoscopeError
from paretoscope.jsonfile import loads, read_json_object
from paretoscope.text import briefly

FORMAT = "paretoscope-agent"
FORMAT_VERSION = 1
CONFIG_FILE = "config.json"
WEIGHTS_FILE = "weights.safetensors"
SINGLE_FILE_SUFFIX = ".safetensors"
# Key of the config inside a single-file checkpoint's safetensors metadata.
CONFIG_METADATA_KEY = "paretoscope_config"
# A safetensors header larger than this is refused before it is read.
_MOST_HEADER_BYTES = 100_000_000


def check_safetensors_signature(name: str, payload: bytes) -> None:
    """Refuse bytes that cannot start a safetensors file (8-byte length, then a JSON header)."""
    if len(payload) < 10:
        raise ParetoscopeError(f"{name}: too short for a safetensors file")
    (length,) = struct.unpack("<Q", payload[:8])
    if length > len(payload) - 8:
        raise ParetoscopeError(
            f"{name}: not a safetensors file (its header claims {length} bytes, the file "
            f"has {len(payload) - 8})"
        )
    if payload[8:9] != b"{":
        raise ParetoscopeError(f"{name}: not a safetensors file (no JSON header)")


def _single_file_config(path: Path) -> dict[str, Any]:
    try:
        with open(path, "rb") as handle:
            (length,) = struct.unpack("<Q", handle.read(8))
            if length > _MOST_HEADER_BYTES:
                raise ParetoscopeError(
                    f"{path}: not a safetensors file (its header claims {length:,} bytes, more "
                    f"than the {_MOST_HEADER_BYTES:,} paretoscope reads)"
                )
            header = loads(handle.read(length), f"{path}: not a safetensors file (its header)")
    except (OSError, struct.error) as error:
        raise ParetoscopeError(f"{path}: not a safetensors file ({error})") from None
    metadata = header.get("__metadata__") if isinstance(header, dict) else None
    text = metadata.get(CONFIG_METADATA_KEY) if isinstance(metadata, dict) else None
    if not isinstance(text, str):
        raise ParetoscopeError(f"{path}: a safetensors file without a paretoscope config")
    config = loads(text, f"{path}: its paretoscope config")
    if not isinstance(config, dict):
        raise ParetoscopeError(f"{path}: its paretoscope config is not a JSON object")
    return config


def is_checkpoint_path(path: Path) -> bool:
    """Whether `path` has a checkpoint's shape (it may still fail to read)."""
    if path.is_dir():
        return (path / CONFIG_FILE).is_file()
    return path.is_file() and path.suffix == SINGLE_FILE_SUFFIX


def read_checkpoint_config(path: str | Path) -> dict[str, Any]:
    """The raw config of a checkpoint folder or single file (not yet checked against its env)."""
    location = Path(path)
    if location.is_dir():
        return read_json_object(location / CONFIG_FILE)
    return _single_file_config(location)


def sniff_checkpoint(path: Path) -> AgentHeader | None:
    """A paretoscope checkpoint's header; None for anything that is not shaped like one."""
    from paretoscope.agents.base import check_config_fits_env

    if not is_checkpoint_path(path):
        return None
    config = read_checkpoint_config(path)
    where = str(path)
    if config.get("format") != FORMAT:
        raise ParetoscopeError(
            f"{where}: not a paretoscope agent (format {briefly(config.get('format'))})"
        )
    env_id = check_config_fits_env(config, where).id
    conditioning = config.get("conditioning")
    if not isinstance(conditioning, Mapping):
        raise ParetoscopeError(f"{where}: conditioning must be an object")
    training = config.get("training") or {}
    source = training.get("source") if isinstance(training, Mapping) else None
    return AgentHeader(
        format="checkpoint",
        env_id=env_id,
        kind=str(config.get("kind")),
        return_conditioned=bool(conditioning.get("return_conditioned", False)),
        description=f"{config.get('kind')} agent" + (f" ({source})" if source else ""),
    )
