"""An agent loaded for serving: the agent, what identifies its behaviour, and borrowing.

Agents keep per-episode state, so one rollout or sweep at a time uses a given agent object.
`LoadedAgent.borrow()` hands out the agent, or an identical copy when it is busy, so that
viewers of one agent do not wait for each other (whoever calls it bounds how many copies there
can be, e.g. a pool of workers).
"""

from __future__ import annotations

import contextlib
import copy
import threading
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field

from paretoscope.agents.base import Agent, AgentSpec


@dataclass
class LoadedAgent:
    """An agent ready to act, its fingerprint (what identifies its behaviour) and its name."""

    agent: Agent
    fingerprint: str
    name: str
    lock: threading.Lock = field(default_factory=threading.Lock, repr=False)
    _spares: list[Agent] = field(default_factory=list, repr=False)
    _spares_lock: threading.Lock = field(default_factory=threading.Lock, repr=False)

    @property
    def spec(self) -> AgentSpec:
        return self.agent.spec

    @property
    def return_conditioned(self) -> bool:
        return bool(self.agent.spec.conditioning.return_conditioned)

    @contextlib.contextmanager
    def borrow(self) -> Iterator[Agent]:
        """Exclusive use of this agent or of an idle copy of it (same weights, same actions)."""
        if self.lock.acquire(blocking=False):
            try:
                yield self.agent
            finally:
                self.lock.release()
            return
        with self._spares_lock:
            spare = self._spares.pop() if self._spares else None
        if spare is None:
            spare = self._copy()
        if spare is None:  # not copyable: wait for the agent itself
            with self.lock:
                yield self.agent
            return
        try:
            yield spare
        finally:
            with self._spares_lock:
                self._spares.append(spare)

    def _copy(self) -> Agent | None:
        # The agent may be mid-episode in another thread; copies reset before every episode.
        for _ in range(3):
            try:
                return copy.deepcopy(self.agent)
            except RuntimeError:  # its state changed while being copied: try again
                continue
            except Exception:  # noqa: BLE001 - an agent that cannot be copied is shared
                return None
        return None


@contextlib.contextmanager
def borrow_all(agents: Sequence[LoadedAgent]) -> Iterator[list[Agent]]:
    """Borrow several agents at once, in the order given. They are taken in name order, so two
    callers borrowing the same agents never wait for each other in a cycle."""
    with contextlib.ExitStack() as stack:
        borrowed: dict[int, Agent] = {}
        for index in sorted(range(len(agents)), key=lambda i: (agents[i].name, i)):
            borrowed[index] = stack.enter_context(agents[index].borrow())
        yield [borrowed[index] for index in range(len(agents))]
