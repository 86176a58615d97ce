"""The dashboard's one seam with Streamlit's internals: everything it uses that is not
Streamlit's public API (private attributes, ``streamlit.runtime``, ``streamlit.web``, the
Starlette server's routes, its uvicorn settings and HTTP protocol, the frontend's hashed file
names) is here, and nowhere else.

Each internal is a `Hook`: what it reaches into, and what the dashboard does without it (a
slower or simpler path, never a broken page). `check_all` probes every hook when the server
starts (`paretoscope.dashboard.serve`); a hook that is missing or behaves differently in the
installed Streamlit is reported once in the server log, naming the Streamlit version and the
hook, and from then on the functions here take its fallback. Outside the server (an AppTest, a
bare ``streamlit run``) each hook is probed at its first use, the same way.

``python -m paretoscope.dashboard.streamlit_internals`` prints each hook and whether it works
with the installed Streamlit: the first check of a new Streamlit release (docs/dashboard.md,
"Testing a new Streamlit release").
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import inspect
import logging
import re
import secrets
import sys
import textwrap
import threading
from collections.abc import AsyncIterator, Callable, Iterator, Sequence, Set
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple


class Changed(Exception):
    """A hook that is there but not as the dashboard expects it."""


@dataclass(frozen=True)
class Hook:
    """One internal of Streamlit's the dashboard uses: `reaches` (what in Streamlit), `without`
    (what the dashboard does where it is missing), `probe` (raises where it is missing or
    changed)."""

    name: str
    reaches: str
    without: str
    probe: Callable[[], None]


class Check(NamedTuple):
    """A hook and what is wrong with it in the installed Streamlit (None: it works)."""

    hook: Hook
    problem: str | None

    @property
    def works(self) -> bool:
        return self.problem is None


# --- probing ------------------------------------------------------------------------------------


def _callable(owner: object, name: str, *arguments: object, **keywords: object) -> Any:
    """`owner.name`, checked to be callable with `arguments` (AttributeError where missing)."""
    function = getattr(owner, name)
    if not callable(function):
        raise Changed(f"{name} is not callable")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):  # no signature to read (a builtin): calling will tell
        return function
    try:
        signature.bind(*arguments, **keywords)
    except TypeError as error:
        raise Changed(f"{name}{signature} takes other arguments") from error
    return function


def _probe_server_start() -> None:
    from streamlit.web import bootstrap

    _callable(bootstrap, "_on_server_start", object())


def _probe_server_routes() -> None:
    from starlette.responses import PlainTextResponse, StreamingResponse  # noqa: F401
    from starlette.routing import Route  # noqa: F401
    from streamlit.web.server.starlette import starlette_app

    _callable(starlette_app, "create_streamlit_routes", object())


def _probe_server_config() -> None:
    import h11
    import uvicorn
    from streamlit.web.server.starlette import starlette_server
    from uvicorn.protocols.http.h11_impl import H11Protocol

    _callable(starlette_server, "_get_uvicorn_config_kwargs")
    _callable(uvicorn, "Config", object(), http=H11Protocol)
    for name in ("connection_made", "connection_lost", "handle_events", "on_response_complete"):
        if not callable(getattr(H11Protocol, name, None)):
            raise Changed(f"uvicorn's H11Protocol has no method {name}")
    if not isinstance(h11.IDLE, type):
        raise Changed("h11.IDLE is not a state")


def _probe_frontend_files() -> None:
    from streamlit.web.server.starlette.starlette_static_routes import (
        create_streamlit_static_assets_routes,
    )

    static_dir = _static_dir()
    if not (static_dir / "index.html").is_file():
        raise Changed(f"no index.html in {static_dir}")
    js_dir = static_dir / "static" / "js"
    missing = [kind for kind in FIRST_PAGE_ELEMENTS if not any(js_dir.glob(f"{kind}.*.js"))]
    if missing:
        raise Changed(f"no element code named <kind>.<hash>.js for {', '.join(missing)}")
    if _static_assets(create_streamlit_static_assets_routes(base_url=None)) is None:
        raise Changed(f'no route named "{_STATIC_ASSETS_ROUTE}" serves the frontend')


def _probe_direct_run_check() -> None:
    from streamlit import delta_generator

    if not isinstance(delta_generator._use_warning_has_been_displayed, bool):
        raise Changed("delta_generator._use_warning_has_been_displayed is not a flag")


def _probe_run_context() -> None:
    from streamlit.runtime.scriptrunner_utils import script_run_context

    _callable(script_run_context, "get_script_run_ctx", suppress_warning=True)
    fields = {field.name for field in dataclasses.fields(script_run_context.ScriptRunContext)}
    missing = sorted({"session_id", "script_requests", "fragment_ids_this_run"} - fields)
    if missing:
        raise Changed(f"ScriptRunContext has no {', '.join(missing)}")


def _probe_pending_rerun() -> None:
    from streamlit.runtime.scriptrunner_utils.script_requests import RerunData, ScriptRequests

    requests = ScriptRequests()
    seen = [_read_pending(requests)]
    requests.request_rerun(RerunData(fragment_id="probe"))  # a move in a fragment
    seen.append(_read_pending(requests))
    requests.request_rerun(RerunData())  # a rerun of the whole app takes over
    seen.append(_read_pending(requests))
    requests.request_stop()
    seen.append(_read_pending(requests))
    expected = [NOTHING_PENDING, Pending(False, True), Pending(True, False), Pending(True, False)]
    if seen != expected:
        raise Changed(f"pending requests read as {seen}, not {expected}")


def _probe_session_liveness() -> None:
    from streamlit.runtime import Runtime

    _callable(Runtime, "instance")
    _callable(Runtime, "is_active_session", object(), "session")


def _probe_media_files() -> None:
    from streamlit import runtime
    from streamlit.runtime.media_file_manager import MediaFileManager

    _callable(runtime, "exists")
    _callable(runtime, "get_instance")
    if not isinstance(inspect.getattr_static(runtime.Runtime, "media_file_mgr"), property):
        raise Changed("Runtime.media_file_mgr is not a property")
    _callable(MediaFileManager, "add", object(), b"", "video/mp4", "coordinates")


def _probe_cache_logger() -> None:
    _cache_logger()


def _probe_server_log() -> None:
    from streamlit import logger

    _callable(logger, "get_logger", "paretoscope")


SERVER_START = Hook(
    "server_start",
    "Streamlit's start-up step `streamlit.web.bootstrap._on_server_start`, to learn when its "
    "server listens",
    "the warm imports begin at once, while Streamlit itself starts, not once its server "
    "listens (its first answer comes 0.2-0.4 s later)",
    _probe_server_start,
)
SERVER_ROUTES = Hook(
    "server_routes",
    "the routes of Streamlit's Starlette server "
    "(`streamlit.web.server.starlette.starlette_app.create_streamlit_routes`)",
    "live frames are sent as ordinary Streamlit image messages (slower with many viewers), "
    "and pages load the first page's widget code only when its first run asks for it",
    _probe_server_routes,
)
SERVER_CONFIG = Hook(
    "server_config",
    "the settings Streamlit's server gives uvicorn "
    "(`streamlit.web.server.starlette.starlette_server._get_uvicorn_config_kwargs`) and "
    "uvicorn's HTTP/1.1 protocol (`uvicorn.protocols.http.h11_impl.H11Protocol`: its "
    "connection_made, handle_events, on_response_complete, connection_lost and h11 state)",
    "a connection that sends a request's head slowly, or opens and sends nothing, stays open "
    "until its client closes it",
    _probe_server_config,
)
FRONTEND_FILES = Hook(
    "frontend_files",
    "Streamlit's frontend files (`streamlit.file_util.get_static_dir`: index.html, the "
    "hashed names of element code, static/js/<Element>.<hash>.js) and the server's route "
    '"static-assets" that serves them',
    "pages load the first page's widget code only when its first run asks for it (about "
    "0.8 s later on a cold start)",
    _probe_frontend_files,
)
DIRECT_RUN_CHECK = Hook(
    "direct_run_check",
    "the flag `streamlit.delta_generator._use_warning_has_been_displayed`, to skip the check "
    "for an app run without `streamlit run`",
    "Streamlit makes that check once per process (0.3-0.9 s before the first page's first widget)",
    _probe_direct_run_check,
)
RUN_CONTEXT = Hook(
    "run_context",
    "the page run's context (`streamlit.runtime.scriptrunner_utils.script_run_context."
    "get_script_run_ctx`: its session_id, script_requests and fragment_ids_this_run)",
    "each session gets an id of the dashboard's own, kept in its session state, and counts "
    "as connected (as without session_liveness); live streams cannot see a viewer's move "
    "(as without pending_rerun); benchmark traces name no sessions",
    _probe_run_context,
)
PENDING_RERUN = Hook(
    "pending_rerun",
    "what a page run was asked and has not acted on yet (`ScriptRequests._state` and "
    "`._rerun_data`: fragment_id_queue, is_fragment_scoped_rerun, is_auto_rerun)",
    "a live stream sends a message a second, where Streamlit itself ends the run of a viewer "
    "who moved on or left, and a move in a fragment (Explore's preference) waits for the "
    "stream in progress to end",
    _probe_pending_rerun,
)
SESSION_LIVENESS = Hook(
    "session_liveness",
    "whether a session is still connected (`streamlit.runtime.Runtime.instance()."
    "is_active_session`)",
    "every session counts as connected: a closed session's live channel stays open until "
    "the server stops, and its upload folder goes when Streamlit drops its state",
    _probe_session_liveness,
)
MEDIA_FILES = Hook(
    "media_files",
    "Streamlit's media files (`streamlit.runtime.exists`, `Runtime.media_file_mgr.add`), to "
    "serve a finished episode to the dashboard's own player",
    "finished episodes play in Streamlit's `st.video` player, which sometimes stays paused at "
    "0 s until clicked",
    _probe_media_files,
)
CACHE_LOGGER = Hook(
    "cache_logger",
    "the logger of `streamlit.runtime.caching.cache_data_api` (`_LOGGER`), quieted while the "
    "pages are imported before a runtime exists",
    'the pages\' caches log "No runtime found" while the server starts (true and harmless)',
    _probe_cache_logger,
)
SERVER_LOG = Hook(
    "server_log",
    "Streamlit's logging (`streamlit.logger.get_logger`): its format and `logger.level`",
    "the dashboard logs through Python's own logging: warnings and errors on the standard "
    "error, in its plain format",
    _probe_server_log,
)
HOOKS = (
    SERVER_START,
    SERVER_ROUTES,
    SERVER_CONFIG,
    FRONTEND_FILES,
    DIRECT_RUN_CHECK,
    RUN_CONTEXT,
    PENDING_RERUN,
    SESSION_LIVENESS,
    MEDIA_FILES,
    CACHE_LOGGER,
    SERVER_LOG,
)


def probe(hook: Hook) -> Check:
    """What is wrong with `hook` in the installed Streamlit now (not remembered, not logged)."""
    try:
        hook.probe()
    except Exception as error:  # noqa: BLE001 - whatever the probe meets is the problem
        return Check(hook, f"{type(error).__name__}: {error}" if str(error) else repr(error))
    return Check(hook, None)


_lock = threading.RLock()
_problems: dict[str, str | None] = {}  # hook name -> its problem (None: works), once probed


def check(hook: Hook) -> Check:
    """`hook` probed once per process; a problem is logged the first time only."""
    if hook.name in _problems:
        return Check(hook, _problems[hook.name])
    with _lock:
        if hook.name not in _problems:
            found = probe(hook)
            _problems[hook.name] = found.problem
            if found.problem is not None:
                _warn(hook, found.problem)
        return Check(hook, _problems[hook.name])


def works(hook: Hook) -> bool:
    """Whether the dashboard takes `hook`'s fast path (`check`)."""
    return check(hook).works


