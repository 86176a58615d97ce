"""`paretoscope data show | convert | collect | list`, through the real entry point."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

import paretoscope.cli
import paretoscope.cli.data as data_cli
from paretoscope.data import open_native, read_d4morl
from paretoscope.text import number
from tests.test_data_support import (
    CHEETAH,
    CHEETAH_FILE,
    LinearTestAgent,
    make_entries,
    write_pickle,
)


@pytest.fixture(autouse=True)
def _with_data_command(monkeypatch: pytest.MonkeyPatch) -> None:
    if "paretoscope.cli.data" not in paretoscope.cli._COMMAND_MODULES:
        monkeypatch.setattr(
            paretoscope.cli,
            "_COMMAND_MODULES",
            (*paretoscope.cli._COMMAND_MODULES, "paretoscope.cli.data"),
        )


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = paretoscope.cli.main(argv)
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def test_show_prints_the_summary(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = make_entries(30, seed=3)
    path = write_pickle(tmp_path / CHEETAH_FILE, entries)
    status, out, _ = _run(["data", "show", str(path)], capsys)
    assert status == 0
    assert CHEETAH in out and "run, energy" in out
    lines = {line.split("  ", 1)[0]: line.split("  ", 1)[1].strip() for line in out.splitlines()}
    assert lines["trajectories"].startswith("30 ")
    returns = np.stack([entry["raw_rewards"].sum(axis=0) for entry in entries])
    assert number(returns[:, 0].max(), 6) in out
    assert lines["non-dominated"].split()[1].startswith("traject")
    assert "reference point (0, 0)" in lines["hypervolume"]


def test_show_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    entries = make_entries(12, seed=4)
    native = tmp_path / "native"
    status, out, _ = _run(
        ["data", "convert", str(write_pickle(tmp_path / CHEETAH_FILE, entries)), str(native)],
        capsys,
    )
    assert status == 0 and "wrote" in out
    status, out, _ = _run(["data", "show", str(native), "--json"], capsys)
    assert status == 0
    shown = json.loads(out)
    assert shown["format"] == "native"
    assert shown["info"]["env_id"] == CHEETAH
    assert shown["n_trajectories"] == 12
    assert shown["n_steps"] == sum(len(entry["actions"]) for entry in entries)
    preferences = np.stack([entry["preference"][0] for entry in entries])
    np.testing.assert_allclose(shown["preference_min"], preferences.min(axis=0))
    assert len(shown["preference_histograms"]) == 2


def test_errors_are_one_line_with_status_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / CHEETAH_FILE
    empty.touch()
    status, out, err = _run(["data", "show", str(empty)], capsys)
    assert status == 2 and out == ""
    assert err.startswith("paretoscope: error: ") and str(empty) in err and "empty" in err
    assert "Traceback" not in err
    status, _, err = _run(
        ["data", "convert", str(tmp_path / "missing.pkl"), str(tmp_path / "o")], capsys
    )
    assert status == 2 and "no such file" in err


def test_convert_to_d4morl_with_env(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_pickle(tmp_path / "unnamed.pkl", make_entries(4))
    status, _, err = _run(["data", "convert", str(source), str(tmp_path / "n")], capsys)
    assert status == 2 and "--env" in err
    status, _, _ = _run(
        ["data", "convert", str(source), str(tmp_path / "n"), "--env", CHEETAH], capsys
    )
    assert status == 0
    status, _, _ = _run(
        ["data", "convert", str(tmp_path / "n"), str(tmp_path / "again.pkl")], capsys
    )
    assert status == 0
    np.testing.assert_array_equal(
        read_d4morl(tmp_path / "again.pkl", env_id=CHEETAH).observations,
        read_d4morl(source, env_id=CHEETAH).observations,
    )


def test_collect_command(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    loaded: list[str] = []

    def fake_load(path: str) -> LinearTestAgent:
        loaded.append(path)
        return LinearTestAgent(CHEETAH, seed=1)

    monkeypatch.setattr(data_cli, "_load_agent", fake_load)
    out = tmp_path / "collected"
    argv = [
        "data", "collect", "--agent", "agent-dir", "--env", CHEETAH, "--dist", "narrow",
        "--quality", "amateur", "--episodes", "3", "--out", str(out), "--horizon", "5",
        "--d4morl-out", str(tmp_path / "collected.pkl"), "--preference-bounds", "0.2:0.8,0.2:0.8",
    ]  # fmt: skip
    status, printed, _ = _run(argv, capsys)
    assert status == 0 and "wrote" in printed
    assert loaded == ["agent-dir"]
    native = open_native(out)
    assert native.n_trajectories == 3 and native.info.quality == "amateur"
    assert (native.preferences >= 0.2).all() and (native.preferences <= 0.8).all()
    assert native.info.extra["agent"] == "agent-dir"
    np.testing.assert_array_equal(
        read_d4morl(tmp_path / "collected.pkl", env_id=CHEETAH).actions, native.actions
    )

    status, _, err = _run([*argv[:-2], "--preference-bounds", "low-high", "--overwrite"], capsys)
    assert status == 2 and "LOW:HIGH" in err
    status, _, err = _run([*argv, "--overwrite", "--action-noise", "0.05"], capsys)
    assert status == 2 and "expert quality only" in err


def test_collect_command_with_action_noise(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(data_cli, "_load_agent", lambda path: LinearTestAgent(CHEETAH, seed=1))
    argv = [
        "data", "collect", "--agent", "agent-dir", "--env", CHEETAH, "--episodes", "2",
        "--horizon", "5", "--seed", "4",
    ]  # fmt: skip
    assert _run([*argv, "--out", str(tmp_path / "plain")], capsys)[0] == 0
    status, _, _ = _run([*argv, "--out", str(tmp_path / "noisy"), "--action-noise", "0.1"], capsys)
    assert status == 0
    plain, noisy = open_native(tmp_path / "plain"), open_native(tmp_path / "noisy")
    assert noisy.info.extra["action_noise"] == 0.1 and noisy.info.quality == "expert"
    assert not np.array_equal(plain.actions, noisy.actions)
    status, printed, _ = _run(["data", "show", str(tmp_path / "noisy")], capsys)
    assert status == 0 and "expert behaviour with action noise 0.1" in printed


def test_list(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    source = write_pickle(tmp_path / CHEETAH_FILE, make_entries(3))
    _run(["data", "convert", str(source), str(tmp_path / "native")], capsys)
    status, out, _ = _run(["data", "list", str(tmp_path), "--json"], capsys)
    assert status == 0
    listed = {Path(item["path"]).name: item for item in json.loads(out)}
    assert listed["native"]["trajectories"] == 3 and listed["native"]["env_id"] == CHEETAH
    assert listed[CHEETAH_FILE]["format"] == "d4morl"
    status, out, _ = _run(["data", "list", str(tmp_path)], capsys)
    assert "[native]" in out and "[d4morl]" in out
