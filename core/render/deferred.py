"""Frames drawn later than their step: keep what a step looked like now, draw it when asked.

A paced live stream simulates ahead of what it shows (the simulation and the policy are cheap,
drawing is not), and may draw its frames out of order or twice (a late stream skips ahead; the
frames it skipped are drawn again for its video). So each frame step is *kept* as the
simulation passes it and *drawn* on demand:

- `StateFrames` (MuJoCo tasks): keeps the physics state (qpos, qvel, act: a few hundred bytes)
  and draws it by setting a scratch `MjData` to it and bringing its positions up to date
  (`mj_forward`), so any kept frame can be drawn at any time, in any order (`skippable`).
- `DrawnFrames` (envs that draw themselves): the env's picture can only be taken while the env
  is in that state, so keeping a step draws it at once and drawing returns that picture; such
  a stream cannot skip, and keeps only the pictures not yet shown.

Create, use and close a source in one thread (its GL context is made current per call).
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

import numpy as np

from paretoscope.envs import EnvSpec
from paretoscope.render.size import check_size
from paretoscope.rollout import StepRecord


class FrameSource(Protocol):
    skippable: bool  # whether kept frames can be drawn in any order

    def keep(self, record: StepRecord) -> Any:
        """What `draw` needs later of the step `record` (valid only now)."""
        ...

    def draw(self, kept: Any) -> np.ndarray:
        """The (height, width, 3) uint8 frame of a kept step."""
        ...

    def close(self) -> None: ...


class StateFrames:
    """MuJoCo frames from kept physics states, drawn by a warm renderer (`paretoscope.render.warm`)
    borrowed for each frame: the renderers a server makes are as many as the frames drawn at
    once (its rendering workers), not as many as its streams. Making one holds Python's lock
    for ~0.2 s (more on a busy machine), which stalled every other stream's frames and every
    page's messages while a room's new streams made theirs."""

    skippable = True

    def __init__(
        self,
        model: Any,
        spec: EnvSpec,
        size: tuple[int, int],
        warm: bool = True,
        smooth: bool = True,
    ) -> None:
        import mujoco

        from paretoscope.render.renderer import FrameRenderer

        self._mujoco = mujoco
        self._model = model
        self._spec = spec
        self._size = check_size(size)
        self._smooth = smooth  # anti-aliased (`FrameRenderer`)
        self._what = mujoco.mjtState.mjSTATE_PHYSICS
        self._length = mujoco.mj_stateSize(model, self._what)
        self._scratch = mujoco.MjData(model)
        self._lease = contextlib.ExitStack()
        self._own: Any = None
        if not warm:  # its own, made (with its GL threads) at this thread's OS priority
            assert spec.camera is not None
            self._own = self._lease.enter_context(
                FrameRenderer(model, spec.camera, self._size, smooth=smooth)
            )

    def keep(self, record: StepRecord) -> np.ndarray:
        state = np.empty(self._length)
        self._mujoco.mj_getState(self._model, record.data, state, self._what)
        return state

    def draw(self, kept: np.ndarray) -> np.ndarray:
        from paretoscope.render.warm import warm_renderers

        self._mujoco.mj_setState(self._model, self._scratch, kept, self._what)
        self._mujoco.mj_forward(self._model, self._scratch)
        if self._own is not None:
            return self._own.render(self._scratch)
        with warm_renderers().lend(
            self._model, self._spec, self._size, smooth=self._smooth
        ) as renderer:
            return renderer.render(self._scratch)

    def close(self) -> None:
        """Close the renderer of its own, if any."""
        self._lease.close()


class DrawnFrames:
    """Frames of an env that draws itself, taken as each step is kept."""

    skippable = False

    def __init__(self, env: Any, size: tuple[int, int]) -> None:
        from paretoscope.render.env_frames import EnvFrames

        self._frames = EnvFrames(env, check_size(size), own_aspect=True)

    def keep(self, record: StepRecord) -> np.ndarray:
        return self._frames.frame((f"step {record.step}", f"observation {record.observation}"))

    def draw(self, kept: np.ndarray) -> np.ndarray:
        return kept

    def close(self) -> None:
        pass


def frame_source(
    record: StepRecord,
    spec: EnvSpec,
    size: tuple[int, int],
    warm: bool = True,
    smooth: bool = True,
) -> FrameSource | None:
    """The source that draws the episode whose first frame step is `record` (None: this
    record has nothing to draw, e.g. the episode diverged before its first step); `warm`: a
    MuJoCo one borrows a warm renderer, else makes its own; `smooth`: a MuJoCo one draws
    anti-aliased (an env that draws itself draws as it does)."""
    if record.env is not None:
        return DrawnFrames(record.env, size)
    if record.model is not None and record.data is not None and spec.camera is not None:
        return StateFrames(record.model, spec, size, warm, smooth)
    return None
