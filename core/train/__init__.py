"""Trainers: the behaviour-policy trainer (ARS, one linear policy per preference).

`train_behaviour` writes a `policy_set` checkpoint and can be interrupted and resumed;
`core.train.ars` holds the algorithm for one policy. The offline trainers (BC, MORvS, MODT)
live beside them in their own modules.
"""

from core.train.ars import ARSConfig, EpisodePool, ObservationStats, ars_iteration
from core.train.behaviour import (
    Budget,
    auto_survival_shift,
    default_preferences,
    train_behaviour,
)

__all__ = [
    "ARSConfig",
    "Budget",
    "EpisodePool",
    "ObservationStats",
    "ars_iteration",
    "auto_survival_shift",
    "default_preferences",
    "train_behaviour",
]
