"""Recordings made on a real Ray cluster (`paretoscope.cluster.recorders`): a head and two
worker nodes started as separate ``ray start`` processes on this machine (tests/ray_cluster.py).
A recording streamed through the cluster equals the same request recorded here, frame by frame;
killing the node that records it mid-stream loses nothing: the stream finishes, each frame once
and in order, and the recording is the same."""

from __future__ import annotations

import time
from collections.abc import Iterator

import numpy as np
import pytest

from paretoscope.recordings import EpisodeRequest, LiveFrame, Recording
from tests.agents_for_tests import LinearAgent
from tests.ray_cluster import LocalCluster, local_cluster

pytestmark = pytest.mark.slow

CHEETAH = "MO-HalfCheetah-v2"
NODES = ["node_a", "node_b"]


@pytest.fixture(scope="module")
def cluster() -> Iterator[LocalCluster]:
    pytest.importorskip("ray")
    with local_cluster(NODES) as started:
        yield started


def _request(agent: LinearAgent, horizon: int) -> EpisodeRequest:
    return EpisodeRequest(
        fingerprint=agent.fingerprint,
        env_id=CHEETAH,
        preference=(0.3, 0.7),
        target=None,
        seed=5,
        size=64,
        horizon=horizon,
        every=1,
        label="linear",
    )


def _same(frames: list[LiveFrame], truth: list[LiveFrame]) -> None:
    """The same frames, in order: numbers, pictures and each lane's step."""
    assert [frame.index for frame in frames] == [frame.index for frame in truth]
    for frame, expected in zip(frames, truth, strict=True):
        assert frame.image is not None and expected.image is not None
        np.testing.assert_array_equal(frame.image, expected.image)
        assert frame.record.step == expected.record.step
        np.testing.assert_array_equal(frame.record.reward, expected.record.reward)


def _same_recording(recording: Recording, truth: Recording) -> None:
    np.testing.assert_array_equal(recording.rewards, truth.rewards)
    np.testing.assert_array_equal(recording.frame_steps, truth.frame_steps)
    assert recording.fps == truth.fps and recording.lanes == truth.lanes
    assert recording.video  # rendered on the node


def test_a_recording_streamed_through_the_cluster_equals_a_local_one(
    cluster: LocalCluster,
) -> None:
    from paretoscope.cluster.recorders import ClusterRecorders

    agent = LinearAgent(CHEETAH, seed=3)
    request = _request(agent, horizon=30)
    local: list[LiveFrame] = []
    truth = request.record([agent], local.append)

    streamed: list[LiveFrame] = []
    nodes: list[str] = []
    recorders = ClusterRecorders(cluster.address)
    recording = recorders.record(
        request,
        [agent],
        streamed.append,
        on_actor=lambda actor: nodes.append(cluster.ray.get(actor.node.remote())),
    )
    recorders.close()
    assert [cluster.name_of(node) for node in nodes] in ([name] for name in NODES)
    _same(streamed, local)
    _same_recording(recording, truth)


def test_a_node_killed_mid_stream_loses_no_frame(cluster: LocalCluster) -> None:
    from paretoscope.cluster.recorders import ClusterRecorders

    cluster.wait_for(lambda nodes: cluster.alive_names(nodes) == set(NODES), "both nodes")
    agent = LinearAgent(CHEETAH, seed=4)
    request = _request(agent, horizon=200)
    local: list[LiveFrame] = []
    truth = request.record([agent], local.append)

    nodes: list[str] = []  # each actor's node (asked before it records: it does one thing)
    streamed: list[LiveFrame] = []
    arrived: list[float] = []

    def on_frame(frame: LiveFrame) -> None:
        streamed.append(frame)
        arrived.append(time.monotonic())
        if len(streamed) == 20:
            cluster.kill(cluster.name_of(nodes[-1]))

    recorders = ClusterRecorders(cluster.address)
    recording = recorders.record(
        request,
        [agent],
        on_frame,
        on_actor=lambda actor: nodes.append(cluster.ray.get(actor.node.remote())),
    )
    recorders.close()
    killed = cluster.name_of(nodes[0])
    # The first actor's node died mid-stream; an actor on the other one finished.
    assert len(nodes) == 2 and cluster.name_of(nodes[1]) != killed
    _same(streamed, local)
    _same_recording(recording, truth)
    # Resumed without waiting for Ray to declare the node dead (its heartbeats, many seconds):
    # the stream's own stall (1 s) and a spare actor already started. The 2 s is a
    # benchmark's figure; here only a bound that a stream waiting on Ray's detector exceeds.
    gap = max(later - earlier for earlier, later in zip(arrived, arrived[1:], strict=False))
    print(f"longest wait between two frames, the node's death included: {gap:.2f} s")
    assert gap < 10.0
    # The node killed is gone; the other recorded the rest.
    cluster.wait_for(lambda found: killed not in cluster.alive_names(found), "the node's death")
