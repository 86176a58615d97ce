"""Convert between dataset formats; D4MORL and Minari to native stream trajectory by trajectory.

D4MORL -> native is the conversion that matters for size: the pickle must be loaded whole (it
is one object), but each trajectory is written and dropped in turn, so the converter never
holds two copies of the data. Other directions go through in-memory `Trajectories`, except that
a native source is memory-mapped.
"""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from paretoscope.data.d4morl import load_d4morl, write_d4morl
from paretoscope.data.minari_io import MINARI_PREFIX, iter_minari, write_minari
from paretoscope.data.native import NativeWriter, write_native
from paretoscope.data.progress import counter_bar
from paretoscope.data.sources import detect_format, open_dataset
from paretoscope.errors import ParetoscopeError

TargetFormat = Literal["native", "d4morl", "minari"]
TARGET_FORMATS: tuple[str, ...] = ("native", "d4morl", "minari")


def target_format(destination: str | Path, to: str | None = None) -> TargetFormat:
    """The output format: `to` when given, else ``minari:`` ids, ``.pkl`` files, native."""
    if to is not None:
        if to not in TARGET_FORMATS:
            raise ParetoscopeError(
                f"output format {to!r}: expected one of {', '.join(TARGET_FORMATS)}"
            )
        return to  # type: ignore[return-value]
    text = str(destination)
    if text.startswith(MINARI_PREFIX):
        return "minari"
    if text.endswith(".pkl"):
        return "d4morl"
    return "native"


def convert(
    source: str | Path,
    destination: str | Path,
    to: str | None = None,
    env_id: str | None = None,
    overwrite: bool = False,
    progress: bool = False,
) -> Path:
    """Convert `source` (any readable format) to `destination`; returns where it was written.

    Nothing is written when the source is invalid: D4MORL files are validated whole before
    the first trajectory is written, and outputs appear only once complete.
    """
    source_format = detect_format(source)
    output = target_format(destination, to)
    if output == "minari" and str(destination).startswith(MINARI_PREFIX):
        destination = str(destination)[len(MINARI_PREFIX) :]
    if output == "native" and source_format == "d4morl":
        return _d4morl_to_native(source, destination, env_id, overwrite, progress)
    if output == "native" and source_format == "minari":
        return _minari_to_native(source, destination, env_id, overwrite, progress)
    trajectories = open_dataset(source, env_id=env_id, progress=progress)
    if output == "native":
        return write_native(trajectories, destination, overwrite=overwrite, progress=progress)
    if output == "d4morl":
        return write_d4morl(trajectories, destination, overwrite=overwrite, progress=progress)
    return write_minari(trajectories, str(destination), progress=progress)


def _d4morl_to_native(
    source: str | Path, destination: str | Path, env_id: str | None, overwrite: bool, progress: bool
) -> Path:
    loaded = load_d4morl(source, env_id=env_id, progress=progress)
    bar = counter_bar(loaded.n_trajectories, "converting", progress, "traj")
    with (
        bar,
        NativeWriter(
            destination,
            loaded.info,
            store_next_observations=not loaded.next_observations_derivable,
            overwrite=overwrite,
            validate=False,  # load_d4morl validated every trajectory already
        ) as writer,
    ):
        for trajectory in loaded.trajectories(release=True):
            writer.append(trajectory)
            bar.update(1)
    return Path(destination)


def _minari_to_native(
    source: str | Path, destination: str | Path, env_id: str | None, overwrite: bool, progress: bool
) -> Path:
    info, trajectories = iter_minari(source, env_id=env_id, progress=progress)
    with NativeWriter(destination, info, overwrite=overwrite, validate=False) as writer:
        for trajectory in trajectories:  # validated by iter_minari
            writer.append(trajectory)
    return Path(destination)


__all__ = ["TARGET_FORMATS", "convert", "target_format"]
