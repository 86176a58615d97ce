"""`paretoscope.pacing.priority`: a thread lowers its own priority, and no other thread's."""

from __future__ import annotations

import os
import sys
import threading

import pytest

from paretoscope.pacing.priority import lower_this_thread

pytestmark = pytest.mark.skipif(sys.platform != "linux", reason="threads are niced on Linux")


def niceness_of_a_thread_that(action) -> int:  # noqa: ANN001 - a callable run in the thread
    seen: list[int] = []

    def body() -> None:
        action()
        seen.append(os.getpriority(os.PRIO_PROCESS, threading.get_native_id()))

    thread = threading.Thread(target=body)
    thread.start()
    thread.join()
    return seen[0]


def test_a_thread_lowers_itself_and_leaves_the_others() -> None:
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
    lowered = niceness_of_a_thread_that(lambda: lower_this_thread(before + 5))
    assert lowered == before + 5
    assert os.getpriority(os.PRIO_PROCESS, threading.get_native_id()) == before
    assert niceness_of_a_thread_that(lambda: None) == before


def test_a_lower_niceness_asked_later_changes_nothing() -> None:
    before = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())

    def twice() -> None:
        lower_this_thread(before + 7)
        lower_this_thread(before + 2)

    assert niceness_of_a_thread_that(twice) == before + 7


# Draws HalfCheetah frames in a thread niced below the process's own priority (to the
# streaming niceness, or further when the test process itself already runs niced) and prints
# the CPU seconds the process's threads spent meanwhile at the process's niceness and at the
# drawing thread's (from /proc: the OS's own accounting), or "niced" when no lower one is left.
_DRAW_NICED = """
import os, sys, threading
from paretoscope.pacing import priority
if sys.argv[1] == "calling":
    priority.draw_in_calling_threads()
from paretoscope.envs import get_spec, make_env
from paretoscope.render.renderer import FrameRenderer

own = os.getpriority(os.PRIO_PROCESS, threading.get_native_id())
drawing = min(max(priority.STREAMING_NICENESS, own + 5), 19)
if drawing == own:
    print("niced")
    sys.exit()

def cpu_by_task():
    ticks = os.sysconf("SC_CLK_TCK")
    found = {}
    for task in os.listdir("/proc/self/task"):
        fields = open(f"/proc/self/task/{task}/stat").read().rsplit(")", 1)[1].split()
        found[task] = ((int(fields[11]) + int(fields[12])) / ticks, int(fields[16]))
    return found

env = make_env("MO-HalfCheetah-v2")
env.reset(seed=0)
renderer = FrameRenderer(env.unwrapped.model, get_spec("MO-HalfCheetah-v2").camera, (320, 320))
renderer.render(env.unwrapped.data)  # made here, at the process's niceness, as the server does
before = cpu_by_task()

after = {}

def draw():
    priority.lower_this_thread(drawing)
    for _ in range(60):
        renderer.render(env.unwrapped.data)
    after.update(cpu_by_task())  # while this thread is still listed

thread = threading.Thread(target=draw)
thread.start()
thread.join()
by_niceness = {}
for task, (seconds, niceness) in after.items():
    spent = seconds - before.get(task, (0.0, niceness))[0]
    by_niceness[niceness] = by_niceness.get(niceness, 0.0) + spent
print(by_niceness.get(own, 0.0), by_niceness.get(drawing, 0.0))
"""


def _cpu_while_drawing(mode: str) -> tuple[float, float]:
    """CPU seconds spent at the process's niceness and at the drawing thread's."""
    import subprocess

    environment = {k: v for k, v in os.environ.items() if k != "LP_NUM_THREADS"}
    done = subprocess.run(
        [sys.executable, "-c", _DRAW_NICED, mode],
        capture_output=True,
        text=True,
        env=environment,
        timeout=120,
        check=True,
    )
    if done.stdout.strip() == "niced":
        pytest.skip("the tests run at niceness 19: no lower priority is left to draw at")
    at_own, at_drawing = (float(value) for value in done.stdout.split())
    return at_own, at_drawing


@pytest.mark.slow
def test_a_niced_thread_s_pictures_are_drawn_at_its_niceness() -> None:
    """With software OpenGL, the dashboard's setting keeps a niced stream's drawing niced."""
    at_own, at_drawing = _cpu_while_drawing("calling")
    assert at_drawing > 0.05, "the frames were drawn"
    assert at_own <= 0.1 * (at_own + at_drawing), (at_own, at_drawing)


@pytest.mark.slow
def test_software_opengl_s_own_threads_draw_at_the_process_s_niceness_without_the_setting() -> None:
    """The control: what `draw_in_calling_threads` prevents (llvmpipe's threads drawing)."""
    at_own, at_drawing = _cpu_while_drawing("default")
    if at_own == 0.0:
        pytest.skip("this OpenGL draws in the calling thread anyway (not Mesa's llvmpipe)")
    assert at_own > 0.3 * (at_own + at_drawing), (at_own, at_drawing)
