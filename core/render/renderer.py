"""`FrameRenderer`: offscreen RGB frames of one MuJoCo model from an env's tracking camera.

One renderer owns one OpenGL context. An EGL context can be current in one thread only, and
Streamlit runs every rerun in a new thread, so the context is made current only for the length
of each call (creation, a frame, release) and released right after: several renderers in one
thread, or renderers in several threads at once, never draw into each other's buffers, closing
an old renderer cannot blank a newer one, and a renderer left behind by a finished thread can
still be released. A lock serialises the calls on one renderer. Create, use and close a
renderer in one thread all the same, with ``with``, so its release is deterministic.

`render(data)` is `draw(capture(data, scene))`: `capture` copies the state into an `MjvScene`
without GL, `draw` renders it; `RenderThread` runs the drawing in a thread of its own so that
the simulation, the policy and encoding go on meanwhile (MuJoCo releases the GIL while it
draws).
"""

from __future__ import annotations

import contextlib
import threading
from concurrent.futures import Future, ThreadPoolExecutor, wait
from dataclasses import dataclass
from typing import Any

import mujoco
import numpy as np

from paretoscope.envs.spec import CameraSpec
from paretoscope.errors import ParetoscopeError
from paretoscope.render.backend import (
    RenderingUnavailable,
    backend_failure_message,
    ensure_gl_backend,
    gl_context_class,
)
from paretoscope.render.exiting import ProcessExiting, drawing
from paretoscope.render.size import DEFAULT_SIZE, check_size


@dataclass(frozen=True)
class Floor:
    """One floor plane of a model: its geom id and its texture's period in metres (x, y)."""

    geom: int
    period: tuple[float, float]


def floors(model: mujoco.MjModel) -> tuple[Floor, ...]:
    """The model's planes with the distance after which their texture repeats: a shift of the
    plane by a whole period draws the same floor."""
    found = []
    for geom in np.flatnonzero(model.geom_type == mujoco.mjtGeom.mjGEOM_PLANE):
        material = int(model.geom_matid[geom])
        size = model.geom_size[geom, :2]
        if material < 0:
            period = (0.0, 0.0)  # one colour: any shift draws the same floor
        else:
            repeat = np.maximum(model.mat_texrepeat[material], 1e-9)
            # Uniform textures repeat `texrepeat` times a metre, others over the whole plane.
            tile = 1.0 / repeat if model.mat_texuniform[material] else 2.0 * size / repeat
            period = (float(tile[0]), float(tile[1]))
        found.append(Floor(int(geom), period))
    return tuple(found)


def follow(floor: Floor, lookat: np.ndarray) -> np.ndarray:
    """How far to move `floor` (x, y) so that it lies centred under `lookat`, in whole periods
    of its texture (so the squares stay where they are on the ground)."""
    shift = np.asarray(lookat[:2], dtype=np.float64).copy()
    for axis, period in enumerate(floor.period):
        if period > 0:
            shift[axis] = np.round(shift[axis] / period) * period
    return shift


