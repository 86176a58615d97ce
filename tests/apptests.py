"""Driving the dashboard with Streamlit's AppTest: the app, opened with a link's values, the
check every page test makes that nothing failed, and what a page shows, read the way a viewer
sees it (its captions, metrics, charts' data, the files it serves)."""

from __future__ import annotations

import base64
import html
import json
import re
import tempfile
from dataclasses import dataclass
from typing import Any

import numpy as np

from tests.conftest import REPO_DIR

APP = str(REPO_DIR / "dashboard" / "app.py")
TIMEOUT = 120


def open_app(query: dict[str, str] | None = None, timeout: float = TIMEOUT):  # noqa: ANN201 - an AppTest
    """The app run once with `query` as the link's values (240-pixel videos by default)."""
    from streamlit.testing.v1 import AppTest

    at = AppTest.from_file(APP, default_timeout=timeout)
    at.query_params.update({"size": "240", **(query or {})})
    return at.run()


def page_ok(at) -> None:  # noqa: ANN001 - an AppTest
    """No exception and no error message on the page."""
    assert not at.exception, [e.value for e in at.exception]
    assert not at.error, [e.value for e in at.error]


def component_arguments(at, name: str) -> list[dict[str, Any]]:  # noqa: ANN001 - an AppTest
    """The arguments of every custom component on the page whose arguments include `name`
    (the Explore page's front chart has ``front``)."""
    from tests.page_markup import walk

    found = []
    for node in walk(at._tree):
        if getattr(node, "type", "") == "component_instance":
            arguments = json.loads(node.proto.json_args)
            if name in arguments:
                found.append(arguments)
    return found


def front_chart_figure(at) -> dict[str, Any]:  # noqa: ANN001 - an AppTest
    """The figure the page's front chart draws (its front, then its marker traces), as JSON."""
    (arguments,) = component_arguments(at, "front")
    figure = json.loads(arguments["front"])
    figure["data"] = figure["data"] + arguments["moving"]
    figure["layout"]["annotations"] = arguments["annotations"]
    return figure


