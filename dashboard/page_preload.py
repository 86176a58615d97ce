"""The code of the first page's widgets, asked for by the page the server sends as soon as the
page's own code has loaded, not after the first run's messages.

Streamlit's frontend loads each kind of element's code (``Slider.<hash>.js`` and what it
imports) the first time a page shows one. On a cold start that is after the first run's
messages arrive: measured on the 2-core machine, the page's ~60 files came 1.3-1.9 s after
launch, the first run's messages at 2.1 s, and only then were the sidebar's and the slider's 46
more files asked for, served by 2.7-3.2 s while the first run imported torch — about 0.8 s of
the 3 s from launch to a usable slider. `install` adds to the HTML page the server sends a short
script that, at the page's ``load`` event, adds a ``modulepreload`` link for each of those files
(found from the installed Streamlit's own files, so a Streamlit upgrade finds its own names):
the browser fetches and compiles them while it connects and the first run starts, and draws the
widgets as their messages come. Named in the page's head instead, they were fetched alongside
the page's own code and delayed its start by 0.2 s (launch -> slider: no earlier than without).
Streamlit's frontend files, their names and the route that serves them are reached through
`paretoscope.dashboard.streamlit_internals`; without them pages load the code on demand.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable, MutableMapping, Sequence
from pathlib import Path
from typing import Any

from paretoscope.dashboard import streamlit_internals as internals

_PRELOAD_AT_LOAD = """<script>addEventListener("load", () => {
  for (const name of %s) {
    const link = document.createElement("link");
    link.rel = "modulepreload";
    link.crossOrigin = "";
    link.href = %s + name;
    document.head.appendChild(link);
  }
});</script>"""

# Streamlit's frontend, opened at a page's own link (/compare), first looks for its server under
# that path (/compare/_stcore/health and /compare/_stcore/host-config: two 404s on every page
# but the first) unless the page names its server's base URL, as this script does.
_BACKEND_BASE_URL = """<script>window.__streamlit = Object.assign(window.__streamlit || {}, \
{BACKEND_BASE_URL: location.origin + %s});</script>"""

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]


def preload_script(static_dir: Path, kinds: Sequence[str] = internals.FIRST_PAGE_ELEMENTS) -> bytes:
    """The script that preloads `kinds`' code that the page in `static_dir` (Streamlit's
    frontend) does not load itself (empty when there is none)."""
    names = internals.element_code_to_preload(static_dir, kinds)
    # File names are letters, digits, dots, dashes and underscores: nothing that ends a script.
    script = _PRELOAD_AT_LOAD % (json.dumps(names), json.dumps(internals.FRONTEND_JS_URL))
    return script.encode() if names else b""


def base_url_script(base_path: str) -> bytes:
    """The script naming the server's base URL (its origin and `base_path`, the server's
    ``server.baseUrlPath``) to Streamlit's frontend."""
    base = str(base_path).strip("/")
    # JSON with "<" escaped: nothing in it can end the script.
    literal = json.dumps(f"/{base}" if base else "").replace("<", "\\u003c")
    return (_BACKEND_BASE_URL % literal).encode()


def with_head_end(page: bytes, addition: bytes) -> bytes:
    """`page` with `addition` at the end of its head (unchanged without a ``</head>``)."""
    head_end = page.find(b"</head>")
    if head_end < 0 or not addition:
        return page
    return page[:head_end] + addition + page[head_end:]


class PreloadingPages:
    """An ASGI app around Streamlit's static files that adds `addition` to the head of every
    HTML page it answers a GET with (its index page, at any of the app's paths). Other
    answers pass unchanged."""

    def __init__(self, app: App, addition: bytes) -> None:
        self.app = app
        self.addition = addition

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http" or scope.get("method") != "GET" or not self.addition:
            await self.app(scope, receive, send)
            return
        # The page's body must come as body messages to be edited: not as a path the server
        # sends itself (the ASGI "pathsend" extension some servers offer).
        extensions = {
            name: value
            for name, value in scope.get("extensions", {}).items()
            if name != "http.response.pathsend"
        }
        held: Message | None = None  # an HTML page's start, sent once its body is known
        body: list[bytes] = []

        async def edit(message: Message) -> None:
            nonlocal held
            if message["type"] == "http.response.start" and _is_html_page(message):
                held = message
                return
            if held is None:
                await send(message)
                return
            if message["type"] != "http.response.body":  # not a body after all: as it came
                await send(held)
                held = None
                await send(message)
                return
            body.append(message.get("body", b""))
            if message.get("more_body", False):
                return
            page = with_head_end(b"".join(body), self.addition)
            await send({**held, "headers": _headers_for(held["headers"], len(page))})
            await send({"type": "http.response.body", "body": page})

        await self.app({**scope, "extensions": extensions}, receive, edit)


def _is_html_page(start: Message) -> bool:
    headers = dict(start.get("headers", []))
    return start.get("status") == 200 and headers.get(b"content-type", b"").startswith(b"text/html")


def _headers_for(headers: Sequence[tuple[bytes, bytes]], length: int) -> list[tuple[bytes, bytes]]:
    """An edited page's headers: its new length, and no validators of the file it came from
    (a browser revalidating with those would keep a page edited by another version)."""
    dropped = {b"content-length", b"etag", b"last-modified"}
    kept = [(name, value) for name, value in headers if name.lower() not in dropped]
    return [*kept, (b"content-length", str(length).encode())]


def install() -> bool:
    """Have the pages of the Streamlit server this process will start name its base URL
    (`base_url_script`) and preload the first page's widget code. False where this
    Streamlit's frontend files or routes cannot be reached (`streamlit_internals`:
    FRONTEND_FILES, SERVER_ROUTES)."""
    static_dir = internals.frontend_dir()
    if static_dir is None:
        return False

    def edit(routes: list[Any]) -> list[Any]:
        import streamlit as st

        base_url = base_url_script(str(st.get_option("server.baseUrlPath") or ""))
        try:
            addition = base_url + preload_script(static_dir)
        except OSError:  # the frontend's files went meanwhile: nothing to preload
            addition = base_url
        return internals.wrap_static_files(routes, lambda app: PreloadingPages(app, addition))

    return internals.edit_server_routes(edit)
