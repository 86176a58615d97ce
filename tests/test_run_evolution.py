"""The front's evolution over training: step fronts from a run's sweep table, the frames (size,
fixed axes, fading, the hypervolume's region) and the MP4, on synthetic fronts."""

from __future__ import annotations

from pathlib import Path

import imageio_ffmpeg
import numpy as np
import pandas as pd
import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.render.front_panel import BACKGROUND, FRONT
from paretoscope.render.plot_area import PlotArea, tick_label, ticks
from paretoscope.runs.evolution import TINT, evolution_area, evolution_frames, evolution_mp4
from paretoscope.runs.fronts import StepFront, logged_step_fronts, step_fronts
from paretoscope.runs.run import LoggedFront

CHEETAH = "MO-HalfCheetah-v2"  # objectives run, energy
NAMES = ("run", "energy")
SIZE = (480, 270)


def front(step: int, points: list[tuple[float, ...]]) -> StepFront:
    returns = np.array(points, dtype=np.float64)
    return StepFront(step, returns, np.full_like(returns, 1.0 / returns.shape[1]))


def quarter(step: int, radius: float) -> StepFront:
    """Three points on a quarter circle of `radius`: a front, every point undominated."""
    angles = np.radians([0.0, 45.0, 90.0])
    return front(step, list(zip(radius * np.cos(angles), radius * np.sin(angles), strict=True)))


def pixel(frame: np.ndarray, area: PlotArea, value: tuple[float, float]) -> tuple[int, ...]:
    column, row = area.to_pixels(np.array(value))[0]
    return tuple(int(channel) for channel in frame[row, column])


def lightness(colour: tuple[int, ...]) -> int:
    return sum(colour)


# --- step fronts ------------------------------------------------------------------------------


def sweep_table(rng: np.random.Generator) -> pd.DataFrame:
    """A run's sweep table: steps out of order, 3 preferences x 2 seeds per step."""
    rows = []
    for step in (200, 0, 100):
        for seed in (0, 1):
            for weight in (0.0, 0.5, 1.0):
                rows.append(
                    {
                        "agent": f"run@step={step}",
                        "step": step,
                        "env": CHEETAH,
                        "seed": seed,
                        "preference_run": weight,
                        "preference_energy": 1.0 - weight,
                        "target_run": 0.0,
                        "target_energy": 0.0,
                        "return_run": rng.normal(100 * weight + step, 5),
                        "return_energy": rng.normal(-50 * weight, 5),
                    }
                )
    return pd.DataFrame(rows).sample(frac=1.0, random_state=3).reset_index(drop=True)


def test_step_fronts_are_the_mean_over_seeds_per_preference_ordered_by_step() -> None:
    table = sweep_table(np.random.default_rng(0))
    fronts = step_fronts(table, CHEETAH)
    assert [f.step for f in fronts] == [0, 100, 200]
    for computed in fronts:
        rows = table[table["step"] == computed.step]
        assert len(computed.returns) == 3
        for preference, returns in zip(computed.preferences, computed.returns, strict=True):
            match = rows[np.isclose(rows["preference_run"], preference[0])]
            assert len(match) == 2  # two seeds
            assert preference[1] == pytest.approx(1.0 - preference[0])
            expected = [match["return_run"].mean(), match["return_energy"].mean()]
            np.testing.assert_allclose(returns, expected, rtol=1e-12)


def test_step_fronts_name_what_is_missing() -> None:
    table = sweep_table(np.random.default_rng(1))
    with pytest.raises(ParetoscopeError, match="'step' column"):
        step_fronts(table.drop(columns="step"), CHEETAH)
    with pytest.raises(ParetoscopeError, match="return_energy"):
        step_fronts(table.drop(columns="return_energy"), CHEETAH)
    with pytest.raises(ParetoscopeError, match="empty"):
        step_fronts(table.iloc[:0], CHEETAH)


def test_logged_step_fronts_are_ordered_by_step() -> None:
    logged = [
        LoggedFront(20, np.array([[1.0, 0.0]]), np.array([[3.0, 4.0]]), Path("step=20.pkl")),
        LoggedFront(10, np.array([[0.0, 1.0]]), np.array([[1.0, 2.0]]), Path("step=10.pkl")),
    ]
    fronts = logged_step_fronts(logged)
    assert [f.step for f in fronts] == [10, 20]
    np.testing.assert_array_equal(fronts[0].returns, [[1.0, 2.0]])
    np.testing.assert_array_equal(fronts[1].preferences, [[1.0, 0.0]])


# --- where values land ---------------------------------------------------------------------


