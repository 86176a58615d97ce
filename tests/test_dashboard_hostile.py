"""Hostile links and honest messages: strings from links and files stay inert text everywhere,
errors never show an exception's own text or a server path, refusals never advise allowing
what they refused, and a video cache that cannot be written is said once and survived.

The page's markup is read with a CommonMark parser plus Streamlit's own extensions
(`tests.page_markup`); a page with hostile values may hold no markup that the same page
without them does not."""

from __future__ import annotations

import json
import logging
import re
import shutil
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from paretoscope.dashboard import preferences
from paretoscope.dashboard.messages import VALUE_LIMIT, inert
from paretoscope.text import printable
from tests.apptests import compare_metrics_table, episode_videos, shown_episode
from tests.bad_inputs.make_corpus import MARKER
from tests.conftest import REPO_DIR
from tests.page_markup import EXTENSIONS, page_markup, texts

APP = str(REPO_DIR / "dashboard" / "app.py")
CORPUS_FILES = REPO_DIR / "tests" / "bad_inputs" / "files"
PAGES = (None, "compare", "decide", "choose", "rtg", "training", "dataset", "presentation")
URL_KEYS = (
    "env",
    "agent",
    "dataset",
    "seed",
    "size",
    "gamma",
    "norm",
    "pref",
    "target",
    "tm",
    "agents",
    "ref",
    "traj",
    "step",
    "ans",
    "pbest",
)
UNSAFE_ADVICE = re.compile(r"add_safe_globals|safe_globals|weights_only\s*=\s*False|allowlist")

# Strings an attacker or a careless user would put in a link or a file.
HOSTILE = st.one_of(
    st.sampled_from(
        [
            "[Click to re-login](https:evil.example)",
            "**bold** _em_ ~~gone~~",
            "https://evil.example www.evil.example me@evil.example",
            "<b>html</b><img src=x onerror=alert(1)><script>alert(1)</script>",
            ":material/warning: :red[red] :smile: $x^2$",
            "x` [link](https://evil.example) `",
            "a\n\n# heading\n- list",
            "\u202eevil\u202c \u200b\u2066rtl\u2069 \u05e9\u05dc\u05d5\u05dd",
            "a" * 5000,
            "../../etc/passwd,cheetah-morvs",
            "1e308,1e308",
            "\x00\x1b[31m\r\n",
        ]
    ),
    st.text(alphabet=st.sampled_from(list("[]()*_~`<>#!:$@/\\|-.,= \n\t\u202ea1")), max_size=40),
    st.text(max_size=60),
)


def _app(query: dict[str, str], page: str | None = None):  # noqa: ANN202 - an AppTest
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=120)
    at.query_params.update({"size": "240", **query})
    at.run()
    if page:
        at.switch_page(f"views/{page}.py").run()
    return at


def _cli(*args: str) -> subprocess.CompletedProcess[str]:
    """`paretoscope ARGS` in a fresh process, as a user runs it."""
    command = [sys.executable, "-m", "paretoscope.cli", *args]
    return subprocess.run(command, capture_output=True, text=True, cwd=REPO_DIR, timeout=120)


@pytest.fixture(scope="module")
def tiny_assets(tmp_path_factory: pytest.TempPathFactory) -> Path:
    from tests.demo_fixture import build_tiny_assets

    return build_tiny_assets(tmp_path_factory.mktemp("hostile"), horizon=5, with_hopper=False)