def check_all() -> list[Check]:
    """Every hook, probed (at the server's start): each one missing is logged once."""
    return [check(hook) for hook in HOOKS]


def report_changed(hook: Hook, problem: str) -> None:
    """A use of `hook` found it different from what its probe saw: its fallback from now on,
    logged once."""
    with _lock:
        if _problems.get(hook.name) is None:  # not probed yet, or worked until now
            _problems[hook.name] = problem
            _warn(hook, problem)


def streamlit_version() -> str:
    import streamlit

    return str(getattr(streamlit, "__version__", "(version unknown)"))


def tested_streamlit() -> str:
    """The Streamlit releases this install of the dashboard was tested with (its requirement,
    e.g. ``>=1.52,<1.68``), or "" where it cannot be read."""
    from importlib import metadata

    with contextlib.suppress(metadata.PackageNotFoundError, TypeError):
        for requirement in metadata.requires("paretoscope") or ():
            match = re.fullmatch(r"streamlit\s*([^;\[]*)", requirement.strip())
            if match:  # lower bounds first
                bounds = [bound.strip() for bound in match.group(1).split(",") if bound.strip()]
                return ",".join(sorted(bounds, key=lambda bound: not bound.startswith(">")))
    return ""


def _warn(hook: Hook, problem: str) -> None:
    tested = tested_streamlit()
    server_logger(__name__).warning(
        "Streamlit %s: the dashboard's hook %s (%s) is missing or changed (%s). Without it, %s. "
        "The dashboard is tested with streamlit%s; `python -m "
        "paretoscope.dashboard.streamlit_internals` checks every hook.",
        streamlit_version(),
        hook.name,
        hook.reaches,
        problem,
        hook.without,
        tested or " (range unknown)",
    )


