"""`paretoscope.dashboard.request_heads`: a connection to the dashboard's server that does not
send a whole request head within `HEAD_SECONDS` (it trickles one a byte at a time, or opens and
sends nothing) is closed without an answer, while what began before it goes on: a normal
request, a page's WebSocket, a feed streaming frames, a slow request body.

Each client's clock is its own trickle: the server closing it is the event waited for (with a
deadline), and whatever was opened before it has by then lived longer than the bound."""

from __future__ import annotations

import asyncio
import contextlib
import select
import socket
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import pytest

from paretoscope.dashboard import frame_feed, request_heads
from paretoscope.dashboard import streamlit_internals as internals
from tests.waiting import wait_until

# A head that cannot be whole before the bound at one byte a `TRICKLE_SECONDS`.
SLOW_HEAD = b"GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n" + b"X-Slow: " + b"z" * 200 + b"\r\n\r\n"
TRICKLE_SECONDS = 0.2
# How much later than the bound a close may come on the shared, loaded test machine.
LATE_SECONDS = 10.0


class Closed(NamedTuple):
    seconds: float  # from just before the connection opened
    heard: bytes  # what the server sent before it closed


def _connect(port: int) -> socket.socket:
    return socket.create_connection(("127.0.0.1", port), timeout=10)


def _trickle_until_closed(
    clients: list[tuple[socket.socket, bytes]], started: float, timeout: float
) -> list[Closed]:
    """Each client sends its bytes one at a time, a byte every `TRICKLE_SECONDS`, until the
    server closes its connection (an AssertionError after `timeout` seconds)."""
    closed: dict[int, Closed] = {}
    sent = [0] * len(clients)
    heard = [b""] * len(clients)
    next_byte = time.monotonic()
    while len(closed) < len(clients):
        now = time.monotonic()
        if now - started > timeout:
            raise AssertionError(f"connections still open after {timeout:g} s: {sent} bytes sent")
        if now >= next_byte:
            for index, (client, data) in enumerate(clients):
                if index not in closed and sent[index] < len(data):
                    with contextlib.suppress(OSError):  # closed: its read says so
                        sent[index] += client.send(data[sent[index] : sent[index] + 1])
            next_byte = now + TRICKLE_SECONDS
        watched = {clients[index][0]: index for index in range(len(clients)) if index not in closed}
        readable, _, _ = select.select(list(watched), [], [], max(0.0, next_byte - now))
        for client in readable:
            index = watched[client]
            try:
                chunk = client.recv(65536)
            except ConnectionResetError:
                chunk = b""
            if chunk:
                heard[index] += chunk
            else:
                closed[index] = Closed(time.monotonic() - started, heard[index])
    return [closed[index] for index in range(len(clients))]


def _read_until(client: socket.socket, marker: bytes) -> bytes:
    data = b""
    while marker not in data:
        chunk = client.recv(65536)
        assert chunk, f"the server closed the connection before {marker!r}: {data!r}"
        data += chunk
    return data


# --- the protocol, served in this process ------------------------------------------------------


def _app() -> Any:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import PlainTextResponse
    from starlette.routing import Route, WebSocketRoute
    from starlette.websockets import WebSocket

    async def health(request: Request) -> PlainTextResponse:
        return PlainTextResponse("ok")

    async def echo(request: Request) -> PlainTextResponse:
        return PlainTextResponse((await request.body()).decode())

    async def echo_socket(websocket: WebSocket) -> None:
        await websocket.accept()
        while True:
            await websocket.send_text(await websocket.receive_text())

    return Starlette(
        routes=[
            frame_feed.feed_route(),
            Route("/health", health),
            Route("/echo", echo, methods=["POST"]),
            WebSocketRoute("/socket", echo_socket),
        ]
    )


@pytest.fixture
def bounded_server(monkeypatch: pytest.MonkeyPatch) -> Iterator[int]:
    """uvicorn serving a feed route, a health route, an echo and a WebSocket with the settings
    Streamlit's server gives it once `request_heads.install` has edited them (a bound of 1 s
    here); yields its port."""
    import uvicorn
    from streamlit.web.server.starlette import starlette_server

    monkeypatch.setattr(internals, "_problems", {})
    monkeypatch.setattr(request_heads, "_taken", False)
    monkeypatch.setattr(request_heads, "HEAD_SECONDS", 1.0)
    monkeypatch.setattr(  # put back after the test: install replaces it
        starlette_server, "_get_uvicorn_config_kwargs", starlette_server._get_uvicorn_config_kwargs
    )
    assert request_heads.install()
    settings = starlette_server._get_uvicorn_config_kwargs()
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    server = uvicorn.Server(uvicorn.Config(_app(), log_level="warning", **settings))
    thread = threading.Thread(target=lambda: asyncio.run(server.serve(sockets=[listener])))
    thread.start()
    try:
        wait_until(lambda: server.started or not thread.is_alive(), 30, "uvicorn to listen")
        assert server.started
        yield listener.getsockname()[1]
    finally:
        server.should_exit = True
        thread.join(timeout=30)
        listener.close()


