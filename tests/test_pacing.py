"""The frame scheduler with a fake clock: first frames first, pacing, skipping when behind,
tasks and idle work in their place; and its thread adapter with real threads."""

from __future__ import annotations

import heapq
import threading
import time

import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.pacing.display import (
    LEAST,
    MOST,
    ROUGH_FROM,
    SHOWN_FRAMES_PER_SECOND,
    shown_rate,
    smooth_frames,
)
from paretoscope.pacing.gate import Cancelled, FrameGate
from paretoscope.pacing.scheduler import FrameScheduler, Grant, Kind
from tests.waiting import wait_until


class FakeClock:
    def __init__(self, now: float = 0.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def started(scheduler: FrameScheduler, key: str, fps: float = 20.0, frames: int = 500) -> None:
    """Open `key`, asking for frames up to `frames - 1`, and render its first frame."""
    scheduler.open(key, fps)
    scheduler.request(key, frames - 1, frames - 1)
    grant = scheduler.next_grant()
    assert grant == Grant(key, 0, Kind.LIVE)
    scheduler.finish(grant)


def test_a_new_streams_first_frame_comes_before_other_streams_next_frames() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=1, clock=clock, lead=0.5)
    started(scheduler, "a")
    scheduler.request("a", 499, 499)  # a has frames due 0.05 s, 0.10 s, ... within its lead
    clock.advance(0.2)  # a is now behind by three frames, yet b opened last
    scheduler.open("b", 20.0)
    scheduler.request("b", 499, 499)
    assert scheduler.next_grant() == Grant("b", 0, Kind.LIVE)
    # With b's first frame shown, a is next: the frame due earliest.
    scheduler.finish(Grant("b", 0, Kind.LIVE))
    scheduler.request("b", 499, 499)
    assert scheduler.next_grant() == Grant("a", 1, Kind.LIVE)


def test_a_stream_opened_mid_episode_starts_there_and_plays_on_from_it() -> None:
    """A resumed stream (`first`): nothing before its first frame is granted, not even while
    those frames are the only ones it can render; its playback runs from there."""
    clock = FakeClock()
    scheduler = FrameScheduler(workers=1, clock=clock, lead=0.0, thin=False)
    scheduler.open("resumed", 20.0, first=120)
    scheduler.request("resumed", 119)  # simulated up to 119 only: nothing to draw yet
    assert scheduler.next_grant() is None
    scheduler.request("resumed", 200)
    grant = scheduler.next_grant()
    assert grant == Grant("resumed", 120, Kind.LIVE)
    scheduler.finish(grant)
    assert scheduler.playing("resumed") == 120
    clock.advance(0.5)  # ten frames of playback later
    assert scheduler.playing("resumed") == 130
    with pytest.raises(ParetoscopeError, match="first"):
        scheduler.open("before the start", 20.0, first=-1)


def test_first_frames_are_served_oldest_request_first() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=1, clock=clock)
    for key in ("x", "y", "z"):
        scheduler.open(key, 20.0)
        clock.advance(0.01)
    for key in ("z", "x", "y"):  # the order they ask in does not matter
        scheduler.request(key, 10)
    served = []
    while (grant := scheduler.next_grant()) is not None:
        served.append(grant.key)
        scheduler.finish(grant)
    assert served == ["x", "y", "z"]


def test_a_stream_renders_at_most_lead_seconds_ahead_and_wakes_exactly_on_time() -> None:
    clock = FakeClock(100.0)
    scheduler = FrameScheduler(workers=2, clock=clock, lead=0.5)
    started(scheduler, "a", fps=20.0)
    rendered = [0]
    while True:
        scheduler.request("a", 499, 499)
        grant = scheduler.next_grant()
        if grant is None:
            break
        rendered.append(grant.index)
        scheduler.finish(grant)
    # Frame i is due at 100 + i / 20: frames 1..10 are within 0.5 s, frame 11 is not.
    assert rendered == list(range(11))
    assert scheduler.wake_at() == pytest.approx(100.0 + 11 / 20 - 0.5)
    clock.now = scheduler.wake_at() - 1e-6
    assert scheduler.next_grant() is None
    clock.now += 2e-6
    assert scheduler.next_grant() == Grant("a", 11, Kind.LIVE)