# --- logging ------------------------------------------------------------------------------------


def server_logger(name: str) -> logging.Logger:
    """The logger `name` writing to the server's log as Streamlit's own do (SERVER_LOG), else
    Python's plain logger."""
    if works(SERVER_LOG):
        from streamlit import logger

        found = logger.get_logger(name)
        if isinstance(found, logging.Logger):
            return found
    return logging.getLogger(name)


def _cache_logger() -> logging.Logger:
    from streamlit.runtime.caching import cache_data_api

    found = cache_data_api._LOGGER
    if not isinstance(found, logging.Logger):
        raise Changed("cache_data_api._LOGGER is not a logger")
    return found


@contextlib.contextmanager
def cache_notes_quieted() -> Iterator[None]:
    """The pages' ``st.cache_data`` check their parameters when imported, and log "No runtime
    found" before the server has one: true and harmless (a cache's storage is chosen at its
    first call, in a page run), so not logged in this block (CACHE_LOGGER)."""
    if not works(CACHE_LOGGER):
        yield
        return
    logger = _cache_logger()
    level = logger.level
    logger.setLevel(logging.ERROR)
    try:
        yield
    finally:
        logger.setLevel(level)


# --- the server's start ------------------------------------------------------------------------


def on_server_start(callback: Callable[[], None]) -> bool:
    """Call `callback` once the Streamlit server this process starts listens (after
    Streamlit's own start-up step, even a failing one). False, and nothing is called, without
    SERVER_START."""
    if not works(SERVER_START):
        return False
    from streamlit.web import bootstrap

    streamlit_step = bootstrap._on_server_start

    def started(server: Any) -> None:
        try:
            streamlit_step(server)
        finally:
            callback()

    bootstrap._on_server_start = started
    return True


