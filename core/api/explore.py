"""`explore`: the dashboard on one agent, started in the background from Python (a notebook, a
script), and `Explorer`, the handle that names its page and stops it.

The server is ``python -m paretoscope dashboard`` itself, the command a user would type, run as
a child process of this interpreter: this module never imports the dashboard or Streamlit.
What it serves is an assets folder (`paretoscope.catalog`) that lists the agent:

- a checkpoint inside an assets folder's ``agents/``: that folder (its manifest's labels and
  precomputed sweeps included); any other checkpoint or training run: the folder it is in,
  read as a plain folder of agents. Either way the files are served as they are.
- an in-memory agent, or another tool's file that needs answers (its env): a temporary
  checkpoint (`paretoscope.agents.save`), removed when the server stops.
- ``"random"`` (or another named agent) and ``py:module:callable`` plug-ins: the default assets
  folder, the plug-in named with ``--agent``.

One server serves one agent: a second `explore` of the same agent, env and port returns the
running server's handle; another agent gets a server of its own (stopping one never takes
another's agent away).
"""

from __future__ import annotations

import atexit
import contextlib
import html
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlencode

from paretoscope.agents import Agent
from paretoscope.agents.builtin import is_builtin, load_agent, named_agent
from paretoscope.agents.checkpoint_header import is_checkpoint_path
from paretoscope.agents.plugin import is_plugin, resolve_factory
from paretoscope.catalog import AGENTS_DIR, default_assets_dir, describe_agent, discover_assets
from paretoscope.catalog.digest import content_digest
from paretoscope.envs import get_spec
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

HOST = "127.0.0.1"
# The server starts Streamlit and warms imports (torch, plotly) before it answers: seconds on
# an idle machine, much longer on a busy one.
START_TIMEOUT_S = 180.0
STOP_TIMEOUT_S = 20.0
# The server's log lines quoted when it does not come up.
LOG_LINES_QUOTED = 30
# The notebook's IFrame: the page's width, and tall enough for the front beside the video.
IFRAME_HEIGHT = 800


@dataclass(frozen=True)
class _Served:
    """What a server is started for: its assets folder, the agent's name there, the env, the
    plug-ins it names; `key` says what is served, for reuse."""

    assets: Path
    agent_name: str
    env_id: str
    key: tuple[str, ...]
    plugins: tuple[str, ...] = ()
    # The agent's own file or folder, when it has one.
    path: Path | None = None


class Explorer:
    """A dashboard server running in the background on one agent (see `explore`).

    Attributes
    ----------
    url : str
        The page, opened on the agent and env (the dashboard's ``agent`` and ``env`` URL keys).
    agent : str
        The agent's name in the dashboard's agent list.
    env : str
        The env the page opens on.
    path : pathlib.Path or None
        The agent's file or folder the server reads: a temporary checkpoint for an in-memory
        agent (removed by `stop`), None for a named agent (``"random"``, a plug-in).
    """

    def __init__(
        self, served: _Served, port: int, process: subprocess.Popen[bytes], workdir: Path
    ) -> None:
        self.agent = served.agent_name
        self.env = served.env_id
        self.path = served.path
        self.port = port
        self.url = f"http://{HOST}:{port}/?" + urlencode({"env": self.env, "agent": self.agent})
        self._key = served.key
        self._process = process
        self._workdir = workdir

    @property
    def running(self) -> bool:
        """Whether the server process is still running."""
        return self._process.poll() is None

    def stop(self) -> None:
        """Stop the server (and every process it started) and remove its temporary files.

        Calling it again does nothing. Servers still running when the interpreter exits are
        stopped then.
        """
        with _LOCK:
            if self in _RUNNING:
                _RUNNING.remove(self)
        _terminate(self._process)
        shutil.rmtree(self._workdir, ignore_errors=True)

    def __repr__(self) -> str:
        state = "" if self.running else " (stopped)"
        return f"<Explorer {self.agent} on {self.env} at {self.url}{state}>"

    def _repr_html_(self) -> str:
        """The page in an IFrame: what Jupyter shows when a cell returns the handle."""
        return (
            f'<iframe src="{html.escape(self.url)}" width="100%" height="{IFRAME_HEIGHT}" '
            'style="border: 1px solid #ddd" title="paretoscope dashboard"></iframe>'
        )


# The servers this interpreter started and has not stopped.
_RUNNING: list[Explorer] = []
_LOCK = threading.Lock()


