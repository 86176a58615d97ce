"""The README's notebook start runs as written, and its summary is `paretoscope evaluate`'s."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest

from tests.conftest import REPO_DIR

pytestmark = pytest.mark.slow


def _readme_notebook_start() -> str:
    readme = (REPO_DIR / "README.md").read_text()
    after = readme.split("In a notebook", 1)[1]
    match = re.search(r"```python\n(.*?)```", after, re.DOTALL)
    assert match is not None, "the README has no python block after 'In a notebook'"
    return match.group(1)


def test_the_readme_s_three_lines_sweep_and_plot(tmp_path) -> None:  # noqa: ANN001
    lines = [line for line in _readme_notebook_start().splitlines() if line.strip()]
    assert len(lines) == 3
    # The block's last line is an expression a notebook shows: keep it, then report.
    script = "\n".join([*lines[:-1], "figure = " + lines[-1].split("#")[0].strip()])
    script += (
        '\nimport json\nprint(json.dumps({"kind": type(figure).__module__ + "." + '
        'type(figure).__name__, "hypervolume": result.summary["hypervolume"]}))\n'
    )
    done = subprocess.run(
        [sys.executable, "-c", script], cwd=tmp_path, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr
    shown = json.loads(done.stdout.strip().splitlines()[-1])
    assert shown["kind"] == "plotly.graph_objs._figure.Figure"

    command = [sys.executable, "-m", "paretoscope", "evaluate", "random"]
    command += ["--env", "deep-sea-treasure-v0", "--episodes", "3", "--json"]
    command += ["--out", str(tmp_path / "results")]
    evaluated = subprocess.run(
        command, cwd=tmp_path, capture_output=True, text=True, timeout=600, check=True
    )
    assert shown["hypervolume"] == pytest.approx(json.loads(evaluated.stdout)["hypervolume"])