def skip_direct_run_check() -> bool:
    """Streamlit's first element in a process checks whether the app was run without
    ``streamlit run``, through `inspect.stack()` on the script thread, which maps the file of
    every imported module (2,500 here): 0.3-0.9 s before the first page's first widget. The
    dashboard's server always serves with ``streamlit run``, so the warning never applies.
    False without DIRECT_RUN_CHECK."""
    if not works(DIRECT_RUN_CHECK):
        return False
    from streamlit import delta_generator

    delta_generator._use_warning_has_been_displayed = True
    return True


# --- the server's routes -----------------------------------------------------------------------

RouteEdit = Callable[[list[Any]], list[Any]]
_STATIC_ASSETS_ROUTE = "static-assets"  # Streamlit's mount of its frontend's files


def edit_server_routes(edit: RouteEdit) -> bool:
    """Pass the routes of the server this process starts through `edit` (a new list), after
    any edit before it, when the server builds them. False, and nothing changes, without
    SERVER_ROUTES."""
    if not works(SERVER_ROUTES):
        return False
    from streamlit.web.server.starlette import starlette_app

    streamlit_routes = starlette_app.create_streamlit_routes

    def edited(runtime: Any) -> list[Any]:
        return edit(list(streamlit_routes(runtime)))

    starlette_app.create_streamlit_routes = edited
    return True


