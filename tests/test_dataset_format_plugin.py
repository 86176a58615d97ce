"""A dataset format defined outside paretoscope and installed through an entry point (group
``paretoscope.dataset_formats``) is listed, shown, converted and accepted as an upload, with no
line of paretoscope naming it; broken entry points beside it are messages, not crashes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from paretoscope.data import Trajectories, open_native, read_d4morl
from paretoscope.data.formats import DATASET_FORMATS
from paretoscope.errors import ParetoscopeError
from tests.conftest import FIXTURES_DIR, REPO_DIR
from tests.registry_support import install_distribution, private_registries
from tests.test_data_support import CHEETAH, CHEETAH_FILE, make_entries, write_pickle

PLUGIN_MODULE = FIXTURES_DIR / "dataset_format_plugin" / "tiny_dataset_format.py"
ENTRY_POINTS = {
    "paretoscope.dataset_formats": {
        "tiny": "tiny_dataset_format:FORMAT",
        "gone": "no_such_module:FORMAT",
        "not-a-format": "tiny_dataset_format:NOT_A_FORMAT",
    }
}


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The tiny format's distribution, installed for this process (and its subprocesses through
    PYTHONPATH), with the dataset-format registry loading entry points afresh."""
    folder = install_distribution(
        tmp_path / "site", "tiny-formats", ENTRY_POINTS, modules=(PLUGIN_MODULE,)
    )
    monkeypatch.syspath_prepend(str(folder))
    private_registries(monkeypatch, DATASET_FORMATS)
    return folder


def _source(folder: Path) -> tuple[Path, Trajectories]:
    """A .tiny dataset written by the plug-in itself, and the trajectories it holds."""
    trajectories = read_d4morl(write_pickle(folder / CHEETAH_FILE, make_entries(6, seed=9)))
    (folder / CHEETAH_FILE).unlink()
    tiny = DATASET_FORMATS.get("tiny")
    written: Path = tiny.write(trajectories, folder / "cheetah.tiny")  # type: ignore[attr-defined]
    return written, trajectories


def _paretoscope(site: Path, *argv: str) -> subprocess.CompletedProcess[str]:
    """`paretoscope ARGV` in a fresh process that sees the installed format."""
    return subprocess.run(
        [sys.executable, "-m", "paretoscope", *argv],
        capture_output=True,
        text=True,
        cwd=REPO_DIR,
        env={**os.environ, "PYTHONPATH": str(site)},
        timeout=300,
    )


def test_an_installed_format_is_listed_shown_and_converted(site: Path, tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    source, trajectories = _source(data)

    listed = _paretoscope(site, "data", "list", str(data), "--json")
    assert listed.returncode == 0, listed.stderr
    (item,) = json.loads(listed.stdout)
    assert (Path(item["path"]).name, item["format"], item["env_id"]) == (
        "cheetah.tiny",
        "tiny",
        CHEETAH,
    )
    assert item["trajectories"] == 6
    # The broken entry points beside it are reported, and the command went on.
    assert "entry point 'gone': ModuleNotFoundError" in listed.stderr
    assert "entry point 'not-a-format': not a dataset format" in listed.stderr

    shown = _paretoscope(site, "data", "show", str(source), "--json")
    assert shown.returncode == 0, shown.stderr
    summary = json.loads(shown.stdout)
    assert summary["format"] == "tiny" and summary["info"]["env_id"] == CHEETAH
    assert summary["n_trajectories"] == 6 and summary["n_steps"] == trajectories.n_steps

    native = tmp_path / "native"
    converted = _paretoscope(site, "data", "convert", str(source), str(native))
    assert converted.returncode == 0, converted.stderr
    copy = open_native(native)
    for column in ("observations", "actions", "raw_rewards", "terminals", "preferences"):
        np.testing.assert_array_equal(getattr(copy, column), getattr(trajectories, column))
    np.testing.assert_array_equal(copy.offsets, trajectories.offsets)
    np.testing.assert_array_equal(copy.final_observations, trajectories.final_observations)

    # It is a target too (it has `write`): back from native, the same file.
    again = tmp_path / "again.tiny"
    back = _paretoscope(site, "data", "convert", str(native), str(again), "--to", "tiny")
    assert back.returncode == 0, back.stderr
    assert again.read_bytes() == source.read_bytes()


def test_the_dashboards_upload_check_takes_the_format_by_its_first_bytes(
    site: Path, tmp_path: Path
) -> None:
    from paretoscope.dashboard.uploads import accepted_types, check_signature, store_upload

    source, _ = _source(tmp_path)
    payload = source.read_bytes()
    assert "tiny" in accepted_types()
    check_signature("mine.tiny", payload)
    with pytest.raises(ParetoscopeError, match=r"wrong\.tiny: not a tiny dataset"):
        check_signature("wrong.tiny", b"\x80\x04" + payload)
    stored = store_upload(tmp_path / "session", "mine.tiny", payload)
    assert stored == tmp_path / "session" / "datasets" / "mine.tiny"
    with pytest.raises(ParetoscopeError, match="not a tiny dataset"):
        store_upload(tmp_path / "session", "wrong.tiny", b"PK\x03\x04" + payload)
    assert not (tmp_path / "session" / "datasets" / "wrong.tiny").exists()


def test_broken_entry_points_are_messages_and_the_rest_still_works(site: Path) -> None:
    with pytest.warns(UserWarning, match="paretoscope.dataset_formats: entry point 'gone'"):
        problems = DATASET_FORMATS.load_entry_points()
    assert [problem.split(":")[0] for problem in problems] == [
        "entry point 'gone'",
        "entry point 'not-a-format'",
    ]
    assert "has no name, description, suffixes, check_signature, sniff, open" in problems[1]
    assert DATASET_FORMATS.names() == ["native", "minari", "d4morl", "tiny"]
    assert DATASET_FORMATS.load_entry_points() is problems  # once per process


def test_a_file_no_format_claims_is_one_clear_error(tmp_path: Path) -> None:
    from paretoscope.data import convert, open_dataset

    stray = tmp_path / "notes.csv"
    stray.write_text("observations,actions\n1,2\n")
    expected = r"notes\.csv: no dataset format reads this file \(expected .*a D4MORL \.pkl file\)"
    with pytest.raises(ParetoscopeError, match=expected):
        open_dataset(stray)
    with pytest.raises(ParetoscopeError, match=expected):
        convert(stray, tmp_path / "out")
    assert not (tmp_path / "out").exists()
