"""Trainers: behaviour policies (ARS, one linear policy per preference) and offline agents.

`train_behaviour` writes a `policy_set` checkpoint; `train_offline` trains a MORvS, BC or MODT
agent on a dataset. Both can be interrupted and resumed; `paretoscope.train.ars` holds the algorithm
for one behaviour policy, `paretoscope.train.batches` the offline kinds' training inputs.
"""

from paretoscope.train.ars import ARSConfig, EpisodePool, ObservationStats, ars_iteration
from paretoscope.train.behaviour import (
    Budget,
    MemberReward,
    auto_survival_shift,
    default_preferences,
    rewards_by_member,
    train_behaviour,
)
from paretoscope.train.offline import train_offline

__all__ = [
    "ARSConfig",
    "Budget",
    "MemberReward",
    "EpisodePool",
    "ObservationStats",
    "ars_iteration",
    "auto_survival_shift",
    "default_preferences",
    "rewards_by_member",
    "train_behaviour",
    "train_offline",
]
