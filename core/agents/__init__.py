"""Agents: the protocol every kind follows, their implementations and checkpoints."""

from core.agents.base import Agent, AgentKind, AgentSpec, Conditioning

__all__ = ["Agent", "AgentKind", "AgentSpec", "Conditioning"]
