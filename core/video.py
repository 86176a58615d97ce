"""Frames -> video: browser-playable H.264 MP4 (or GIF), side-by-side tiling and captions.

Frames are (height, width, 3) uint8 RGB arrays. Encoding runs in an ffmpeg subprocess (the
binary imageio-ffmpeg ships) that is fed frames as they come, so it overlaps with whatever
produces them. MP4s are H.264, yuv420p, with the index (moov) at the front: every browser plays
them and playback starts before the download ends. yuv420p needs even sizes, so a frame with
an odd side is padded by repeating its last row or column.
"""

from __future__ import annotations

import contextlib
import math
import os
import queue
import subprocess
import tempfile
import threading
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from paretoscope.errors import ParetoscopeError

# x264 settings. On a CPU-only machine the software renderer wants every core, so the encoder
# is made as cheap as possible: "ultrafast" in one thread costs ~0.55 CPU-s per 500 moving
# frames at 480x480 ("superfast" ~0.95), for ~1.9 MB instead of ~1 MB at the same PSNR (34 dB).
DEFAULT_PRESET = "ultrafast"
DEFAULT_CRF = 32  # lower is better; 23 is x264's default
ENCODER_THREADS = 1
# The encoder runs on idle cycles and is fed from a queue (see _FfmpegWriter): up to this many
# frames wait for it (80 MB at 480x480). Where idle scheduling is unavailable it is niced.
ENCODER_NICENESS = 10
ENCODER_QUEUE_FRAMES = 120
GIF_MAX_FPS = 50.0  # GIF delays are in 1/100 s and browsers slow down delays under 2/100 s


def decoded_frames(path: str | Path) -> Iterator[np.ndarray]:
    """The frames of a video file, decoded by ffmpeg one at a time, as (height, width, 3) uint8."""
    import imageio_ffmpeg

    reader = imageio_ffmpeg.read_frames(str(path))
    meta = next(reader)
    width, height = meta["size"]
    with contextlib.closing(reader):
        for raw in reader:
            yield np.frombuffer(raw, dtype=np.uint8).reshape(height, width, 3)


def check_frame(frame: np.ndarray, name: str = "frame") -> np.ndarray:
    """`frame` as a (height, width, 3) uint8 array, or a ParetoscopeError."""
    array = np.asarray(frame)
    if array.ndim != 3 or array.shape[2] != 3 or array.dtype != np.uint8:
        raise ParetoscopeError(
            f"{name}: expected a (height, width, 3) uint8 RGB array, "
            f"got shape {array.shape} dtype {array.dtype}"
        )
    if array.shape[0] < 2 or array.shape[1] < 2:
        raise ParetoscopeError(f"{name}: expected at least 2x2 pixels, got {array.shape[:2]}")
    return array


def pad_to_even(frame: np.ndarray) -> np.ndarray:
    """`frame` with its last row/column repeated where its height/width is odd."""
    height, width = frame.shape[:2]
    if height % 2 == 0 and width % 2 == 0:
        return frame
    return np.pad(frame, ((0, height % 2), (0, width % 2), (0, 0)), mode="edge")


def _check_output(path: str | Path, suffix: str) -> Path:
    """`path` as a Path ending in `suffix` whose folder exists, or a ParetoscopeError."""
    target = Path(path)
    if target.suffix.lower() != suffix:
        raise ParetoscopeError(f"{target}: expected a {suffix} file name")
    if not target.parent.is_dir():
        raise ParetoscopeError(f"{target}: the folder {target.parent} does not exist")
    return target


def _check_seconds(seconds: float) -> float:
    if not (isinstance(seconds, int | float) and math.isfinite(seconds) and seconds >= 0):
        raise ParetoscopeError(f"min_seconds: expected a number >= 0, got {seconds!r}")
    return float(seconds)


def lasting_fps(fps: float, frames: int, min_seconds: float) -> float:
    """The frame rate a video of `frames` frames asked at `fps` plays at when it must last at
    least `min_seconds`: `fps`, or slower for a video that would end sooner."""
    if min_seconds > 0 and frames < fps * min_seconds:
        return max(frames, 1) / min_seconds
    return fps


def _check_fps(fps: float) -> float:
    if not (isinstance(fps, int | float) and math.isfinite(fps) and 0 < fps <= 1000):
        raise ParetoscopeError(f"fps: expected a number in (0, 1000], got {fps!r}")
    return float(fps)