def test_a_late_stream_skips_to_the_frame_due_now_but_never_past_its_last_or_ready_frame() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=1, clock=clock, lead=0.5, late=0.25)
    started(scheduler, "a", fps=20.0, frames=100)
    clock.advance(0.2)  # frame 1 is 0.15 s late: within `late`, nothing is skipped
    scheduler.request("a", 99, 99)
    grant = scheduler.next_grant()
    assert grant == Grant("a", 1, Kind.LIVE)
    scheduler.finish(grant)
    clock.advance(1.0)  # now 1.2 s: frame 24 is due, frame 2 is 1.1 s late
    scheduler.request("a", 99, 99)
    grant = scheduler.next_grant()
    assert grant == Grant("a", 24, Kind.LIVE)
    scheduler.finish(grant)
    assert scheduler.skipped("a") == 22
    clock.advance(1.0)  # frame 44 is due, but the simulation has reached only frame 30
    scheduler.request("a", 30, None)
    grant = scheduler.next_grant()
    assert grant == Grant("a", 30, Kind.LIVE)
    scheduler.finish(grant)
    clock.advance(10.0)  # long past the end: the last frame is still shown
    scheduler.request("a", 99, 99)
    assert scheduler.next_grant() == Grant("a", 99, Kind.LIVE)


def test_a_stream_that_cannot_skip_gets_every_frame_in_order() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=1, clock=clock)
    scheduler.open("grid", 4.0, skippable=False)
    indices = []
    for _ in range(5):
        scheduler.request("grid", 99, 99)
        grant = scheduler.next_grant()
        assert grant is not None
        indices.append(grant.index)
        scheduler.finish(grant)
        clock.advance(5.0)  # far behind every time
    assert indices == [0, 1, 2, 3, 4] and scheduler.skipped("grid") == 0


def simulate(
    scheduler: FrameScheduler,
    clock: FakeClock,
    cost: float,
    until: float,
    frames: int = 500,
) -> dict[str, list[float]]:
    """Workers rendering each granted frame in `cost` seconds of fake time, every open stream
    asking again as soon as its frame is done; returns each stream's frame times."""
    shown: dict[str, list[float]] = {}
    busy: list[tuple[float, int, Grant]] = []  # (done at, tie-break, grant)
    counter = 0
    while clock.now < until:
        while (grant := scheduler.next_grant()) is not None:
            heapq.heappush(busy, (clock.now + cost, counter, grant))
            counter += 1
        wake = scheduler.wake_at()
        moments = [moment for moment in (wake, busy[0][0] if busy else None) if moment]
        if not moments:
            break
        clock.now = min(moments)
        while busy and busy[0][0] <= clock.now:
            _, _, grant = heapq.heappop(busy)
            scheduler.finish(grant)
            shown.setdefault(grant.key, []).append(clock.now)
            if scheduler.is_open(grant.key):
                scheduler.request(grant.key, frames - 1, frames - 1)
    return shown


def test_eight_streams_on_two_workers_degrade_to_fewer_frames_never_to_none() -> None:
    clock = FakeClock()
    # Drawing every frame (no thinning to the pages' rate): the workers fall behind.
    scheduler = FrameScheduler(workers=2, clock=clock, lead=0.5, thin=False)
    keys = [f"viewer-{index}" for index in range(8)]
    for key in keys:
        scheduler.open(key, 20.0)
        scheduler.request(key, 499, 499)
    # 8 x 20 frames/s asked of workers that render 2 / 0.025 = 80 frames/s.
    shown = simulate(scheduler, clock, cost=0.025, until=10.0)
    assert set(shown) == set(keys)
    for key in keys:
        times = shown[key]
        assert times[0] <= 8 * 0.025 / 2 + 1e-9  # every first frame within one round
        gaps = [later - earlier for earlier, later in zip([0.0, *times], times, strict=False)]
        assert max(gaps) < 1.0, key
        assert 5 * 10 <= len(times) <= 15 * 10  # about 10 frames/s each, fairly shared
        assert scheduler.skipped(key) > 0
    # The load falls: seven leave; the one left plays every frame at its own pace again.
    for key in keys[1:]:
        scheduler.close(key)
    skipped_before = scheduler.skipped(keys[0])
    start = clock.now
    shown = simulate(scheduler, clock, cost=0.025, until=start + 5.0)
    assert scheduler.skipped(keys[0]) - skipped_before <= 30  # catching up once, then none
    late = [moment for moment in shown[keys[0]] if moment > start + 2.0]
    assert len(late) == pytest.approx(3.0 * 20, abs=2)


