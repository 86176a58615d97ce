"""A server puts each agent in the cluster's object store once (`ClusterRecorders._references`):
the next episodes of the same agent reuse the reference, so a node fetches it once. A changed
fingerprint (an agent trained further in a notebook) or a lost actor puts it again, and the
references kept are bounded."""

from __future__ import annotations

import collections
import threading
from dataclasses import replace
from typing import Any

from paretoscope.cluster import recorders
from paretoscope.cluster.recorders import ClusterRecorders
from paretoscope.recordings.side_by_side import SideBySideRequest
from tests.agents_for_tests import LinearAgent, episode_of

CHEETAH = "MO-HalfCheetah-v2"


class _Store:
    """Ray's `put`, counted: each call a new reference."""

    def __init__(self) -> None:
        self.puts: list[Any] = []

    def put(self, value: Any) -> tuple[str, int]:
        self.puts.append(value)
        return ("reference", len(self.puts))


def _recorders() -> tuple[ClusterRecorders, _Store]:
    store = _Store()
    made = object.__new__(ClusterRecorders)  # no cluster: only the object store is used
    made._ray = store
    made._lock = threading.Lock()
    made._agents = collections.OrderedDict()
    return made, store


def test_an_agent_is_put_once_for_its_episodes_and_again_after_a_loss() -> None:
    made, store = _recorders()
    agent = LinearAgent(CHEETAH, seed=1)
    first = made._references(episode_of(agent, 10), [agent])
    another_preference = episode_of(agent, 10, preference=(0.7, 0.3))
    assert made._references(another_preference, [agent]) == first
    assert store.puts == [agent]
    made._forget_agents()  # an actor was lost
    again = made._references(another_preference, [agent])
    assert again != first and store.puts == [agent, agent]


def test_a_changed_fingerprint_puts_the_agent_again() -> None:
    made, store = _recorders()
    agent = LinearAgent(CHEETAH, seed=1)
    request = episode_of(agent, 10)
    first = made._references(request, [agent])
    trained = made._references(replace(request, fingerprint="trained further"), [agent])
    assert trained != first and len(store.puts) == 2


def test_side_by_side_agents_are_each_kept_and_the_kept_ones_are_bounded(monkeypatch: Any) -> None:
    monkeypatch.setattr(recorders, "AGENTS_KEPT", 3)
    made, store = _recorders()
    agents = [LinearAgent(CHEETAH, seed=seed) for seed in range(4)]
    pair = SideBySideRequest(
        fingerprints=(agents[0].fingerprint, agents[1].fingerprint),
        labels=("a", "b"),
        env_id=CHEETAH,
        preference=(0.5, 0.5),
        seed=1,
        size=64,
        horizon=10,
        every=1,
    )
    both = made._references(pair, agents[:2])
    assert made._references(pair, agents[:2]) == both and len(set(both)) == 2
    assert store.puts == agents[:2]
    for agent in agents[2:]:  # two more: the oldest of the first two goes
        made._references(episode_of(agent, 10), [agent])
    assert len(made._agents) == 3
    made._references(pair, agents[:2])
    assert len(store.puts) == 5  # agents[0] put again, agents[1] still kept
