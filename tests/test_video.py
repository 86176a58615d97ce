"""Video encoding, tiling and captions on synthetic frames (no rendering needed)."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import imageio.v3 as iio
import imageio_ffmpeg
import numpy as np
import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.video import (
    LabelledFrame,
    Mp4Encoder,
    draw_caption,
    encode_gif,
    encode_mp4,
    grid_shape,
    tile_frames,
    tile_videos,
)


def moving_square(
    count: int, width: int = 64, height: int = 48, side: int = 12
) -> list[np.ndarray]:
    """Frames of a white square moving right over a dark-blue background."""
    frames = []
    for index in range(count):
        frame = np.zeros((height, width, 3), np.uint8)
        frame[..., 2] = 60
        left = (index * 3) % (width - side)
        frame[10 : 10 + side, left : left + side] = 255
        frames.append(frame)
    return frames


def decode(path: Path) -> tuple[dict, list[np.ndarray]]:
    """The ffmpeg metadata and the RGB frames of a video file, decoded by imageio-ffmpeg."""
    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    width, height = meta["size"]
    frames = [np.frombuffer(raw, np.uint8).reshape(height, width, 3) for raw in reader]
    return meta, frames


def top_level_boxes(data: bytes) -> list[str]:
    """The types of an MP4's top-level boxes, in file order (ISO BMFF box headers)."""
    boxes, offset = [], 0
    while offset + 8 <= len(data):
        size, kind = struct.unpack(">I4s", data[offset : offset + 8])
        if size == 1:
            size = struct.unpack(">Q", data[offset + 8 : offset + 16])[0]
        elif size == 0:
            size = len(data) - offset
        boxes.append(kind.decode("latin-1"))
        offset += size
    return boxes


def square_column(frame: np.ndarray) -> float:
    """Mean column of the bright pixels (where the square is)."""
    bright = frame.mean(axis=2) > 160
    return float(np.nonzero(bright)[1].mean())


def test_mp4_round_trip_is_h264_yuv420p_with_moov_first(tmp_path: Path) -> None:
    frames = moving_square(20)
    data = encode_mp4(iter(frames), fps=10)
    path = tmp_path / "clip.mp4"
    path.write_bytes(data)
    meta, decoded = decode(path)
    assert meta["codec"].startswith("h264")
    assert meta["pix_fmt"].startswith("yuv420p")
    assert meta["size"] == (64, 48)
    assert meta["fps"] == pytest.approx(10)
    assert len(decoded) == 20
    # The picture survives: the square is where it was drawn, frame by frame.
    for original, copy in zip(frames, decoded, strict=True):
        assert square_column(copy) == pytest.approx(square_column(original), abs=1.0)
    boxes = top_level_boxes(data)
    assert boxes.index("moov") < boxes.index("mdat")


def test_mp4_written_to_a_file_equals_the_bytes_returned(tmp_path: Path) -> None:
    path = tmp_path / "video.mp4"
    data = encode_mp4(moving_square(5), fps=25, path=path)
    assert path.read_bytes() == data


def test_odd_sizes_are_padded_to_even(tmp_path: Path) -> None:
    frames = [frame[:47, :63] for frame in moving_square(6)]
    path = tmp_path / "odd.mp4"
    encode_mp4(frames, fps=5, path=path)
    meta, decoded = decode(path)
    assert meta["size"] == (64, 48)
    assert len(decoded) == 6
    # The padding repeats the last column/row, so the dark-blue background stays blue.
    assert decoded[0][47, 63, 2] > 30


def test_encoder_takes_frames_one_by_one_and_cleans_up(tmp_path: Path) -> None:
    with Mp4Encoder(fps=12) as encoder:
        temporary = encoder.path
        for frame in moving_square(7):
            encoder.add(frame)
        assert encoder.frame_count == 7
        data = encoder.finish()
    assert not temporary.exists()
    path = tmp_path / "from_bytes.mp4"
    path.write_bytes(data)
    assert len(decode(path)[1]) == 7


