"""Hostile and bad input: confined paths, upload limits and private folders, and the corpus of
bad files and links under tests/bad_inputs/, each refused with a clear message while the app
goes on."""

from __future__ import annotations

import gc
import json
import os
import re
import shutil
import stat
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from paretoscope.dashboard import uploads
from paretoscope.dashboard.paths import confine_catalog, is_inside, resolve_user_path
from paretoscope.errors import ParetoscopeError
from tests.apptests import episode_videos, shown_episode
from tests.bad_inputs.exercise import exercise_upload
from tests.bad_inputs.make_corpus import MARKER, corpus
from tests.conftest import PEDA_FIXTURES, REPO_DIR

CORPUS = REPO_DIR / "tests" / "bad_inputs"
CASES = json.loads((CORPUS / "cases.json").read_text())
APP = str(REPO_DIR / "dashboard" / "app.py")


# --- paths ---------------------------------------------------------------------------------------


def test_user_paths_stay_inside_the_allowed_folders(tmp_path: Path) -> None:
    root = tmp_path / "assets"
    (root / "agents" / "a").mkdir(parents=True)
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (root / "link-out").symlink_to(outside)
    (root / "link-in").symlink_to(root / "agents")

    assert resolve_user_path("agents", [root]) == (root / "agents").resolve()
    assert resolve_user_path(str(root / "agents" / "a"), [root]) == (root / "agents/a").resolve()
    assert resolve_user_path("link-in/a", [root]) == (root / "agents" / "a").resolve()
    for hostile in (
        "..",
        "../elsewhere",
        "agents/../../elsewhere",
        str(outside),
        "/etc",
        "link-out",
        "~",
    ):
        with pytest.raises(ParetoscopeError, match="outside the folders this server may read"):
            resolve_user_path(hostile, [root])
    with pytest.raises(ParetoscopeError, match="NUL"):
        resolve_user_path("agents\x00", [root])
    with pytest.raises(ParetoscopeError, match="empty"):
        resolve_user_path("  ", [root])
    # A second allowed folder is reachable by its absolute path only.
    assert resolve_user_path(str(outside), [root, outside]) == outside.resolve()
    assert not is_inside(root.parent, [root]) and is_inside(root, [root])


def test_catalog_entries_that_link_outside_are_refused(tmp_path: Path) -> None:
    from paretoscope.catalog import discover_assets
    from tests.demo_fixture import build_tiny_assets

    source = build_tiny_assets(tmp_path / "source", horizon=5, with_hopper=False)
    root = tmp_path / "assets"
    (root / "agents").mkdir(parents=True)
    # A whole agent folder that is a link to elsewhere, and a folder whose weights are a link.
    (root / "agents" / "linked").symlink_to(source / "agents" / "cheetah-policies")
    shutil.copytree(source / "agents" / "cheetah-morvs", root / "agents" / "inner-link")
    weights = root / "agents" / "inner-link" / "weights.safetensors"
    weights.unlink()
    weights.symlink_to(source / "agents" / "cheetah-morvs" / "weights.safetensors")
    shutil.copytree(source / "agents" / "cheetah-morvs", root / "agents" / "plain")

    found = discover_assets(root)
    assert {agent.name for agent in found.agents} >= {"linked", "inner-link", "plain"}
    confined = confine_catalog(found, [root])
    assert [agent.name for agent in confined.agents] == ["plain"]
    refused = {problem.path.name: problem.message for problem in confined.problems}
    assert "leads outside" in refused["linked"] and "leads outside" in refused["inner-link"]
    # Allowing the other folder admits them again.
    assert len(confine_catalog(found, [root, source]).agents) == 3


# --- uploads -------------------------------------------------------------------------------------