class _FfmpegWriter:
    """Frames piped to an ffmpeg process that writes `path`; the first frame fixes the size.

    `add` queues the frame and returns; a feeder thread hands frames to ffmpeg, which runs
    only on otherwise idle CPU cycles (Linux SCHED_IDLE; niced elsewhere). So encoding fills
    the gaps the renderer and the simulation leave instead of competing with them (on a
    CPU-only machine the software renderer keeps ~1.7 of 2 cores busy), and catches up on its
    queue when the frames stop. The queue is bounded: a producer far ahead of the encoder waits,
    which frees the CPU for it.
    """

    def __init__(
        self,
        path: Path,
        fps: float,
        codec: str,
        pix_fmt: str,
        params: list[str],
        min_seconds: float = 0.0,
    ):
        self.path = path
        self.fps = fps
        self.frame_count = 0
        # Frames held back until they fill `min_seconds` at `fps`: a video that ends sooner is
        # slowed down to last `min_seconds` (its frame rate is only fixed when ffmpeg starts).
        self._min_frames = math.ceil(_check_seconds(min_seconds) * fps - 1e-9)
        self._min_seconds = min_seconds
        self._held: list[np.ndarray] = []
        self._codec, self._pix_fmt, self._params = codec, pix_fmt, params
        self._size: tuple[int, int] | None = None  # (height, width) of the incoming frames
        self._process: subprocess.Popen[bytes] | None = None
        self._queue: queue.Queue[np.ndarray | None] = queue.Queue(ENCODER_QUEUE_FRAMES)
        self._feeder: threading.Thread | None = None
        self._failure: BaseException | None = None
        # ffmpeg's messages, for the error; closed by finish or abort.
        self._log = tempfile.TemporaryFile()  # noqa: SIM115

    def add(self, frame: np.ndarray) -> None:
        frame = check_frame(frame)
        if self._size is None:
            self._size = (frame.shape[0], frame.shape[1])
        elif frame.shape[:2] != self._size:
            raise ParetoscopeError(
                f"frame {self.frame_count}: expected {self._size[1]}x{self._size[0]} like the "
                f"first frame, got {frame.shape[1]}x{frame.shape[0]}"
            )
        self._raise_failure()
        # A copy: the caller may reuse its buffer before the feeder gets to this frame.
        self._held.append(np.array(pad_to_even(frame), order="C", copy=True))
        self.frame_count += 1
        if self._process is not None or self.frame_count >= self._min_frames:
            self._release()

    def _release(self) -> None:
        """Start ffmpeg if it has not started, and hand it the frames held back."""
        if self._process is None:
            self.fps = lasting_fps(self.fps, self.frame_count, self._min_seconds)
            self._start()
        for frame in self._held:
            self._queue.put(frame)
        self._held = []

    def _start(self) -> None:
        import imageio_ffmpeg

        assert self._size is not None
        height, width = self._size
        command = [
            imageio_ffmpeg.get_ffmpeg_exe(),
            *("-hide_banner", "-loglevel", "error", "-y"),
            *("-f", "rawvideo", "-pix_fmt", "rgb24"),
            *("-s", f"{width + width % 2}x{height + height % 2}", "-r", f"{self.fps:.12g}"),
            *("-i", "-", "-an", "-c:v", self._codec, "-pix_fmt", self._pix_fmt),
            *self._params,
            str(self.path),
        ]
        self._process = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.DEVNULL,
            stderr=self._log,
        )
        # Set from here, not in a preexec_fn: that would make Python fork the whole (large,
        # threaded) server instead of spawning, and a fork of a threaded process can deadlock.
        _lower_priority(self._process.pid)
        self._feeder = threading.Thread(target=self._feed, name="ffmpeg-feeder", daemon=True)
        self._feeder.start()

    def _feed(self) -> None:
        assert self._process is not None and self._process.stdin is not None
        stdin = self._process.stdin
        while (frame := self._queue.get()) is not None:
            if self._failure is not None:
                continue  # drain, so that add() never blocks on a dead encoder
            try:
                stdin.write(frame.data)
            except (BrokenPipeError, OSError) as error:
                self._failure = error
        with contextlib.suppress(OSError):
            stdin.close()

    def _raise_failure(self) -> None:
        if self._failure is not None:
            raise ParetoscopeError(f"video encoding failed: {self._messages() or self._failure}")

    def _messages(self) -> str:
        if self._log.closed:
            return ""
        self._log.seek(0)
        lines = self._log.read().decode("utf-8", "replace").strip().splitlines()
        return " | ".join(lines[:3])  # the cause comes first; the rest is consequences

    def finish(self) -> None:
        """Wait for ffmpeg to write the file; a video needs at least one frame."""
        if self.frame_count == 0:
            raise ParetoscopeError("video: no frames to encode")
        self._release()
        assert self._process is not None and self._feeder is not None
        self._queue.put(None)
        self._feeder.join()
        process, self._process = self._process, None
        code = process.wait()
        failed = code != 0 or self._failure is not None
        messages = self._messages() if failed else ""
        self._log.close()
        if failed:
            raise ParetoscopeError(f"video encoding failed (ffmpeg exit code {code}): {messages}")

    def abort(self) -> None:
        """Stop ffmpeg (if running) without caring for the file."""
        self._held = []
        if self._process is not None:
            process, self._process = self._process, None
            process.kill()
            self._failure = self._failure or RuntimeError("aborted")
            self._queue.put(None)  # the feeder drains what is queued, then stops
            if self._feeder is not None:
                self._feeder.join()
            process.wait()
        with contextlib.suppress(Exception):
            self._log.close()


