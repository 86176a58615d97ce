"""Behaviour in 2-D and in groups: a PCA embedding and seeded k-means clustering of the
descriptors, the number of clusters chosen by silhouette, each cluster named after its most
distinctive descriptors ("fast, low, high pitch").

Descriptors are standardised first (z-scores; a constant descriptor becomes 0), so speed in
m/s and contact counts weigh alike.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from paretoscope.behaviour.descriptors import Descriptors
from paretoscope.errors import ParetoscopeError

MAX_CLUSTERS = 6
# k-means restarts (k-means++ seeding each); the lowest within-cluster sum of squares wins.
RESTARTS = 8
# A descriptor names a cluster when its mean lies this many standard deviations from the rest.
DISTINCT = 0.5
NAME_WORDS = 3


def standardise(values: np.ndarray) -> np.ndarray:
    """Each column as z-scores (0 where the column is constant)."""
    array = np.asarray(values, dtype=np.float64)
    if array.ndim != 2 or not np.isfinite(array).all():
        raise ParetoscopeError("descriptors: expected a finite (episodes, descriptors) table")
    spread = array.std(axis=0)
    return np.asarray((array - array.mean(axis=0)) / np.where(spread > 0, spread, np.inf))


def embed(values: np.ndarray, dimensions: int = 2) -> np.ndarray:
    """PCA of the standardised descriptors: (episodes, `dimensions`), padded with zeros when
    there are fewer components. The sign of each axis is fixed (its largest loading positive)
    so that the picture does not flip between runs."""
    centred = standardise(values)
    _, _, components = np.linalg.svd(centred, full_matrices=False)
    components = components[:dimensions]
    signs = np.sign(components[np.arange(len(components)), np.abs(components).argmax(axis=1)])
    projected = centred @ (components * signs[:, None]).T
    out = np.zeros((len(centred), dimensions))
    out[:, : projected.shape[1]] = projected
    return out


def kmeans(points: np.ndarray, k: int, seed: int) -> np.ndarray:
    """Labels of k-means with k-means++ seeding, `RESTARTS` times from generator `seed`."""
    rng = np.random.default_rng(seed)
    best_labels, best_inertia = np.zeros(len(points), dtype=np.int64), np.inf
    for _ in range(RESTARTS):
        centres = [points[rng.integers(len(points))]]
        for _ in range(1, k):
            gaps = np.min([((points - c) ** 2).sum(axis=1) for c in centres], axis=0)
            total = gaps.sum()
            pick = (
                rng.choice(len(points), p=gaps / total) if total > 0 else rng.integers(len(points))
            )
            centres.append(points[pick])
        centre = np.asarray(centres)
        labels = np.zeros(len(points), dtype=np.int64)
        for _ in range(100):
            labels = ((points[:, None, :] - centre[None]) ** 2).sum(axis=2).argmin(axis=1)
            moved = np.array(
                [
                    points[labels == c].mean(axis=0) if (labels == c).any() else centre[c]
                    for c in range(k)
                ]
            )
            if np.allclose(moved, centre):
                break
            centre = moved
        inertia = float(((points - centre[labels]) ** 2).sum())
        if inertia < best_inertia - 1e-12:
            best_labels, best_inertia = labels, inertia
    return _in_order_of_appearance(best_labels)


def _in_order_of_appearance(labels: np.ndarray) -> np.ndarray:
    """Labels renumbered 0, 1, ... in the order they first occur (stable names and colours)."""
    order = {label: index for index, label in enumerate(dict.fromkeys(labels.tolist()))}
    return np.asarray([order[label] for label in labels.tolist()], dtype=np.int64)


def silhouette(points: np.ndarray, labels: np.ndarray) -> float:
    """Mean silhouette (Rousseeuw 1987); a point alone in its cluster scores 0."""
    gaps = np.linalg.norm(points[:, None, :] - points[None, :, :], axis=2)
    scores = np.zeros(len(points))
    clusters = np.unique(labels)
    if len(clusters) < 2:
        return 0.0
    for index, label in enumerate(labels):
        same = labels == label
        if same.sum() == 1:
            continue
        inside = gaps[index, same].sum() / (same.sum() - 1)
        outside = min(gaps[index, labels == other].mean() for other in clusters if other != label)
        scores[index] = (outside - inside) / max(inside, outside) if max(inside, outside) else 0
    return float(scores.mean())


@dataclass(frozen=True)
class Clustering:
    labels: np.ndarray  # (episodes,) cluster of each episode, numbered in order of appearance
    names: tuple[str, ...]  # one per cluster
    silhouette: float  # of the chosen clustering (0 for a single cluster)


def cluster(
    descriptors: Descriptors, seed: int = 0, max_clusters: int = MAX_CLUSTERS
) -> Clustering:
    """Cluster the episodes: k from 2 to `max_clusters` (at most episodes - 1) by the best
    silhouette, ties to the smaller k; one cluster when fewer than 3 episodes or all alike."""
    points = standardise(descriptors.values)
    labels = np.zeros(len(points), dtype=np.int64)
    score = 0.0
    distinct = len(np.unique(np.round(points, 9), axis=0))
    for k in range(2, min(max_clusters, len(points) - 1, distinct) + 1):
        candidate = kmeans(points, k, seed)
        value = silhouette(points, candidate)
        if value > score + 1e-12:
            labels, score = candidate, value
    return Clustering(labels, cluster_names(descriptors, labels), score)


def cluster_names(descriptors: Descriptors, labels: np.ndarray) -> tuple[str, ...]:
    """Each cluster's name: the words of its `NAME_WORDS` most distinctive descriptors (its
    mean furthest from the others', in standard deviations of all episodes); "typical" when
    none stands out by `DISTINCT`."""
    points = standardise(descriptors.values)
    names: list[str] = []
    for label in range(int(labels.max()) + 1 if len(labels) else 0):
        inside = labels == label
        rest = points[~inside].mean(axis=0) if (~inside).any() else np.zeros(points.shape[1])
        shift = points[inside].mean(axis=0) - rest
        order = np.argsort(-np.abs(shift), kind="stable")[:NAME_WORDS]
        words = [
            descriptors.descriptors[j].high if shift[j] > 0 else descriptors.descriptors[j].low
            for j in order
            if abs(shift[j]) >= DISTINCT
        ]
        names.append(", ".join(words) if words else "typical")
    return tuple(names)
