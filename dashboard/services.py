"""What the pages compute, without Streamlit: agents, sweeps, rendered rollouts, replays, tours.

Every expensive result is kept so that the same inputs never cost twice:
- sweeps go through a `LayeredStore`: the assets' precomputed results first (read only), then
  a writable cache store that receives whatever had to be computed;
- rendered episodes are `RolloutRecording`s in a `RolloutLibrary`: memory (most recent first),
  then the assets' ``rollouts/`` and the cache's, keyed by plain values (`rollout_key`).
The Streamlit layer (`dashboard.ui`) holds one library and one store per process.
"""

from __future__ import annotations

import contextlib
import copy
import os
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd

from core.agents.base import Agent, AgentSpec, Conditioning
from core.assets import (
    AgentAsset,
    RolloutRecording,
    SweepPlan,
    read_recording,
    rollout_key,
    write_recording,
)
from core.envs import get_spec
from core.errors import ParetoscopeError
from core.results_store import ResultsStore
from dashboard.limits import video_cache_bytes
from dashboard.pool import WaitCallback, shared_pool

CACHE_ENV_VAR = "PARETOSCOPE_CACHE"
VIDEO_SIZES = (240, 320, 480, 640)
DEFAULT_VIDEO_SIZE = 320


def cache_dir() -> Path:
    """Where computed sweeps and videos are kept: `$PARETOSCOPE_CACHE`, else
    ``~/.cache/paretoscope``."""
    override = os.environ.get(CACHE_ENV_VAR)
    if override:
        return Path(override).expanduser()
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "paretoscope"


# --- agents ---------------------------------------------------------------------------------------


@dataclass
class LoadedAgent:
    """An agent ready to act, what identifies its behaviour, and a lock: agents keep per-episode
    state, so one rollout or sweep at a time uses a given agent object. `borrow()` hands out
    the agent, or an identical copy when it is busy, so that viewers of one agent do not wait
    for each other (the rollout pool bounds how many copies there can be)."""

    agent: Agent
    fingerprint: str
    name: str
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _spares: list[Agent] = field(default_factory=list, repr=False)
    _spares_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def spec(self) -> AgentSpec:
        return self.agent.spec

    @property
    def return_conditioned(self) -> bool:
        return bool(self.agent.spec.conditioning.return_conditioned)

    @contextlib.contextmanager
    def borrow(self) -> Iterator[Agent]:
        """Exclusive use of this agent or of an idle copy of it (same weights, same actions)."""
        if self.lock.acquire(blocking=False):
            try:
                yield self.agent
            finally:
                self.lock.release()
            return
        with self._spares_lock:
            spare = self._spares.pop() if self._spares else None
        if spare is None:
            spare = self._copy()
        if spare is None:  # not copyable: wait for the agent itself
            with self.lock:
                yield self.agent
            return
        try:
            yield spare
        finally:
            with self._spares_lock:
                self._spares.append(spare)

    def _copy(self) -> Agent | None:
        # The agent may be mid-episode in another thread; copies reset before every episode.
        for _ in range(3):
            try:
                return copy.deepcopy(self.agent)
            except RuntimeError:  # its state changed while being copied: try again
                continue
            except Exception:  # noqa: BLE001 - an agent that cannot be copied is shared
                return None
        return None


def load_agent(
    asset: AgentAsset, env_id: str | None = None, peda_type: str | None = None
) -> LoadedAgent:
    """Load an agent asset (a PEDA checkpoint is imported with `env_id` and `peda_type`)."""
    from core.agents import load
    from core.evaluate import agent_fingerprint

    if asset.format == "peda":
        from core.agents.peda import import_peda, inspect_peda

        info = inspect_peda(asset.path)
        chosen_env = env_id or asset.env_id or info.env_guess
        chosen_type = peda_type or info.peda_type
        if chosen_env is None or chosen_type is None:
            raise ParetoscopeError(
                f"{asset.path.name}: say which env and PEDA type it is for "
                f"(candidates: {', '.join(info.env_candidates) or 'none'})"
            )
        agent: Agent = import_peda(asset.path, chosen_env, chosen_type)
    else:
        agent = load(asset.path)
    return LoadedAgent(agent=agent, fingerprint=agent_fingerprint(agent), name=asset.name)