def test_many_streams_draw_only_what_their_pages_show_and_every_frame_again_alone() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=2, clock=clock, lead=0.5)
    keys = [f"viewer-{index}" for index in range(8)]
    for key in keys:
        scheduler.open(key, 20.0)
        scheduler.request(key, 41, 41)
    # Eight pages show 36 / 8 = 4.5 frames/s each: a stream draws every floor(20 / 4.5) = 4th
    # frame, 40 frames/s in all of the 80 the workers could draw, so none falls behind.
    shown = simulate(scheduler, clock, cost=0.025, until=10.0, frames=42)
    for key in keys:
        assert len(shown[key]) == len(range(0, 41, 4)) + 1  # 0, 4, ..., 40, and the last, 41
        assert scheduler.skipped(key) == 0
        gaps = [later - earlier for earlier, later in zip(shown[key], shown[key][1:], strict=False)]
        assert max(gaps) <= 4 / 20 + 8 * 0.025 / 2 + 1e-9  # a frame every 0.2 s, give or take
    # Alone, a stream draws every frame again.
    for key in keys:
        scheduler.close(key)
    scheduler.open("alone", 20.0)
    scheduler.request("alone", 41, 41)
    start = clock.now
    shown = simulate(scheduler, clock, cost=0.025, until=start + 5.0, frames=42)
    assert len(shown["alone"]) == 42 and scheduler.skipped("alone") == 0


def test_a_thinned_stream_still_draws_a_last_frame_it_learns_of_late() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=1, clock=clock)
    scheduler.open("fast", 40.0)  # alone, a page shows 12 of its 40 frames/s: every 3rd drawn
    drawn = []
    for ready in (10, 10):
        scheduler.request("fast", ready)  # frame 3 is due 0.075 s in: within the lead at once
        grant = scheduler.next_grant()
        assert grant is not None
        drawn.append(grant.index)
        scheduler.finish(grant)
    assert drawn == [0, 3]
    scheduler.request("fast", 4, last=4)  # the episode ended at frame 4, before frame 6
    assert scheduler.next_grant() == Grant("fast", 4, Kind.LIVE)


def test_a_closed_stream_frees_its_worker_at_once_and_gets_nothing_more() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=1, clock=clock)
    scheduler.open("old", 20.0)
    scheduler.request("old", 10)
    assert scheduler.next_grant() == Grant("old", 0, Kind.LIVE)
    scheduler.open("new", 20.0)
    scheduler.request("new", 10)
    assert scheduler.next_grant() is None  # the only worker is busy
    scheduler.close("old")  # the viewer moved: its old stream is preempted
    assert scheduler.running == 0
    assert scheduler.next_grant() == Grant("new", 0, Kind.LIVE)
    scheduler.finish(Grant("old", 0, Kind.LIVE))  # a late report from the old thread is moot
    assert scheduler.running == 1


def test_tasks_queue_in_order_and_leave_a_worker_to_live_frames() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=3, clock=clock)
    for key in ("sweep-1", "sweep-2", "sweep-3", "sweep-4"):
        scheduler.open(key, kind=Kind.TASK)
        scheduler.request(key)
    assert scheduler.next_grant() == Grant("sweep-1", 0, Kind.TASK)
    assert scheduler.next_grant() == Grant("sweep-2", 0, Kind.TASK)
    assert scheduler.next_grant() is None  # the third worker is kept for live frames
    assert (scheduler.ahead("sweep-3"), scheduler.ahead("sweep-4")) == (0, 1)
    assert scheduler.tasks_waiting() == 2
    scheduler.open("live", 20.0)
    scheduler.request("live", 10)
    assert scheduler.next_grant() == Grant("live", 0, Kind.LIVE)
    scheduler.finish(Grant("sweep-1", 0, Kind.TASK))
    scheduler.close("sweep-1")
    assert scheduler.next_grant() == Grant("sweep-3", 0, Kind.TASK)


def test_with_two_workers_tasks_may_take_both() -> None:
    scheduler = FrameScheduler(workers=2, clock=FakeClock())
    for key in ("sweep-1", "sweep-2"):
        scheduler.open(key, kind=Kind.TASK)
        scheduler.request(key)
    assert scheduler.next_grant() == Grant("sweep-1", 0, Kind.TASK)
    assert scheduler.next_grant() == Grant("sweep-2", 0, Kind.TASK)


def test_a_single_worker_serves_tasks_too() -> None:
    scheduler = FrameScheduler(workers=1, clock=FakeClock())
    scheduler.open("sweep", kind=Kind.TASK)
    scheduler.request("sweep")
    assert scheduler.next_grant() == Grant("sweep", 0, Kind.TASK)


