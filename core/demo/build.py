"""What every step of a demo build shares: the output folder, the recipe, the ledger, where
each artefact lives, and the fingerprints of the finished ones a later step consumes."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from paretoscope.catalog import AGENTS_DIR, DATASETS_DIR, RESULTS_DIR, bundled_assets_dir
from paretoscope.demo.ledger import Ledger
from paretoscope.demo.recipe import DemoRecipe
from paretoscope.errors import ParetoscopeError

Log = Callable[[str], None]


@dataclass
class Step:
    """One unit of the build: what it makes, its settings, how to run or adopt it."""

    id: str
    kind: str
    name: str  # the artefact's name ("manifest" for the manifest)
    outputs: tuple[Path, ...]  # files whose presence says the step's artefact exists
    settings: Callable[[], dict[str, Any]]
    run: Callable[[], dict[str, Any]]  # returns details recorded in the ledger
    growable: frozenset[str] = frozenset()  # settings that may change: the step is redone
    adopt: Callable[[dict[str, Any]], dict[str, Any] | None] | None = None
    env_id: str | None = None  # the env the artefact belongs to (None: the manifest)


class DemoBuild:
    """One recipe built into one output folder: the context every step works in."""

    def __init__(
        self,
        out: Path,
        recipe: DemoRecipe,
        progress: bool = True,
        log: Log = print,
    ) -> None:
        self.out = out
        self.recipe = recipe
        self.progress = progress
        self.log = log
        self.ledger = Ledger.open(out)

    # paths
    def agent_dir(self, name: str) -> Path:
        return self.out / AGENTS_DIR / name

    def dataset_dir(self, name: str) -> Path:
        return self.out / DATASETS_DIR / name

    @property
    def results_dir(self) -> Path:
        return self.out / RESULTS_DIR

    def display(self, path: Path) -> str:
        """A path as the command lines show it: under ``assets/`` for the bundled demo."""
        try:
            relative = path.resolve().relative_to(self.out.resolve())
        except ValueError:
            return str(path)
        root = "assets" if self.out.resolve() == bundled_assets_dir() else str(self.out)
        return str(Path(root) / relative)

    # fingerprints of finished upstream artefacts
    def agent_fingerprint(self, name: str, needed_by: str) -> str:
        from paretoscope.agents import load
        from paretoscope.agents.base import agent_fingerprint

        folder = self.agent_dir(name)
        if not (folder / "config.json").is_file():
            raise ParetoscopeError(
                f"{needed_by} needs the agent {folder}, which is not built yet; run "
                "`paretoscope demo build` without --steps (or with the earlier steps) first"
            )
        return agent_fingerprint(load(folder))

    def dataset_fingerprint(self, name: str, needed_by: str) -> str:
        from paretoscope.data.sources import open_dataset
        from paretoscope.train.offline import dataset_fingerprint

        folder = self.dataset_dir(name)
        if not (folder / "paretoscope-dataset.json").is_file():
            raise ParetoscopeError(
                f"{needed_by} needs the dataset {folder}, which is not built yet; run "
                "`paretoscope demo build` without --steps (or with the datasets step) first"
            )
        return dataset_fingerprint(open_dataset(folder))


@contextlib.contextmanager
def torch_threads(count: int) -> Iterator[None]:
    """Run the block with `count` torch intra-op threads."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(count)
    try:
        yield
    finally:
        torch.set_num_threads(before)