def byte_stream_route(
    path: str, open_stream: Callable[[str], AsyncIterator[bytes] | None], gone: str
) -> Any:
    """A route for the server's routes (`edit_server_routes`): ``GET path``, `path` with one
    ``{token}`` part, answers with the bytes of ``open_stream(token)`` as they come: not
    compressed (a compressor would hold bytes back), not cached, not sniffed; or 404 and
    `gone` where it gives None."""
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse, Response, StreamingResponse
    from starlette.routing import Route

    async def serve(request: Request) -> Response:
        stream = open_stream(request.path_params["token"])
        if stream is None:
            return PlainTextResponse(gone, status_code=404)
        return StreamingResponse(
            stream,
            media_type="application/octet-stream",
            headers={
                "Cache-Control": "no-store",
                "Content-Encoding": "identity",
                "X-Content-Type-Options": "nosniff",
            },
        )

    return Route(path, serve, methods=["GET"])


ConfigEdit = Callable[[dict[str, Any]], dict[str, Any]]


def edit_server_config(edit: ConfigEdit) -> bool:
    """Pass the settings of the uvicorn server this process starts (the keywords Streamlit
    gives `uvicorn.Config`) through `edit` (a new dict), after any edit before it. False, and
    nothing changes, without SERVER_CONFIG."""
    if not works(SERVER_CONFIG):
        return False
    from streamlit.web.server.starlette import starlette_server

    streamlit_settings = starlette_server._get_uvicorn_config_kwargs

    def edited() -> dict[str, Any]:
        return edit(dict(streamlit_settings()))

    starlette_server._get_uvicorn_config_kwargs = edited
    return True


def head_deadline_protocol(seconds: Callable[[], float]) -> type[asyncio.Protocol]:
    """uvicorn's HTTP/1.1 protocol (`H11Protocol`, uvicorn's own choice without httptools) for
    `uvicorn.Config(http=...)`, that closes a connection whose request head (its request line
    and header lines) is not whole ``seconds()`` after the connection opened or its last
    response ended: the time of the head alone, so a body, a response streamed for minutes or
    a WebSocket is never cut. (uvicorn's keep-alive timeout ends at the first byte of the next
    request, and nothing times the first: a client that sends a byte every few seconds, or
    none, holds its connection for ever.) Needs SERVER_CONFIG."""
    import h11
    from uvicorn.protocols.http.h11_impl import H11Protocol

    class HeadDeadlineProtocol(H11Protocol):
        _head_due: asyncio.TimerHandle | None = None

        def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
            super().connection_made(transport)
            self._await_head()

        def on_response_complete(self) -> None:
            self._await_head()  # the next request's, before uvicorn reads one sent already
            super().on_response_complete()

        def handle_events(self) -> None:
            super().handle_events()
            # h11 leaves IDLE once a head is whole (or refused): what follows is not timed.
            if self.conn.their_state is not h11.IDLE:
                self._stop_waiting()

        def connection_lost(self, exc: Exception | None) -> None:
            self._stop_waiting()
            super().connection_lost(exc)

        def _await_head(self) -> None:
            self._stop_waiting()
            loop = asyncio.get_running_loop()
            self._head_due = loop.call_later(seconds(), self._head_overdue)

        def _stop_waiting(self) -> None:
            if self._head_due is not None:
                self._head_due.cancel()
                self._head_due = None

        def _head_overdue(self) -> None:
            self._head_due = None
            if self.conn.their_state is h11.IDLE and not self.transport.is_closing():
                self.transport.close()

    return HeadDeadlineProtocol


