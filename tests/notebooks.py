"""Run a notebook top to bottom on a real Jupyter kernel (nbclient + ipykernel), the way a user's
Jupyter would, and read values back from the kernel.

The notebook runs on a copy of its folder (its outputs never land in the repository), with a
probe cell appended: the probe prints one JSON line of values computed in the kernel, so a
test checks the notebook's own objects rather than the text of their outputs.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import nbformat
from nbclient import NotebookClient

PROBE_MARK = "PROBE:"


def run_notebook(
    notebook: Path,
    folder: Path,
    environment: dict[str, str],
    probe: str | None = None,
    cell_timeout: int = 600,
) -> tuple[nbformat.NotebookNode, dict[str, Any] | None]:
    """Execute a copy of `notebook` with its folder's files copied into `folder` (the kernel's
    working directory) under `environment`. `probe`: code run in the kernel after the notebook's
    last cell that sets ``probe`` to a JSON-able value, which is returned. Any cell's error raises
    nbclient's CellExecutionError, naming the cell and its traceback."""
    shutil.copytree(notebook.parent, folder, dirs_exist_ok=True)
    book = nbformat.read(folder / notebook.name, as_version=4)
    if probe is not None:
        book.cells.append(
            nbformat.v4.new_code_cell(
                f"{probe}\nimport json\nprint({PROBE_MARK!r} + json.dumps(probe))"
            )
        )
    client = NotebookClient(
        book,
        timeout=cell_timeout,
        kernel_name="python3",
        resources={"metadata": {"path": str(folder)}},
    )
    # Passed on to the kernel manager's start_kernel: the kernel's environment and folder.
    client.execute(env=environment, cwd=str(folder))
    values = None
    if probe is not None:
        for output in book.cells[-1].outputs:
            text = output.get("text", "")
            if output.get("output_type") == "stream" and PROBE_MARK in text:
                values = json.loads(text.split(PROBE_MARK, 1)[1])
    return book, values


def outputs_of(book: nbformat.NotebookNode, first_line: str) -> list[dict[str, Any]]:
    """The outputs of the first code cell whose first line is `first_line`."""
    for cell in book.cells:
        if cell.cell_type == "code" and cell.source.splitlines()[:1] == [first_line]:
            return list(cell.outputs)
    raise AssertionError(f"no code cell begins with the line {first_line!r}")


def mime_data(outputs: list[dict[str, Any]], mime: str) -> Any:
    """The `mime` data of the first display or result output that has it, else None."""
    for output in outputs:
        data = output.get("data", {})
        if mime in data:
            return data[mime]
    return None


def plotly_values(value: Any) -> list[float]:
    """A plotly JSON array as numbers: a list, or plotly's typed array ``{"dtype", "bdata"}``
    (base64 of the raw values, how plotly writes numpy arrays)."""
    import base64

    import numpy as np

    if value is None:
        return []
    if isinstance(value, dict) and "bdata" in value:
        raw = np.frombuffer(base64.b64decode(value["bdata"]), dtype=np.dtype(value["dtype"]))
        return [float(number) for number in raw.ravel()]
    return [float(number) for number in value if isinstance(number, int | float)]
