"""The settings of a demo build (`paretoscope.demo.build_demo`, `paretoscope demo build`)."""

from __future__ import annotations

from dataclasses import dataclass

from paretoscope.settings.fields import frozen, setting


@dataclass(frozen=True)
class DemoBuildSettings:
    """Which steps of the recipe a build runs, and for which envs (everything by default)."""

    steps: tuple[str, ...] | None = setting(
        None,
        "only these steps: behaviour datasets agents sweeps manifest (default: all)",
        metavar="STEP",
        several=True,
    )
    envs: tuple[str, ...] | None = setting(
        None,
        "only this env's artefacts (repeatable; default: every env of the recipe)",
        option="--env",
        metavar="ID",
        repeat=True,
    )

    def __post_init__(self) -> None:
        for name in ("steps", "envs"):
            object.__setattr__(self, name, frozen(getattr(self, name)))