def test_upload_folders_are_private_and_removed_with_the_session() -> None:
    root = uploads.upload_root()
    assert stat.S_IMODE(root.stat().st_mode) == 0o700
    folder = uploads.SessionFolder("abc-123")
    path = folder.path
    assert path.parent == root and stat.S_IMODE(path.stat().st_mode) == 0o700
    assert uploads.session_of(path) == "abc-123"
    (path / "agents").mkdir()
    (path / "agents" / "x.safetensors").write_bytes(b"x")
    del folder  # the session's state is released
    gc.collect()
    assert not path.exists()

    # The janitor removes folders of sessions that are gone, once idle; active ones stay.
    gone = uploads.SessionFolder("gone")
    alive = uploads.SessionFolder("alive")
    old = 1_000_000_000
    os.utime(gone.path, (old, old))
    os.utime(alive.path, (old, old))
    removed = uploads.remove_stale_folders(lambda session: session == "alive")
    assert removed == [gone.path] and not gone.path.exists() and alive.path.exists()
    recent = uploads.SessionFolder("recent-but-gone")
    assert uploads.remove_stale_folders(lambda session: session == "alive") == []
    assert recent.path.exists()
    alive.remove()
    assert not alive.path.exists()


def test_the_upload_folder_goes_when_the_server_process_exits() -> None:
    import subprocess
    import sys

    script = (
        "from dashboard import uploads; folder = uploads.SessionFolder('s'); "
        "(folder.path / 'x.pkl').write_bytes(b'x'); print(uploads.upload_root())"
    )
    done = subprocess.run(
        [sys.executable, "-c", script], capture_output=True, text=True, cwd=REPO_DIR, check=True
    )
    root = Path(done.stdout.strip())
    assert root.name.startswith("paretoscope-uploads-") and not root.exists()


def test_upload_limit_defaults_and_overrides(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    from paretoscope.cli.dashboard import streamlit_command
    from paretoscope.dashboard.limits import max_upload_bytes

    monkeypatch.delenv("PARETOSCOPE_MAX_UPLOAD_MB", raising=False)
    assert max_upload_bytes() == 200 * 2**20
    command = streamlit_command(tmp_path, "127.0.0.1", 8501)
    assert command[command.index("--server.maxUploadSize") + 1] == "200"
    monkeypatch.setenv("PARETOSCOPE_MAX_UPLOAD_MB", "1")
    assert max_upload_bytes() == 2**20
    payload = b"\x80\x04" + b"\0" * (2**20)
    with pytest.raises(ParetoscopeError, match="more than the upload limit of 1 MB"):
        uploads.store_upload(tmp_path, "MO-Hopper-v3_1_expert_wide.pkl", payload)
    assert not (tmp_path / "datasets").exists()  # nothing written
    monkeypatch.setenv("PARETOSCOPE_MAX_UPLOAD_MB", "zero")
    with pytest.raises(ParetoscopeError, match="PARETOSCOPE_MAX_UPLOAD_MB"):
        max_upload_bytes()


def test_an_oversized_upload_in_the_page_is_a_message(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tests.demo_fixture import build_tiny_assets

    assets = build_tiny_assets(tmp_path / "assets", horizon=5, with_hopper=False)
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PARETOSCOPE_MAX_UPLOAD_MB", "1")
    at = _app_test()
    at.file_uploader(key="_uploads").upload("MO-Hopper-v3_5_expert_wide.pkl", b"\x80" * (2**20 + 1))
    at.run()
    assert not at.exception
    assert any("more than the upload limit of 1 MB" in error.value for error in at.error)
    stored = "_upload_folder" in at.session_state
    holder = at.session_state["_upload_folder"] if stored else None  # noqa: SIM401
    assert holder is None or not any(holder.path.rglob("*.pkl"))
    # The page goes on: the rollout of the default agent was shown.
    assert episode_videos(at), "the default agent's episode plays"
    # A typed folder outside the assets folder is refused the same way.
    for typed in ("..", "/etc", str(tmp_path)):
        at.text_input(key="_folder_input").input(typed)
        at.button(key="_add_folder").click().run()
        assert not at.exception
        assert any("outside the folders this server may read" in e.value for e in at.error)
    assert "_extra_roots" not in at.session_state


# --- the corpus ----------------------------------------------------------------------------------


def test_the_corpus_is_what_the_script_makes() -> None:
    files = corpus()
    on_disk = {path.name for path in (CORPUS / "files").iterdir()}
    assert on_disk == set(files)
    for name, payload in files.items():
        assert (CORPUS / "files" / name).read_bytes() == payload, f"{name}: run make_corpus.py"
    assert len(CASES["files"]) + len(CASES["urls"]) >= 25
    assert {case["file"] for case in CASES["files"]} == set(files)


@pytest.fixture
def marker_absent() -> Iterator[None]:
    Path(MARKER).unlink(missing_ok=True)
    yield
    assert not Path(MARKER).exists(), "a hostile payload was executed"


@pytest.mark.parametrize("case", CASES["files"], ids=[case["file"] for case in CASES["files"]])
def test_bad_file_gives_a_clear_message(case: dict, tmp_path: Path, marker_absent: None) -> None:
    folder = tmp_path / "session"
    folder.mkdir()
    payload = (CORPUS / "files" / case["file"]).read_bytes()
    with pytest.raises(ParetoscopeError) as caught:
        exercise_upload(folder, case["file"], payload, case.get("limit"))
    assert re.search(case["expect"], str(caught.value)), str(caught.value)
    assert "Traceback" not in str(caught.value)
    # Nothing escaped the session folder, and the session goes on: a good upload still works.
    assert not (tmp_path / "outside").exists() and not Path("/tmp/outside/config.json").exists()
    good = PEDA_FIXTURES / "ckpts" / "MO-HalfCheetah-v2" / "bc" / "step=1.ckpt"
    if good.is_file():
        from paretoscope.catalog import discover_assets

        uploads.store_upload(folder, "fine.ckpt", good.read_bytes())
        assert "fine" in {agent.name for agent in discover_assets(folder).agents}


def _app_test(query: dict[str, str] | None = None):  # noqa: ANN202 - an AppTest
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"size": "240", **(query or {})})
    return at.run()