def test_plot_area_maps_values_to_hand_computed_pixels() -> None:
    area = PlotArea(low=(0.0, 0.0), high=(10.0, 20.0), left=100, top=50, right=300, bottom=250)
    pixels = area.to_pixels(np.array([[5.0, 10.0], [0.0, 0.0], [10.0, 20.0], [2.5, 15.0]]))
    np.testing.assert_array_equal(pixels, [[200, 150], [100, 250], [300, 50], [150, 100]])
    covering = PlotArea.covering(np.array([[0.0, 0.0], [10.0, 20.0]]), (0, 0, 10, 10))
    assert covering.low == pytest.approx((-0.8, -1.6))
    assert covering.high == pytest.approx((10.8, 21.6))


def test_ticks_are_round_and_inside_the_range() -> None:
    assert ticks(-0.8, 10.8) == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
    assert ticks(0.05, 0.31) == pytest.approx([0.05, 0.1, 0.15, 0.2, 0.25, 0.3])
    assert ticks(0.0, 1000.0) == [0.0, 200.0, 400.0, 600.0, 800.0, 1000.0]
    assert ticks(-3.0, 40.0) == [0.0, 10.0, 20.0, 30.0, 40.0]
    assert ticks(1.0, 1.0) == []
    assert [tick_label(v, 0.05) for v in (0.05, 0.1, 0.0)] == ["0.05", "0.10", "0"]
    assert tick_label(-200.0, 200.0) == "-200"


def test_axes_cover_every_step() -> None:
    fronts = [quarter(0, 10.0), quarter(1, 30.0), front(2, [(-5.0, 40.0), (2.0, 1.0)])]
    area = evolution_area(fronts, size=SIZE)
    everything = np.vstack([f.returns for f in fronts])
    assert area.low[0] < everything[:, 0].min() and area.high[0] > everything[:, 0].max()
    assert area.low[1] < everything[:, 1].min() and area.high[1] > everything[:, 1].max()
    width, height = SIZE
    assert 0 < area.left < area.right < width and 0 < area.top < area.bottom < height


# --- frames --------------------------------------------------------------------------------


def test_one_frame_per_step_of_the_requested_size() -> None:
    fronts = [quarter(step, 10.0 + step) for step in range(3)]
    frames = list(evolution_frames(fronts, NAMES, size=SIZE, title="a run"))
    assert len(frames) == 3
    for frame in frames:
        assert frame.shape == (270, 480, 3) and frame.dtype == np.uint8
    assert not np.array_equal(frames[0], frames[1])


def test_a_point_that_stays_put_keeps_its_pixel_while_the_others_move() -> None:
    still = (1.0, 9.0)
    fronts = [
        front(0, [still, (5.0, 5.0), (9.0, 1.0)]),
        front(10, [still, (6.0, 7.0), (12.0, 2.0)]),
        front(20, [still, (7.0, 8.5), (15.0, 3.0)]),
    ]
    frames = list(evolution_frames(fronts, NAMES, size=SIZE, fade=0))
    area = evolution_area(fronts, size=SIZE)
    for frame in frames:
        assert pixel(frame, area, still) == FRONT
    # A point that moved away is no longer drawn where it was (nothing fades in with fade=0).
    assert pixel(frames[0], area, (9.0, 1.0)) == FRONT
    assert pixel(frames[1], area, (9.0, 1.0)) != FRONT
    assert pixel(frames[2], area, (15.0, 3.0)) == FRONT


def test_older_fronts_are_drawn_lighter_and_stop_after_fade_steps() -> None:
    # Fronts on quarter circles of growing radius: no older point lies on a newer front's line.
    fronts = [quarter(step, 10.0 * (step + 1)) for step in range(4)]
    area = evolution_area(fronts, size=SIZE)
    middle = (np.cos(np.radians(45.0)), np.sin(np.radians(45.0)))

    def at(frame: np.ndarray, step: int) -> tuple[int, ...]:
        radius = 10.0 * (step + 1)
        return pixel(frame, area, (radius * middle[0], radius * middle[1]))

    last = list(evolution_frames(fronts, NAMES, size=SIZE, fade=2))[3]
    now, one_back, two_back, three_back = (at(last, step) for step in (3, 2, 1, 0))
    assert now == FRONT
    assert lightness(FRONT) < lightness(one_back) < lightness(two_back) < lightness(BACKGROUND)
    assert three_back == BACKGROUND  # beyond `fade`: not drawn

    unfaded = list(evolution_frames(fronts, NAMES, size=SIZE, fade=0))[3]
    assert at(unfaded, 3) == FRONT and at(unfaded, 2) == BACKGROUND


def test_dominated_points_are_hollow_and_the_projection_follows_axes() -> None:
    # Three objectives drawn on (0, 2); (2, 1, 2) is dominated by (4, 4, 4).
    fronts = [front(0, [(4.0, 4.0, 4.0), (2.0, 1.0, 2.0), (1.0, 9.0, 6.0)])]
    frame = next(evolution_frames(fronts, ("a", "b", "c"), axes=(0, 2), size=SIZE))
    area = evolution_area(fronts, axes=(0, 2), size=SIZE)
    assert pixel(frame, area, (4.0, 4.0)) == FRONT
    assert pixel(frame, area, (1.0, 6.0)) == FRONT
    hollow = pixel(frame, area, (2.0, 2.0))
    assert hollow != FRONT and lightness(hollow) > lightness(FRONT)


