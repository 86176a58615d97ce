"""An episode's frame steps packed for a cluster's stream: the same steps after a round trip
through pickle (as Ray sends them), in a handful of buffers, and left as they are where they
cannot be packed."""

from __future__ import annotations

import dataclasses
import pickle

import numpy as np
import pytest

from paretoscope.cluster.packed_steps import ARRAYS, LIVE, SCALARS, packed
from paretoscope.rollout import StepRecord, stream_rollout
from tests.agents_for_tests import LinearAgent

CHEETAH = "MO-HalfCheetah-v2"


@pytest.fixture(scope="module")
def steps() -> list[StepRecord]:
    """A live episode's steps as its frames keep them: without the live simulation."""
    agent = LinearAgent(CHEETAH, seed=2)
    rollout = stream_rollout(agent, CHEETAH, np.array([0.3, 0.7]), 4, horizon=60)
    return [dataclasses.replace(step, model=None, data=None, env=None) for step in rollout]


def sent(value: object) -> tuple[object, int]:
    """`value` after pickling with out-of-band buffers (Ray's way), and how many buffers."""
    buffers: list[pickle.PickleBuffer] = []
    data = pickle.dumps(value, protocol=5, buffer_callback=buffers.append)
    return pickle.loads(data, buffers=buffers), len(buffers)


def assert_same_steps(got: object, expected: list[StepRecord]) -> None:
    assert type(got) is tuple and len(got) == len(expected)
    for mine, theirs in zip(got, expected, strict=True):
        assert type(mine) is StepRecord
        for name in ARRAYS:
            mine_array, their_array = getattr(mine, name), getattr(theirs, name)
            assert mine_array.dtype == their_array.dtype
            np.testing.assert_array_equal(mine_array, their_array)
        for name in SCALARS:
            assert getattr(mine, name) == getattr(theirs, name)
            assert type(getattr(mine, name)) is type(getattr(theirs, name))
        assert all(getattr(mine, name) is None for name in LIVE)


def test_packed_steps_come_back_the_same_in_a_few_buffers(steps: list[StepRecord]) -> None:
    assert steps[-1].done or len(steps) == 60
    got, buffers = sent(packed(steps))
    assert_same_steps(got, steps)
    assert buffers <= len(ARRAYS) + len(SCALARS)
    _, unpacked_buffers = sent(tuple(steps))
    assert unpacked_buffers >= len(ARRAYS) * len(steps)


def test_every_field_of_a_step_is_packed_or_never_sent() -> None:
    fields = [field.name for field in dataclasses.fields(StepRecord)]
    assert sorted(fields) == sorted((*ARRAYS, *SCALARS, *LIVE))


def test_steps_that_cannot_be_packed_go_as_they_are(steps: list[StepRecord]) -> None:
    ragged = [*steps[:3], dataclasses.replace(steps[3], observation=steps[3].observation[:-1])]
    retyped = [*steps[:3], dataclasses.replace(steps[3], reward=steps[3].reward.astype(np.float32))]
    live = [*steps[:3], dataclasses.replace(steps[3], model=object())]
    for unpackable in (ragged, retyped):
        kept = packed(unpackable)
        assert type(kept) is tuple
        got, _ = sent(kept)
        assert_same_steps(got, unpackable)
    assert type(packed(live)) is tuple and packed(live)[3].model is live[3].model
    assert packed([]) == ()
