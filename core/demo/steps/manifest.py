"""The manifest step: manifest.json and README.md, written from the recipe and the ledger
(`paretoscope.demo.manifest`), redone whenever a step they describe changed."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from paretoscope.catalog import MANIFEST_FILE
from paretoscope.demo.build import DemoBuild, Step
from paretoscope.demo.manifest import README_FILE, write_demo_manifest


def manifest_step(build: DemoBuild) -> Step:
    recipe = build.recipe

    def settings() -> dict[str, Any]:
        return {
            "recipe": recipe.name,
            "title": recipe.title,
            "description": recipe.description,
            "targets": asdict(recipe.targets),
            "opening": [recipe.opening_agent, recipe.opening_preference],
            # A step rebuilt with the same settings (new figures) is a change too.
            "steps": {
                step_id: [entry.get("settings_hash"), entry.get("finished")]
                for step_id, entry in sorted(build.ledger.steps.items())
                if not step_id.startswith("manifest")
            },
        }

    def run() -> dict[str, Any]:
        write_demo_manifest(build)
        return {}

    return Step(
        id="manifest",
        kind="manifest",
        name="manifest",
        outputs=(build.out / MANIFEST_FILE, build.out / README_FILE),
        settings=settings,
        run=run,
        growable=frozenset({"steps", "title", "description", "targets", "recipe", "opening"}),
    )
