"""Behaviour along a front: which policies to show (`spread_selection`), how each behaves
(`episode_states` -> `describe`), which behave alike (`embed`, `cluster`, named clusters),
why two differ (`return_difference`, `divergent_steps`), and the gallery (`pick_tiles`,
`render_gallery_file`). Nothing here imports Streamlit."""

from __future__ import annotations

from paretoscope.behaviour.clusters import Clustering, cluster, cluster_names, embed, kmeans
from paretoscope.behaviour.descriptors import (
    BODY_DESCRIPTORS,
    Descriptor,
    Descriptors,
    describe,
    stride_frequency,
)
from paretoscope.behaviour.difference import (
    ReturnDifference,
    divergence,
    divergent_steps,
    return_difference,
)
from paretoscope.behaviour.gallery import (
    DEFAULT_TILES,
    MAX_TILES,
    GalleryTiles,
    GalleryVideo,
    front_tiles,
    pick_tiles,
    render_gallery_file,
)
from paretoscope.behaviour.spread import front_scaled, spread_seeds, spread_selection
from paretoscope.behaviour.states import BodyTrack, EpisodeStates, episode_states

__all__ = [
    "BODY_DESCRIPTORS",
    "DEFAULT_TILES",
    "MAX_TILES",
    "BodyTrack",
    "Clustering",
    "Descriptor",
    "Descriptors",
    "EpisodeStates",
    "GalleryTiles",
    "GalleryVideo",
    "ReturnDifference",
    "cluster",
    "cluster_names",
    "describe",
    "divergence",
    "divergent_steps",
    "embed",
    "episode_states",
    "front_scaled",
    "front_tiles",
    "kmeans",
    "pick_tiles",
    "render_gallery_file",
    "return_difference",
    "spread_seeds",
    "spread_selection",
    "stride_frequency",
]
