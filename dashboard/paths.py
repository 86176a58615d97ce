"""Every path a user gives (a typed folder, a URL value, an entry found in a folder) is
resolved here and must stay inside the folders the server was configured with.

`..` segments, absolute paths and symbolic links are all resolved first (`os.path.realpath`),
then the real location is compared with the real allowed roots, so a link inside an assets
folder that points elsewhere is refused like a plain path outside.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Sequence
from dataclasses import replace
from pathlib import Path

from paretoscope.catalog import AssetCatalog, AssetProblem
from paretoscope.errors import ParetoscopeError

# Entries inside one asset folder checked for links that leave it (a dataset has a few files).
_MOST_FILES_CHECKED = 10_000


def real(path: str | os.PathLike[str]) -> Path:
    """The absolute location with every link and `..` resolved (the path need not exist)."""
    return Path(os.path.realpath(os.fspath(path)))


def is_inside(path: str | os.PathLike[str], roots: Iterable[str | os.PathLike[str]]) -> bool:
    """True when the real location of `path` is one of `roots` or below one of them."""
    location = real(path)
    return any(location.is_relative_to(real(root)) for root in roots)


def resolve_user_path(
    value: str,
    roots: Sequence[str | os.PathLike[str]],
    what: str = "path",
) -> Path:
    """The real path a user typed (relative paths start at the first root), refused with a
    `ParetoscopeError` unless it lies inside one of `roots`."""
    text = (value or "").strip()
    if not text:
        raise ParetoscopeError(f"{what}: empty")
    if "\x00" in text:
        raise ParetoscopeError(f"{what}: contains a NUL character")
    if not roots:
        raise ParetoscopeError(f"{what} {text!r}: no folders are allowed on this server")
    candidate = Path(text).expanduser()
    if not candidate.is_absolute():
        candidate = Path(roots[0]) / candidate
    if not is_inside(candidate, roots):
        allowed = ", ".join(str(real(root)) for root in roots)
        raise ParetoscopeError(
            f"{what} {text!r}: outside the folders this server may read ({allowed}); "
            "start it with --allow-dir to add a folder"
        )
    return real(candidate)


def _leaves(entry: Path, roots: Sequence[Path]) -> Path | None:
    """The first file of `entry` (itself or, for a folder, anything below) whose real location
    is outside `roots`, else None."""
    if not is_inside(entry, roots):
        return entry
    if entry.is_dir():
        for count, child in enumerate(entry.rglob("*")):
            if count >= _MOST_FILES_CHECKED:
                break
            if child.is_symlink() and not is_inside(child, roots):
                return child
    return None


def confine_catalog(catalog: AssetCatalog, roots: Sequence[str | os.PathLike[str]]) -> AssetCatalog:
    """`catalog` without the agents and datasets that lead outside `roots` (through a link),
    each listed as a problem instead."""
    real_roots = [real(root) for root in roots]
    problems = list(catalog.problems)
    agents = []
    for agent in catalog.agents:
        outside = _leaves(agent.path, real_roots)
        if outside is None:
            agents.append(agent)
        else:
            problems.append(AssetProblem(agent.path, f"refused: {outside} leads outside"))
    datasets = []
    for dataset in catalog.datasets:
        outside = _leaves(dataset.path, real_roots)
        if outside is None:
            datasets.append(dataset)
        else:
            problems.append(AssetProblem(dataset.path, f"refused: {outside} leads outside"))
    return replace(
        catalog,
        agents=tuple(agents),
        datasets=tuple(datasets),
        results_dirs=tuple(d for d in catalog.results_dirs if is_inside(d, real_roots)),
        rollout_dirs=tuple(d for d in catalog.rollout_dirs if is_inside(d, real_roots)),
        problems=tuple(problems),
    )
