"""`paretoscope render`: a saved agent's rollout as a video file."""

from __future__ import annotations

import argparse
import itertools
from pathlib import Path

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest

from paretoscope.errors import ParetoscopeError

ENV = "MO-HalfCheetah-v2"


def render_command(argv: list[str]) -> int:
    """Run `paretoscope render ARGV` through the command's own parser."""
    from paretoscope.cli import render

    parser = argparse.ArgumentParser(prog="paretoscope")
    render.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["render", *argv])
    return int(args.func(args))


@pytest.fixture(scope="module")
def agent_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A default-size MORvS with random weights, saved as a checkpoint."""
    from paretoscope.agents import save
    from paretoscope.agents.conditioned import create_agent
    from paretoscope.agents.target_model import published_target_model

    agent = create_agent("morvs", ENV, target_model=published_target_model(ENV), seed=0)
    return save(agent, tmp_path_factory.mktemp("agents") / "morvs")


def test_render_writes_a_real_time_mp4_with_a_progress_bar(
    agent_path: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "rollout.mp4"
    status = render_command(
        [str(agent_path), "--env", ENV, "--preference", "0.3,0.7", "--seed", "1"]
        + ["--size", "64x48", "--horizon", "60", "--caption", "--out", str(out)]
    )
    assert status == 0
    reader = imageio_ffmpeg.read_frames(str(out))
    meta = next(reader)
    assert meta["size"] == (64, 48)
    assert meta["codec"].startswith("h264") and meta["pix_fmt"].startswith("yuv420p")
    # HalfCheetah's dt: real time (60 steps at 20 fps last the 3 s minimum: not slowed down)
    assert meta["fps"] == pytest.approx(1 / 0.05)
    assert sum(1 for _ in reader) == 60
    captured = capsys.readouterr()
    assert str(out) in captured.out and "60 steps" in captured.out
    assert "(real time)" in captured.out
    assert "60/60" in captured.err  # the progress bar reached the end


def test_render_writes_a_gif_every_kth_step(agent_path: Path, tmp_path: Path) -> None:
    out = tmp_path / "rollout.gif"
    status = render_command(
        [str(agent_path), "--env", ENV, "--preference", "1,0", "--size", "48x48"]
        + ["--horizon", "7", "--every", "2", "--out", str(out), "--quiet"]
    )
    assert status == 0
    frames = iio.imread(out, index=None, extension=".gif")
    assert len(frames) == 4  # steps 2, 4, 6 and the last, 7
    assert frames.shape[1:3] == (48, 48)


@pytest.mark.parametrize(
    "options, message",
    [
        (["--preference", "0.3,0.3"], "--preference: expected 2 non-negative weights"),
        (["--preference", "0.2,0.3,0.5"], "--preference: expected 2 finite numbers"),
        (["--preference", "a,b"], "--preference: expected 2 comma-separated numbers"),
        (["--preference", "0.5,0.5", "--target", "1"], "--target: expected 2"),
        (["--preference", "0.5,0.5", "--size", "64by48"], "--size: expected WxH"),
        (["--preference", "0.5,0.5", "--out", "video.avi"], "--out: expected a .mp4 or .gif"),
        (["--preference", "0.5,0.5", "--every", "0"], "every: expected at least 1"),
    ],
)
def test_render_refuses_bad_options(
    agent_path: Path, tmp_path: Path, options: list[str], message: str
) -> None:
    with pytest.raises(ParetoscopeError, match=message):
        render_command([str(agent_path), "--env", ENV, "--quiet", *options])


def test_render_refuses_an_agent_made_for_another_env_and_leaves_no_file(
    agent_path: Path, tmp_path: Path
) -> None:
    out = tmp_path / "never.mp4"
    with pytest.raises(ParetoscopeError, match="agent made for MO-HalfCheetah-v2"):
        render_command(
            [str(agent_path), "--env", "MO-Hopper-v2", "--preference", "0.5,0.5"]
            + ["--out", str(out), "--quiet"]
        )
    assert not out.exists()


BEHAVIOUR_SET = Path(__file__).parents[1] / "assets" / "agents" / "halfcheetah-behaviour"


def _decode(path: Path) -> np.ndarray:
    import imageio.v2 as imageio

    return np.stack(list(imageio.get_reader(str(path), "ffmpeg").iter_data())).astype(np.int16)


@pytest.mark.slow
def test_render_gallery_9_makes_a_3x3_grid_of_different_episodes(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from paretoscope.agents.builtin import load_agent
    from paretoscope.behaviour import front_tiles
    from paretoscope.recordings import render_video_file
    from paretoscope.settings import RecordingSettings

    out = tmp_path / "grid.mp4"
    common = ["--size", "96x96", "--horizon", "40", "--quiet"]
    status = render_command(
        [str(BEHAVIOUR_SET), "--env", ENV, "--gallery", "9", *common, "--out", str(out)]
    )
    assert status == 0
    assert "9 policies on a 3x3 grid" in capsys.readouterr().out
    grid = _decode(out)
    assert grid.shape[1:] == (3 * 96 + 2 * 4, 3 * 96 + 2 * 4, 3)
    tiles = [
        grid[:, r * 100 + 48 : r * 100 + 96, c * 100 : c * 100 + 96]  # below the caption
        for r in range(3)
        for c in range(3)
    ]
    # Each tile is its own episode: closest to the one `render` writes alone at its
    # preference, of all nine.
    agent = load_agent(str(BEHAVIOUR_SET), ENV)
    chosen = front_tiles(agent, ENV, 9, seed=0, horizon=40)
    assert len({tuple(p) for p in chosen.preferences.tolist()}) == 9
    settings = RecordingSettings(size=(96, 96), horizon=40)
    singles = []
    for index, preference in enumerate(chosen.preferences):
        alone = tmp_path / f"alone{index}.mp4"
        render_video_file(agent, ENV, preference, None, settings, alone, progress=False)
        singles.append(_decode(alone)[:, 48:96])
    gaps = np.array([[np.abs(tile - single).mean() for single in singles] for tile in tiles])
    assert gaps.argmin(axis=1).tolist() == list(range(9)), gaps.round(1)
    # ... and the episodes differ from one another.
    for first, second in itertools.combinations(range(9), 2):
        assert np.abs(tiles[first] - tiles[second]).mean() > 1, (first, second)