def _lower_priority(pid: int) -> None:
    """Have the ffmpeg process `pid` run behind the renderer and the simulation (Linux: only on
    idle cycles; elsewhere niced). Lowering a child's priority needs no privilege."""
    with contextlib.suppress(OSError, AttributeError):
        os.sched_setscheduler(pid, os.SCHED_IDLE, os.sched_param(0))
        return
    with contextlib.suppress(OSError, AttributeError):
        os.setpriority(os.PRIO_PROCESS, pid, ENCODER_NICENESS)


class Mp4Encoder:
    """An H.264 MP4 built while frames arrive: ``add`` each frame, then ``finish`` for bytes.

    With `path`, the video is written there; otherwise to a temporary file removed on close.
    Use it as a context manager so that ffmpeg is stopped even when the frames stop early.
    With `min_seconds`, a video whose frames would play for less is slowed down to last that
    long (`fps` then tells the rate it was encoded at; up to `fps * min_seconds` frames wait
    in memory before encoding starts).
    """

    def __init__(
        self,
        fps: float,
        path: str | Path | None = None,
        preset: str = DEFAULT_PRESET,
        crf: int = DEFAULT_CRF,
        min_seconds: float = 0.0,
    ) -> None:
        fps = _check_fps(fps)
        if not 0 <= int(crf) <= 51:
            raise ParetoscopeError(f"crf: expected 0 to 51, got {crf}")
        self._temporary = path is None
        if path is None:
            handle, name = tempfile.mkstemp(prefix="paretoscope-", suffix=".mp4")
            os.close(handle)
            target = Path(name)
        else:
            target = _check_output(path, ".mp4")
        params = ["-preset", preset, "-crf", str(int(crf)), "-threads", str(ENCODER_THREADS)]
        params += ["-movflags", "+faststart"]
        self._writer = _FfmpegWriter(target, fps, "libx264", "yuv420p", params, min_seconds)
        self._finished = False

    @property
    def path(self) -> Path:
        return self._writer.path

    @property
    def fps(self) -> float:
        """The frame rate the video plays at (lower than asked for a video slowed down to
        `min_seconds`; final once `finish` has returned)."""
        return self._writer.fps

    @property
    def frame_count(self) -> int:
        return self._writer.frame_count

    def add(self, frame: np.ndarray) -> None:
        """Send one frame to the encoder (returns as soon as ffmpeg has taken it)."""
        self._writer.add(frame)

    def finish(self) -> bytes:
        """Finish the video and return its bytes."""
        self._writer.finish()
        self._finished = True
        return self.path.read_bytes()

    def close(self) -> None:
        """Stop ffmpeg; remove the temporary file, or a file left unfinished."""
        self._writer.abort()
        if self._temporary or not self._finished:
            self.path.unlink(missing_ok=True)

    def __enter__(self) -> Mp4Encoder:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def encode_mp4(
    frames: Iterable[np.ndarray],
    fps: float,
    path: str | Path | None = None,
    preset: str = DEFAULT_PRESET,
    crf: int = DEFAULT_CRF,
    min_seconds: float = 0.0,
) -> bytes:
    """Encode `frames` as an H.264 MP4 (yuv420p, moov first) played at `fps`; its bytes.

    With `path`, the file is also kept there. Frames are consumed as they come (a generator is
    encoded while it runs). `min_seconds`: as for `Mp4Encoder`.
    """
    with Mp4Encoder(fps, path, preset=preset, crf=crf, min_seconds=min_seconds) as encoder:
        for frame in frames:
            encoder.add(frame)
        return encoder.finish()


