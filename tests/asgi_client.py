"""Requests to an ASGI app from a test, each answer whole (Starlette's own test client needs a
package this project does not install)."""

from __future__ import annotations

import asyncio
import concurrent.futures
from typing import Any, NamedTuple


class Answer(NamedTuple):
    status: int
    headers: dict[str, str]  # names lower-case
    content: bytes


def run_in_thread(coroutine: Any) -> Any:
    """`asyncio.run(coroutine)` in a thread of its own: the caller's thread may be running an
    event loop already (Playwright's sync API does, in the browser tests of the same session)."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


async def request(
    app: Any,
    method: str,
    path: str,
    headers: dict[str, str] | None = None,
    extensions: dict[str, Any] | None = None,
    timeout: float = 20.0,
) -> Answer:
    """`app`'s answer to one request with no body, read to its end."""
    sent: list[dict[str, Any]] = []
    answered = asyncio.Event()
    asked = False

    async def receive() -> dict[str, Any]:
        # The request once; then, as a server would, a disconnect once the answer has ended
        # (the client never leaves before).
        nonlocal asked
        if not asked:
            asked = True
            return {"type": "http.request", "body": b"", "more_body": False}
        await answered.wait()
        return {"type": "http.disconnect"}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)
        if message["type"] == "http.response.body" and not message.get("more_body"):
            answered.set()

    scope = {
        "type": "http",
        "asgi": {"version": "3.0"},
        "http_version": "1.1",
        "method": method,
        "scheme": "http",
        "path": path,
        "raw_path": path.encode(),
        "root_path": "",
        "query_string": b"",
        "headers": [(name.encode(), value.encode()) for name, value in (headers or {}).items()],
        "server": ("testserver", 80),
        "client": ("testclient", 50000),
        "extensions": extensions or {},
    }
    await asyncio.wait_for(app(scope, receive, send), timeout=timeout)
    start = next(message for message in sent if message["type"] == "http.response.start")
    return Answer(
        start["status"],
        {name.decode().lower(): value.decode() for name, value in start["headers"]},
        b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body"),
    )


class Client:
    """`request`s to one app, from any thread (`run_in_thread`)."""

    def __init__(self, app: Any) -> None:
        self.app = app

    def request(
        self,
        method: str,
        path: str,
        headers: dict[str, str] | None = None,
        extensions: dict[str, Any] | None = None,
    ) -> Answer:
        return run_in_thread(request(self.app, method, path, headers, extensions))

    def get(self, path: str, headers: dict[str, str] | None = None) -> Answer:
        return self.request("GET", path, headers)

    def head(self, path: str) -> Answer:
        return self.request("HEAD", path)