# --- sweeps ---------------------------------------------------------------------------------------


class LayeredStore(ResultsStore):
    """Read from several stores (first wins per episode), write to the last, writable one."""

    def __init__(self, read_only: Sequence[ResultsStore], writable: ResultsStore) -> None:
        super().__init__(writable.root)
        self.read_only = list(read_only)
        self.writable = writable

    def read(self, env_id: str, keys: set[str] | None = None) -> pd.DataFrame:
        frames = []
        wanted = None if keys is None else set(keys)
        for store in [*self.read_only, self.writable]:
            frame = store.read(env_id, wanted)
            if len(frame):
                frames.append(frame)
                if wanted is not None:
                    wanted -= set(frame["episode_key"])
                    if not wanted:
                        break
        if not frames:
            return pd.DataFrame()
        table = pd.concat(frames, ignore_index=True)
        return table.drop_duplicates(subset="episode_key", keep="first").reset_index(drop=True)

    def write(self, env_id: str, rows: pd.DataFrame) -> Path:
        return self.writable.write(env_id, rows)


def make_store(results_dirs: Iterable[Path], cache: Path | None = None) -> LayeredStore:
    """The assets' result stores (read only) over the cache's (written)."""
    writable = ResultsStore((cache or cache_dir()) / "results")
    return LayeredStore([ResultsStore(folder) for folder in results_dirs], writable)


# Sweeps run one episode per agent call. Torch's batched matrix products differ from a single
# row's in the last bits, and the physics amplifies that, so an episode swept in a batch may not
# be the one the live view (one row) replays. One row at a time, a clicked point replays exactly.
SWEEP_BATCH_SIZE = 1


def sweep_horizon(plan: SweepPlan, env_id: str) -> int:
    spec = get_spec(env_id)
    return min(spec.horizon, plan.horizon) if plan.horizon else spec.horizon


def run_sweep(
    loaded: LoadedAgent,
    env_id: str,
    plan: SweepPlan,
    store: ResultsStore | None,
    preferences: np.ndarray | None = None,
    targets: np.ndarray | None = None,
) -> pd.DataFrame:
    """The agent's sweep for `plan` (or at `preferences`/`targets`), stored episodes reused."""
    from core.evaluate import sweep

    with loaded.borrow() as agent:
        return sweep(
            agent,
            env_id,
            preferences=preferences,
            granularity=None if preferences is not None else plan.granularity,
            seeds=list(plan.seeds),
            targets=targets,
            horizon=sweep_horizon(plan, env_id),
            store=store,
            agent_id=loaded.name,
            workers=1,
            batch_size=SWEEP_BATCH_SIZE,
            progress=False,
        )


def objective_arrays(table: pd.DataFrame, env_id: str) -> dict[str, np.ndarray]:
    """preferences, targets, returns (N, n_obj) and seeds (N,) from a sweep table."""
    from core.evaluate import objective_columns

    spec = get_spec(env_id)
    if len(table) == 0:
        empty = np.zeros((0, spec.n_obj))
        return {
            "preferences": empty,
            "targets": empty,
            "returns": empty,
            "seeds": np.zeros(0, dtype=int),
            "explicit": np.zeros(0, dtype=bool),
        }
    explicit = (
        table["explicit_target"].to_numpy(dtype=bool)
        if "explicit_target" in table
        else np.zeros(len(table), dtype=bool)
    )
    return {
        "preferences": table[objective_columns("preference", spec)].to_numpy(dtype=np.float64),
        "targets": table[objective_columns("target", spec)].to_numpy(dtype=np.float64),
        "returns": table[objective_columns("return", spec)].to_numpy(dtype=np.float64),
        "seeds": table["seed"].to_numpy(dtype=np.int64),
        "explicit": explicit,
    }