def _static_assets(routes: Sequence[Any]) -> Any | None:
    for route in routes:
        if getattr(route, "name", None) == _STATIC_ASSETS_ROUTE and hasattr(route, "app"):
            return route
    return None


def wrap_static_files(routes: list[Any], wrap: Callable[[Any], Any]) -> list[Any]:
    """`routes` with Streamlit's frontend files answering through ``wrap(their ASGI app)``;
    unchanged, and FRONTEND_FILES reported, where no route serves them."""
    route = _static_assets(routes)
    if route is None:
        report_changed(FRONTEND_FILES, f'the server has no route named "{_STATIC_ASSETS_ROUTE}"')
        return routes
    route.app = wrap(route.app)
    return routes


# --- the frontend's files ----------------------------------------------------------------------

# The kinds of Streamlit element the dashboard's first page draws (its sidebar, the preference
# slider, the spinner of its first rollout): their code is named ``<kind>.<hash>.js``.
FIRST_PAGE_ELEMENTS = (
    "Slider",
    "Selectbox",
    "NumberInput",
    "Radio",
    "TextInput",
    "Button",
    "FileUploader",
    "Spinner",
)
# Where the page the server sends finds the frontend's code, relative to itself.
FRONTEND_JS_URL = "./static/js/"
# A frontend module's static imports of its siblings: ``import{a as b}from"./X.js"`` and
# ``import"./X.js"`` (the dynamic ``import(`./X.js`)`` of lazily loaded code does not match).
_STATIC_IMPORT = re.compile(rb'(?:\bfrom|\bimport)\s*"\./([\w.\-]+\.js)"')
# The page's own code, which it loads anyway: ``<script src=...>``, ``<link href=...>``.
_NAMED_IN_PAGE = re.compile(rb'(?:href|src)="\./static/js/([\w.\-]+\.js)"')


def _static_dir() -> Path:
    from streamlit import file_util

    return Path(_callable(file_util, "get_static_dir")())


def frontend_dir() -> Path | None:
    """The folder of Streamlit's frontend files (index.html, static/js); None without
    FRONTEND_FILES."""
    return _static_dir() if works(FRONTEND_FILES) else None


def element_code(js_dir: Path, kinds: Sequence[str], loaded: Set[str] = frozenset()) -> list[str]:
    """The files of `kinds`' code in `js_dir` and all they import, each after what it imports,
    but for the `loaded` files (the page's own code: Streamlit's page names its entry module
    and everything that imports). A kind with no file (another Streamlit) is left out."""
    ordered: list[str] = []
    seen: set[str] = set(loaded)

    def visit(name: str) -> None:
        if name in seen or not (js_dir / name).is_file():
            return
        seen.add(name)
        for imported in _STATIC_IMPORT.findall((js_dir / name).read_bytes()):
            visit(imported.decode())
        ordered.append(name)

    for kind in kinds:
        for path in sorted(js_dir.glob(f"{kind}.*.js")):
            visit(path.name)
    return ordered


def element_code_to_preload(
    static_dir: Path, kinds: Sequence[str] = FIRST_PAGE_ELEMENTS
) -> list[str]:
    """The files of `kinds`' code (under `FRONTEND_JS_URL`) that the page in `static_dir` does
    not load itself, each after what it imports."""
    page = (static_dir / "index.html").read_bytes()
    named = {name.decode() for name in _NAMED_IN_PAGE.findall(page)}
    return element_code(static_dir / "static" / "js", kinds, named)


# --- the page run ------------------------------------------------------------------------------


class Pending(NamedTuple):
    """What Streamlit was asked for a page run and has not acted on yet."""

    # A stop, or a rerun that ends the run at its next message: of the whole app, or one a
    # fragment asked for itself (a rerun of other fragments does not: Streamlit's own rule).
    stops_run: bool
    # A widget in a fragment asked for that fragment's rerun, which Streamlit starts only
    # once the run in progress ends (not a timed rerun, `run_every`).
    fragment_waits: bool


