"""Two dashboard servers (replicas, as behind a sticky-session proxy) on one real Ray cluster
(a head and two worker nodes, tests/ray_cluster.py) and one shared cache folder: a viewer of
each asks for the same episode at once, and it is recorded once, by one actor that streams to
both; the finished recording, stored once in the shared folder, is what both then play."""

from __future__ import annotations

from pathlib import Path

import pytest

from paretoscope.dashboard.limits import PRERENDER_ENV_VAR
from tests.e2e.conftest import (
    EPISODE_VIDEO,
    STREAMED_FRAME,
    screenshot,
    serving,
    start_cli_server,
)
from tests.ray_cluster import local_cluster
from tests.waiting import wait_until

pytestmark = pytest.mark.slow

TIMEOUT_MS = 120_000
HORIZON = 400  # twenty seconds of video at 20 frames a second: both viewers come while it streams


def _one_episode_two_streams(registry: object) -> dict[str, int]:
    """The registry's episodes when they are one episode followed by two streams, else {}."""
    found: dict[str, int] = registry.recording()  # type: ignore[attr-defined]
    return found if list(found.values()) == [2] else {}


def test_two_servers_on_one_cluster_record_a_shared_episode_once(
    browser: object, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ray")
    from tests.demo_fixture import build_tiny_assets

    assets = build_tiny_assets(tmp_path / "assets", horizon=HORIZON, with_hopper=False)
    shared = tmp_path / "shared-cache"
    monkeypatch.setenv(PRERENDER_ENV_VAR, "0")  # only the viewers' episodes are recorded
    with local_cluster(["node_a", "node_b"]) as cluster:
        from paretoscope.cluster.recorders import ClusterRecorders

        registry = ClusterRecorders(cluster.address)  # this test's view of the cluster
        flags = ("--ray-address", cluster.address)
        with (
            serving(start_cli_server(assets, shared, *flags)) as first,
            serving(start_cli_server(assets, shared, *flags)) as second,
        ):
            context = browser.new_context(viewport={"width": 1400, "height": 1000})  # type: ignore[attr-defined]
            try:
                viewer_a, viewer_b = context.new_page(), context.new_page()
                # Both at once: the episode streams for 20 s, far longer than a page's start.
                viewer_a.goto(f"{first}/?size=240", timeout=TIMEOUT_MS)
                viewer_b.goto(f"{second}/?size=240", timeout=TIMEOUT_MS)
                for viewer in (viewer_a, viewer_b):
                    viewer.wait_for_selector(STREAMED_FRAME, timeout=TIMEOUT_MS)
                # The second server follows the first one's actor: one episode, two streams.
                (key,) = wait_until(lambda: _one_episode_two_streams(registry), 60, "sharing")
                for viewer in (viewer_a, viewer_b):
                    viewer.wait_for_selector(EPISODE_VIDEO, timeout=TIMEOUT_MS)
                wait_until(lambda: registry.recording() == {}, 60, "the actor to stop")
                screenshot(viewer_b, "cluster-replica-second")
            finally:
                context.close()
    # One recording in the shared folder, under the key both servers streamed.
    stored = sorted(path.name for path in shared.rglob("*.mp4"))
    assert stored == [f"{key}.mp4"], stored