def test_a_reused_frame_buffer_does_not_change_queued_frames(tmp_path: Path) -> None:
    # The encoder queues frames; a producer that draws every frame into one buffer (as
    # renderers do) must still get every picture.
    buffer = np.zeros((48, 64, 3), np.uint8)
    path = tmp_path / "reused.mp4"
    with Mp4Encoder(fps=10, path=path) as encoder:
        for frame in moving_square(12):
            buffer[...] = frame
            encoder.add(buffer)
        encoder.finish()
    columns = [square_column(frame) for frame in decode(path)[1]]
    expected = [square_column(frame) for frame in moving_square(12)]
    assert columns == pytest.approx(expected, abs=1.0)


@pytest.mark.skipif(not hasattr(os, "SCHED_IDLE"), reason="Linux scheduling classes")
def test_the_encoder_runs_on_idle_cycles() -> None:
    with Mp4Encoder(fps=10) as encoder:
        encoder.add(moving_square(1)[0])
        process = encoder._writer._process
        assert process is not None
        assert os.sched_getscheduler(process.pid) == os.SCHED_IDLE
        encoder.finish()


def test_an_encoder_failure_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match="video encoding failed.*no-such-preset"):
        encode_mp4(moving_square(30), fps=10, path=tmp_path / "x.mp4", preset="no-such-preset")
    assert not (tmp_path / "x.mp4").exists()


def test_an_aborted_encoder_stops_ffmpeg() -> None:
    encoder = Mp4Encoder(fps=10)
    for frame in moving_square(5):
        encoder.add(frame)
    process = encoder._writer._process
    assert process is not None and process.poll() is None
    encoder.close()
    assert process.poll() is not None
    assert not encoder.path.exists()


def test_an_interrupted_encoding_leaves_no_file(tmp_path: Path) -> None:
    path = tmp_path / "broken.mp4"
    frames = moving_square(4)
    with pytest.raises(ParetoscopeError, match="like the first frame"):
        encode_mp4([frames[0], frames[1], frames[2][:, :32]], fps=10, path=path)
    assert not path.exists()


@pytest.mark.parametrize(
    "frames, message",
    [
        ([], "no frames"),
        ([np.zeros((8, 8), np.uint8)], "uint8 RGB"),
        ([np.zeros((8, 8, 3), np.float32)], "uint8 RGB"),
    ],
)
def test_bad_frames_are_refused(frames: list[np.ndarray], message: str) -> None:
    with pytest.raises(ParetoscopeError, match=message):
        encode_mp4(frames, fps=10)


@pytest.mark.parametrize("fps", [0, -1, float("nan"), 5000])
def test_bad_frame_rates_are_refused(fps: float) -> None:
    with pytest.raises(ParetoscopeError, match="fps"):
        encode_mp4(moving_square(2), fps=fps)


def test_gif_has_every_frame_and_loops(tmp_path: Path) -> None:
    frames = moving_square(8)
    data = encode_gif(frames, fps=10, path=tmp_path / "clip.gif")
    assert data.startswith(b"GIF89a")
    decoded = iio.imread(data, index=None, extension=".gif")
    assert len(decoded) == 8
    assert decoded.shape[1:3] == (48, 64)
    for original, copy in zip(frames, decoded, strict=True):
        assert square_column(copy[..., :3]) == pytest.approx(square_column(original), abs=1.0)


def test_gif_above_fifty_fps_drops_frames() -> None:
    decoded = iio.imread(encode_gif(moving_square(20), fps=100), index=None, extension=".gif")
    assert len(decoded) == 10


@pytest.mark.parametrize(
    "count, columns, expected",
    [(1, None, (1, 1)), (2, None, (1, 2)), (3, None, (2, 2)), (5, None, (2, 3)), (4, 1, (4, 1))],
)
def test_grid_shape(count: int, columns: int | None, expected: tuple[int, int]) -> None:
    assert grid_shape(count, columns) == expected


def test_tile_frames_puts_each_frame_in_its_cell() -> None:
    rng = np.random.default_rng(0)
    frames = [rng.integers(0, 256, (10, 14, 3), dtype=np.uint8) for _ in range(5)]
    gap = 3
    canvas = tile_frames(frames, columns=2, gap=gap)
    assert canvas.shape == (3 * 10 + 2 * gap, 2 * 14 + gap, 3)
    for index, frame in enumerate(frames):
        row, column = index // 2, index % 2
        top, left = row * (10 + gap), column * (14 + gap)
        assert np.array_equal(canvas[top : top + 10, left : left + 14], frame)
    # The empty sixth cell and the gaps are black.
    assert not canvas[2 * (10 + gap) :, 14 + gap :].any()
    assert not canvas[:, 14 : 14 + gap].any()