def count_episode_recordings(monkeypatch) -> list[tuple[float, ...]]:  # noqa: ANN001
    """The preference of every single-episode recording made from now on (paced live ones and
    others alike), in order."""
    from paretoscope.recordings import EpisodeRequest

    calls: list[tuple[float, ...]] = []
    record, record_live = EpisodeRequest.record, EpisodeRequest.record_live

    def counting(self, agents, on_frame=None, render=True):  # noqa: ANN001, ANN202
        calls.append(self.preference)
        return record(self, agents, on_frame, render)

    def counting_live(self, agents, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        calls.append(self.preference)
        return record_live(self, agents, *args, **kwargs)

    monkeypatch.setattr(EpisodeRequest, "record", counting)
    monkeypatch.setattr(EpisodeRequest, "record_live", counting_live)
    return calls


def episode_videos(at) -> list[str]:  # noqa: ANN001 - an AppTest
    """The `<video>` markup of every episode player on the page (`widgets.episode_video`)."""
    from paretoscope.dashboard.widgets.episode_video import TEST_ID

    bodies = [html.proto.body for html in at.get("html")]
    return [body for body in bodies if f'data-testid="{TEST_ID}"' in body]


def served_files(monkeypatch) -> dict[str, bytes]:  # noqa: ANN001
    """Every file the page runs from now on hand the browser (players' videos, downloads), by
    the URL the page names it with: what Streamlit's media endpoint would serve."""
    from streamlit.runtime.media_file_manager import MediaFileManager

    served: dict[str, bytes] = {}
    add = MediaFileManager.add

    def keeping(self, path_or_data, *args, **kwargs):  # noqa: ANN001, ANN002, ANN003, ANN202
        url = add(self, path_or_data, *args, **kwargs)
        if isinstance(path_or_data, bytes):
            served[url] = path_or_data
        return url

    monkeypatch.setattr(MediaFileManager, "add", keeping)
    return served


def episode_video_files(at, served: dict[str, bytes]) -> list[bytes]:  # noqa: ANN001
    """The MP4 each episode player on the page plays (`served_files` keeps them)."""
    sources = [re.search(r' src="([^"]*)"', body) for body in episode_videos(at)]
    return [served[html.unescape(source.group(1))] for source in sources if source]


def video_frames(video: bytes) -> np.ndarray:
    """The decoded frames (T, H, W, 3) of an MP4."""
    import imageio.v2 as imageio

    with tempfile.NamedTemporaryFile(suffix=".mp4") as file:
        file.write(video)
        file.flush()
        return np.stack(list(imageio.get_reader(file.name, "ffmpeg").iter_data()))


def plotly_array(value: Any) -> np.ndarray:
    """A plotly JSON array as numpy: a list, or a typed array (``{"dtype", "bdata"}``, with its
    ``shape`` when it has more than one dimension) as plotly writes numpy arrays."""
    if isinstance(value, dict) and "bdata" in value:
        array = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        if "shape" in value:
            array = array.reshape([int(n) for n in str(value["shape"]).split(",")])
        return array
    return np.asarray(value)


def plotly_chart(at, key: str) -> dict[str, Any]:  # noqa: ANN001 - an AppTest
    """The figure (JSON) of the page's `st.plotly_chart` drawn with `key`."""
    (spec,) = [
        chart.proto.spec for chart in at.get("plotly_chart") if chart.proto.id.endswith(f"-{key}")
    ]
    return json.loads(spec)


def captions(at) -> list[str]:  # noqa: ANN001 - an AppTest
    """Every caption on the page, in order (the sidebar's too)."""
    return [caption.value for caption in at.caption]


def metric_values(at) -> dict[str, str]:  # noqa: ANN001 - an AppTest
    """Each metric on the page: its label -> the value it shows."""
    return {metric.label: metric.value for metric in at.metric}


def _values(text: str) -> list[float]:
    """The numbers of "run 0.50, energy -1.5" (objective names, then a value each)."""
    return [float(part.rsplit(" ", 1)[1]) for part in text.split(", ")]


@dataclass(frozen=True)
class FrontPoint:
    """One point of a sweep on the front chart: the trace it is drawn in (``curve``) and its
    place there (``index``), its returns (exact) and its preference (as its hover says it)."""

    curve: int
    index: int
    returns: np.ndarray
    preference: np.ndarray


def front_points(at, series: str) -> dict[int, FrontPoint]:  # noqa: ANN001 - an AppTest
    """The points of the sweep named `series` on the front chart (undominated and dominated),
    by their row in the sweep, in row order."""
    found = {}
    for curve, trace in enumerate(front_chart_figure(at)["data"]):
        if trace.get("name") not in (series, f"{series} (dominated)"):
            continue
        axes = [plotly_array(trace[axis]) for axis in ("x", "y", "z") if axis in trace]
        for index, (_, row) in enumerate(plotly_array(trace["customdata"]).tolist()):
            preference = trace["hovertext"][index].split("<br>")[0].removeprefix("preference: ")
            found[int(row)] = FrontPoint(
                curve,
                index,
                np.array([float(values[index]) for values in axes]),
                np.array(_values(preference)),
            )
    return dict(sorted(found.items()))


@dataclass(frozen=True)
class ShownEpisode:
    """The episode the Explore page shows, as the caption under its video says it: its
    preference, its target (target mode), its seed and its return, rounded as shown."""

    preference: list[float]
    target: list[float] | None
    seed: int
    returns: list[float]


_EPISODE_CAPTION = re.compile(
    r"Preference (?P<preference>.+?) · (?:target (?P<target>.+?), )?seed (?P<seed>\d+) → "
    r"return (?P<returns>.+?)(?: \(undiscounted\))?"
)


def shown_episode(at) -> ShownEpisode:  # noqa: ANN001 - an AppTest
    """The episode the Explore page shows (its caption under the video, one on the page)."""
    (caption,) = [m for text in captions(at) if (m := _EPISODE_CAPTION.fullmatch(text))]
    target = caption.group("target")
    return ShownEpisode(
        _values(caption.group("preference")),
        None if target is None else _values(target),
        int(caption.group("seed")),
        _values(caption.group("returns")),
    )


def episode_chart(at, key: str = "video") -> tuple[np.ndarray, np.ndarray]:  # noqa: ANN001
    """The steps (T,) and cumulative returns (T, n_obj) of the episode whose player has
    `key` (its widget key), read from its interactive reward chart: turned on first, as a
    viewer does with its toggle, when it is off."""
    toggle = at.toggle(key=f"{key}_interactive")
    if not toggle.value:
        toggle.set_value(True).run()
    figure = plotly_chart(at, f"{key}_episode")
    totals = [trace for trace in figure["data"] if trace.get("yaxis") == "y2"]
    steps = plotly_array(totals[0]["x"])
    return steps, np.column_stack([plotly_array(trace["y"]) for trace in totals])


def episode_returns(at, key: str = "video") -> np.ndarray:  # noqa: ANN001 - an AppTest
    """The return (exact) of the episode whose player has `key`: the last cumulative return
    of its interactive reward chart (`episode_chart`, which turns it on)."""
    return episode_chart(at, key)[1][-1]


def shaded_area(figure: dict[str, Any]) -> float:
    """The area of a figure's shaded regions (its ``fill="toself"`` polygons): on the metrics
    page's chart of two objectives, the hypervolume."""
    area = 0.0
    for trace in figure["data"]:
        if trace.get("fill") == "toself":
            x, y = plotly_array(trace["x"]), plotly_array(trace["y"])
            area += abs(float(np.dot(x, np.roll(y, -1)) - np.dot(y, np.roll(x, -1)))) / 2
    return area


def shown_hypervolume(at) -> tuple[str, float]:  # noqa: ANN001 - an AppTest
    """The metrics page's hypervolume: the value its metric shows, and the area its chart of
    two objectives shades."""
    return metric_values(at)["hypervolume"], shaded_area(plotly_chart(at, "hv_figure"))


def compare_metrics_table(at) -> Any:  # noqa: ANN001, ANN401 - an AppTest; a DataFrame
    """The Compare page's metrics table, a row per agent (by its label)."""
    return next(frame.value for frame in at.dataframe if "hypervolume" in frame.value.columns)


def compare_metrics_shown(at) -> tuple[Any, str]:  # noqa: ANN001 - an AppTest
    """The Compare page's metrics table as a viewer reads it: its cells' shown text (the
    table's display values; "" for a missing one) and what a missing cell shows instead."""
    from streamlit import dataframe_util

    (element,) = [frame for frame in at.dataframe if "hypervolume" in frame.value.columns]
    shown = dataframe_util.convert_arrow_bytes_to_pandas_df(
        element.proto.arrow_data.styler.display_values
    )
    placeholder = element.proto.placeholder if element.proto.HasField("placeholder") else ""
    return shown, placeholder


def trajectory_returns(at) -> dict[int, np.ndarray]:  # noqa: ANN001 - an AppTest
    """Each trajectory's stored return as the dataset page's chart draws it (its two axes),
    by the trajectory's index."""
    (trace,) = [
        trace
        for chart in at.get("plotly_chart")
        for trace in json.loads(chart.proto.spec)["data"]
        if trace.get("name") == "trajectories"
    ]
    x, y = plotly_array(trace["x"]), plotly_array(trace["y"])
    rows = [int(index) for (index,) in plotly_array(trace["customdata"]).tolist()]
    return {row: np.array([x[place], y[place]]) for place, row in enumerate(rows)}