def encode_gif(
    frames: Iterable[np.ndarray],
    fps: float,
    path: str | Path | None = None,
    min_seconds: float = 0.0,
) -> bytes:
    """Encode `frames` as a looping GIF (one palette for the whole clip); its bytes.

    GIFs are large and slow to make (about 10x an MP4); frame rates above 50 drop frames.
    `min_seconds`: as for `Mp4Encoder` (a slowed-down GIF repeats frames to keep its delays).
    """
    fps = _check_fps(fps)
    # Only a GIF faster than it can play drops frames (a slowed-down one keeps each frame).
    drop = f"fps={GIF_MAX_FPS:g}," if fps > GIF_MAX_FPS else ""
    palette_filter = (
        f"{drop}split[frames][copy];"
        "[copy]palettegen=stats_mode=diff[palette];[frames][palette]paletteuse"
    )
    chosen = None if path is None else _check_output(path, ".gif")
    with tempfile.TemporaryDirectory(prefix="paretoscope-") as folder:
        target = chosen if chosen is not None else Path(folder) / "video.gif"
        params = ["-vf", palette_filter, "-loop", "0"]
        writer = _FfmpegWriter(target, fps, "gif", "pal8", params, min_seconds)
        try:
            for frame in frames:
                writer.add(frame)
            writer.finish()
        finally:
            writer.abort()
        return target.read_bytes()


# --- captions ------------------------------------------------------------------------------


@lru_cache(maxsize=8)
def text_font(size: int) -> Any:
    """Pillow's default font at `size` pixels (its fixed bitmap font without FreeType)."""
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except (TypeError, ValueError, OSError):  # Pillow built without FreeType: fixed bitmap font
        return ImageFont.load_default()


ELLIPSIS = "..."  # the default font may lack a one-character ellipsis


def fit_text(text: str, font: Any, width: float) -> str:
    """`text`, cut and ended with ELLIPSIS if it is wider than `width` pixels in `font`."""
    if font.getlength(text) <= width:
        return text
    low, high = 0, len(text)  # the longest prefix that fits with the ellipsis
    while low < high:
        middle = (low + high + 1) // 2
        if font.getlength(text[:middle] + ELLIPSIS) <= width:
            low = middle
        else:
            high = middle - 1
    return text[:low] + ELLIPSIS


# The smallest caption text: readable where the picture is shown at its rendered size (the
# dashboard never scales it up), as a page's own small print.
MIN_CAPTION_FONT = 12


