"""`paretoscope.explore`: a real dashboard server in the background, on the bundled demo's agent
and on an agent in memory; what it refuses before starting anything. (The page in a browser:
tests/e2e/test_explore_browser.py.)"""

from __future__ import annotations

import html
import re
import shutil
import socket
import sys
import tempfile
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

from paretoscope.agents import load
from paretoscope.agents.builtin import builtin_agent
from paretoscope.api import explore as explore_module
from paretoscope.api.explore import Explorer, explore
from paretoscope.catalog import bundled_assets_dir, discover_assets
from paretoscope.errors import ParetoscopeError
from tests.conftest import FIXTURES_DIR

DST = "deep-sea-treasure-v0"
DEMO_AGENT = bundled_assets_dir() / "agents" / "dst-gpi-ls"
ENVELOPE = FIXTURES_DIR / "morl-baselines" / "envelope" / DST / "Envelope.tar"


@pytest.fixture
def workdirs(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """The servers' temporary folders made under a folder of this test's (to see them go), a
    cache of its own and no pre-rendering while idle (the machine is shared)."""
    folder = tmp_path / "tmp"
    folder.mkdir()
    monkeypatch.setattr(tempfile, "tempdir", str(folder))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PARETOSCOPE_PRERENDER", "0")
    yield folder
    for explorer in list(explore_module._RUNNING):
        explorer.stop()


def health(explorer: Explorer) -> str | None:
    """The health endpoint's answer, None when nothing listens on the port."""
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    try:
        with opener.open(f"http://127.0.0.1:{explorer.port}/_stcore/health", timeout=5) as reply:
            return str(reply.read().decode())
    except OSError:
        return None


def url_state(explorer: Explorer) -> dict[str, list[str]]:
    return parse_qs(urlsplit(explorer.url).query)


@pytest.mark.slow
def test_the_bundled_demo_agent_is_served_from_its_assets_folder(workdirs: Path) -> None:
    explorer = explore(DEMO_AGENT)
    assert health(explorer) == "ok"
    assert explorer.path == DEMO_AGENT.resolve()
    # The URL names the agent and env the dashboard's own catalog of the demo lists.
    assert url_state(explorer) == {"env": [DST], "agent": ["dst-gpi-ls"]}
    listed = discover_assets(bundled_assets_dir()).agent_choices(DST)
    assert [agent.path for agent in listed if agent.name == "dst-gpi-ls"] == [DEMO_AGENT]
    # Asked again (with the env it has, or as a string), the running server answers.
    assert explore(str(DEMO_AGENT), env=DST) is explorer
    assert explorer.url in repr(explorer)
    frame = explorer._repr_html_()
    source = re.fullmatch(r'<iframe src="([^"]*)"[^>]*></iframe>', frame)
    assert source is not None and html.unescape(source[1]) == explorer.url, frame

    explorer.stop()
    assert health(explorer) is None
    assert not explorer.running and "stopped" in repr(explorer)
    explorer.stop()  # again: nothing to do
    assert DEMO_AGENT.is_dir()  # served as it is: never removed
    assert not any(workdirs.iterdir())


@pytest.mark.slow
def test_an_agent_in_memory_is_served_from_a_temporary_checkpoint(workdirs: Path) -> None:
    agent = load(DEMO_AGENT)
    explorer = explore(agent)
    assert health(explorer) == "ok"
    assert url_state(explorer) == {"env": [DST], "agent": ["morlb-gpi"]}
    checkpoint = explorer.path
    assert checkpoint is not None and checkpoint.is_relative_to(workdirs)
    # The checkpoint is the agent: the dashboard's catalog lists it under the URL's name.
    assets = checkpoint.parent.parent
    [listed] = discover_assets(assets).agents
    assert (listed.name, listed.env_id, listed.kind) == ("morlb-gpi", DST, "morlb_gpi")
    # The same weights (another object loaded from the same file) reuse the server.
    assert explore(load(DEMO_AGENT), env=DST) is explorer
    # A server of another agent runs beside it, and stopping one leaves the other.
    other = explore("random", env=DST)
    assert other.port != explorer.port and health(other) == "ok"
    assert url_state(other) == {"env": [DST], "agent": ["random"]}

    explorer.stop()
    assert health(explorer) is None
    assert not checkpoint.exists()
    assert health(other) == "ok"
    other.stop()
    assert health(other) is None
    assert not any(workdirs.iterdir())


def test_a_server_that_exits_says_why_in_its_log_lines(
    workdirs: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    failing = workdirs.parent / "failing-python"
    failing.write_text("#!/bin/sh\necho 'the server cannot start: out of luck'\nexit 3\n")
    failing.chmod(0o755)
    monkeypatch.setattr(sys, "executable", str(failing))
    with pytest.raises(ParetoscopeError, match=r"exited \(code 3\)[\s\S]*out of luck"):
        explore("random", env=DST)
    assert not explore_module._RUNNING
    assert not any(workdirs.iterdir())


@pytest.mark.parametrize(
    ("source", "env", "message"),
    [
        ("no/such/agent", None, "no such file or folder"),
        ("random", None, r"name the env to open it on \(env=\.\.\.\)"),
        ("random", "no-such-env-v0", "no-such-env-v0"),
        ("py:no_such_module_here:make", DST, "cannot import 'no_such_module_here'"),
        ("py:not a plug-in", DST, "a plug-in is named py:module.path:callable"),
        (42, None, "expected a path, 'random', 'py:module:callable' or a paretoscope agent"),
        (DEMO_AGENT, "MO-Hopper-v3", f"an agent for {DST}, not MO-Hopper-v3"),
    ],
)
def test_a_bad_source_is_refused_before_any_server_starts(
    workdirs: Path, monkeypatch: pytest.MonkeyPatch, source: object, env: str | None, message: str
) -> None:
    def no_server(*args: object) -> Explorer:
        raise AssertionError("a server was started")

    monkeypatch.setattr(explore_module, "_start", no_server)
    with pytest.raises(ParetoscopeError, match=message):
        explore(source, env=env)
    assert not any(workdirs.iterdir())


def test_files_that_are_no_agent_and_agents_of_another_env_are_refused(
    workdirs: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    monkeypatch.setattr(explore_module, "_start", lambda *args: pytest.fail("server started"))
    notes = tmp_path / "notes.txt"
    notes.write_text("not an agent")
    with pytest.raises(ParetoscopeError, match="notes.txt: not an agent paretoscope can read"):
        explore(notes)
    with pytest.raises(ParetoscopeError, match=f"acts in {DST}, not MO-Hopper-v3"):
        explore(builtin_agent("random", DST), env="MO-Hopper-v3")
    assert not any(workdirs.iterdir())


def test_a_taken_port_or_an_impossible_one_is_refused(workdirs: Path) -> None:
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        with pytest.raises(ParetoscopeError, match=f"port {port} is in use"):
            explore("random", env=DST, port=port)
    for impossible in (0, 70000, "8501"):
        with pytest.raises(ParetoscopeError, match="port: expected 1 to 65535"):
            explore("random", env=DST, port=impossible)  # type: ignore[arg-type]
    assert not any(workdirs.iterdir())


def test_another_tool_s_file_is_imported_for_the_env_named(
    workdirs: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """A MORL-Baselines file does not say its env: `env=` answers, and the agent imported for
    it is served from a temporary checkpoint (the file itself is left as it is)."""
    started: list[tuple[Path, str, str, str]] = []

    class Started(Exception):
        pass

    def record(served: object, port: int, workdir: Path) -> Explorer:
        path, name, env_id = served.path, served.agent_name, served.env_id  # type: ignore[attr-defined]
        started.append((path, name, env_id, load(path).spec.kind))
        raise Started

    monkeypatch.setattr(explore_module, "_start", record)
    envelope = tmp_path / "downloads" / ENVELOPE.name
    envelope.parent.mkdir()
    shutil.copy(ENVELOPE, envelope)
    with pytest.raises(ParetoscopeError, match=r"does not say which env it is for; name it"):
        explore(envelope)
    with pytest.raises(Started):
        explore(envelope, env=DST)
    [(checkpoint, name, env_id, kind)] = started
    assert (name, env_id, kind) == ("morlb-envelope", DST, "morlb_envelope")
    assert checkpoint.is_relative_to(workdirs)
    assert envelope.read_bytes() == ENVELOPE.read_bytes()
    assert not any(workdirs.iterdir())  # a start that fails leaves nothing behind