# --- rendered rollouts ----------------------------------------------------------------------------


@dataclass(frozen=True)
class RolloutRequest:
    """One rendered episode: who, where, at which preference/target/seed, how big."""

    fingerprint: str
    env_id: str
    preference: tuple[float, ...]
    target: tuple[float, ...] | None
    seed: int
    size: int
    horizon: int
    every: int

    def key(self) -> str:
        return rollout_key(
            self.fingerprint,
            self.env_id,
            self.preference,
            self.target,
            self.seed,
            (self.size, self.size),
            self.horizon,
            extra=f"every={self.every}",
        )


def recording_bytes(recording: RolloutRecording) -> int:
    """Memory a recording holds: its video, its reward table and a little bookkeeping."""
    return len(recording.video) + int(np.asarray(recording.rewards).nbytes) + 1024


class RolloutLibrary:
    """Finished recordings: an in-memory LRU bounded in entries and in bytes, then the folders
    (assets first, cache last). Memory stays under `capacity_bytes` however many viewers
    there are (default: `dashboard.limits.video_cache_bytes`)."""

    def __init__(
        self,
        read_dirs: Sequence[Path],
        write_dir: Path | None,
        capacity: int = 64,
        capacity_bytes: int | None = None,
    ) -> None:
        self.read_dirs = list(read_dirs)
        self.write_dir = write_dir
        self.capacity = capacity
        self.capacity_bytes = video_cache_bytes() if capacity_bytes is None else capacity_bytes
        self._memory: OrderedDict[str, RolloutRecording] = OrderedDict()
        self._bytes = 0
        self._lock = threading.Lock()

    @property
    def memory_bytes(self) -> int:
        """Bytes of recordings held in memory now."""
        with self._lock:
            return self._bytes

    def get(self, key: str) -> RolloutRecording | None:
        with self._lock:
            found = self._memory.get(key)
            if found is not None:
                self._memory.move_to_end(key)
                return found
        folders = [*self.read_dirs, *([self.write_dir] if self.write_dir else [])]
        found = read_recording(folders, key)
        if found is not None:
            self._remember(key, found)
        return found

    def put(self, key: str, recording: RolloutRecording) -> None:
        """Keep `recording`; on disk too when it has a video (a video-less stand-in made while
        rendering was unavailable stays in memory only)."""
        self._remember(key, recording)
        if self.write_dir is not None and recording.video:
            with contextlib.suppress(ParetoscopeError, OSError):
                write_recording(self.write_dir, key, recording)

    def _remember(self, key: str, recording: RolloutRecording) -> None:
        size = recording_bytes(recording)
        with self._lock:
            old = self._memory.pop(key, None)
            if old is not None:
                self._bytes -= recording_bytes(old)
            if size > self.capacity_bytes:
                return  # bigger than the whole budget: served from disk only
            self._memory[key] = recording
            self._bytes += size
            while len(self._memory) > self.capacity or self._bytes > self.capacity_bytes:
                _, dropped = self._memory.popitem(last=False)
                self._bytes -= recording_bytes(dropped)


FrameCallback = Callable[[Any], None]