def test_idle_work_waits_until_no_one_streams() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(workers=1, clock=clock, lead=0.5)
    scheduler.open("idle", 20.0, kind=Kind.IDLE, skippable=False)
    started(scheduler, "live", frames=100)
    # live has 10 frames within its lead: those come first, and nothing after them.
    for key in ("idle", "live"):
        scheduler.request(key, 99, 99)
    order = []
    for _ in range(10):
        grant = scheduler.next_grant()
        assert grant is not None
        order.append((grant.key, grant.index))
        scheduler.finish(grant)
        scheduler.request(grant.key, 99, 99)
    assert order == [("live", index) for index in range(1, 11)]
    # The worker is free and live is paced out, but a viewer still has a stream open.
    assert scheduler.next_grant() is None
    clock.advance(0.1)  # live frame 11 is due within the lead again
    assert scheduler.next_grant() == Grant("live", 11, Kind.LIVE)
    scheduler.close("live")  # nobody streams any more: idle work may go on
    assert scheduler.next_grant() == Grant("idle", 0, Kind.IDLE)
    scheduler.finish(Grant("idle", 0, Kind.IDLE))
    scheduler.open("viewer", 20.0)  # a viewer arrives: idle work stops at once
    scheduler.request("viewer", 10)
    scheduler.request("idle", 99, 99)
    assert scheduler.next_grant() == Grant("viewer", 0, Kind.LIVE)
    scheduler.finish(Grant("viewer", 0, Kind.LIVE))
    assert scheduler.next_grant() is None


def test_bad_settings_and_misuse_are_refused() -> None:
    clock = FakeClock()
    with pytest.raises(ParetoscopeError, match="workers"):
        FrameScheduler(workers=0, clock=clock)
    with pytest.raises(ParetoscopeError, match="lead"):
        FrameScheduler(workers=1, clock=clock, lead=float("nan"))
    scheduler = FrameScheduler(workers=1, clock=clock)
    with pytest.raises(ParetoscopeError, match="fps"):
        scheduler.open("a", 0.0)
    scheduler.open("a", 20.0)
    with pytest.raises(ParetoscopeError, match="already open"):
        scheduler.open("a", 20.0)
    scheduler.request("a", 5)
    scheduler.next_grant()
    with pytest.raises(ParetoscopeError, match="holds a grant"):
        scheduler.request("a", 5)
    with pytest.raises(ParetoscopeError, match="no open stream"):
        scheduler.request("nobody", 5)


# --- the gate, with threads --------------------------------------------------------------------


def test_gate_threads_are_granted_in_deadline_order_and_paced_in_real_time() -> None:
    gate = FrameGate(FrameScheduler(workers=1, clock=time.monotonic, lead=0.1), poll_seconds=0.05)
    gate.open("a", 50.0)
    times: list[float] = []
    for _ in range(16):
        grant = gate.wait("a", 99, 99, check=lambda: None)
        times.append(time.monotonic())
        gate.finish(grant)
    gate.close("a")
    # 50 frames/s with 0.1 s of lead: 16 frames take at least (15 - 5) / 50 = 0.2 s.
    assert times[-1] - times[0] >= 0.2 - 0.01
    assert times[-1] - times[0] < 2.0


def test_gate_wait_stops_when_the_check_raises_and_frees_the_stream() -> None:
    gate = FrameGate(FrameScheduler(workers=1, clock=time.monotonic), poll_seconds=0.01)
    with gate.hold():  # the only worker is held by a task
        gate.open("live", 20.0)
        calls = [0]

        def check() -> None:
            calls[0] += 1
            if calls[0] >= 3:
                raise Cancelled

        with pytest.raises(Cancelled):
            gate.wait("live", 5, None, check)
        gate.close("live")
    assert gate.counts() == (0, 0)


def test_gate_holds_serve_tasks_in_arrival_order_with_their_place_in_line() -> None:
    gate = FrameGate(FrameScheduler(workers=1, clock=time.monotonic), poll_seconds=0.01)
    order: list[int] = []
    first_ahead: dict[int, int] = {}
    release = threading.Event()

    def work(index: int) -> None:
        with gate.hold(lambda ahead: first_ahead.setdefault(index, ahead)):
            order.append(index)
            release.wait(5)

    threads = []
    for index in range(4):
        thread = threading.Thread(target=work, args=(index,))
        thread.start()
        threads.append(thread)
        wait_until(lambda count=index + 1: sum(gate.counts()) == count, 5, f"task {index} held")
    release.set()
    for thread in threads:
        thread.join(5)
    assert order == [0, 1, 2, 3]
    assert {index: first_ahead[index] for index in (1, 2, 3)} == {1: 0, 2: 1, 3: 2}
    assert gate.counts() == (0, 0)


