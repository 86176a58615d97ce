"""The bundled demo: its recipe, the `paretoscope demo build` pipeline and its manifest."""

from paretoscope.demo.pipeline import STEP_KINDS, BuildReport, build_demo, demo_status
from paretoscope.demo.recipe import FULL, QUICK, RECIPES, DemoRecipe

__all__ = [
    "FULL",
    "QUICK",
    "RECIPES",
    "STEP_KINDS",
    "BuildReport",
    "DemoRecipe",
    "build_demo",
    "demo_status",
]