def record_rollout(
    loaded: LoadedAgent,
    request: RolloutRequest,
    on_frame: FrameCallback | None = None,
    on_wait: WaitCallback | None = None,
) -> RolloutRecording:
    """Render one episode, encoding the MP4 while it runs; `on_frame(frame_record)` sees each
    frame as it comes (to show it). Runs in a slot of the server's rollout pool, waiting in
    line (`on_wait(ahead)`) when all are busy. An episode whose action or state stops being
    finite ends there, with the reason in ``meta["stopped"]``. Raises `RenderingUnavailable`
    if nothing can render."""
    from core.render import playback_fps, stream_frames
    from core.video import Mp4Encoder

    fps = playback_fps(request.env_id, request.every)
    cumulative: list[np.ndarray] = []
    steps: list[int] = []
    target = None if request.target is None else np.asarray(request.target)
    stopped = None
    with shared_pool().slot(on_wait), loaded.borrow() as agent, Mp4Encoder(fps) as encoder:
        frames = stream_frames(
            agent,
            request.env_id,
            np.asarray(request.preference),
            request.seed,
            target=target,
            every=request.every,
            size=(request.size, request.size),
            horizon=request.horizon,
        )
        with contextlib.closing(frames):
            for frame in frames:
                encoder.add(frame.frame)
                cumulative.append(np.asarray(frame.record.cumulative_return, dtype=np.float64))
                steps.append(int(frame.step))
                if frame.record.diverged:
                    stopped = divergence_message(frame.record)
                if on_frame is not None:
                    on_frame(frame)
        if not steps:
            raise ParetoscopeError(
                "the episode stopped at step 1: the agent's action was not a finite number "
                "(NaN or infinite)"
            )
        video = encoder.finish()
    n_obj = get_spec(request.env_id).n_obj
    totals = np.asarray(cumulative).reshape(-1, n_obj)
    # Per frame: the reward collected since the previous frame (every step when every == 1).
    increments = np.diff(totals, axis=0, prepend=np.zeros((1, n_obj)))
    return RolloutRecording(
        video=video,
        rewards=increments,
        fps=fps,
        meta={
            "agent": loaded.name,
            "env": request.env_id,
            "preference": list(request.preference),
            "target": None if request.target is None else list(request.target),
            "seed": request.seed,
            "every": request.every,
            "frame_steps": steps,
            **({"stopped": stopped} if stopped else {}),
        },
    )


def divergence_message(record: Any) -> str:
    """Why an episode stopped early on a non-finite value, for the page."""
    if not np.isfinite(np.asarray(record.action, dtype=np.float64)).all():
        what = "the agent's action was not a finite number (NaN or infinite)"
    else:
        what = "the simulation diverged (a state or reward was not finite)"
    return f"the episode stopped at step {int(record.step)}: {what}"


def frame_steps(recording: RolloutRecording) -> np.ndarray:
    """Env steps taken at each recorded frame (1-based)."""
    steps = recording.meta.get("frame_steps")
    if isinstance(steps, list) and len(steps) == recording.length:
        return np.asarray(steps, dtype=np.int64)
    every = int(recording.meta.get("every", 1))
    return np.arange(1, recording.length + 1, dtype=np.int64) * every


class Throttle:
    """True at most `rate` times a second (and always on the first call), for UI updates."""

    def __init__(self, rate: float) -> None:
        self.interval = 1.0 / rate
        self._last = -np.inf

    def ready(self) -> bool:
        now = time.perf_counter()
        if now - self._last >= self.interval:
            self._last = now
            return True
        return False


# --- replaying a dataset trajectory ---------------------------------------------------------------


class ReplayAgent:
    """Plays a stored action sequence open loop (row 0 only); ignores preference and target."""

    def __init__(self, env_id: str, actions: np.ndarray) -> None:
        spec = get_spec(env_id)
        self.actions = np.asarray(actions, dtype=np.float64).reshape(-1, spec.act_dim)
        self.spec = AgentSpec(
            env_id=env_id,
            n_obj=spec.n_obj,
            obs_dim=spec.obs_dim,
            act_dim=spec.act_dim,
            kind="policy_set",
            conditioning=Conditioning(
                preference_in_state=False, return_conditioned=False, vector_return=False
            ),
        )
        self._step = 0
        self.fingerprint = "replay"

    def reset(self, batch_size: int) -> None:
        if batch_size != 1:
            raise ParetoscopeError("a replay plays one trajectory at a time")
        self._step = 0

    def act(
        self, observations: np.ndarray, preferences: np.ndarray, targets: np.ndarray
    ) -> np.ndarray:
        index = min(self._step, len(self.actions) - 1)
        self._step += 1
        return self.actions[index][None, :].copy()

    def initial_target(self, preferences: np.ndarray) -> np.ndarray:
        return np.zeros_like(np.asarray(preferences, dtype=np.float64))


