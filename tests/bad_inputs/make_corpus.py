"""Write the bad-input corpus next to this script (deterministic: run it again, same bytes).

    python tests/bad_inputs/make_corpus.py

Every file is small. What each one is and the message the dashboard must give for it are in
``cases.json`` beside them (written by hand); this script only makes the bytes. Files whose
payload would run code (pickles calling ``os.system``) name a marker file under /tmp: the test
checks that the marker never appears.
"""

from __future__ import annotations

import functools
import io
import json
import pickle
import struct
import sys
import zipfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
FILES = HERE / "files"
# The file a hostile payload would create if anything executed it.
MARKER = "/tmp/paretoscope-bad-input-executed"
CHEETAH = "MO-HalfCheetah-v2"


class _RunsShell:
    """Pickles as a call to os.system: what a hostile pickle does when loaded freely."""

    def __reduce__(self):  # noqa: ANN204 - the pickle protocol
        import os

        return (os.system, (f"touch {MARKER}",))


def _random(seed: int, size: int) -> bytes:
    return np.random.default_rng(seed).integers(0, 256, size, dtype=np.uint8).tobytes()


def _safetensors(header: dict, data: bytes) -> bytes:
    text = json.dumps(header).encode()
    return struct.pack("<Q", len(text)) + text + data


@functools.cache
def _real_config() -> tuple[dict, dict[str, np.ndarray]]:
    """The config and tensor shapes of a real (untrained, seeded) MORvS for HalfCheetah."""
    sys.path.insert(0, str(HERE.parents[1]))
    from paretoscope.agents.checkpoint import build_config
    from paretoscope.agents.conditioned import create_agent
    from paretoscope.agents.target_model import published_target_model

    agent = create_agent("morvs", CHEETAH, target_model=published_target_model(CHEETAH), seed=0)
    config, tensors = build_config(agent)
    config.pop("versions", None)
    return config, {key: tensor.numpy() for key, tensor in tensors.items()}


def _tiny_config(**changes: object) -> dict:
    """A real checkpoint's config with some values changed by the case."""
    config = dict(_real_config()[0])
    config.update(changes)
    return config


def _wrong_shapes() -> bytes:
    """A single-file checkpoint with a real config whose first tensor has the wrong shape."""
    config, tensors = _real_config()
    header: dict = {"__metadata__": {"paretoscope_config": json.dumps(config)}}
    data = b""
    for key in sorted(tensors):
        array = np.zeros(3, dtype=np.float32)  # every tensor: the wrong shape, tiny
        header[key] = {
            "dtype": "F32",
            "shape": list(array.shape),
            "data_offsets": [len(data), len(data) + array.nbytes],
        }
        data += array.tobytes()
    return _safetensors(header, data)