def explore(source_or_agent: Any, env: str | None = None, port: int | None = None) -> Explorer:
    """Open the dashboard on an agent: start a server in the background (or reuse the one
    already serving it) and return its handle; in Jupyter the handle shows the page.

    Parameters
    ----------
    source_or_agent : str, os.PathLike or Agent
        A paretoscope checkpoint or training run (served as it is), another tool's file that
        paretoscope imports (e.g. a MORL-Baselines ``.tar``; `env` answers its env),
        ``"random"``, a plug-in ``"py:module:callable"``, or an agent object in memory (one
        from `paretoscope.load_agent` or `paretoscope.from_morl_baselines`), served from a
        temporary checkpoint.
    env : str, optional
        The env to open the page on. Default: the agent's own; required for ``"random"`` and
        for a plug-in that does not say which envs it serves.
    port : int, optional
        The port to serve on (on 127.0.0.1). Default: a free one.

    Returns
    -------
    Explorer
        The handle: ``.url`` opens the page on the agent and env, ``.stop()`` stops the server.
        A second call for the same agent, env and port returns the running server's handle.

    Raises
    ------
    ParetoscopeError
        When the source names no agent paretoscope can read, `env` does not fit it, `port` is
        taken, or the server does not come up (with its last log lines).
    """
    if port is not None and not (isinstance(port, int) and 0 < port < 65536):
        raise ParetoscopeError(f"port: expected 1 to 65535, got {port!r}")
    workdir = Path(tempfile.mkdtemp(prefix="paretoscope-explore-"))
    try:
        served = _served(source_or_agent, env, workdir)
        with _LOCK:
            running = _running_for(served.key, port)
        if running is not None:
            shutil.rmtree(workdir, ignore_errors=True)
            return running
        return _start(served, _port_to_use(port), workdir)
    except BaseException:
        shutil.rmtree(workdir, ignore_errors=True)
        raise


def _served(source: Any, env: str | None, workdir: Path) -> _Served:
    """What to serve for `source` (checked here, before any server starts)."""
    env_id = get_spec(env).id if env is not None else None
    if isinstance(source, str) and is_plugin(source):
        return _plugin(source, env_id, workdir)
    if isinstance(source, str) and is_builtin(source):
        return _named(source, env_id, workdir)
    if isinstance(source, (str, os.PathLike)):
        return _path(Path(source).expanduser(), env_id, workdir)
    if isinstance(source, Agent):
        return _in_memory(source, env_id, workdir)
    raise ParetoscopeError(
        "explore: expected a path, 'random', 'py:module:callable' or a paretoscope agent, "
        f"got {type(source).__name__}"
    )


def _named(name: str, env_id: str | None, workdir: Path) -> _Served:
    """A named agent (``random``, an installed package's), offered by the dashboard for every
    env it serves."""
    if env_id is None:
        raise ParetoscopeError(f"explore({briefly(name)}): name the env to open it on (env=...)")
    agent = named_agent(name)
    if not agent.serves(env_id):
        raise ParetoscopeError(f"agent {briefly(name)} does not serve {env_id}")
    return _Served(_default_assets(workdir), name, env_id, ("named", name, env_id))


def _plugin(source: str, env_id: str | None, workdir: Path) -> _Served:
    """A ``py:module:callable`` plug-in: imported here, so that a wrong name fails now."""
    factory = resolve_factory(source)
    served = getattr(factory, "env_ids", None)
    if env_id is None:
        if not served:
            raise ParetoscopeError(
                f"explore({briefly(source)}): name the env to open it on (env=...)"
            )
        env_id = get_spec(str(next(iter(served)))).id
    elif served and env_id not in served:
        raise ParetoscopeError(f"{source} serves {', '.join(served)}, not {env_id}")
    key = ("plugin", source, env_id)
    return _Served(_default_assets(workdir), source, env_id, key, plugins=(source,))


def _path(path: Path, env_id: str | None, workdir: Path) -> _Served:
    """A file or folder: served where it is when the dashboard reads it as it is, else
    imported (with `env_id` as its env) into a temporary checkpoint."""
    if not path.exists():
        raise ParetoscopeError(f"{path}: no such file or folder")
    path = path.resolve()
    asset = describe_agent(path)
    if asset is None:
        raise ParetoscopeError(f"{path}: not an agent paretoscope can read")
    # Another tool's file: what it cannot tell (its env, guessed from a folder's name at best)
    # is answered by `env_id`, and the agent imported for it.
    foreign = not (asset.is_run or is_checkpoint_path(path))
    answered = foreign and env_id not in (None, asset.env_id)
    if asset.env_id is None or asset.open_questions or answered:
        if env_id is None and asset.env_id is None:
            raise ParetoscopeError(
                f"{path}: the file does not say which env it is for; name it (env=...)"
            )
        chosen = env_id or str(asset.env_id)
        return _in_memory(load_agent(path, chosen), chosen, workdir)
    if env_id is not None and env_id != asset.env_id:
        raise ParetoscopeError(f"{path} is an agent for {asset.env_id}, not {env_id}")
    in_assets = path.parent.name == AGENTS_DIR
    root = path.parent.parent if in_assets else path.parent
    listed = discover_assets(root).agents
    if not any(agent.path.resolve() == path for agent in listed):
        # A folder with agents/ or datasets/ beside the agent: discovery would not list it.
        return _in_memory(load_agent(path, asset.env_id), asset.env_id, workdir)
    return _Served(root, asset.name, asset.env_id, ("path", str(path), asset.env_id), path=path)


