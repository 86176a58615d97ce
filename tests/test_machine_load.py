"""How busy the machine is (`paretoscope.pacing.machine`) and the frame budget that follows it
(`paretoscope.pacing.display.budget_for`, `FrameScheduler.budget`): /proc/stat parsed by
hand-computed
examples, the idle share over windows with a fake clock, the budget's ends and its middle, and
eight streams drawing fewer frames while the machine is full and all again once it is not."""

from __future__ import annotations

from pathlib import Path

import pytest

from paretoscope.pacing.display import (
    FULL_BUDGET_IDLE,
    LEAST,
    LEAST_BUDGET_IDLE,
    LEAST_BUDGET_SHARE,
    SHOWN_FRAMES_PER_SECOND,
    budget_for,
)
from paretoscope.pacing.machine import IdleShare, read_cpu_times
from paretoscope.pacing.scheduler import FrameScheduler


def test_proc_stat_gives_total_and_idle_ticks(tmp_path: Path) -> None:
    stat = tmp_path / "stat"
    # user nice system idle iowait irq softirq steal guest guest_nice
    stat.write_text("cpu  100 5 50 800 20 3 2 0 7 0\ncpu0 50 2 25 400 10 1 1 0 3 0\nintr 1 2\n")
    assert read_cpu_times(stat) == (980.0, 820.0)  # guest is inside user already
    stat.write_text("cpu  10 0 10 80\n")  # an old kernel: four fields
    assert read_cpu_times(stat) == (100.0, 80.0)
    for broken in ("", "intr 1 2 3\n", "cpu  a b c d e\n", "cpu 1 2\n"):
        stat.write_text(broken)
        assert read_cpu_times(stat) is None, broken
    assert read_cpu_times(tmp_path / "missing") is None


def test_this_machines_own_times_add_up() -> None:
    times = read_cpu_times()
    if times is None:
        pytest.skip("no /proc/stat here")
    total, idle = times
    assert 0 <= idle <= total and total > 0


class _Ticks:
    """A machine whose CPU time the test hands out: (busy, idle) seconds at each read."""

    def __init__(self) -> None:
        self.total = 0.0
        self.idle = 0.0
        self.reads = 0

    def spend(self, busy: float, idle: float) -> None:
        self.total += busy + idle
        self.idle += idle

    def __call__(self) -> tuple[float, float]:
        self.reads += 1
        return self.total, self.idle


def test_the_idle_share_is_measured_over_windows_and_smoothed() -> None:
    now = [0.0]
    ticks = _Ticks()
    share = IdleShare(period=1.0, smoothing=0.5, clock=lambda: now[0], read=ticks)
    assert share() is None  # one read: no window yet
    ticks.spend(busy=1.0, idle=1.0)
    now[0] = 0.5
    assert share() is None and ticks.reads == 1  # within the period: not read again
    now[0] = 1.0
    assert share() == pytest.approx(0.5)  # 1 of 2 CPU-seconds idle
    ticks.spend(busy=1.9, idle=0.1)
    now[0] = 2.0
    assert share() == pytest.approx(0.5 * 0.5 + 0.5 * 0.05)  # smoothed toward 5 %
    ticks.spend(busy=1.9, idle=0.1)
    now[0] = 3.0
    assert share() == pytest.approx(0.5 * 0.275 + 0.5 * 0.05)
    assert ticks.reads == 4


def test_an_unreadable_machine_has_no_share() -> None:
    share = IdleShare(period=0.0, read=lambda: None)
    assert share() is None and share() is None


def test_the_budget_is_whole_with_idle_time_left_and_shrinks_in_proportion_below() -> None:
    assert budget_for(None) == SHOWN_FRAMES_PER_SECOND  # unknown: as before
    assert budget_for(1.0) == budget_for(FULL_BUDGET_IDLE) == SHOWN_FRAMES_PER_SECOND
    least = LEAST_BUDGET_SHARE * SHOWN_FRAMES_PER_SECOND
    assert budget_for(0.0) == budget_for(LEAST_BUDGET_IDLE) == pytest.approx(least)
    middle = (FULL_BUDGET_IDLE + LEAST_BUDGET_IDLE) / 2
    assert budget_for(middle) == pytest.approx((least + SHOWN_FRAMES_PER_SECOND) / 2)
    assert budget_for(0.15, budget=10.0) == pytest.approx(7.5)  # by hand: 0.5 + 0.5 * 0.5
    shares = [index / 100 for index in range(101)]
    budgets = [budget_for(idle) for idle in shares]
    assert budgets == sorted(budgets)  # more idle time, never fewer frames


def test_eight_streams_draw_fewer_frames_while_the_machine_is_full_then_all_again() -> None:
    """A fake clock, two workers and eight 20-frame/s streams: with the machine full (half the
    budget, 18 frames/s: 2.25 a page, held at the floor of 3), each stream draws every
    floor(20 / 3) = 6th frame; with idle time back, every 4th (36 / 8 = 4.5 a page), as before."""
    now = [0.0]
    idle: list[float | None] = [0.0]
    scheduler = FrameScheduler(workers=2, clock=lambda: now[0], budget=lambda: budget_for(idle[0]))
    keys = [f"viewer-{index}" for index in range(8)]
    for key in keys:
        scheduler.open(key, 20.0)

    def draw(seconds: float) -> dict[str, list[int]]:
        drawn: dict[str, list[int]] = {key: [] for key in keys}
        end = now[0] + seconds
        while now[0] < end:
            for key in keys:
                if not scheduler._streams[key].running:  # noqa: SLF001 - asks when free
                    scheduler.request(key, 499, 499)
            grant = scheduler.next_grant()
            if grant is None:
                now[0] += 0.005
                continue
            drawn[grant.key].append(grant.index)
            scheduler.finish(grant)
        return drawn

    assert SHOWN_FRAMES_PER_SECOND / 2 / 8 < LEAST and scheduler.shown_rate() == LEAST
    full = draw(4.0)
    for key in keys:
        steps = [later - earlier for earlier, later in zip(full[key], full[key][1:], strict=False)]
        assert set(steps[1:]) == {6}, steps
    idle[0] = 0.5
    assert scheduler.shown_rate() == pytest.approx(SHOWN_FRAMES_PER_SECOND / 8)
    free = draw(4.0)
    for key in keys:
        steps = [later - earlier for earlier, later in zip(free[key], free[key][1:], strict=False)]
        assert set(steps[1:]) == {4}, steps
