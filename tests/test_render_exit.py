"""A process whose threads are still drawing when it exits ends well (exit status 0), not with
the segmentation fault software OpenGL gives when it is torn down under a drawing thread."""

from __future__ import annotations

import subprocess
import sys

import pytest

# A thread draws HalfCheetah frames without end; the main thread returns once one is drawn.
_DRAWS_TILL_EXIT = """
import sys, threading
from paretoscope.envs import get_spec, make_env
from paretoscope.render.exiting import ProcessExiting
from paretoscope.render.renderer import FrameRenderer

daemon = sys.argv[1] == "daemon"
drawn = threading.Event()

def draw():
    env = make_env("MO-HalfCheetah-v2")
    env.reset(seed=0)
    renderer = FrameRenderer(env.unwrapped.model, get_spec("MO-HalfCheetah-v2").camera, (64, 64))
    try:
        while True:
            renderer.render(env.unwrapped.data)
            drawn.set()
    except ProcessExiting:
        print("stopped drawing", flush=True)

threading.Thread(target=draw, daemon=daemon).start()
drawn.wait()
print("main done", flush=True)
"""


@pytest.mark.parametrize("kind", ["daemon", "joined"])
def test_a_thread_drawing_at_exit_does_not_crash_the_process(kind: str) -> None:
    # Without the guard, a daemon thread crashed this script every time (status -11).
    result = subprocess.run(
        [sys.executable, "-c", _DRAWS_TILL_EXIT, kind],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 0, result.stderr[-2000:]
    lines = result.stdout.splitlines()
    assert lines[0] == "main done"
    # A thread the interpreter joins is told to stop (so exit does not wait for it forever);
    # a daemon thread is left waiting where it would have drawn.
    assert lines[1:] == (["stopped drawing"] if kind == "joined" else [])
