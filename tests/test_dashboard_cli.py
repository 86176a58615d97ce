"""`paretoscope dashboard`: argument handling, the command it runs, and a real start."""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from paretoscope.cli import dashboard as dashboard_cli
from paretoscope.errors import ParetoscopeError


def _parse(*argv: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser()
    dashboard_cli.register(parser.add_subparsers(dest="command"))
    return parser.parse_args(["dashboard", *argv])


def test_defaults_bind_localhost_on_8501(tmp_path: Path, capsys: pytest.CaptureFixture) -> None:
    args = _parse("--assets", str(tmp_path), "--dry-run")
    assert (args.host, args.port) == ("127.0.0.1", 8501)
    assert args.func(args) == 0
    printed = capsys.readouterr().out.split()
    assert printed[:4] == [sys.executable, "-m", "paretoscope.dashboard.serve", "run"]
    assert printed[4] == str(dashboard_cli.app_path()) and Path(printed[4]).is_file()
    assert printed[printed.index("--server.address") + 1] == "127.0.0.1"
    assert printed[printed.index("--server.port") + 1] == "8501"
    # Script arguments come after "--".
    assert printed[printed.index("--") + 1 :] == ["--assets", str(tmp_path.resolve())]


def test_bad_folder_and_port_are_errors(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    missing = _parse("--assets", str(tmp_path / "missing"))
    with pytest.raises(ParetoscopeError, match="no such directory; name an existing folder"):
        missing.func(missing)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tmp_path / "nothing"))
    with pytest.raises(ParetoscopeError, match="paretoscope demo build"):
        dashboard_cli.resolve_assets(None)
    args = _parse("--assets", str(tmp_path), "--port", "70000")
    with pytest.raises(ParetoscopeError, match="--port"):
        args.func(args)


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_the_server_starts_and_answers(tmp_path: Path) -> None:
    assets = tmp_path / "assets"
    (assets / "agents").mkdir(parents=True)
    port = _free_port()
    environment = dict(os.environ, PARETOSCOPE_CACHE=str(tmp_path / "cache"))
    if "paretoscope.cli.dashboard" in _registered():
        command = [sys.executable, "-m", "paretoscope.cli", "dashboard", "--assets", str(assets)]
        command += ["--port", str(port)]
    else:
        command = dashboard_cli.streamlit_command(assets, "127.0.0.1", port)
    process = subprocess.Popen(
        command,
        env=environment,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        start_new_session=True,
    )
    try:
        deadline = time.monotonic() + 60
        answer = None
        while time.monotonic() < deadline and answer is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health") as reply:
                    answer = reply.read().decode()
            except OSError:
                time.sleep(0.3)
        assert answer == "ok"
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/") as reply:
            page = reply.read().decode()
        assert "<html" in page.lower()
        # The Streamlit internals' fast paths are taken (`streamlit_internals`): the page
        # preloads the first page's widget code, and the feed's route answers.
        assert 'link.rel = "modulepreload"' in page
        with pytest.raises(urllib.error.HTTPError) as gone:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/_paretoscope/frames/no-such-feed")
        assert gone.value.code == 404 and b"no such live stream" in gone.value.read()
    finally:
        # The server runs in its own session: stop the whole group, leave nothing behind.
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=20)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.stdout is not None
    log = process.stdout.read().decode(errors="replace")
    assert "streamlit_internals" not in log, log  # no hook missing from this Streamlit


def _registered() -> tuple[str, ...]:
    import paretoscope.cli

    return tuple(getattr(paretoscope.cli, "_COMMAND_MODULES", ()))


def test_registered_with_the_main_command() -> None:
    assert "paretoscope.cli.dashboard" in _registered()
    from paretoscope.cli import build_parser

    args = build_parser().parse_args(["dashboard", "--dry-run"])
    assert args.func is dashboard_cli.run
    assert json.dumps(vars(args), default=str)
