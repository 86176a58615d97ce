"""The spare actors a cluster's registry keeps for a node's loss (`spares_short`): enough
waiting actors off each node for every episode on it, counted by hand, and kept on a real
cluster (tests/ray_cluster.py), where a killed node's episode goes on with one."""

from __future__ import annotations

import threading
from typing import Any

import numpy as np
import pytest

from paretoscope.cluster.recorders import spares_short
from paretoscope.recordings import Recording
from tests.agents_for_tests import LinearAgent, episode_of
from tests.ray_cluster import local_cluster

CHEETAH = "MO-HalfCheetah-v2"


def test_each_node_needs_waiting_actors_elsewhere_for_its_episodes() -> None:
    # Four episodes on a, three on b; one actor waits on a, two on b.
    busy = ["a"] * 4 + ["b"] * 3
    waiting = [("a", None), ("b", None), ("b", None)]
    # a's loss: 2 on b for its 4 episodes, 2 short; b's loss: 1 on a for its 3, 2 short.
    assert spares_short(busy, waiting, ["a", "b"]) == {"a": 2, "b": 2}


def test_actors_still_starting_count_for_the_node_they_were_started_away_from() -> None:
    busy = ["a", "a", "b"]
    # One up on b, one starting away from a (it will be on b), one starting anywhere (it may
    # be on either: it covers neither).
    waiting = [("b", None), (None, "a"), (None, None)]
    assert spares_short(busy, waiting, ["a", "b"]) == {"b": 1}


def test_three_nodes_share_the_cover() -> None:
    # c has no episode: its two waiting actors cover both a and b.
    busy = ["a", "a", "b"]
    waiting = [("c", None), ("c", None)]
    assert spares_short(busy, waiting, ["a", "b", "c"]) == {}
    assert spares_short(busy + ["a"], waiting, ["a", "b", "c"]) == {"a": 1}


def test_a_lone_node_needs_no_spares_it_could_not_use() -> None:
    assert spares_short(["a", "a"], [], ["a"]) == {}
    assert spares_short([], [("a", None)], ["a", "b"]) == {}


@pytest.mark.slow
def test_each_nodes_episode_has_a_spare_on_the_other_node_and_goes_on_with_it() -> None:
    """Two episodes at once on two one-core nodes of a real cluster (a registry of its own:
    two actors, one per core). While both stream, an actor waits up on each node, for the
    other node's episode; the node of one is killed, and both streams finish, each the
    episode recorded here."""
    pytest.importorskip("ray")
    from paretoscope.cluster.recorders import ClusterRecorders

    with local_cluster(["node_a", "node_b"]) as cluster:
        recorders = ClusterRecorders(cluster.address)
        agents = [LinearAgent(CHEETAH, seed=seed) for seed in (21, 22)]
        requests = [episode_of(agent, 60, preference=(0.4, 0.6), seed=7) for agent in agents]
        go_on = threading.Event()  # the streams hold at their first frame until set
        nodes: dict[int, list[str]] = {0: [], 1: []}
        recordings: dict[int, Recording] = {}

        def record(index: int) -> None:
            def on_actor(actor: Any) -> None:
                nodes[index].append(cluster.ray.get(actor.node.remote()))

            recordings[index] = recorders.record(
                requests[index], [agents[index]], lambda _: go_on.wait(600), on_actor
            )

        threads = [threading.Thread(target=record, args=(index,)) for index in (0, 1)]
        for thread in threads:
            thread.start()
        cluster.wait_for(lambda _: len(nodes[0]) == len(nodes[1]) == 1, "both actors")
        assert nodes[0] != nodes[1]  # one episode per core
        both = {*nodes[0], *nodes[1]}
        cluster.wait_for(lambda _: both <= set(recorders.waiting()), "a spare on each node")
        killed = cluster.name_of(nodes[0][0])
        cluster.kill(killed)
        go_on.set()
        for thread in threads:
            thread.join(timeout=600)
        assert nodes[0][1:] == nodes[1]  # the episode went on with the spare on the other node
        for index, recording in recordings.items():
            truth = requests[index].record([agents[index]])
            np.testing.assert_array_equal(recording.rewards, truth.rewards)
            np.testing.assert_array_equal(recording.frame_steps, truth.frame_steps)