def trajectory_env_seed(info: Any, preference: np.ndarray) -> int | None:
    """The env seed a paretoscope collection used for the episode with `preference`, or None
    (D4MORL files and other sources do not record their reset states)."""
    extra = getattr(info, "extra", {}) or {}
    if "seed" not in extra or "episodes_requested" not in extra:
        return None
    try:
        from core.data import episode_plan

        preferences, env_seeds, _ = episode_plan(
            int(extra["seed"]),
            int(extra["episodes_requested"]),
            info.n_obj,
            info.preference_distribution or "uniform",
            extra.get("preference_bounds"),
        )
    except (ParetoscopeError, ValueError, TypeError, KeyError):
        return None
    matches = np.flatnonzero((np.abs(preferences - preference[None, :]) < 1e-12).all(axis=1))
    return int(env_seeds[matches[0]]) if len(matches) else None


# --- the tour -------------------------------------------------------------------------------------


def tour_frames(
    loaded: LoadedAgent,
    env_id: str,
    stops: np.ndarray,
    stop_returns: np.ndarray,
    panel: Any,
    seed: int,
    size: int,
    steps_per_stop: int,
    every: int,
    move_fraction: float = 0.3,
    on_wait: WaitCallback | None = None,
) -> Iterator[np.ndarray]:
    """The tour: for each stop, the first `steps_per_stop` steps of its episode, beside the
    front panel with the point gliding from the previous stop's return to this one's."""
    from core.render import caption_lines, stream_frames
    from core.video import draw_caption, tile_frames

    spec = get_spec(env_id)
    frames_per_stop = max(1, -(-steps_per_stop // every))
    moving = max(1, int(frames_per_stop * move_fraction))
    previous = stop_returns[0]
    trail: list[np.ndarray] = []
    for index, preference in enumerate(stops):
        destination = stop_returns[index]
        with shared_pool().slot(on_wait), loaded.borrow() as agent:
            frames = stream_frames(
                agent,
                env_id,
                preference,
                seed,
                every=every,
                size=(size, size),
                horizon=steps_per_stop,
            )
            with contextlib.closing(frames):
                for count, frame in enumerate(frames):
                    fraction = min(1.0, (count + 1) / moving)
                    point = previous + (destination - previous) * fraction
                    lines = caption_lines(spec, frame)
                    rollout = draw_caption(frame.frame, lines)
                    yield tile_frames([rollout, panel.draw(point, trail)], gap=0)
        trail.append(np.asarray(destination, dtype=np.float64))
        previous = destination


def record_returns_only(
    loaded: LoadedAgent,
    request: RolloutRequest,
    why: str,
    on_wait: WaitCallback | None = None,
) -> RolloutRecording:
    """The episode's rewards without a video (rendering unavailable): the front still gets its
    point and the chart its curves."""
    from core.rollout import stream_rollout

    n_obj = get_spec(request.env_id).n_obj
    totals: list[np.ndarray] = []
    steps: list[int] = []
    target = None if request.target is None else np.asarray(request.target)
    stopped = None
    with shared_pool().slot(on_wait), loaded.borrow() as agent:
        for record in stream_rollout(
            agent,
            request.env_id,
            np.asarray(request.preference),
            request.seed,
            target,
            request.horizon,
        ):
            totals.append(np.asarray(record.cumulative_return, dtype=np.float64))
            steps.append(int(record.step))
            if record.diverged:
                stopped = divergence_message(record)
    cumulative = np.asarray(totals).reshape(-1, n_obj)
    return RolloutRecording(
        video=b"",
        rewards=np.diff(cumulative, axis=0, prepend=np.zeros((1, n_obj))),
        fps=1.0,
        meta={
            "why": why,
            "frame_steps": steps,
            "every": 1,
            **({"stopped": stopped} if stopped else {}),
        },
    )
