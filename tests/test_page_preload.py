"""`paretoscope.dashboard.page_preload`: which frontend files a page preloads (hand-made module
graphs and the installed Streamlit's own files, read by
`paretoscope.dashboard.streamlit_internals`), and the served page that asks for them (through
Starlette's and Streamlit's own static file handlers)."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
from starlette.applications import Starlette
from starlette.routing import Mount
from starlette.staticfiles import StaticFiles

from paretoscope.dashboard.page_preload import (
    PreloadingPages,
    base_url_script,
    preload_script,
    with_head_end,
)
from paretoscope.dashboard.streamlit_internals import (
    FIRST_PAGE_ELEMENTS,
    element_code,
    frontend_dir,
    wrap_static_files,
)
from tests.asgi_client import Client

PAGE = (
    b'<html><head><script type="module" src="./static/js/index.A1.js"></script></head>'
    b"<body></body></html>"
)


def write_frontend(root: Path) -> Path:
    """A frontend in Streamlit's layout: index.html and static/js, whose modules import each
    other the way Streamlit's built code does."""
    js = root / "static" / "js"
    js.mkdir(parents=True)
    modules = {
        "index.A1.js": 'import{a as b}from"./shared.S1.js";',
        "shared.S1.js": "export const a=1;",
        # Slider imports helpers statically, and the page's own code; the lazy chart is not
        # one of its static imports.
        "Slider.X1.js": 'import{t as e}from"./label.L1.js";import"./track.T1.js";'
        'import{b}from"./index.A1.js";const c=()=>import(`./Chart.C1.js`);',
        "label.L1.js": 'import{u}from"./track.T1.js";import{a}from"./shared.S1.js";',
        "track.T1.js": "export const u=2;",
        "Chart.C1.js": "export default 3;",
        "Button.B1.js": 'import"./label.L1.js";',
    }
    for name, text in modules.items():
        (js / name).write_text(text)
    (root / "index.html").write_bytes(PAGE)
    return root


def preloaded_names(page: bytes) -> list[str]:
    match = re.search(rb"for \(const name of (\[.*?\])\)", page)
    assert match, page
    return json.loads(match.group(1))


def test_a_kind_s_code_is_its_file_and_all_it_imports_each_after_its_imports(
    tmp_path: Path,
) -> None:
    js = write_frontend(tmp_path) / "static" / "js"
    assert element_code(js, ["Slider"]) == [
        "track.T1.js",
        "shared.S1.js",
        "label.L1.js",
        "index.A1.js",
        "Slider.X1.js",
    ]
    # What the page loads itself is left out (its page names everything its entry imports, as
    # Streamlit's does); a file two kinds import comes once.
    loaded = {"index.A1.js"}
    assert element_code(js, ["Slider", "Button"], loaded) == [
        "track.T1.js",
        "shared.S1.js",
        "label.L1.js",
        "Slider.X1.js",
        "Button.B1.js",
    ]
    assert element_code(js, ["Selectbox"]) == []  # no such file in this frontend


def test_the_script_names_what_the_page_does_not_load_itself(tmp_path: Path) -> None:
    root = write_frontend(tmp_path)
    script = preload_script(root, ["Slider"])
    assert preloaded_names(script) == ["track.T1.js", "shared.S1.js", "label.L1.js", "Slider.X1.js"]
    assert b'addEventListener("load"' in script and b'"modulepreload"' in script
    assert preload_script(root, ["Selectbox"]) == b""
    assert with_head_end(PAGE, b"<x>").endswith(b"<x></head><body></body></html>")
    assert with_head_end(b"<p>no head</p>", b"<x>") == b"<p>no head</p>"


def test_the_installed_streamlit_has_every_first_page_kind_and_all_its_imports() -> None:
    """Against the installed Streamlit's frontend: a Streamlit upgrade that renames a kind's
    file, or a module graph this reading misses, fails here rather than preloading nothing."""
    root = frontend_dir()
    assert root is not None
    js = root / "static" / "js"
    names = preloaded_names(preload_script(root))
    page = (root / "index.html").read_text()
    for kind in FIRST_PAGE_ELEMENTS:
        assert any(name.startswith(f"{kind}.") for name in names), kind
    for name in names:
        assert (js / name).is_file() and f"static/js/{name}" not in page
        for imported in re.findall(
            r'(?:\bfrom|\bimport)\s*"\./([\w.\-]+\.js)"', (js / name).read_text()
        ):
            assert imported in names or f"static/js/{imported}" in page, (name, imported)


def test_served_pages_carry_the_script_and_everything_else_passes_unchanged(
    tmp_path: Path,
) -> None:
    root = write_frontend(tmp_path)
    script = preload_script(root, ["Slider"])
    static = StaticFiles(directory=root, html=True)
    client = Client(Starlette(routes=[Mount("/", app=PreloadingPages(static, script))]))

    page = client.get("/")
    assert page.status == 200
    assert page.content == PAGE.replace(b"</head>", script + b"</head>")
    assert int(page.headers["content-length"]) == len(page.content)
    assert "etag" not in page.headers and "last-modified" not in page.headers

    code = client.get("/static/js/Slider.X1.js")
    assert code.content == (root / "static/js/Slider.X1.js").read_bytes()
    assert "etag" in code.headers  # a file's own answer, validators included
    again = client.get("/static/js/Slider.X1.js", headers={"if-none-match": code.headers["etag"]})
    assert again.status == 304 and again.content == b""
    assert client.head("/").headers["content-length"] == str(len(PAGE))  # HEAD: as the file
    assert client.get("/missing.js").status == 404
    # A server that could send files itself by path (ASGI "pathsend") still gets the page's
    # body to send, edited.
    pathsend = {"http.response.pathsend": {}}
    assert client.request("GET", "/", extensions=pathsend).content == page.content


def test_streamlit_s_own_static_files_serve_the_script_at_every_page_path() -> None:
    """Through the handler the Streamlit server uses (its SPA fallback included)."""
    from streamlit.web.server.starlette.starlette_static_routes import (
        create_streamlit_static_assets_routes,
    )

    root = frontend_dir()
    assert root is not None
    script = preload_script(root)
    routes = wrap_static_files(
        create_streamlit_static_assets_routes(base_url=None),
        lambda app: PreloadingPages(app, script),
    )
    client = Client(Starlette(routes=routes))
    for path in ("/", "/compare"):
        page = client.get(path)
        assert page.status == 200 and script in page.content, path
        assert page.content.replace(script, b"") == (root / "index.html").read_bytes()
    name = preloaded_names(script)[-1]
    assert client.get(f"/static/js/{name}").content == (root / "static/js" / name).read_bytes()


@pytest.mark.parametrize("method", ["POST", "PUT"])
def test_other_methods_pass_unchanged(tmp_path: Path, method: str) -> None:
    root = write_frontend(tmp_path)
    static = StaticFiles(directory=root, html=True)
    client = Client(Starlette(routes=[Mount("/", app=PreloadingPages(static, b"<x>"))]))
    assert client.request(method, "/").status == 405


def test_the_page_names_its_server_s_base_url_and_no_base_path_ends_the_script() -> None:
    assert base_url_script("") == (
        b"<script>window.__streamlit = Object.assign(window.__streamlit || {}, "
        b'{BACKEND_BASE_URL: location.origin + ""});</script>'
    )
    assert b'location.origin + "/lab"}' in base_url_script("/lab/")
    hostile = base_url_script("x</script><script>alert(1)")
    assert hostile.count(b"</script>") == 1 and hostile.endswith(b"</script>")