def test_the_region_the_front_dominates_above_the_reference_is_tinted() -> None:
    fronts = [front(0, [(2.0, 8.0), (8.0, 2.0)]), front(1, [(0.5, 9.5), (9.5, 0.5)])]
    frame = list(evolution_frames(fronts, NAMES, size=SIZE, fade=0, reference_point=(0, 0)))[0]
    area = evolution_area(fronts, size=SIZE)
    assert pixel(frame, area, (1.0, 7.0)) == TINT  # dominated by (2, 8)
    assert pixel(frame, area, (6.0, 1.5)) == TINT  # dominated by (8, 2)
    assert pixel(frame, area, (6.0, 6.0)) != TINT  # dominated by neither
    assert pixel(frame, area, (8.5, 8.5)) != TINT


# --- the MP4 -------------------------------------------------------------------------------


def test_the_mp4_decodes_with_one_frame_per_step_and_the_last_held(tmp_path: Path) -> None:
    fronts = [quarter(step * 1000, 10.0 + step) for step in range(3)]
    target = tmp_path / "evolution.mp4"
    options = {"size": SIZE, "reference_point": (0.0, 0.0)}
    data = evolution_mp4(fronts, NAMES, path=target, fps=2.0, hold=1.0, **options)
    assert target.read_bytes() == data
    reader = imageio_ffmpeg.read_frames(str(target))
    meta = next(reader)
    assert tuple(meta["size"]) == SIZE
    assert meta["fps"] == pytest.approx(2.0)
    decoded = [np.frombuffer(raw, np.uint8).reshape(270, 480, 3) for raw in reader]
    assert len(decoded) == 3 + 2  # one per step, then the last step for one second at 2 fps
    drawn = list(evolution_frames(fronts, NAMES, **options))
    for index, frame in enumerate(decoded):
        expected = drawn[min(index, 2)].astype(np.int16)
        assert np.abs(frame.astype(np.int16) - expected).mean() < 3.0


def test_the_dashboard_call_shape_with_the_run_metrics_hypervolumes() -> None:
    from paretoscope.envs import get_spec
    from paretoscope.runs.fronts import step_metrics

    table = sweep_table(np.random.default_rng(4))
    table["gamma"] = 1.0
    spec = get_spec(CHEETAH)
    metrics = step_metrics(table, CHEETAH)
    data = evolution_mp4(
        step_fronts(table, CHEETAH),
        spec.objective_names,
        axes=(1, 0),
        reference_point=spec.reference_point,
        hypervolumes=metrics["hypervolume"].tolist(),
        size=SIZE,
    )
    assert data[4:8] == b"ftyp"


# --- bad input -----------------------------------------------------------------------------


GOOD = [quarter(0, 1.0), quarter(1, 2.0)]


@pytest.mark.parametrize(
    ("fronts", "names", "options", "message"),
    [
        ([], NAMES, {}, "no fronts"),
        ([front(0, [(1.0, np.nan)])], NAMES, {}, "NaN"),
        ([front(0, [(1.0, 2.0, 3.0)])], NAMES, {}, r"should be \(preferences, 2\)"),
        ([StepFront(0, np.ones((2, 2)), np.ones((3, 2)))], NAMES, {}, "same shape"),
        ([front(0, [(1.0,)])], ("run",), {}, "two objectives"),
        (GOOD, NAMES, {"axes": (0, 2)}, "axes"),
        (GOOD, NAMES, {"axes": (1, 1)}, "axes"),
        (GOOD, NAMES, {"axes": (0,)}, "axes"),
        ([quarter(5, 1.0), quarter(5, 2.0)], NAMES, {}, "ordered by step"),
        (GOOD, NAMES, {"reference_point": (0.0, 0.0, 0.0)}, "reference_point"),
        (GOOD, NAMES, {"hypervolumes": (1.0,)}, "hypervolumes"),
        (GOOD, NAMES, {"hypervolumes": (1.0, np.nan)}, "hypervolumes"),
        (GOOD, NAMES, {"size": (100, 50)}, "size"),
        (GOOD, NAMES, {"fade": -1}, "fade"),
    ],
)
def test_bad_input_is_refused_before_any_frame(
    fronts: list[StepFront], names: tuple[str, ...], options: dict, message: str
) -> None:
    with pytest.raises(ParetoscopeError, match=message):
        evolution_frames(fronts, names, **options)  # raises on the call, not on iteration
    with pytest.raises(ParetoscopeError, match=message):
        evolution_mp4(fronts, names, **options)
