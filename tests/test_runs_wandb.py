"""W&B run folders as training runs, on runs W&B's own library wrote offline
(scripts/make_wandb_fixtures.py): one logged by hand, one whose steps go backwards, one by
MORL-Baselines' Envelope on deep-sea-treasure with logging on.

Checked against independent truth: the table files read as plain JSON, the fronts the fixture
script logged, hypervolume by a brute-force 2-D union of boxes, and the hypervolume
MORL-Baselines itself logged above its own reference point (0, -25)."""

from __future__ import annotations

import json
import re
import shutil
import sys
from pathlib import Path

import numpy as np
import pytest

from paretoscope.cli import main
from paretoscope.errors import ParetoscopeError
from paretoscope.runs.run import open_run
from tests.brute_force import hypervolume_2d

FIXTURES = Path(__file__).parent / "fixtures" / "wandb"
DST = "deep-sea-treasure-v0"
# What scripts/make_wandb_fixtures.py logs by hand (its LOGGED_FRONTS).
LOGGED_FRONTS = {
    100: [[1.0, -1.0], [2.0, -3.0]],
    200: [[1.0, -1.0], [2.0, -3.0], [3.0, -5.0], [5.0, -7.0]],
    300: [[1.0, -1.0], [2.0, -3.0], [3.0, -5.0], [5.0, -7.0], [8.0, -8.0], [16.0, -9.0]],
}
MORLB_REFERENCE = (0.0, -25.0)  # the ref_point the fixture's Envelope run evaluated with


def _run_folder(name: str) -> Path:
    (folder,) = (FIXTURES / name).glob("offline-run-*")
    return folder


def _copy(name: str, tmp_path: Path) -> Path:
    folder = _run_folder(name)
    return Path(shutil.copytree(folder, tmp_path / folder.name))


def _tables_by_wandb_step(folder: Path, key: str = "front") -> list[list[list[float]]]:
    """The `key` tables as plain JSON, in the order of W&B's _step in their names."""
    pattern = re.compile(rf"^{key}_(\d+)_[0-9a-f]+\.table\.json$")
    found = []
    for path in (folder / "files" / "media" / "table" / "eval").iterdir():
        match = pattern.match(path.name)
        if match:
            found.append((int(match[1]), json.loads(path.read_text())["data"]))
    return [data for _, data in sorted(found)]