@pytest.fixture
def on_assets(tiny_assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tiny_assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    return tiny_assets


# --- the quoting itself -----------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.one_of(HOSTILE, st.text()))
def test_inert_text_parses_back_to_itself_and_nothing_else(text: str) -> None:
    shown = inert(text)
    if not text:
        assert shown == ""
        return
    tokens = MarkdownIt("commonmark").enable(["table", "strikethrough"]).parse(shown)
    assert [token.type for token in tokens] == ["paragraph_open", "inline", "paragraph_close"]
    children = tokens[1].children or []
    assert len(children) == 1 and children[0].type in ("text", "code_inline")
    if children[0].type == "text":
        # Shown as it is: then nothing Streamlit adds to CommonMark may match either.
        assert not EXTENSIONS.search(shown)
    expected = printable(text, VALUE_LIMIT)
    assert children[0].content in (expected, expected.strip())
    assert "\n" not in shown and len(shown) <= 130


def test_printable_writes_controls_and_bidi_marks_as_escapes() -> None:
    assert printable("a\u202eb\nc\x00") == "a\\u202eb\\nc\\x00"
    assert printable("x" * 500, 10) == "x" * 9 + "…"
    assert printable("שלום") == "שלום"  # right-to-left letters are text, not controls


def test_huge_weights_normalise_without_overflow() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        np.testing.assert_allclose(preferences.normalise([1e308, 1e308]), [0.5, 0.5])
        np.testing.assert_allclose(preferences.normalise([1e308, 1e307]), [10 / 11, 1 / 11])
        np.testing.assert_allclose(preferences.parse_preference("1e308,1e308", 2, 20), [0.5, 0.5])


# --- links ------------------------------------------------------------------------------------


@pytest.mark.slow
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    values=st.fixed_dictionaries({key: HOSTILE for key in URL_KEYS}), page=st.sampled_from(PAGES)
)
def test_no_link_value_puts_markup_or_errors_in_any_page(
    values: dict[str, str], page: str | None, on_assets: Path
) -> None:
    baseline = _baseline(page)
    at = _app(values, page)
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]
    added = page_markup(at) - baseline
    assert not added, added
    assert "Traceback" not in " ".join(w.value for w in at.warning)


_BASELINES: dict[str | None, set[tuple[str, str]]] = {}


def _baseline(page: str | None) -> set[tuple[str, str]]:
    if page not in _BASELINES:
        at = _app({}, page)
        assert not at.exception and not at.error
        _BASELINES[page] = page_markup(at)
    return _BASELINES[page]


@pytest.mark.slow
def test_the_reported_link_shows_its_text_not_a_link(on_assets: Path) -> None:
    at = _app({"agent": "[Click to re-login](https%3Aevil.example) **bold**"})
    (warning,) = at.warning
    assert "Click to re-login" in warning.value
    assert not any(kind == "link_open" for kind, _ in page_markup(at))
    assert ("strong_open", "bold") not in page_markup(at)


@pytest.mark.slow
def test_a_huge_preference_in_a_link_is_used_without_overflow(on_assets: Path) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        at = _app({"pref": "1e308,1e308"})
    assert not at.exception and not at.error and not at.warning
    assert shown_episode(at).preference == [0.5, 0.5]


@pytest.mark.slow
def test_the_same_agent_three_times_is_compared_once(on_assets: Path) -> None:
    at = _app({"agents": "cheetah-morvs,cheetah-morvs,cheetah-morvs"}, "compare")
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = compare_metrics_table(at)
    assert table.index.is_unique and len(table) >= 2
    assert "listed twice" in at.warning[0].value


def test_agents_sharing_a_label_get_distinct_ones(tiny_assets: Path) -> None:
    from dataclasses import replace

    from paretoscope.catalog import discover_assets
    from paretoscope.dashboard.tables import distinct_labels

    agents = list(discover_assets(tiny_assets).agents)
    twins = [replace(agent, label="MORvS") for agent in agents]
    labels = distinct_labels(twins)
    assert len(set(labels.values())) == len(agents)
    assert labels == {agent.name: f"MORvS ({agent.name})" for agent in agents}
    assert distinct_labels(agents) == {agent.name: agent.label for agent in agents}


# --- files -----------------------------------------------------------------------------------

PAYLOAD = "[EVIL](https://evil.example) **EVIL** <b>EVIL</b> :red[EVIL] www.evil.example"


@pytest.mark.slow
@pytest.mark.parametrize("page", PAGES)
def test_names_and_fields_from_files_stay_inert_on_every_page(
    page: str | None, tiny_assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    hostile = tmp_path / "assets"
    shutil.copytree(tiny_assets, hostile)
    manifest = json.loads((hostile / "manifest.json").read_text())
    manifest["title"] = f"title {PAYLOAD}"
    manifest["description"] = f"description {PAYLOAD}"
    for entry in [*manifest["agents"].values(), *manifest["datasets"].values()]:
        entry["label"] = f"label {PAYLOAD}"
    (hostile / "manifest.json").write_text(json.dumps(manifest))
    for meta_file in hostile.glob("datasets/*/paretoscope-dataset.json"):
        meta = json.loads(meta_file.read_text())
        meta["info"].update(source=f"source {PAYLOAD}", quality=f"quality {PAYLOAD}")
        meta_file.write_text(json.dumps(meta))
        (meta_file.parent / "summary.json").unlink()  # a cache of the info, made again
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(tmp_path / "cache"))
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tiny_assets))
    baseline = page_markup(_app({}, page))
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(hostile))
    at = _app({}, page)
    assert not at.exception and not at.error, [e.value for e in at.error]
    shown = page_markup(at)
    assert not shown - baseline, shown - baseline
    assert any("EVIL" in text for text in texts(at))  # the names were on the page
    if page == "dataset":
        assert any("source [EVIL]" in text for text in texts(at))