class FrameRenderer:
    """Renders `MjData` of `model` as (height, width, 3) uint8 frames, camera tracking a body.

    `shadows` turns on shadows and reflections: prettier, 3-5x slower on a CPU (software GL).
    `smooth` keeps the model's multisample anti-aliasing (its offscreen samples, 4 by default);
    without it, edges show steps and a frame costs ~2.6x less CPU in software GL (320x320
    HalfCheetah on llvmpipe: 3.4 ms instead of 8.8 ms) — what a busy server's live streams
    draw. The model's offscreen buffer is enlarged if `size` needs it (a visual setting only).
    The floor is drawn under the tracked body wherever it runs.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        camera: CameraSpec,
        size: tuple[int, int] = DEFAULT_SIZE,
        shadows: bool = False,
        smooth: bool = True,
    ) -> None:
        self.width, self.height = check_size(size)
        self.shadows = shadows
        self._lock = threading.RLock()
        self._model = model
        # A plane is drawn only over its declared size (HalfCheetah's floor: 40 m each way)
        # though it collides everywhere: a fast robot would run off the picture's floor within
        # half an episode. The floor drawn moves with the camera instead (`follow`).
        self._floors = floors(model)
        self._gl_context: Any = None
        self._render_context: mujoco.MjrContext | None = None

        self._body_id = mujoco.mj_name2id(model, mujoco.mjtObj.mjOBJ_BODY, camera.body)
        if self._body_id < 0:
            raise ParetoscopeError(f"camera: body {camera.body!r} is not in the model")
        self._lookat_offset = np.array([0.0, 0.0, camera.lookat_height])
        self._camera = mujoco.MjvCamera()
        self._camera.type = mujoco.mjtCamera.mjCAMERA_FREE
        self._camera.distance = camera.distance
        self._camera.elevation = camera.elevation
        self._camera.azimuth = camera.azimuth

        backend = ensure_gl_backend()
        context_class = gl_context_class()
        visual = model.vis.global_
        visual.offwidth = max(int(visual.offwidth), self.width)
        visual.offheight = max(int(visual.offheight), self.height)
        # Without shadows the shadow map is never drawn, yet MuJoCo allocates it at the model's
        # size (4096² by default: 64 MB a renderer); a 1-pixel one leaves frames unchanged.
        shadow_size = int(model.vis.quality.shadowsize)
        if not shadows:
            model.vis.quality.shadowsize = 1
        # The context's framebuffers are made now, from these settings; the model keeps its own.
        samples = int(model.vis.quality.offsamples)
        if not smooth:
            model.vis.quality.offsamples = 0
        try:
            with drawing():
                self._gl_context = context_class(self.width, self.height)
                with self._gl_context.as_current():
                    self._render_context = mujoco.MjrContext(
                        model, mujoco.mjtFontScale.mjFONTSCALE_150
                    )
                    mujoco.mjr_setBuffer(mujoco.mjtFramebuffer.mjFB_OFFSCREEN, self._render_context)
        except ProcessExiting:
            self._release()
            raise
        except Exception as error:  # every GL stack fails differently; the user needs one message
            self._release()
            raise RenderingUnavailable(backend_failure_message(backend, error)) from error
        finally:
            model.vis.quality.shadowsize = shadow_size
            model.vis.quality.offsamples = samples

        self._option = mujoco.MjvOption()
        self._capture_lock = threading.Lock()
        self._scene = self.new_scene()
        self._viewport = mujoco.MjrRect(0, 0, self.width, self.height)
        self._pixels = np.empty((self.height, self.width, 3), dtype=np.uint8)

    def new_scene(self) -> mujoco.MjvScene:
        """An empty scene for `capture` and `draw`, with this renderer's shadow setting."""
        scene = mujoco.MjvScene(self._model, maxgeom=max(1000, 2 * self._model.ngeom))
        scene.flags[mujoco.mjtRndFlag.mjRND_SHADOW] = self.shadows
        scene.flags[mujoco.mjtRndFlag.mjRND_REFLECTION] = self.shadows
        return scene

    def capture(self, data: mujoco.MjData, scene: mujoco.MjvScene) -> mujoco.MjvScene:
        """Copy what the camera sees of `data` into `scene`; no GL, so any thread may call it.

        With `draw` in another thread, the simulation can move on while the scene is drawn.
        """
        with self._capture_lock:
            self._camera.lookat[:] = data.xpos[self._body_id] + self._lookat_offset
            mujoco.mjv_updateScene(
                self._model,
                data,
                self._option,
                None,
                self._camera,
                mujoco.mjtCatBit.mjCAT_ALL,
                scene,
            )
            if self._floors:
                self._move_floors(scene)
        return scene

    def _move_floors(self, scene: mujoco.MjvScene) -> None:
        """Centre each floor plane of `scene` under the camera, in whole texture periods."""
        by_geom = {floor.geom: floor for floor in self._floors}
        for index in range(scene.ngeom):
            drawn = scene.geoms[index]
            if drawn.objtype == mujoco.mjtObj.mjOBJ_GEOM and drawn.objid in by_geom:
                drawn.pos[:2] += follow(by_geom[drawn.objid], self._camera.lookat)

    def draw(self, scene: mujoco.MjvScene) -> np.ndarray:
        """A new (height, width, 3) uint8 frame of a captured scene."""
        with self._lock:
            if self._render_context is None:
                raise RuntimeError("FrameRenderer.render called after close")
            with drawing(), self._gl_context.as_current():
                mujoco.mjr_render(self._viewport, scene, self._render_context)
                mujoco.mjr_readPixels(self._pixels, None, self._viewport, self._render_context)
            # OpenGL's rows run bottom-up.
            return np.ascontiguousarray(self._pixels[::-1])

    def render(self, data: mujoco.MjData) -> np.ndarray:
        """A new (height, width, 3) uint8 frame of `data` (positions must be up to date)."""
        with self._lock:  # re-entrant: the shared scene stays ours until drawn
            return self.draw(self.capture(data, self._scene))

    def close(self) -> None:
        """Release the GL context now (idempotent)."""
        with self._lock:
            self._release()

    def _release(self) -> None:
        gl_context, render_context = self._gl_context, self._render_context
        self._gl_context = self._render_context = None
        if gl_context is None:
            return
        with drawing():
            if render_context is not None:
                # Its GL objects are deleted in its own context, never in whichever is current.
                with gl_context.as_current():
                    render_context.free()
            gl_context.free()

    def __enter__(self) -> FrameRenderer:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):  # never raise from a finaliser
            self.close()