@pytest.fixture(scope="module")
def url_assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.demo_fixture import build_tiny_assets

    return build_tiny_assets(tmp_path_factory.mktemp("url-assets"), horizon=5, with_hopper=False)


@pytest.mark.slow
@pytest.mark.parametrize(
    "case",
    CASES["urls"],
    ids=["&".join(f"{k}={v}" for k, v in c["query"].items()) for c in CASES["urls"]],
)
def test_bad_url_is_ignored_with_a_message(
    case: dict, url_assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(url_assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    query = dict(case["query"])
    page = f"views/{case['page']}.py" if "page" in case else None
    at = _app_test(query)
    if page:
        at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    notes = " ".join(warning.value for warning in at.warning)
    assert re.search(case["expect"], notes), notes
    assert len(at.warning) == 1, "the notes are one warning, drawn once"
    # The page went on with defaults.
    if page is None:
        assert shown_episode(at).seed == 0


CANARY = "tests.plugin_canary"  # records being imported (sys.modules, an environment mark)


@pytest.mark.slow
def test_a_link_or_a_typed_path_never_imports_a_plug_in(
    url_assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.agents.builtin import named_agents

    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(url_assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.delenv("PARETOSCOPE_PLUGINS", raising=False)  # the server names none
    monkeypatch.delenv("PARETOSCOPE_CANARY_IMPORTED", raising=False)
    assert CANARY not in sys.modules
    for source in (f"py:{CANARY}:make", "py:os:system"):
        at = _app_test({"env": "deep-sea-treasure-v0", "agent": source})
        assert not at.exception, [e.value for e in at.exception]
        assert not at.error, [e.value for e in at.error]
        notes = " ".join(warning.value for warning in at.warning)
        assert source in notes and "no such agent here" in notes, notes
        assert at.selectbox(key="agent").value == "random"
        assert not [label for label in at.selectbox(key="agent").options if "py:" in label]
        # The same name among the agents to compare, on the Compare page.
        at = _app_test({"env": "deep-sea-treasure-v0", "agents": source})
        at.switch_page("views/compare.py").run()
        assert not at.exception, [e.value for e in at.exception]
        assert source not in at.multiselect(key="compare_agents").value
        # Typed as a folder to add: just a name that is no folder.
        at.text_input(key="_folder_input").input(source)
        at.button(key="_add_folder").click().run()
        assert not at.exception
        assert any("no such folder" in error.value for error in at.error), at.error
        assert "_extra_roots" not in at.session_state
    assert CANARY not in sys.modules, "a link or a typed path imported a plug-in module"
    assert "PARETOSCOPE_CANARY_IMPORTED" not in os.environ
    assert not [agent.name for agent in named_agents() if agent.name.startswith("py:")]
