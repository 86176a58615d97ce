"""`paretoscope dashboard --ray-address` naming a cluster that cannot be reached: the server
records its live episodes itself, as without the flag, and the sidebar says why (the cluster
tests themselves, with a real one, are in tests/test_cluster_recorders.py)."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.apptests import captions, open_app, page_ok
from tests.demo_fixture import CHEETAH, build_tiny_assets

pytestmark = pytest.mark.slow


def test_an_unreachable_cluster_leaves_the_episodes_to_this_server(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    pytest.importorskip("ray")  # else "Ray is not installed" would be the reason
    from paretoscope.cache import RECORDINGS_SUBDIR
    from paretoscope.dashboard import cluster_live
    from paretoscope.dashboard.limits import PRERENDER_ENV_VAR, RAY_ADDRESS_ENV_VAR
    from tests.e2e.conftest import free_port

    assets = build_tiny_assets(tmp_path / "assets", horizon=30, with_hopper=False)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv(PRERENDER_ENV_VAR, "0")
    address = f"127.0.0.1:{free_port()}"  # nothing listens there
    monkeypatch.setenv(RAY_ADDRESS_ENV_VAR, address)
    monkeypatch.setattr(cluster_live, "_recorders", None)
    monkeypatch.setattr(cluster_live, "_problem", None)

    at = open_app({"env": CHEETAH, "agent": "cheetah-morvs"})
    page_ok(at)
    assert len(list((tmp_path / "cache" / RECORDINGS_SUBDIR).glob("*.mp4"))) == 1
    said = f"The Ray cluster at {address} could not be reached: episodes are rolled out on this"
    assert any(said in text.replace("\\", "") for text in captions(at))  # unescaped
