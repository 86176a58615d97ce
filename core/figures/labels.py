"""The words on the figures: a user's strings made safe for plotly, numbers, a point's hover text,
and the known front's legend entry and hover."""

from __future__ import annotations

import html
from collections.abc import Sequence
from typing import TYPE_CHECKING

import numpy as np

from paretoscope.text import number, numbers

if TYPE_CHECKING:
    from paretoscope.envs.known_fronts import KnownFront


def plotly_text(text: str) -> str:
    """A user's string (an agent's label) as plotly text: plotly reads `<a href>`, `<b>` and
    entities in names and hover labels, so `<`, `>` and `&` are written as entities."""
    return html.escape(str(text), quote=False)


def format_values(values: Sequence[float] | np.ndarray, digits: int = 3) -> str:
    """Numbers in a list, each to `digits` significant digits by the one formatter."""
    return numbers(values, digits)


def point_text(
    objective_names: Sequence[str],
    preference: Sequence[float],
    returns: Sequence[float],
    target: Sequence[float] | None = None,
    seed: int | None = None,
    regret: float | None = None,
) -> str:
    """The hover text of one point: preference, target, returns, seed and its regret against
    the known front."""
    names = list(objective_names)
    known = not any(p != p for p in preference)  # NaN: logged without its preference
    lines = [
        "preference: "
        + (
            ", ".join(f"{n} {number(p, 2)}" for n, p in zip(names, preference, strict=True))
            if known
            else "not logged"
        ),
        "returns: " + ", ".join(f"{n} {number(r)}" for n, r in zip(names, returns, strict=True)),
    ]
    if target is not None and np.any(np.asarray(target) != 0):
        lines.append("target: " + format_values(target, 4))
    if seed is not None:
        lines.append(f"seed: {int(seed)}")
    if regret is not None:
        lines.append(f"regret vs known front: {number(regret)}")
    return "<br>".join(lines)


def known_front_name(known: KnownFront) -> str:
    """The legend entry of a known front: says whether it is exact or an approximation."""
    return "known front (exact)" if known.exact else "known front (approximate)"


def known_front_hover(objective_names: Sequence[str], known: KnownFront) -> list[str]:
    """The hover text of each of the known front's points: its name, γ, returns and source."""
    head = f"{known_front_name(known)}, γ = {known.gamma:g}"
    source = plotly_text(known.source)
    return [
        head
        + "<br>returns: "
        + ", ".join(
            f"{plotly_text(n)} {number(v)}" for n, v in zip(objective_names, row, strict=True)
        )
        + "<br>"
        + source
        for row in known.points
    ]
