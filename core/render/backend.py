"""Which OpenGL backend renders offscreen: the one `MUJOCO_GL` names, else EGL, else OSMesa.

MuJoCo reads `MUJOCO_GL` once, when `mujoco` is first imported, to pick the GL context its own
`mujoco.Renderer` (and gymnasium's) will use. paretoscope's renderer instead imports the chosen
backend's context class itself (`mujoco.egl` or `mujoco.osmesa`), so it works whenever
`ensure_gl_backend()` is called; calling it before anything imports `mujoco` (the CLI and the
dashboard do so at start-up) also makes MuJoCo's own renderers and child processes agree.

When `MUJOCO_GL` is unset, each candidate is tried in a short subprocess (about 0.3 s) that
creates a context and a MuJoCo render context: a broken backend can only fail there, never
take this process down, and a backend whose PyOpenGL platform was loaded cannot be swapped
afterwards in the same process. This module does not import mujoco.
"""

from __future__ import annotations

import importlib
import os
import subprocess
import sys
import threading
from typing import Any

from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

# Tried in this order when MUJOCO_GL is unset: EGL is the fast path (GPU drivers and Mesa's
# software EGL); OSMesa is pure software and needs no device at all.
CANDIDATE_BACKENDS = ("egl", "osmesa")

# MUJOCO_GL values that MuJoCo accepts on Linux, and those that turn rendering off.
_DISPLAY_BACKENDS = ("glfw", "glx", "enable", "enabled", "on", "true", "1")
_OFF_VALUES = ("disable", "disabled", "off", "false", "0")

INSTALL_ADVICE = (
    "Offscreen rendering needs EGL or OSMesa. On Debian/Ubuntu install Mesa's software EGL "
    "(`apt-get install libegl1 libegl-mesa0 libgl1-mesa-dri`; an NVIDIA driver brings its own "
    "libEGL) or OSMesa (`apt-get install libosmesa6`), then restart; or set MUJOCO_GL=egl or "
    "MUJOCO_GL=osmesa to choose one."
)

_PROBE_SCRIPT = """
import importlib, sys
import mujoco
backend = importlib.import_module("mujoco." + sys.argv[1])
context = backend.GLContext(16, 16)
context.make_current()
model = mujoco.MjModel.from_xml_string("<mujoco><worldbody><geom size='1'/></worldbody></mujoco>")
render_context = mujoco.MjrContext(model, mujoco.mjtFontScale.mjFONTSCALE_100)
render_context.free()
context.free()
"""
_PROBE_TIMEOUT_S = 60.0


class RenderingUnavailable(ParetoscopeError):
    """Offscreen rendering cannot work here; the message says why and what to install.

    Everything else keeps working: the dashboard shows "video unavailable: <message>".
    """


_lock = threading.Lock()
_chosen_backend: str | None = None
_failure: str | None = None