# --- messages ---------------------------------------------------------------------------------


@pytest.mark.slow
def test_an_unexpected_error_is_a_short_message_and_the_log_has_it(
    on_assets: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.dashboard import tables

    def broken(*args: object, **kwargs: object) -> None:
        raise KeyError("Styler.apply SECRET internal detail")

    monkeypatch.setattr(tables, "metrics_table", broken)
    records: list[logging.LogRecord] = []
    handler = logging.Handler()
    handler.emit = records.append  # type: ignore[method-assign]
    logging.getLogger("paretoscope").addHandler(handler)
    try:
        at = _app({}, "compare")
    finally:
        logging.getLogger("paretoscope").removeHandler(handler)
    assert not at.exception
    (error,) = at.error
    assert "something went wrong on the server" in error.value
    assert "SECRET" not in error.value and "KeyError" not in error.value
    reference = re.search(r"reference `?([0-9a-f]{8})", error.value)
    assert reference is not None
    logged = [r for r in records if reference.group(1) in r.getMessage()]
    assert logged and logged[0].exc_info and "SECRET" in str(logged[0].exc_info[1])
    # The rest of the page went on: the fronts were drawn.
    assert any(chart.proto.spec for chart in at.get("plotly_chart"))


def test_a_refused_checkpoint_names_the_global_and_gives_no_advice_in_the_cli(
    tmp_path: Path,
) -> None:
    Path(MARKER).unlink(missing_ok=True)
    for command in (
        ["agent", "show", str(CORPUS_FILES / "malicious.ckpt")],
        [
            "agent",
            "import-peda",
            str(CORPUS_FILES / "malicious.ckpt"),
            "--env",
            "MO-HalfCheetah-v2",
            "--type",
            "dt",
            "--out",
            str(tmp_path / "out"),
        ],
    ):
        done = _cli(*command)
        assert done.returncode != 0
        assert "refused" in done.stderr and "nothing from the file was run" in done.stderr
        assert re.search(r"the global '[\w.]+'", done.stderr), done.stderr
        assert not UNSAFE_ADVICE.search(done.stderr + done.stdout), done.stderr
        assert "Traceback" not in done.stderr
    assert not Path(MARKER).exists()
    assert not (tmp_path / "out").exists()


@pytest.mark.slow
@pytest.mark.parametrize(
    ("name", "content"),
    [
        ("malicious.ckpt", "malicious.ckpt"),
        ("MO-Hopper-v2_50000_expert_uniform.pkl", "MO-Hopper-v2_50000_expert_uniform.pkl"),
        ("truncated.ckpt", "truncated.ckpt"),
        ("garbage.safetensors", "garbage.safetensors"),  # under "entries could not be read"
        ("[Click](https:evil.example) **b**.safetensors", "garbage.safetensors"),
    ],
)
def test_upload_refusals_name_the_file_not_the_server_folder(
    name: str, content: str, on_assets: Path
) -> None:
    from paretoscope.dashboard.uploads import upload_root

    at = _app({})
    at.file_uploader(key="_uploads").upload(name, (CORPUS_FILES / content).read_bytes())
    at.run()
    if name.endswith(".pkl"):  # a D4MORL file of another env: read when it is opened
        at.selectbox(key="env").set_value("MO-Hopper-v2").run()
        at.switch_page("views/dataset.py").run()
    assert not at.exception
    shown = [*(e.value for e in at.error), *(c.value for c in at.caption)]
    about = [text for text in shown if name in text]
    assert about, shown
    everything = " ".join(text for text in shown)
    assert str(upload_root()) not in everything and "/session-" not in everything
    assert str(on_assets) not in everything
    assert not UNSAFE_ADVICE.search(everything)
    for text in about:
        assert text.count(name) == 1, text  # the name once, not path then message
    markup = page_markup(at)
    assert not any(kind == "link_open" for kind, _ in markup) and ("strong_open", "b") not in markup
    assert not Path(MARKER).exists()


# --- the cache --------------------------------------------------------------------------------


def test_the_library_keeps_working_from_memory_and_says_why(tmp_path: Path) -> None:
    from paretoscope.recordings import Recording, RecordingLibrary

    blocked = tmp_path / "cache"
    blocked.write_text("a file where the folder should be")
    library = RecordingLibrary([], blocked)
    recording = Recording(
        video=b"mp4", fps=10.0, lanes=("a",), rewards=np.zeros((1, 2, 2)),
        frame_steps=np.zeros((1, 2), dtype=int), meta={},
    )  # fmt: skip
    with pytest.MonkeyPatch.context() as patch:
        logged: list[str] = []
        patch.setattr(
            "paretoscope.recordings.library.log.warning",
            lambda *args: logged.append(args[0] % args[1:]),
        )
        library.put("k1", recording)
        library.put("k2", recording)
    assert library.get("k1") is recording and library.get("k2") is recording
    assert library.write_problem and "cannot write a recording" in library.write_problem
    assert len(logged) == 1 and "in memory only" in logged[0]


@pytest.mark.slow
def test_an_unwritable_video_cache_is_said_once_and_videos_still_play(
    tiny_assets: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.cache import RECORDINGS_SUBDIR

    cache = tmp_path / "cache"
    cache.mkdir()
    (cache / RECORDINGS_SUBDIR).write_text("not a folder: nothing can be written below it")
    monkeypatch.setenv("PARETOSCOPE_ASSETS", str(tiny_assets))
    monkeypatch.setenv("PARETOSCOPE_CACHE", str(cache))
    at = _app({})
    assert not at.exception and not at.error
    assert episode_videos(at), "the video plays"
    notices = [toast.value for toast in at.toast]
    assert len(notices) == 1 and "cannot be written" in notices[0]
    at.slider[0].set_value(0.25).run()  # another video: played, and no second notice
    assert shown_episode(at).preference == [0.75, 0.25] and episode_videos(at)
    assert not at.toast
    assert (cache / RECORDINGS_SUBDIR).is_file()


def test_corpus_cases_hold_the_new_probes() -> None:
    cases = json.loads((REPO_DIR / "tests" / "bad_inputs" / "cases.json").read_text())
    queries = [case["query"] for case in cases["urls"]]
    for key in ("pref", "target", "tm", "agents", "ref", "traj", "gamma", "norm"):
        assert sum(key in query for query in queries) >= 2, key


def test_the_server_shows_no_exception_details_in_the_browser(tmp_path: Path) -> None:
    from paretoscope.cli.dashboard import streamlit_command

    # What escapes every guard: Streamlit's generic message in the page, details in the log.
    command = streamlit_command(tmp_path, "127.0.0.1", 8501)
    assert command[command.index("--client.showErrorDetails") + 1] == "none"


def test_cli_errors_write_terminal_escapes_from_names_visibly(tmp_path: Path) -> None:
    name = tmp_path / "\x1b[2J\x1b[31mevil\u202e.ckpt"
    done = _cli("agent", "show", str(name))
    assert done.returncode != 0 and "paretoscope: error:" in done.stderr
    assert "\x1b" not in done.stderr and "\u202e" not in done.stderr
    assert "\\x1b[2J\\x1b[31mevil\\u202e.ckpt" in done.stderr


def test_cli_output_writes_terminal_escapes_from_fields_visibly(
    tiny_assets: Path, tmp_path: Path
) -> None:
    dataset = tmp_path / "dataset"
    shutil.copytree(tiny_assets / "datasets" / "cheetah-amateur", dataset)
    meta_file = dataset / "paretoscope-dataset.json"
    meta = json.loads(meta_file.read_text())
    meta["info"]["source"] = "\x1b]0;owned\x07\x1b[2Jcollect"
    meta_file.write_text(json.dumps(meta))
    (dataset / "summary.json").unlink()  # a cache of the info, made again
    done = _cli("data", "show", str(dataset))
    assert done.returncode == 0, done.stderr
    assert "\\x1b]0;owned\\x07\\x1b[2Jcollect" in done.stdout
    assert "\x1b" not in done.stdout and "\x07" not in done.stdout
    assert "\n" in done.stdout.strip()  # lines are kept