def test_slow_and_silent_heads_are_closed_while_what_began_goes_on(bounded_server: int) -> None:
    from websockets.sync.client import connect

    port = bounded_server
    started = time.monotonic()
    # Begun before the slow clients: a channel's feed, a WebSocket, a request whose body lags.
    channel = frame_feed.shared_feeds().channel("session", "place", lambda session: True)
    feed = _connect(port)
    feed.sendall(f"GET {frame_feed.FEED_PATH}{channel} HTTP/1.1\r\nHost: a\r\n\r\n".encode())
    first = _read_until(feed, frame_feed.marker(0, False))  # no job yet: episode 0
    assert first.startswith(b"HTTP/1.1 200")
    with connect(f"ws://127.0.0.1:{port}/socket", open_timeout=20) as socket_client:
        upload = _connect(port)
        upload.sendall(b"POST /echo HTTP/1.1\r\nHost: a\r\nContent-Length: 4\r\n\r\n")
        # The slow: one trickles its first head, one sends nothing, one trickles its second
        # head after a first request answered on the same connection.
        trickling, silent, second = _connect(port), _connect(port), _connect(port)
        second.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n")
        try:
            closes = _trickle_until_closed(
                [(trickling, SLOW_HEAD), (silent, b""), (second, SLOW_HEAD)],
                started,
                request_heads.HEAD_SECONDS + LATE_SECONDS,
            )
            for closed in closes:
                bound = request_heads.HEAD_SECONDS
                assert bound <= closed.seconds < bound + LATE_SECONDS
            assert closes[0].heard == b"" and closes[1].heard == b""  # no answer, only the close
            assert closes[2].heard.startswith(b"HTTP/1.1 200") and closes[2].heard.endswith(b"ok")

            # Everything begun before lives on, past the bound.
            upload.sendall(b"late")
            assert _read_until(upload, b"late").startswith(b"HTTP/1.1 200")
            socket_client.send("still here")
            assert socket_client.recv(timeout=20) == "still here"
            frame_feed.shared_feeds().follow(channel, None)  # the channel's next episode
            _read_until(feed, frame_feed.marker(1, False))  # the feed goes on: its next marker
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/health", timeout=20) as reply:
                assert reply.read() == b"ok"
        finally:
            frame_feed.shared_feeds().close(channel)
            for client in (feed, upload, trickling, silent, second):
                client.close()


def test_a_head_that_comes_in_time_is_answered(bounded_server: int) -> None:
    """Sent in pieces, but whole within the bound: answered, on a connection kept alive."""
    client = _connect(bounded_server)
    try:
        for piece in (b"GET /hea", b"lth HTTP/1.1\r\n", b"Host: a\r\n", b"\r\n"):
            client.sendall(piece)
        assert _read_until(client, b"ok").startswith(b"HTTP/1.1 200")
        client.sendall(b"GET /health HTTP/1.1\r\nHost: a\r\n\r\n")
        assert _read_until(client, b"ok").startswith(b"HTTP/1.1 200")
    finally:
        client.close()


def test_without_the_hook_the_settings_are_left_alone(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.web.server.starlette import starlette_server

    monkeypatch.setattr(internals, "_problems", {})
    monkeypatch.setattr(request_heads, "_taken", False)
    monkeypatch.delattr(starlette_server, "_get_uvicorn_config_kwargs")
    assert request_heads.install() is False
    assert not hasattr(starlette_server, "_get_uvicorn_config_kwargs")


def test_a_protocol_streamlit_chose_itself_is_kept(monkeypatch: pytest.MonkeyPatch) -> None:
    from streamlit.web.server.starlette import starlette_server

    settings = {"http": "httptools", "ws": "websockets-sansio"}
    monkeypatch.setattr(internals, "_problems", {})
    monkeypatch.setattr(request_heads, "_taken", False)
    monkeypatch.setattr(starlette_server, "_get_uvicorn_config_kwargs", lambda: dict(settings))
    assert request_heads.install()
    assert starlette_server._get_uvicorn_config_kwargs() == settings
    assert not internals.works(internals.SERVER_CONFIG)  # reported, once, in the server log


# --- the dashboard's own server ----------------------------------------------------------------


@pytest.mark.slow
def test_the_dashboard_server_closes_slow_heads_and_keeps_serving(tmp_path: Path) -> None:
    from websockets.sync.client import connect

    from tests.demo_fixture import build_tiny_assets
    from tests.e2e.conftest import serving, start_server

    assets = build_tiny_assets(tmp_path / "assets", horizon=5, with_hopper=False)
    with serving(start_server(assets, tmp_path / "cache")) as url:
        port = int(url.rsplit(":", 1)[1])
        started = time.monotonic()
        page_socket = connect(f"ws://127.0.0.1:{port}/_stcore/stream", open_timeout=30)
        trickling, silent = _connect(port), _connect(port)
        with page_socket:
            closes = _trickle_until_closed(
                [(trickling, SLOW_HEAD), (silent, b"")],
                started,
                request_heads.HEAD_SECONDS + LATE_SECONDS,
            )
            for closed in closes:
                assert closed == Closed(closed.seconds, b"")  # no answer, only the close
                bound = request_heads.HEAD_SECONDS
                assert bound <= closed.seconds < bound + LATE_SECONDS
            # The page's WebSocket, opened before, is still open; a normal request is answered.
            assert page_socket.ping().wait(timeout=20)
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=20) as reply:
                assert reply.read() == b"ok"
        trickling.close()
        silent.close()
