"""`D4MORLEnv`: a gymnasium environment with a vector reward (MO-Gymnasium convention).

- ``step`` returns the reward vector as float32 of shape (n_obj,), in the registry's objective
  order; ``reward_space`` is a Box of that shape with the per-step bounds where they are finite.
- Observations are float64 (MuJoCo's own precision, as in the D4MORL files).
- The environment counts its own steps: ``truncated`` is True on step ``spec.horizon`` (500),
  so no TimeLimit wrapper is needed (or wanted: it would truncate a second time).
- ``render_mode="rgb_array"`` renders from the spec's tracking camera (a minimal renderer).
"""

from __future__ import annotations

from typing import Any

import gymnasium as gym
import mujoco
import numpy as np
from gymnasium import spaces

from paretoscope.envs.d4morl.physics import D4MORLPhysics
from paretoscope.envs.spec import EnvSpec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly, listed

RENDER_MODES = ("rgb_array",)


class D4MORLEnv(gym.Env[np.ndarray, np.ndarray]):
    """One of the six D4MORL tasks of the PEDA paper, on today's MuJoCo."""

    metadata: dict[str, Any] = {"render_modes": list(RENDER_MODES)}

    def __init__(
        self,
        spec: EnvSpec,
        render_mode: str | None = None,
        width: int = 480,
        height: int = 480,
    ) -> None:
        if render_mode is not None and render_mode not in RENDER_MODES:
            raise ParetoscopeError(
                f"render_mode {briefly(render_mode)} is not supported by {spec.id}; "
                f"use None or one of {RENDER_MODES}"
            )
        if width <= 0 or height <= 0:
            raise ParetoscopeError(f"render size must be positive, got {width}x{height}")
        self.env_spec = spec  # paretoscope's spec (gymnasium's own `spec` attribute stays None)
        self.physics = D4MORLPhysics(spec)
        self.model = self.physics.model
        self.data = self.physics.make_data()
        self.render_mode = render_mode
        self.width, self.height = width, height
        self.metadata = {"render_modes": list(RENDER_MODES), "render_fps": round(1.0 / spec.dt)}

        self.observation_space = spaces.Box(-np.inf, np.inf, (spec.obs_dim,), np.float64)
        self.action_space = spaces.Box(
            np.array(spec.action_low, dtype=np.float32),
            np.array(spec.action_high, dtype=np.float32),
            dtype=np.float32,
        )
        task = self.physics.task
        self.reward_space = spaces.Box(
            np.array(task.reward_low, dtype=np.float32),
            np.array(task.reward_high, dtype=np.float32),
            dtype=np.float32,
        )
        self.reward_dim = spec.n_obj
        self.horizon = spec.horizon
        self.elapsed_steps: int | None = None  # None until the first reset
        self._renderer: mujoco.Renderer | None = None

    @property
    def dt(self) -> float:
        """Duration of one env step in seconds."""
        return self.physics.dt

    def reset(
        self, *, seed: int | None = None, options: dict[str, Any] | None = None
    ) -> tuple[np.ndarray, dict[str, Any]]:
        """Initial state plus ~1e-3 noise (`D4MORLPhysics.reset_data`) drawn from `np_random`."""
        super().reset(seed=seed)
        self.physics.reset_data(self.data, self.np_random)
        self.elapsed_steps = 0
        return self._observation(), self._state_info()

    def step(self, action: np.ndarray) -> tuple[np.ndarray, np.ndarray, bool, bool, dict[str, Any]]:
        """Clip `action` to the bounds, advance one env step; the reward is a float32 vector."""
        if self.elapsed_steps is None:
            raise ParetoscopeError(f"{self.env_spec.id}: call reset() before step()")
        action = np.asarray(action, dtype=np.float64)
        if action.shape != (self.env_spec.act_dim,):
            raise ParetoscopeError(
                f"{self.env_spec.id}: action must have shape ({self.env_spec.act_dim},), "
                f"got {action.shape}"
            )
        if not np.all(np.isfinite(action)):
            raise ParetoscopeError(f"{self.env_spec.id}: action has NaN or inf: {action}")
        outcome = self.physics.step_data(self.data, action)
        self.elapsed_steps += 1
        truncated = self.elapsed_steps >= self.horizon
        return (
            outcome.observation,
            outcome.rewards.astype(np.float32),
            outcome.terminated,
            truncated,
            outcome.info,
        )

    def set_state(self, qpos: np.ndarray, qvel: np.ndarray) -> None:
        """Put the simulation in state (qpos, qvel) exactly (to replay or test a situation)."""
        qpos, qvel = np.asarray(qpos, dtype=np.float64), np.asarray(qvel, dtype=np.float64)
        if qpos.shape != (self.model.nq,) or qvel.shape != (self.model.nv,):
            raise ParetoscopeError(
                f"{self.env_spec.id}: state must be qpos ({self.model.nq},) and qvel "
                f"({self.model.nv},), got {qpos.shape} and {qvel.shape}"
            )
        # Clear everything else (solver warm start, controls) so that the next step depends on
        # (qpos, qvel) alone, not on the steps taken before; the clock keeps running.
        time = self.data.time
        mujoco.mj_resetData(self.model, self.data)
        self.data.time = time
        self.data.qpos[:] = qpos
        self.data.qvel[:] = qvel
        mujoco.mj_forward(self.model, self.data)

    def _observation(self) -> np.ndarray:
        return self.physics.observation(self.data.qpos.copy(), self.data.qvel.copy())

    def _state_info(self) -> dict[str, Any]:
        return {"x_position": float(self.data.qpos[0])}

    def render(self) -> np.ndarray | None:
        """An RGB frame (height, width, 3) from the spec's tracking camera, or None."""
        if self.render_mode is None:
            return None
        if self._renderer is None:
            self._renderer = mujoco.Renderer(self.model, height=self.height, width=self.width)
        camera_spec = self.env_spec.camera
        assert camera_spec is not None  # every D4MORL spec has its tracking camera
        body_id = mujoco.mj_name2id(self.model, mujoco.mjtObj.mjOBJ_BODY, camera_spec.body)
        if body_id < 0:
            raise ParetoscopeError(f"camera body {camera_spec.body!r} not in {self.env_spec.id}")
        camera = mujoco.MjvCamera()
        camera.type = mujoco.mjtCamera.mjCAMERA_FREE
        camera.distance = camera_spec.distance
        camera.elevation = camera_spec.elevation
        camera.azimuth = camera_spec.azimuth
        camera.lookat[:] = self.data.xpos[body_id] + np.array([0.0, 0.0, camera_spec.lookat_height])
        self._renderer.update_scene(self.data, camera=camera)
        return self._renderer.render()

    def close(self) -> None:
        """Release the renderer (if one was made)."""
        if self._renderer is not None:
            self._renderer.close()
            self._renderer = None


def make_d4morl_env(spec: EnvSpec, render_mode: str | None = None, **kwargs: Any) -> D4MORLEnv:
    """Build the D4MORL environment described by `spec` (called by `paretoscope.envs.make_env`).

    Accepted keyword arguments: ``width`` and ``height`` of rendered frames (default 480).
    """
    if spec.family != "d4morl":
        raise ParetoscopeError(
            f"{briefly(spec.id)} is a {spec.family} environment, not a D4MORL one"
        )
    unknown = set(kwargs) - {"width", "height"}
    if unknown:
        raise ParetoscopeError(
            f"{spec.id}: unknown option(s) {listed(sorted(unknown))}; accepted: width, height"
        )
    return D4MORLEnv(spec, render_mode=render_mode, **kwargs)