def caption_font_size(frame_height: int) -> int:
    """A legible text height for frames of this height: a 36th of it (13 px at 480), never
    under 12 px where the frame has room (144 px and more: a twelfth of its height), nor under
    8 px (the text of a tiny frame leaves most of it to the picture)."""
    return max(round(frame_height / 36), min(MIN_CAPTION_FONT, max(8, frame_height // 12)))


def draw_caption(
    frame: np.ndarray, lines: Sequence[str], font_size: int | None = None
) -> np.ndarray:
    """A copy of `frame` with `lines` written top-left in white on a translucent dark band.

    Tabs split a line into cells; the cells of all lines are aligned in columns.
    """
    from PIL import Image, ImageDraw

    frame = check_frame(frame)
    if not lines:
        return frame.copy()
    size = font_size or caption_font_size(frame.shape[0])
    font = text_font(size)
    image = Image.fromarray(frame)
    overlay = Image.new("RGBA", image.size, (0, 0, 0, 0))
    draw = ImageDraw.Draw(overlay)
    margin = max(2, size // 3)
    line_height = size + max(1, size // 4)
    cells = [line.split("\t") for line in lines]
    spacing = draw.textlength("  ", font=font)
    column_widths: list[float] = []
    for row in cells:
        if len(row) < 2:
            continue
        for index, cell in enumerate(row[:-1]):
            width = draw.textlength(cell, font=font) + spacing
            if index == len(column_widths):
                column_widths.append(width)
            else:
                column_widths[index] = max(column_widths[index], width)
    starts = [float(margin)]
    for width in column_widths:
        starts.append(starts[-1] + width)
    band_width = max(
        starts[len(row) - 1] + draw.textlength(row[-1], font=font)
        if len(row) > 1
        else margin + draw.textlength(row[0], font=font)
        for row in cells
    )
    draw.rectangle(
        (0, 0, min(image.width, int(band_width) + margin), len(lines) * line_height + 2 * margin),
        fill=(0, 0, 0, 140),
    )
    for line_index, row in enumerate(cells):
        top = margin + line_index * line_height
        for index, cell in enumerate(row):
            left = starts[index] if len(row) > 1 else margin
            draw.text((left, top), cell, font=font, fill=(255, 255, 255))
    composed = Image.alpha_composite(image.convert("RGBA"), overlay).convert("RGB")
    return np.asarray(composed)


# --- side by side --------------------------------------------------------------------------


@dataclass(frozen=True)
class LabelledFrame:
    """A frame and the caption lines to write on it when it is tiled."""

    frame: np.ndarray
    lines: tuple[str, ...] = ()


def grid_shape(count: int, columns: int | None = None) -> tuple[int, int]:
    """(rows, columns) for `count` tiles: `columns` wide, or as square as possible."""
    if count < 1:
        raise ParetoscopeError("tiles: expected at least one video")
    if columns is None:
        columns = math.ceil(math.sqrt(count))
    if columns < 1:
        raise ParetoscopeError(f"columns: expected at least 1, got {columns}")
    columns = min(columns, count)
    return math.ceil(count / columns), columns


def tile_frames(
    frames: Sequence[np.ndarray], columns: int | None = None, gap: int = 4
) -> np.ndarray:
    """One frame with `frames` (all the same size) on a grid, row by row, `gap` pixels apart."""
    checked = [check_frame(frame, f"tile {index}") for index, frame in enumerate(frames)]
    rows, columns = grid_shape(len(checked), columns)
    height, width = checked[0].shape[:2]
    for index, frame in enumerate(checked):
        if frame.shape[:2] != (height, width):
            raise ParetoscopeError(
                f"tile {index}: expected {width}x{height} like tile 0, "
                f"got {frame.shape[1]}x{frame.shape[0]}"
            )
    canvas = np.zeros(
        (rows * height + (rows - 1) * gap, columns * width + (columns - 1) * gap, 3), np.uint8
    )
    for index, frame in enumerate(checked):
        row, column = divmod(index, columns)
        top, left = row * (height + gap), column * (width + gap)
        canvas[top : top + height, left : left + width] = frame
    return canvas


def tile_videos(
    videos: Sequence[Iterable[np.ndarray | LabelledFrame]],
    columns: int | None = None,
    gap: int = 4,
) -> Iterator[np.ndarray]:
    """Tiled frames of N videos played together; a video that ends holds its last frame.

    Items may be plain frames or `LabelledFrame`s (whose lines are written on the tile). The
    videos are consumed in lockstep, one item each per tiled frame, so generators stream.
    """
    iterators = [iter(video) for video in videos]
    grid_shape(len(iterators), columns)
    last: list[np.ndarray | None] = [None] * len(iterators)
    running = [True] * len(iterators)
    while True:
        advanced = False
        for index, iterator in enumerate(iterators):
            if not running[index]:
                continue
            item = next(iterator, None)
            if item is None:
                running[index] = False
                continue
            advanced = True
            if isinstance(item, LabelledFrame):
                last[index] = draw_caption(item.frame, item.lines)
            else:
                last[index] = check_frame(item, f"video {index}")
        if not advanced:
            return
        missing = [index for index, frame in enumerate(last) if frame is None]
        if missing:
            raise ParetoscopeError(f"video {missing[0]}: has no frames")
        yield tile_frames([frame for frame in last if frame is not None], columns, gap)
