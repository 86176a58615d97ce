"""Gymnasium's packaged MuJoCo models with the D4MORL physics edits applied through `MjSpec`.

The D4MORL tasks ran on PGMORL's copies of these models, which differ from Gymnasium's files in
a few parameters (docs/reference.md#physics, two of them found in PGMORL's XML files: Swimmer gears
300, Walker2d right-foot friction 0.9). The edits below change exactly those parameters and
nothing else, so a test can compare the compiled model field by field with the unedited one.

A "default" value in an XML ``<default>`` class is copied into each element when the file is
parsed, so changing ``spec.default`` afterwards changes nothing. An edit of a default value is
therefore applied to every element that still carries the old default value (in these files the
elements that set a value of their own, such as the root joints' zero damping, differ from it).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import mujoco
import numpy as np

from paretoscope.errors import ParetoscopeError

ModelEdit = Callable[[mujoco.MjSpec], None]


def gymnasium_assets_dir() -> Path:
    """The folder of MuJoCo XML files that ships with gymnasium."""
    import gymnasium

    return Path(gymnasium.__file__).resolve().parent / "envs" / "mujoco" / "assets"


def set_default_joint_damping(damping: float) -> ModelEdit:
    """An edit: joints that use the default class's damping get `damping` instead."""

    def edit(spec: mujoco.MjSpec) -> None:
        old = np.array(spec.default.joint.damping, dtype=float)
        for joint in spec.joints:
            if np.array_equal(np.asarray(joint.damping, dtype=float), old):
                joint.damping[0] = damping
        spec.default.joint.damping[0] = damping

    return edit


def set_default_geom_density(density: float) -> ModelEdit:
    """An edit: geoms that use the default class's density get `density` instead."""

    def edit(spec: mujoco.MjSpec) -> None:
        old = float(spec.default.geom.density)
        for geom in spec.geoms:
            if float(geom.density) == old:
                geom.density = density
        spec.default.geom.density = density

    return edit


def unlimit_joints(spec: mujoco.MjSpec) -> None:
    """An edit: no joint has a range limit."""
    for joint in spec.joints:
        joint.limited = mujoco.mjtLimited.mjLIMITED_FALSE
    spec.default.joint.limited = mujoco.mjtLimited.mjLIMITED_FALSE


def set_actuators(ctrl_bounds: Sequence[float], gears: Sequence[float]) -> ModelEdit:
    """An edit: actuator i gets control range ±ctrl_bounds[i] (limited) and gear gears[i]."""

    def edit(spec: mujoco.MjSpec) -> None:
        actuators = list(spec.actuators)
        if len(actuators) != len(ctrl_bounds) or len(actuators) != len(gears):
            raise ParetoscopeError(
                f"model has {len(actuators)} actuators, the edit expects {len(ctrl_bounds)}"
            )
        for actuator, bound, gear in zip(actuators, ctrl_bounds, gears, strict=True):
            actuator.ctrllimited = mujoco.mjtLimited.mjLIMITED_TRUE
            actuator.ctrlrange = [-bound, bound]
            actuator.gear[0] = gear

    return edit


def set_all_gears(gear: float) -> ModelEdit:
    """An edit: every actuator's gear becomes `gear` (ranges unchanged)."""

    def edit(spec: mujoco.MjSpec) -> None:
        for actuator in spec.actuators:
            actuator.gear[0] = gear

    return edit


def set_geom_friction(geom_name: str, sliding_friction: float) -> ModelEdit:
    """An edit: the named geom's sliding friction becomes `sliding_friction`."""

    def edit(spec: mujoco.MjSpec) -> None:
        geom = spec.geom(geom_name)
        if geom is None:
            raise ParetoscopeError(f"model has no geom named {geom_name!r}")
        geom.friction[0] = sliding_friction

    return edit


def compile_model(xml_file: str, edits: Sequence[ModelEdit] = ()) -> mujoco.MjModel:
    """Load gymnasium's `xml_file`, apply `edits` and compile.

    ``settotalmass`` (used by half_cheetah.xml, deprecated in MuJoCo 4) is applied after
    compilation with ``mj_setTotalmass`` + ``mj_setConst``, which gives a bit-identical model
    without the deprecation warning.
    """
    path = gymnasium_assets_dir() / xml_file
    if not path.is_file():
        raise ParetoscopeError(
            f"MuJoCo model file {path} not found; install gymnasium with its MuJoCo assets "
            "(pip install 'gymnasium[mujoco]')"
        )
    spec = mujoco.MjSpec.from_file(str(path))
    for edit in edits:
        edit(spec)
    total_mass = float(spec.compiler.settotalmass)
    if total_mass > 0:
        spec.compiler.settotalmass = -1.0
    model = spec.compile()
    if total_mass > 0:
        mujoco.mj_setTotalmass(model, total_mass)
        mujoco.mj_setConst(model, mujoco.MjData(model))
    return model