def _show(capsys: pytest.CaptureFixture[str], *args: str) -> dict:
    assert main(["run", "show", *args, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_run_show_gives_the_hand_logged_steps_fronts_and_hypervolumes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = _show(capsys, str(_run_folder("logged")))
    assert record["env"] == DST and record["format"] == "wandb"
    assert [step["step"] for step in record["steps"]] == list(LOGGED_FRONTS)
    reference = tuple(record["reference_point"])
    for step in record["steps"]:
        assert step["front"] == LOGGED_FRONTS[step["step"]]
        assert step["hypervolume"] == pytest.approx(hypervolume_2d(step["front"], reference))
        assert step["cardinality"] == len(step["front"])
        assert step["logged"]["eval/cardinality"] == len(step["front"])
    assert record["notices"] == []


def test_another_table_key_is_read_as_the_front(capsys: pytest.CaptureFixture[str]) -> None:
    record = _show(capsys, str(_run_folder("logged")), "--table", "eval/front_greedy")
    assert [step["front"] for step in record["steps"]] == [
        front[-1:] for front in LOGGED_FRONTS.values()
    ]


def test_morl_baselines_run_reads_back_with_its_own_hypervolumes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _run_folder("morlb")
    record = _show(capsys, str(folder), "--reference-point", "0,-25")
    assert [step["step"] for step in record["steps"]] == [500, 1000, 1500]
    assert [step["front"] for step in record["steps"]] == _tables_by_wandb_step(folder)
    assert record["logged_reference_point"] == list(MORLB_REFERENCE)
    for step in record["steps"]:
        brute = hypervolume_2d(step["front"], MORLB_REFERENCE)
        assert step["hypervolume"] == pytest.approx(brute)
        assert step["hypervolume"] == pytest.approx(step["logged"]["eval/hypervolume"], rel=1e-5)
        assert step["cardinality"] == step["logged"]["eval/cardinality"]
        assert {"eval/eum", "eval/igd", "eval/mul"} <= set(step["logged"])


def test_a_different_reference_point_is_flagged_with_both(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert main(["run", "show", str(_run_folder("morlb")), "--reference-point", "0,-30"]) == 0
    out = capsys.readouterr().out
    assert "*" in out
    assert "its reference point (0, -25), here (0, -30)" in out


def test_steps_going_backwards_are_left_out_with_a_notice(
    capsys: pytest.CaptureFixture[str],
) -> None:
    record = _show(capsys, str(_run_folder("backwards")))
    assert [step["step"] for step in record["steps"]] == [100, 200, 300]
    assert [step["front"] for step in record["steps"]] == [
        [[1.0, -1.0]],
        [[2.0, -3.0]],
        [[5.0, -7.0]],
    ]
    (notice,) = record["notices"]
    assert "step 150 logged after step 200" in notice and "backwards" in notice


def test_a_truncated_record_log_keeps_the_records_before(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _copy("logged", tmp_path)
    (log,) = folder.glob("run-*.wandb")
    whole = _show(capsys, str(folder))
    content = log.read_bytes()
    # Cut just after the history record of the second front (its table path is in it).
    cut = content.index(b"front_3_") + 400
    log.write_bytes(content[:cut])
    record = _show(capsys, str(folder))
    assert 1 <= len(record["steps"]) < len(whole["steps"])
    assert record["steps"] == whole["steps"][: len(record["steps"])]
    assert any("record log" in notice and "kept" in notice for notice in record["notices"])


@pytest.mark.parametrize(
    ("content", "why"),
    [
        ({"columns": ["a", "b", "c"], "data": [[1, 2, 3]]}, "not one per objective"),
        ({"columns": ["objective_1", "objective_2"], "data": [[1.0, None]]}, "NaN"),
        ({"columns": ["objective_1", "objective_2"], "data": [[1.0, "x"]]}, "not all numbers"),
        ([1, 2], "not a W&B table"),
    ],
)
def test_a_bad_table_is_left_out_with_a_notice_and_the_rest_kept(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: object, why: str
) -> None:
    folder = _copy("logged", tmp_path)
    (table,) = (folder / "files" / "media" / "table" / "eval").glob("front_3_*.table.json")
    table.write_text(json.dumps(content))
    record = _show(capsys, str(folder))
    assert [step["step"] for step in record["steps"]] == [100, 300]
    (notice,) = record["notices"]
    assert "step 200" in notice and why in notice


def test_a_huge_table_is_left_out(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    from paretoscope.runs import wandb_run

    folder = _copy("logged", tmp_path)
    (table,) = (folder / "files" / "media" / "table" / "eval").glob("front_5_*.table.json")
    rows = [[float(i), -float(i)] for i in range(wandb_run.MOST_TABLE_ROWS + 1)]
    table.write_text(json.dumps({"columns": ["objective_1", "objective_2"], "data": rows}))
    record = _show(capsys, str(folder))
    assert [step["step"] for step in record["steps"]] == [100, 200]
    assert "too many" in record["notices"][0]
    monkeypatch.setattr(wandb_run, "MOST_TABLE_BYTES", 100)
    record = _show(capsys, str(folder))
    assert [step["step"] for step in record["steps"]] == [100, 200]  # 72 and 94 bytes
    assert "too large" in record["notices"][0]


def test_a_missing_table_file_is_noted(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    folder = _copy("logged", tmp_path)
    (table,) = (folder / "files" / "media" / "table" / "eval").glob("front_1_*.table.json")
    table.unlink()
    record = _show(capsys, str(folder))
    assert [step["step"] for step in record["steps"]] == [200, 300]
    assert "missing" in record["notices"][0]


def test_without_wandb_the_message_says_to_install_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    folder = _copy("logged", tmp_path)  # a new path: nothing cached
    monkeypatch.setitem(sys.modules, "wandb.proto", None)
    monkeypatch.setitem(sys.modules, "wandb.proto.wandb_internal_pb2", None)
    with pytest.raises(ParetoscopeError, match=r"paretoscope\[wandb\]"):
        open_run(folder)


def test_a_wandb_run_has_logged_steps_and_no_snapshot() -> None:
    run = open_run(_run_folder("logged"))
    assert run.env_id == DST
    assert run.snapshots == () and run.logged_steps == (100, 200, 300)
    fronts, notices = run.logged_fronts()
    assert np.isnan(fronts[0].preferences).all() and not notices


def _checkpoints_with_their_wandb_run(root: Path, *wandb_fixtures: str) -> Path:
    """A MORL-Baselines run folder (Envelope checkpoints at steps 500, 1000, 1500) with W&B
    run folders in its wandb/, where W&B leaves them in the training's working folder."""
    from tests.run_fixtures import envelope_run

    folder = envelope_run(root, steps=(500, 1000, 1500))
    for name in wandb_fixtures:
        source = _run_folder(name)
        shutil.copytree(source, folder / "wandb" / source.name)
    return folder


def test_checkpoints_with_their_wandb_run_have_both_sources(tmp_path: Path) -> None:
    """The snapshots are the checkpoints; the logged fronts are the W&B run's tables, and its
    config's reference point is the logged one."""
    from paretoscope.runs.wandb_run import logged_reference_point

    run = open_run(_checkpoints_with_their_wandb_run(tmp_path, "morlb"))
    assert run.format == "morl-baselines" and run.steps == [500, 1000, 1500]
    fronts, notices = run.logged_fronts()
    assert not notices
    assert [front.step for front in fronts] == [500, 1000, 1500]
    tables = _tables_by_wandb_step(_run_folder("morlb"))
    for front, table in zip(fronts, tables, strict=True):
        assert sorted(map(tuple, front.returns)) == sorted(map(tuple, table))
    assert logged_reference_point(run) == MORLB_REFERENCE


def test_two_wandb_runs_beside_checkpoints_are_not_guessed_between(tmp_path: Path) -> None:
    run = open_run(_checkpoints_with_their_wandb_run(tmp_path, "morlb", "morlb-seed1"))
    assert run.steps == [500, 1000, 1500]  # the checkpoints are kept
    fronts, notices = run.logged_fronts()
    assert fronts == [] and len(notices) == 1
    assert "several W&B runs" in notices[0].message and "keep one" in notices[0].message