def probe_backend(backend: str) -> str | None:
    """None if `backend` can render offscreen here (tried in a subprocess), else why not."""
    environment = dict(os.environ, MUJOCO_GL=backend)
    environment.pop("PYOPENGL_PLATFORM", None)
    try:
        completed = subprocess.run(
            [sys.executable, "-c", _PROBE_SCRIPT, backend],
            env=environment,
            capture_output=True,
            text=True,
            timeout=_PROBE_TIMEOUT_S,
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return f"{type(error).__name__}: {error}"
    if completed.returncode == 0:
        return None
    lines = [line.strip() for line in completed.stderr.splitlines() if line.strip()]
    return lines[-1] if lines else f"exit status {completed.returncode}"


def ensure_gl_backend() -> str:
    """The GL backend to render with, chosen once per process; sets MUJOCO_GL when unset.

    Raises `RenderingUnavailable` (naming what to install) when no backend works or when
    MUJOCO_GL turns rendering off or names no backend MuJoCo knows.
    """
    global _chosen_backend, _failure
    with _lock:
        if _chosen_backend is not None:
            return _chosen_backend
        if _failure is not None:
            raise RenderingUnavailable(_failure)
        requested = os.environ.get("MUJOCO_GL", "").strip().lower()
        if requested:
            problem = _requested_backend_problem(requested)
            if problem is not None:
                _failure = problem
                raise RenderingUnavailable(problem)
            _chosen_backend = requested
            return requested
        reasons = {}
        for backend in CANDIDATE_BACKENDS:
            reason = probe_backend(backend)
            if reason is None:
                os.environ["MUJOCO_GL"] = backend
                _chosen_backend = backend
                return backend
            reasons[backend] = reason
        tried = "; ".join(f"{name}: {reason}" for name, reason in reasons.items())
        _failure = f"rendering unavailable: no OpenGL backend works ({tried}). {INSTALL_ADVICE}"
        raise RenderingUnavailable(_failure)


def _requested_backend_problem(requested: str) -> str | None:
    """Why the MUJOCO_GL value the user set cannot render offscreen, or None if it may."""
    if requested in _OFF_VALUES:
        return (
            f"rendering unavailable: MUJOCO_GL={requested} turns rendering off. "
            "Unset it to let paretoscope choose, or set MUJOCO_GL=egl or MUJOCO_GL=osmesa."
        )
    if requested in CANDIDATE_BACKENDS:
        return None
    if requested in _DISPLAY_BACKENDS:
        if sys.platform.startswith("linux") and not (
            os.environ.get("DISPLAY") or os.environ.get("WAYLAND_DISPLAY")
        ):
            return (
                f"rendering unavailable: MUJOCO_GL={requested} needs a display and none is "
                "set (DISPLAY). Unset MUJOCO_GL to let paretoscope choose, or set "
                "MUJOCO_GL=egl or MUJOCO_GL=osmesa."
            )
        return None
    if requested in ("wgl", "cgl"):  # Windows and macOS contexts
        return None
    return (
        f"rendering unavailable: MUJOCO_GL={briefly(requested)} is not a backend MuJoCo knows; "
        "use egl or osmesa (headless) or glfw (with a display)."
    )


def gl_context_class() -> Any:
    """The GL context class of the chosen backend (imports its module, so mujoco too)."""
    backend = ensure_gl_backend()
    module_name = {"egl": "mujoco.egl", "osmesa": "mujoco.osmesa"}.get(backend)
    try:
        if module_name is not None:
            return importlib.import_module(module_name).GLContext
        import mujoco

        context_class = getattr(mujoco, "GLContext", None)
        if context_class is None:
            raise ImportError("mujoco has no GL context for this platform")
        return context_class
    except Exception as error:  # any import failure of a GL stack means the same to the user
        raise RenderingUnavailable(backend_failure_message(backend, error)) from error


def backend_failure_message(backend: str, error: BaseException) -> str:
    """One message for a backend that was chosen but failed to make a context."""
    detail = str(error).strip().splitlines()[0] if str(error).strip() else ""
    return (
        f"rendering unavailable: the {backend} OpenGL backend failed "
        f"({type(error).__name__}: {detail}). {INSTALL_ADVICE}"
    )


def one_policy_thread() -> None:
    """Let the policy compute on one torch thread, for processes that render (the dashboard's
    server, `paretoscope render`): a software renderer (llvmpipe) keeps the other cores busy,
    and torch's worker threads, spinning between operations, take them from it. Measured on 2
    cores (a 500-step HalfCheetah episode at 480x480): rollout + render + encode took 1.5x
    rendering alone with two torch threads, 1.0x with one. Rollouts already run in parallel
    as separate jobs, so a second intra-op thread buys nothing there.

    Call it in each thread that runs the policy: OpenMP keeps the thread count per thread, and
    MKL's GEMMs in a new thread would otherwise use all cores again (torch.get_num_threads()
    still says 1 there)."""
    import torch

    torch.set_num_threads(1)