def _zip(members: dict[str, bytes], mode_of: dict[str, int] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, payload in members.items():
            info = zipfile.ZipInfo(name, date_time=(2024, 1, 1, 0, 0, 0))
            info.compress_type = zipfile.ZIP_DEFLATED
            if mode_of and name in mode_of:
                info.external_attr = mode_of[name] << 16
            archive.writestr(info, payload)
    return buffer.getvalue()


def _patch_sizes(payload: bytes, size: int) -> bytes:
    """Rewrite every declared uncompressed size in a one-member zip (local header and central
    directory) to `size`: headers that lie about what the member unpacks to."""
    data = bytearray(payload)
    local = data.find(b"PK\x03\x04")
    struct.pack_into("<I", data, local + 22, size)
    central = data.find(b"PK\x01\x02")
    struct.pack_into("<I", data, central + 24, size)
    return bytes(data)


def _d4morl(n_traj: int, obs_dim: int, length: int = 5, nan: bool = False) -> list[dict]:
    rng = np.random.default_rng(0)
    trajectories = []
    for _ in range(n_traj):
        preference = rng.dirichlet([1.0, 1.0])
        rewards = rng.normal(size=(length, 2))
        if nan:
            rewards[2, 1] = np.nan
        trajectories.append(
            {
                "observations": rng.normal(size=(length, obs_dim)),
                "actions": rng.uniform(-1, 1, size=(length, 6)),
                "next_observations": rng.normal(size=(length, obs_dim)),
                "preference": np.tile(preference, (length, 1)),
                "terminals": np.eye(1, length, length - 1, dtype=bool)[0],
                "raw_rewards": rewards,
            }
        )
    return trajectories


def _torch_zip(data_pkl: bytes) -> bytes:
    """The layout of a ``torch.save`` zip with `data_pkl` as its pickle."""
    return _zip({"archive/data.pkl": data_pkl, "archive/version": b"3\n"})


def corpus() -> dict[str, bytes]:
    """File name -> bytes of every corpus file."""
    files: dict[str, bytes] = {}
    # --- checkpoints -----------------------------------------------------------------------
    files["garbage.safetensors"] = _random(1, 512)
    files["empty.safetensors"] = b""
    files["truncated.safetensors"] = _safetensors(
        {"w": {"dtype": "F32", "shape": [64, 64], "data_offsets": [0, 16384]}}, b"\0" * 100
    )
    files["huge-header.safetensors"] = struct.pack("<Q", 2**62) + b"{}" + b"\0" * 30
    files["header-not-json.safetensors"] = struct.pack("<Q", 12) + b"{not json!!}"
    files["no-config.safetensors"] = _safetensors(
        {"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}, b"\0" * 8
    )
    files["wrong-shape.safetensors"] = _wrong_shapes()
    files["config-wrong-types.safetensors"] = _safetensors(
        {
            "__metadata__": {
                "paretoscope_config": json.dumps(_tiny_config(obs_dim="seventeen", n_obj=[2]))
            },
            "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
        },
        b"\0" * 8,
    )
    files["unknown-env.safetensors"] = _safetensors(
        {
            "__metadata__": {"paretoscope_config": json.dumps(_tiny_config(env_id="MO-Nope-v9"))},
            "w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]},
        },
        b"\0" * 8,
    )
    files["garbage.ckpt"] = _random(2, 300)
    files["malicious.ckpt"] = pickle.dumps({"model": _RunsShell()}, protocol=2)
    files["malicious-zip.ckpt"] = _torch_zip(pickle.dumps({"model": _RunsShell()}, protocol=2))
    files["truncated.ckpt"] = _torch_zip(pickle.dumps({"model": {}}, protocol=2))[:60]
    # --- datasets (D4MORL pickles) ----------------------------------------------------------
    files["MO-Hopper-v2_50000_expert_uniform.pkl"] = pickle.dumps([_RunsShell()], protocol=4)
    files["MO-Walker2d-v2_50000_expert_uniform.pkl"] = b"\x80\x04" + _random(3, 200)
    good = pickle.dumps(_d4morl(3, 17), protocol=4)
    files["MO-HalfCheetah-v2_50000_expert_uniform.pkl"] = good[: len(good) // 2]  # truncated
    files["MO-HalfCheetah-v2_50000_expert_wide.pkl"] = pickle.dumps(_d4morl(3, 5), protocol=4)
    files["MO-HalfCheetah-v2_50000_amateur_uniform.pkl"] = pickle.dumps(
        _d4morl(3, 17, nan=True), protocol=4
    )
    files["MO-HalfCheetah-v2_50000_amateur_wide.pkl"] = pickle.dumps({"not": "a list"}, protocol=4)
    files["MO-Nope-v9_50000_expert_uniform.pkl"] = good
    # --- archives ----------------------------------------------------------------------------
    config = json.dumps(_tiny_config()).encode()
    files["zip-slip.zip"] = _zip({"../../outside/config.json": config})
    files["absolute-path.zip"] = _zip({"/tmp/outside/config.json": config})
    files["symlink-member.zip"] = _zip(
        {"agent/config.json": config, "agent/weights.safetensors": b"/etc/passwd"},
        mode_of={"agent/weights.safetensors": 0o120777},
    )
    files["declared-huge.zip"] = _patch_sizes(_zip({"agent/config.json": config}), 2**32 - 1)
    files["lying-sizes.zip"] = _patch_sizes(_zip({"agent/config.json": b"\0" * 4_000_000}), 100)
    files["no-marker.zip"] = _zip({"readme.txt": b"nothing to see"})
    files["not-a-zip.zip"] = _random(4, 256)
    files["config-not-json.zip"] = _zip({"agent/config.json": b"{oops", "agent/x": b"1"})
    files["config-unknown-kind.zip"] = _zip(
        {"agent/config.json": json.dumps(_tiny_config(kind="rocket")).encode()}
    )
    # --- wrong types ------------------------------------------------------------------------
    files["notes.txt"] = b"just text"
    files["payload.sh"] = f"#!/bin/sh\ntouch {MARKER}\n".encode()
    files["big.pkl"] = b"\x80\x04" + b"\0" * 4096  # over the 1 KiB limit its case sets
    return files


def main() -> None:
    FILES.mkdir(exist_ok=True)
    written = corpus()
    for name, payload in written.items():
        (FILES / name).write_bytes(payload)
    print(f"{len(written)} files in {FILES}", file=sys.stderr)


if __name__ == "__main__":
    main()