def test_tile_frames_refuses_mixed_sizes() -> None:
    with pytest.raises(ParetoscopeError, match="tile 1"):
        tile_frames([np.zeros((8, 8, 3), np.uint8), np.zeros((8, 6, 3), np.uint8)])


def test_tile_videos_holds_the_shorter_video_on_its_last_frame() -> None:
    short = moving_square(3, width=32, height=24, side=6)
    long = moving_square(5, width=32, height=24, side=6)
    tiled = list(tile_videos([short, long], columns=2, gap=0))
    assert len(tiled) == 5
    for index, canvas in enumerate(tiled):
        assert canvas.shape == (24, 64, 3)
        assert np.array_equal(canvas[:, :32], short[min(index, 2)])
        assert np.array_equal(canvas[:, 32:], long[index])


def test_tile_videos_labels_tiles() -> None:
    frames = moving_square(2, width=96, height=64, side=6)
    plain = list(tile_videos([frames], gap=0))
    labelled = list(tile_videos([[LabelledFrame(frame, ("agent A",)) for frame in frames]]))
    assert plain[0].shape == labelled[0].shape
    assert np.array_equal(plain[1], frames[1])
    assert np.array_equal(labelled[1], draw_caption(frames[1], ("agent A",)))


def test_tile_videos_refuses_an_empty_video() -> None:
    with pytest.raises(ParetoscopeError, match="video 1"):
        list(tile_videos([moving_square(2), []]))


def test_caption_writes_only_in_its_band() -> None:
    frame = np.full((120, 160, 3), 100, np.uint8)
    captioned = draw_caption(frame, ["preference\trun 0.30\tenergy 0.70", "step 3/500"])
    assert captioned.shape == frame.shape and captioned is not frame
    assert np.array_equal(frame, np.full((120, 160, 3), 100, np.uint8))  # input untouched
    changed_rows, changed_columns = np.nonzero((captioned != frame).any(axis=2))
    assert changed_rows.max() < 40 and changed_columns.min() == 0
    assert captioned.max() >= 200  # white text
    assert captioned[changed_rows, changed_columns].min() < 100  # on a darker band
    assert np.array_equal(captioned[60:], frame[60:])


def test_caption_aligns_tab_separated_cells() -> None:
    frame = np.zeros((200, 300, 3), np.uint8)
    lines = ["preference\tA", "x\tB"]
    captioned = draw_caption(frame, lines, font_size=16)
    text = captioned.max(axis=2) > 200
    line_height = 16 + 4
    margin = 5

    def second_cell_left(line: int) -> int:
        rows = text[margin + line * line_height : margin + (line + 1) * line_height]
        columns = np.nonzero(rows.any(axis=0))[0]
        # The second cell starts after the widest first cell ("preference") plus spacing.
        gaps = np.nonzero(np.diff(columns) > 8)[0]
        return int(columns[gaps[-1] + 1])

    assert abs(second_cell_left(0) - second_cell_left(1)) <= 1


@pytest.mark.parametrize("name", ["missing/clip.mp4", "clip.avi", "missing/clip.gif"])
def test_output_paths_are_checked_before_encoding(tmp_path: Path, name: str) -> None:
    encode = encode_gif if name.endswith(".gif") else encode_mp4
    with pytest.raises(ParetoscopeError, match="folder .* does not exist|expected a"):
        encode(moving_square(2), fps=10, path=tmp_path / name)


def test_caption_text_is_12_px_or_more_where_the_frame_has_room() -> None:
    from paretoscope.video import caption_font_size

    # A 36th of the height (480 / 36 = 13.3 -> 13; 720 / 36 = 20), at least 12 (240 / 36 = 6.7)
    # where a twelfth of the height allows it (152 // 12 = 12), else that twelfth, at least 8.
    heights = (64, 120, 152, 240, 320, 480, 720)
    assert [caption_font_size(h) for h in heights] == [8, 10, 12, 12, 12, 13, 20]