def _in_memory(agent: Agent, env_id: str | None, workdir: Path) -> _Served:
    """An agent object, written as a checkpoint in a temporary assets folder."""
    from paretoscope.agents import save

    agent_env = agent.spec.env_id
    if env_id is not None and env_id != agent_env:
        raise ParetoscopeError(f"the agent acts in {agent_env}, not {env_id}")
    name = agent.spec.kind.replace("_", "-")
    assets = workdir / "assets"
    path = save(agent, assets / AGENTS_DIR / name)
    return _Served(
        assets, name, agent_env, ("checkpoint", content_digest(path), agent_env), path=path
    )


def _default_assets(workdir: Path) -> Path:
    """The folder `paretoscope dashboard` opens by default; an empty one where there is none."""
    folder = default_assets_dir().expanduser()
    if folder.is_dir():
        return folder.resolve()
    empty = workdir / "assets"
    empty.mkdir(parents=True, exist_ok=True)
    return empty


def _running_for(key: tuple[str, ...], port: int | None) -> Explorer | None:
    """The running server for `key` (on `port` when named); forgets servers that exited."""
    for explorer in list(_RUNNING):
        if not explorer.running:
            _RUNNING.remove(explorer)
        elif explorer._key == key and (port is None or explorer.port == port):
            return explorer
    return None


def _port_to_use(port: int | None) -> int:
    """`port` when it is free (else an error), or a free port."""
    with socket.socket() as probe:
        try:
            probe.bind((HOST, port or 0))
        except OSError:
            raise ParetoscopeError(f"port {port} is in use; name another, or none") from None
        return int(probe.getsockname()[1])


def _start(served: _Served, port: int, workdir: Path) -> Explorer:
    """Start the server for `served` on `port`, wait until it answers, and register it."""
    command = [
        sys.executable,
        "-m",
        "paretoscope",
        "dashboard",
        "--assets",
        str(served.assets),
        "--port",
        str(port),
    ]
    for plugin in served.plugins:
        command += ["--agent", plugin]
    log_path = workdir / "server.log"
    with log_path.open("wb") as log:  # never a pipe: nobody would read it while it runs
        process = subprocess.Popen(
            command,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
            # A group of its own: `stop` ends the server with every process it started.
            start_new_session=True,
        )
    explorer = Explorer(served, port, process, workdir)
    try:
        _wait_healthy(port, process, log_path)
    except BaseException:
        _terminate(process)
        raise
    with _LOCK:
        _RUNNING.append(explorer)
    return explorer


def _wait_healthy(port: int, process: subprocess.Popen[bytes], log_path: Path) -> None:
    """Return once the server's health endpoint answers ``ok``; raise when the server exits
    or `START_TIMEOUT_S` passes first."""
    health = f"http://{HOST}:{port}/_stcore/health"
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))  # local, no proxy
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        code = process.poll()
        if code is not None:
            raise ParetoscopeError(
                f"the dashboard server exited (code {code}) before it answered:\n"
                + _last_lines(log_path)
            )
        try:
            with opener.open(health, timeout=2) as reply:
                if reply.read().decode() == "ok":
                    return
        except (OSError, urllib.error.URLError):
            pass  # not listening yet
        if time.monotonic() >= deadline:
            raise ParetoscopeError(
                f"the dashboard server did not answer on port {port} within "
                f"{START_TIMEOUT_S:g} s:\n" + _last_lines(log_path)
            )
        time.sleep(0.1)


def _last_lines(log_path: Path) -> str:
    try:
        lines = log_path.read_text(errors="replace").splitlines()
    except OSError:
        return "(no log)"
    return "\n".join(lines[-LOG_LINES_QUOTED:]) or "(nothing logged)"


def _terminate(process: subprocess.Popen[bytes]) -> None:
    """End the server's process group: politely, then for sure (a server that exited by
    itself may have left processes it started)."""
    if process.poll() is not None:
        with contextlib.suppress(ProcessLookupError, PermissionError, AttributeError):
            os.killpg(process.pid, signal.SIGKILL)
        return
    for sent in (signal.SIGTERM, signal.SIGKILL):
        try:
            if hasattr(os, "killpg"):
                os.killpg(process.pid, sent)
            else:  # pragma: no cover - Windows: no process groups
                process.kill()
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=STOP_TIMEOUT_S)
            return
        except subprocess.TimeoutExpired:
            continue


@atexit.register
def _stop_all() -> None:
    """Stop the servers still running when the interpreter exits (and remove their files)."""
    for explorer in list(_RUNNING):
        explorer.stop()