NOTHING_PENDING = Pending(False, False)


def _read_pending(requests: Any) -> Pending:
    state = requests._state.value  # "CONTINUE", "RERUN" or "STOP"
    if state == "STOP":
        return Pending(True, False)
    if state != "RERUN":
        return NOTHING_PENDING
    rerun = requests._rerun_data
    of_fragments = bool(rerun.fragment_id_queue) and not rerun.is_fragment_scoped_rerun
    return Pending(not of_fragments, of_fragments and not rerun.is_auto_rerun)


def _run_context() -> Any | None:
    """This thread's page run context (None outside a page run, or without RUN_CONTEXT)."""
    if not works(RUN_CONTEXT):
        return None
    from streamlit.runtime.scriptrunner_utils.script_run_context import get_script_run_ctx

    return get_script_run_ctx(suppress_warning=True)


def pending_request() -> Pending | None:
    """What this page run was asked and has not acted on (nothing outside a page run); None
    where it cannot be read (without RUN_CONTEXT or PENDING_RERUN): Streamlit acts on it at
    the run's next message."""
    if not (works(RUN_CONTEXT) and works(PENDING_RERUN)):
        return None
    requests = getattr(_run_context(), "script_requests", None)
    return NOTHING_PENDING if requests is None else _read_pending(requests)


def run_session_id() -> str | None:
    """The session of this thread's page run (None outside one, or without RUN_CONTEXT)."""
    session = getattr(_run_context(), "session_id", None)
    return str(session) if session else None


_OWN_SESSION_ID = "_paretoscope_session_id"


def session_id() -> str:
    """This page run's session: Streamlit's id ("anonymous" outside a page run); without
    RUN_CONTEXT, an id of the dashboard's own kept in the session's state."""
    if works(RUN_CONTEXT):
        return run_session_id() or "anonymous"
    import streamlit as st

    return str(st.session_state.setdefault(_OWN_SESSION_ID, secrets.token_hex(16)))


def session_is_active(session: str) -> bool:
    """Whether the session `session` is still connected. True where that cannot be known:
    without a runtime (an AppTest), SESSION_LIVENESS or RUN_CONTEXT (its ids are the
    dashboard's own)."""
    if not (works(RUN_CONTEXT) and works(SESSION_LIVENESS)):
        return True
    from streamlit.runtime import Runtime

    try:
        return bool(Runtime.instance().is_active_session(session))
    except Exception:  # noqa: BLE001 - no runtime: count every session as active
        return True


def fragment_run() -> bool:
    """Whether this page run is a fragment's own rerun (False without RUN_CONTEXT)."""
    return bool(getattr(_run_context(), "fragment_ids_this_run", None))


def media_url(data: bytes, mimetype: str, coordinates: str) -> str | None:
    """Where the page fetches `data`, served by Streamlit's media endpoint as `st.video` would
    serve it (this session's for as long as a run draws it at `coordinates`). None without a
    runtime (a bare script run) or MEDIA_FILES."""
    if not works(MEDIA_FILES):
        return None
    from streamlit import runtime

    if not runtime.exists():
        return None
    return str(runtime.get_instance().media_file_mgr.add(data, mimetype, coordinates))


# --- the check on its own -----------------------------------------------------------------------


def main() -> int:
    """Print each hook and whether it works with the installed Streamlit; 1 if one does not."""
    tested = tested_streamlit()
    print(
        f"Streamlit {streamlit_version()} (the dashboard is tested with "
        f"streamlit{tested or ' (range unknown)'})"
    )
    checks = [probe(hook) for hook in HOOKS]
    for found in checks:
        print(f"\n{'works ' if found.works else 'BROKEN'}  {found.hook.name}")
        lines = [found.hook.reaches]
        if not found.works:
            lines += [f"problem: {found.problem}", f"without it: {found.hook.without}"]
        for line in lines:
            print(textwrap.fill(line, 96, initial_indent=" " * 8, subsequent_indent=" " * 10))
    broken = sum(not found.works for found in checks)
    print(f"\n{len(checks) - broken} of {len(checks)} hooks work.")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
