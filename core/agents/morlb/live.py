"""A live MORL-Baselines agent object read as the dict its ``save()`` would write.

`from_morl_baselines` (paretoscope.api) hands an in-memory agent here; this module tells its
algorithm from its class, and builds from its networks' ``state_dict()`` and attributes the
mapping MORL-Baselines 1.3.0's ``save()`` writes (without optimizer moments or replay buffers,
which acting does not need), so the file importer's readers (`convert.convert_saved`) convert
both. MORL-Baselines itself is never imported: the object is only read.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from paretoscope.agents.morlb.algorithms import ALGORITHMS, Algorithm
from paretoscope.errors import ParetoscopeError

# The MORL-Baselines class (its module's last part, its name) -> the algorithm it is.
_CLASSES = {
    ("envelope", "Envelope"): "envelope",
    ("gpi_pd", "GPILS"): "gpi-ls",
    ("gpi_pd", "GPIPD"): "gpi-pd",
    ("gpi_pd_continuous_action", "GPIPDContinuousAction"): "gpi-pd-continuous",
    ("capql", "CAPQL"): "capql",
    ("morld", "MORLD"): "morld",
    ("pcn", "PCN"): "pcn",
}
SUPPORTED = "Envelope, GPI-LS, GPI-PD, GPI-PD continuous action, CAPQL, MORL/D (MOSAC) and PCN"


def is_morl_baselines_object(value: object) -> bool:
    """Whether `value` is an instance of a class defined in MORL-Baselines."""
    return type(value).__module__.split(".")[0] == "morl_baselines"


@dataclass(frozen=True)
class LiveSave:
    """What a live agent's ``save()`` would write: the algorithm, the saved content and the
    defaults its own state gives the reader's options (GPI's ``use_gpi``, PCN's command)."""

    algorithm: Algorithm
    data: Any
    defaults: dict[str, Any]
    description: str


def algorithm_of(agent: object) -> Algorithm:
    """The algorithm `agent`'s class is; a ParetoscopeError naming the supported ones if none."""
    cls = type(agent)
    name = _CLASSES.get((cls.__module__.rsplit(".", 1)[-1], cls.__name__))
    if not is_morl_baselines_object(agent) or name is None:
        raise ParetoscopeError(
            f"{cls.__module__}.{cls.__name__} is not a MORL-Baselines agent paretoscope "
            f"converts; it converts {SUPPORTED}"
        )
    return ALGORITHMS[name]


def read_live(agent: Any) -> LiveSave:
    """`agent` as its ``save()`` would have written it (tensors shared with the live networks:
    converting copies them)."""
    algorithm = algorithm_of(agent)
    reader = _LIVE_READERS[algorithm.name]
    try:
        data, defaults = reader(agent)
    except AttributeError as error:
        raise ParetoscopeError(
            f"this {type(agent).__name__} has no {error.name!r}, which MORL-Baselines 1.3.0's "
            "agents have (another version of the library?)"
        ) from None
    return LiveSave(algorithm, data, defaults, f"live MORL-Baselines {type(agent).__name__}")


def env_id_of(agent: Any) -> str | None:
    """The id of the env the agent was built with, where it keeps one."""
    env = getattr(agent, "env", None)
    for holder in (getattr(env, "unwrapped", None), env):
        spec = getattr(holder, "spec", None)
        env_id = getattr(spec, "id", None)
        if isinstance(env_id, str) and env_id:
            return env_id
    return None


def _envelope(agent: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    return {
        "q_net_state_dict": agent.q_net.state_dict(),
        "q_net_optimizer_state_dict": agent.q_optim.state_dict(),
    }, {}


def _gpi(agent: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    data: dict[str, Any] = {
        f"psi_net_{index}_state_dict": psi_net.state_dict()
        for index, psi_net in enumerate(agent.q_nets)
    }
    data["psi_nets_optimizer_state_dict"] = agent.q_optim.state_dict()
    support = getattr(agent, "weight_support", None)
    if not support:  # train() sets it
        raise ParetoscopeError(
            f"this {type(agent).__name__} has no weight support yet: train it first"
        )
    data["M"] = list(support)
    return data, {"use_gpi": bool(agent.use_gpi)}


def _actor(agent: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    """CAPQL and GPI-PD continuous: the policy (their eval acts with it alone)."""
    if getattr(agent, "use_gpi", False):
        raise ParetoscopeError(
            "this GPI-PD continuous-action agent has use_gpi=True: its eval() then scores "
            "actions with a Q-network in train mode (dropout on), so it is not deterministic; "
            "set agent.use_gpi = False to convert the policy it acts with otherwise"
        )
    return {
        "policy_state_dict": agent.policy.state_dict(),
        "policy_optimizer_state_dict": agent.policy_optim.state_dict(),
    }, {}


def _morld(agent: Any) -> tuple[dict[str, Any], dict[str, Any]]:
    if getattr(agent, "policy_name", "MOSAC") != "MOSAC":
        raise ParetoscopeError(
            f"MORL/D with {agent.policy_name} policies: paretoscope converts MORL/D's MOSAC ones"
        )
    data: dict[str, Any] = {}
    for index, policy in enumerate(agent.population):
        data[f"population_policy_{index}"] = _mosac(policy.wrapped)
    archive = agent.archive
    for index, (policy, evaluation) in enumerate(
        zip(archive.individuals, archive.evaluations, strict=True)
    ):
        data[f"archive_policy_{index}"] = _mosac(policy.wrapped)
        data[f"archive_policy_{index}_eval"] = evaluation
    return data, {}


def _mosac(policy: Any) -> dict[str, Any]:
    """The parts of MOSAC's ``get_save_dict()`` an actor needs."""
    return {"actor_state_dict": policy.actor.state_dict(), "weights": policy.weights}


def _pcn(agent: Any) -> tuple[Any, dict[str, Any]]:
    defaults: dict[str, Any] = {}
    if getattr(agent, "desired_return", None) is not None:
        defaults["desired_return"] = agent.desired_return
    if getattr(agent, "desired_horizon", None) is not None:
        defaults["horizon"] = agent.desired_horizon
    return agent.model, defaults


_LIVE_READERS = {
    "envelope": _envelope,
    "gpi-ls": _gpi,
    "gpi-pd": _gpi,
    "gpi-pd-continuous": _actor,
    "capql": _actor,
    "morld": _morld,
    "pcn": _pcn,
}