class RenderThread:
    """A `FrameRenderer` that lives in a thread of its own: created, used and closed there.

    `submit(data)` captures the state at once (in the caller's thread) and draws it in the
    render thread; the caller collects the frame from the returned future when it needs it
    and meanwhile advances the simulation. Up to `depth` scenes are in flight.
    """

    def __init__(
        self,
        model: mujoco.MjModel,
        camera: CameraSpec,
        size: tuple[int, int] = DEFAULT_SIZE,
        shadows: bool = False,
        depth: int = 2,
        smooth: bool = True,
    ) -> None:
        self._executor: ThreadPoolExecutor | None = ThreadPoolExecutor(
            max_workers=1, thread_name_prefix="paretoscope-render"
        )
        try:
            self._renderer = self._executor.submit(
                FrameRenderer, model, camera, size, shadows, smooth
            ).result()
        except BaseException:
            self._executor.shutdown(wait=True)
            raise
        self._scenes = [self._renderer.new_scene() for _ in range(max(1, depth))]
        self._in_flight: list[Future[np.ndarray] | None] = [None] * len(self._scenes)
        self._next = 0

    def submit(self, data: mujoco.MjData) -> Future[np.ndarray]:
        """Capture `data` now and draw it in the render thread; the frame comes in the future."""
        slot = self._next
        self._next = (slot + 1) % len(self._scenes)
        previous = self._in_flight[slot]
        if previous is not None:
            wait([previous])  # its scene is about to be overwritten
        if self._executor is None:
            raise RuntimeError("RenderThread.submit called after close")
        scene = self._renderer.capture(data, self._scenes[slot])
        future = self._executor.submit(self._renderer.draw, scene)
        self._in_flight[slot] = future
        return future

    def close(self) -> None:
        """Release the renderer in its own thread, then end the thread (idempotent)."""
        if self._executor is None:
            return
        executor, self._executor = self._executor, None
        try:
            executor.submit(self._renderer.close).result()
        finally:
            executor.shutdown(wait=True)

    def __enter__(self) -> RenderThread:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()
