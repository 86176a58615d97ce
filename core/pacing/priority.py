"""Which of the server's threads the OS runs first when the cores are busy.

The server's work is not equally urgent. A viewer's move (its page run, and its new stream's
first frame) is what the viewer waits for; a stream that already plays only has to keep its
pace, a frame at a time; pre-rendering can wait for idle cycles. Under load, the OS shares the
cores by niceness, thread by thread on Linux (threads are scheduled as tasks): a playing stream
at `STREAMING_NICENESS` gets about a third of the CPU a page run gets while both want it, and
the whole of it while nothing else does.
"""

from __future__ import annotations

import contextlib
import os
import sys
import threading

# Niceness of a live stream's thread once its first frame is shown.
STREAMING_NICENESS = 5
# Niceness of idle work (pre-rendering).
IDLE_NICENESS = 19

# Mesa's software rasterizer (llvmpipe: EGL or OSMesa without a GPU) draws in worker threads of
# its own, made at niceness 0 whoever asks for the picture; with 0 workers it draws in the
# calling thread, so the picture is drawn at that thread's priority.
SOFTWARE_GL_THREADS = "LP_NUM_THREADS"


def draw_in_calling_threads() -> None:
    """Make software OpenGL draw in the thread that asks, so a stream's or pre-rendering's
    pictures run at that thread's niceness (llvmpipe's own threads would draw them at 0, ahead
    of the viewers' moves). Call before the first OpenGL context is made; a value the user set
    is kept. A drawing thread is ~35% slower alone (10.5 ms against 7.7 ms a 320-px HalfCheetah
    frame on two cores), which the server's several streams make up for."""
    os.environ.setdefault(SOFTWARE_GL_THREADS, "0")


def lower_this_thread(niceness: int) -> None:
    """Nice the calling thread alone to `niceness` (higher: less urgent). A thread can only
    lower its own priority, never raise it back without privileges: it stays so for its
    life, so only a thread that does one kind of work calls this. Linux only (elsewhere a
    thread's id is not a task the OS schedules); a no-op where it is refused."""
    if sys.platform != "linux":
        return
    thread = threading.get_native_id()
    with contextlib.suppress(OSError):
        if niceness > os.getpriority(os.PRIO_PROCESS, thread):
            os.setpriority(os.PRIO_PROCESS, thread, niceness)
