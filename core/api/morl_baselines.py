"""`from_morl_baselines`: a live MORL-Baselines agent object as a paretoscope agent.

No file is written and nothing is pickled: the object's networks are read as the dict its
``save()`` would write (`paretoscope.agents.morlb.live`) and converted by the same readers that
import MORL-Baselines files (`paretoscope.agents.morlb.convert`). MORL-Baselines is never
imported here; only the object the user passes is read.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from numbers import Real
from typing import Any

from paretoscope.agents.base import Agent
from paretoscope.agents.morlb.algorithms import Algorithm
from paretoscope.errors import ParetoscopeError
from paretoscope.text import briefly

# The keywords each algorithm takes (the file importer's ``--set`` options), with their meaning.
_KEYWORDS: dict[str, dict[str, str]] = {
    "gpi-ls": {"use_gpi": "bool"},
    "gpi-pd": {"use_gpi": "bool"},
    "morld": {"members": "members", "sample": "bool"},
    "pcn": {"desired_return": "numbers", "horizon": "horizon", "max_return": "numbers"},
}
_MEMBERS = ("archive", "population", "all")


def from_morl_baselines(agent: object, env: str | None = None, **options: Any) -> Agent:
    """A paretoscope agent acting as a live MORL-Baselines agent's own ``eval(obs, w)``.

    The agent's networks are read in memory, as its ``save()`` would write them, and converted
    by the same code that imports MORL-Baselines files (``paretoscope agent import``). No file is
    written and nothing is pickled. The converted agent holds a copy of the weights taken now:
    training the object further does not change it; convert again to act with the new weights.

    Parameters
    ----------
    agent
        A MORL-Baselines (1.3.0) agent object: ``Envelope``, ``GPILS``, ``GPIPD``,
        ``GPIPDContinuousAction`` (with ``use_gpi=False``), ``CAPQL``, ``MORLD`` (MOSAC
        policies) or ``PCN``.
    env
        The paretoscope env id the agent acts in. Default: the id of the env the object was
        built with (``agent.env``).
    **options
        What the object does not say, per algorithm:

        - GPI-LS / GPI-PD: ``use_gpi`` (bool; default the object's own ``use_gpi``): act with
          GPI over the weight support, else with the min over its psi networks.
        - MORL/D: ``members`` (``"archive"``, the default, ``"population"`` or ``"all"``): which
          policies come in; ``sample`` (bool, default False): sample as MOSAC's ``eval`` does
          (noise seeded by each episode's seed) instead of acting with the actor's mean.
        - PCN: ``desired_return`` (one number per objective) and ``horizon`` (a number >= 1),
          the command an episode starts with; default the ones set by the object's
          ``set_desired_return_and_horizon``. Without a desired return, an episode starts from
          the env's known front point best for its preference. ``max_return`` (one number per
          objective) clips the desired return as ``PCN.evaluate`` does. The first step acts
          as ``eval(obs)``; then the desired return shrinks by each reward and the horizon
          drops by one, as PCN's own episode loop does.

    Returns
    -------
    Agent
        A paretoscope agent (``reset``/``act``/``initial_target``) for ``env``, usable by
        ``paretoscope.sweep``, ``paretoscope.record`` and ``paretoscope.explore``.

    Raises
    ------
    ParetoscopeError
        If ``agent`` is not one of the MORL-Baselines agents above, the env is unknown or not
        given where the object has none, an option is unknown or malformed, or the networks
        do not fit the env.
    """
    from paretoscope.agents.morlb.convert import convert_saved
    from paretoscope.agents.morlb.live import env_id_of, read_live
    from paretoscope.envs import get_spec

    live = read_live(agent)
    algorithm = live.algorithm
    env_id = env if env is not None else env_id_of(agent)
    if env_id is None:
        raise ParetoscopeError(
            f"this {type(agent).__name__} keeps no env id: pass env= (a paretoscope env id)"
        )
    if not isinstance(env_id, str):
        raise ParetoscopeError(f"env must be an env id (a string), got {type(env_id).__name__}")
    spec = get_spec(env_id)
    texts = _option_texts(algorithm, spec.n_obj, {**live.defaults, **options})
    if algorithm.name == "pcn" and "horizon" not in texts:
        raise ParetoscopeError(
            "PCN needs horizon= (the desired horizon an episode starts with, in steps): this "
            "object has none set by set_desired_return_and_horizon"
        )
    training: dict[str, Any] = {
        "source": "morl-baselines",
        "algorithm": algorithm.name,
        "original_object": f"{type(agent).__module__}.{type(agent).__name__}",
    }
    step = getattr(agent, "global_step", None)
    if isinstance(step, int):
        training["global_step"] = step
    return convert_saved(live.data, algorithm, spec, texts, training, live.description)


def _option_texts(algorithm: Algorithm, n_obj: int, options: dict[str, Any]) -> dict[str, str]:
    """The keywords as the readers' option strings; a ParetoscopeError for a bad one."""
    accepted = _KEYWORDS.get(algorithm.name, {})
    texts: dict[str, str] = {}
    for name, value in options.items():
        kind = accepted.get(name)
        if kind is None:
            takes = f"takes {', '.join(accepted)}" if accepted else "takes no options"
            raise ParetoscopeError(f"{name}=: from_morl_baselines on {algorithm.label} {takes}")
        texts[name] = _text(name, kind, value, n_obj)
    return texts


def _text(name: str, kind: str, value: Any, n_obj: int) -> str:
    if kind == "bool":
        if not isinstance(value, bool):
            raise ParetoscopeError(f"{name}={briefly(value)}: expected True or False")
        return "true" if value else "false"
    if kind == "members":
        if value not in _MEMBERS:
            raise ParetoscopeError(
                f"members={briefly(value)}: expected one of {', '.join(_MEMBERS)}"
            )
        return str(value)
    if kind == "horizon":
        if isinstance(value, bool) or not isinstance(value, Real) or not float(value) >= 1:
            raise ParetoscopeError(
                f"horizon={briefly(value)}: expected a number of steps, at least 1"
            )
        return repr(float(value))
    numbers = _numbers(value)
    if numbers is None or len(numbers) != n_obj:
        raise ParetoscopeError(
            f"{name}={briefly(value)}: expected {n_obj} finite numbers, one per objective"
        )
    return ",".join(repr(number) for number in numbers)


def _numbers(value: Any) -> list[float] | None:
    """`value` (a sequence, numpy array or tensor of numbers) as finite floats, else None."""
    if hasattr(value, "tolist"):
        value = value.tolist()
    if isinstance(value, (str, bytes)) or not isinstance(value, Sequence):
        return None
    try:
        numbers = [float(item) for item in value]
    except (TypeError, ValueError):
        return None
    return numbers if all(math.isfinite(number) for number in numbers) else None