def test_live_streams_count_viewers_streams_only() -> None:
    clock = FakeClock()
    scheduler = FrameScheduler(2, clock)
    scheduler.open("a", 20.0)
    scheduler.open("b", 20.0)
    scheduler.open("task", kind=Kind.TASK)
    scheduler.open("idle", 20.0, kind=Kind.IDLE)
    assert scheduler.live_streams() == 2
    scheduler.close("b")
    assert scheduler.live_streams() == 1
    gate = FrameGate(scheduler)
    gate.close("a")
    assert gate.live_streams() == 0


def test_a_relayed_stream_shares_the_pages_budget_and_takes_no_worker() -> None:
    """A stream a cluster's actor draws (`FrameGate.relayed`) slows the server's own pages as
    one of its own streams would, while its block lasts, and never holds a worker: a stream
    of the server's own on its one worker is granted its frames at once beside it."""
    clock = FakeClock()
    gate = FrameGate(FrameScheduler(1, clock, budget=lambda: MOST))
    alone = gate.shown_rate()
    with pytest.raises(RuntimeError), gate.relayed("cluster:a", 20.0):
        assert gate.live_streams() == 1
        with gate.relayed("cluster:b", 20.0):
            assert gate.live_streams() == 2
            assert gate.shown_rate() == shown_rate(2, MOST) < alone
            started(gate.scheduler, "own")  # its first frame: the one worker is free
            assert gate.shown_rate() == shown_rate(3, MOST)
            gate.close("own")
        assert gate.live_streams() == 1
        raise RuntimeError("the relay failed")
    assert gate.live_streams() == 0 and gate.shown_rate() == alone
    assert gate.counts() == (0, 0)


def test_shown_frames_share_a_budget_between_a_floor_and_a_ceiling() -> None:
    assert shown_rate(0) == shown_rate(1) == MOST  # alone: full rate
    for streams in range(1, 40):
        rate = shown_rate(streams)
        assert LEAST <= rate <= MOST
        # Within the budget whenever the floor allows it, and never slower than needed.
        assert streams * rate <= SHOWN_FRAMES_PER_SECOND + 1e-9 or rate == LEAST
        assert rate in (MOST, LEAST) or streams * rate == pytest.approx(SHOWN_FRAMES_PER_SECOND)
        assert shown_rate(streams + 1) <= rate  # more streams, never faster
    assert shown_rate(100) == LEAST  # a slower picture, never a frozen one
    assert shown_rate(4, budget=8.0, most=5.0, least=1.0) == 2.0
    with pytest.raises(ParetoscopeError):
        shown_rate(2, least=0.0)
    with pytest.raises(ParetoscopeError):
        shown_rate(2, most=2.0, least=3.0)


def test_a_stream_starting_in_a_crowd_draws_rough_frames_from_where_pages_slow_down() -> None:
    assert all(smooth_frames(others) for others in range(ROUGH_FROM))
    assert not any(smooth_frames(others) for others in range(ROUGH_FROM, 40))
    # Rough from the stream that makes the pages share the budget below their full rate.
    assert shown_rate(ROUGH_FROM) == MOST and shown_rate(ROUGH_FROM + 1) < MOST
    assert smooth_frames(5, rough_from=6) and not smooth_frames(6, rough_from=6)


def test_a_core_share_lets_work_run_its_share_of_the_time() -> None:
    """Half a core with 0.05 s of burst, by hand: the burst at once, then a wait of what was
    overspent over the share, refilled at half a second a second, never beyond the burst."""
    from paretoscope.pacing.share import CoreShare

    clock = FakeClock(5.0)
    share = CoreShare(share=0.5, burst=0.05, clock=clock)
    assert share.wait_time() == 0.0
    share.spend(0.03)
    assert share.wait_time() == 0.0  # 0.02 s left
    share.spend(0.04)
    assert share.wait_time() == pytest.approx(0.02 / 0.5)  # 0.02 s overspent
    clock.advance(0.04)
    assert share.wait_time() == 0.0
    clock.advance(100.0)
    share.spend(0.05)
    assert share.wait_time() == 0.0  # the burst, spent to the last
    share.spend(0.01)
    assert share.wait_time() == pytest.approx(0.02)  # the burst is all it kept
    # Simulated work that spends 1 ms whenever it may: 0.5 s of it in 1 s of clock.
    clock.advance(1.0)
    done = 0.0
    end = clock.now + 1.0
    while clock.now < end:
        if share.wait_time() == 0.0:
            share.spend(0.001)
            done += 0.001
        clock.advance(0.001)
    assert done == pytest.approx(0.5 + 0.05, abs=0.003)
    with pytest.raises(ParetoscopeError):
        CoreShare(share=0.0, burst=0.05)
