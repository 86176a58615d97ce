"""The fast room check: four viewers on the bundled demo for 20 s, each moving its preference
slider every few seconds (`tests/e2e/room.py`, the driver of `benchmarks/bench_load.py`). Every
move must change the picture to its new episode, every viewer's last move must end in a playable
video, no page may show an error, and the slowest moves must stay well inside a generous bound:
a regression of the kind that left whole sessions waiting fails here, not in a benchmark."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import REPO_DIR
from tests.e2e.conftest import serving, start_server
from tests.e2e.room import finish, lost, open_sessions, percentile, walk

pytestmark = pytest.mark.slow

VIEWERS = 4
SECONDS = 20.0
EVERY = (3.0, 6.0)
# p95 of slider -> first frame. The room benchmark's goal for 8 viewers on an idle machine is
# 1 s; CI shares its 2 cores with other work, so this bound only catches a room that stalls.
P95_BOUND = 3.0


def test_four_viewers_every_move_served_and_every_video_delivered(
    browser: object, tmp_path: Path
) -> None:
    with serving(start_server(REPO_DIR / "assets", tmp_path / "cache")) as url:
        sessions = open_sessions(browser, url, VIEWERS, size=320)
        walk(sessions, SECONDS, EVERY)
        finish(sessions, timeout=120)
        assert lost(sessions) == []
        delays = [delay for session in sessions for delay in session.first_frames]
        moves = sum(session.moves for session in sessions)
        assert moves >= VIEWERS * 2 and len(delays) == moves
        assert percentile(delays, 0.95) < P95_BOUND, sorted(delays)
