"""The posterior over a person's utility weights (`paretoscope.decision.elicitation`), drawn.

The weights live on the simplex, one per objective: for two objectives it is a segment (the
weight of the first; the second's is the rest), drawn as the posterior mass over bins of it;
for three a triangle, drawn as particles resampled by their posterior weight; beyond, the
marginal of each weight, drawn as its mean with its credible interval.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

from paretoscope.figures.style import CURRENT_COLOUR, PALETTE

# Bins of the segment (two objectives), and the particles the triangle shows at most.
SEGMENT_BINS = 40
TRIANGLE_POINTS = 600


def segment_mass(weights: np.ndarray, probabilities: np.ndarray) -> np.ndarray:
    """(SEGMENT_BINS,) posterior mass of the first weight in equal bins of [0, 1]."""
    first = np.clip(np.asarray(weights, dtype=np.float64)[:, 0], 0.0, 1.0)
    mass, _ = np.histogram(
        first, bins=SEGMENT_BINS, range=(0.0, 1.0), weights=np.asarray(probabilities, float)
    )
    return np.asarray(mass / max(float(mass.sum()), 1e-300), dtype=np.float64)


def posterior_figure(
    objective_names: Sequence[str],
    weights: np.ndarray,
    probabilities: np.ndarray,
    mean: Sequence[float] | np.ndarray,
    low: Sequence[float] | np.ndarray,
    high: Sequence[float] | np.ndarray,
    height: int = 280,
) -> go.Figure:
    """The posterior of `weights` (P, k) with their `probabilities` (P,): a segment (k = 2),
    a triangle (k = 3) or marginal bars (k > 3), the posterior `mean` marked, `low` to `high`
    (k,) the credible interval of each weight."""
    names = list(objective_names)
    particles = np.asarray(weights, dtype=np.float64)
    p = np.asarray(probabilities, dtype=np.float64)
    centre = np.asarray(mean, dtype=np.float64)
    figure = go.Figure()
    if len(names) == 2:
        edges = np.linspace(0.0, 1.0, SEGMENT_BINS + 1)
        figure.add_trace(
            go.Bar(
                x=(edges[:-1] + edges[1:]) / 2,
                y=segment_mass(particles, p),
                width=1.0 / SEGMENT_BINS,
                name="posterior",
                marker={"color": PALETTE[0]},
                hovertemplate=f"weight on {names[0]} %{{x:.3f}}: mass %{{y:.3f}}<extra></extra>",
            )
        )
        figure.add_vrect(x0=float(low[0]), x1=float(high[0]), fillcolor=PALETTE[0], opacity=0.12)
        figure.add_vline(x=float(centre[0]), line={"color": CURRENT_COLOUR, "width": 3})
        figure.update_xaxes(
            range=[0, 1],
            title=f"weight on {names[0]} (0: all on {names[1]}, 1: all on {names[0]})",
        )
        figure.update_yaxes(title="posterior mass")
    elif len(names) == 3:
        # Particles resampled by weight (seeded: the same picture at every rerun).
        count = min(TRIANGLE_POINTS, len(particles))
        chosen = np.random.default_rng(0).choice(len(particles), size=count, p=p / p.sum())
        shown = particles[chosen]
        hover = (
            f"{names[0]} %{{a:.2f}}<br>{names[1]} %{{b:.2f}}<br>{names[2]} %{{c:.2f}}"
            "<extra></extra>"
        )
        figure.add_trace(
            go.Scatterternary(
                a=shown[:, 0],
                b=shown[:, 1],
                c=shown[:, 2],
                mode="markers",
                name="posterior",
                marker={"size": 4, "color": PALETTE[0], "opacity": 0.35},
                hovertemplate=hover,
            )
        )
        figure.add_trace(
            go.Scatterternary(
                a=[centre[0]],
                b=[centre[1]],
                c=[centre[2]],
                mode="markers",
                name="mean",
                marker={"size": 14, "symbol": "star", "color": CURRENT_COLOUR},
                hovertemplate=hover,
            )
        )
        figure.update_layout(
            ternary={
                "aaxis": {"title": names[0], "min": 0},
                "baxis": {"title": names[1], "min": 0},
                "caxis": {"title": names[2], "min": 0},
            },
            showlegend=False,
        )
    else:
        figure.add_trace(
            go.Bar(
                x=names,
                y=centre,
                name="mean weight",
                marker={"color": PALETTE[0]},
                error_y={
                    "type": "data",
                    "symmetric": False,
                    "array": np.asarray(high, dtype=np.float64) - centre,
                    "arrayminus": centre - np.asarray(low, dtype=np.float64),
                },
                hovertemplate="%{x}: mean weight %{y:.3f}<extra></extra>",
            )
        )
        figure.update_yaxes(range=[0, 1], title="weight")
    figure.update_layout(
        height=height, margin={"l": 40, "r": 20, "t": 30, "b": 40}, showlegend=False
    )
    return figure
