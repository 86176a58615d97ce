"""A tiny assets folder built on the fly, for tests, the browser tests, benchmarks and
development.

Untrained agents and short episodes: the point is to exercise every page quickly, not to show
good behaviour. The real demo is built by ``paretoscope demo build`` with the same layout.

    python -m tests.demo_fixture /tmp/tiny-assets   # from the repository root; then
    paretoscope dashboard --assets /tmp/tiny-assets
"""

from __future__ import annotations

import argparse
import contextlib
import io
from pathlib import Path

import numpy as np

from paretoscope.catalog import SweepPlan, write_manifest
from tests.conftest import PEDA_FIXTURES

CHEETAH = "MO-HalfCheetah-v2"
HOPPER3 = "MO-Hopper-v3"
DEFAULT_HORIZON = 40


def build_tiny_assets(
    root: str | Path,
    horizon: int = DEFAULT_HORIZON,
    with_hopper: bool = True,
) -> Path:
    """Write agents, datasets, precomputed sweeps and a manifest into `root`; returns `root`.

    - ``cheetah-morvs``: an untrained MORvS (PEDA's published target model) for HalfCheetah;
    - ``cheetah-policies``: a three-member linear policy set for HalfCheetah;
    - ``cheetah-amateur``: 24 episodes collected with the policy set (amateur noise);
    - ``hopper3-modt`` (with `with_hopper`): PEDA's MODT fixture (tests/fixtures/peda) for the
      three-objective Hopper, imported; ``hopper3-random``: 16 episodes of a policy set there.
    Every agent's sweep (the manifest's plan, episodes of `horizon` steps) is precomputed.
    """
    import torch

    from paretoscope.agents import save
    from paretoscope.agents.conditioned import create_agent
    from paretoscope.agents.policy_set import PolicySetAgent
    from paretoscope.agents.target_model import published_target_model
    from paretoscope.collect import collect
    from paretoscope.envs import get_spec
    from paretoscope.evaluate import sweep
    from paretoscope.results_store import ResultsStore
    from paretoscope.settings import SweepSettings

    folder = Path(root)
    agents_dir = folder / "agents"
    datasets_dir = folder / "datasets"
    agents_dir.mkdir(parents=True, exist_ok=True)
    datasets_dir.mkdir(parents=True, exist_ok=True)
    store = ResultsStore(folder / "results")
    previous_threads = torch.get_num_threads()
    torch.set_num_threads(1)
    plans: dict[str, SweepPlan] = {}
    notes: dict[str, dict[str, object]] = {}
    try:
        morvs = create_agent("morvs", CHEETAH, target_model=published_target_model(CHEETAH), seed=0)
        with torch.no_grad():
            # Larger weights: the untrained policy's actions then depend visibly on the
            # preference, so the front has distinct points.
            for layer in [*morvs.network.layers, morvs.network.output]:
                layer.weight.mul_(2.5)
        save(morvs, agents_dir / "cheetah-morvs")
        plans["cheetah-morvs"] = SweepPlan(granularity=20, seeds=(0,), horizon=horizon)
        notes["cheetah-morvs"] = {"label": "MORvS (untrained)", "dataset": "cheetah-amateur"}

        policies = _policy_set(PolicySetAgent, get_spec(CHEETAH), members=3, seed=1)
        save(policies, agents_dir / "cheetah-policies")
        plans["cheetah-policies"] = SweepPlan(granularity=20, seeds=(0,), horizon=horizon)
        notes["cheetah-policies"] = {"label": "Linear policy set", "dataset": "cheetah-amateur"}

        with contextlib.redirect_stderr(io.StringIO()):
            collect(
                policies,
                CHEETAH,
                episodes=24,
                out=datasets_dir / "cheetah-amateur",
                quality="amateur",
                seed=0,
                horizon=horizon,
                overwrite=True,
                agent_name="cheetah-policies",
            )

        if with_hopper:
            from paretoscope.agents.peda import import_peda

            checkpoint = PEDA_FIXTURES / "ckpts" / HOPPER3 / "dt" / "step=1.ckpt"
            modt = import_peda(checkpoint, HOPPER3, "dt")
            save(modt, agents_dir / "hopper3-modt")
            plans["hopper3-modt"] = SweepPlan(granularity=4, seeds=(0,), horizon=horizon)
            notes["hopper3-modt"] = {
                "label": "MODT (PEDA fixture)",
                "dataset": "hopper3-random",
            }
            hopper_policies = _policy_set(PolicySetAgent, get_spec(HOPPER3), members=3, seed=2)
            with contextlib.redirect_stderr(io.StringIO()):
                collect(
                    hopper_policies,
                    HOPPER3,
                    episodes=16,
                    out=datasets_dir / "hopper3-random",
                    quality="expert",
                    seed=0,
                    horizon=horizon,
                    overwrite=True,
                    agent_name="hopper3-policies",
                )

        from paretoscope.agents import load

        for name, plan in plans.items():
            agent = load(agents_dir / name)
            settings = SweepSettings(
                granularity=plan.granularity,
                seeds=plan.seeds,
                horizon=plan.horizon,
                workers=1,
                batch_size=1,  # as the dashboard sweeps: a clicked point replays exactly
            )
            sweep(agent, agent.spec.env_id, settings, store=store, agent_id=name, progress=False)
    finally:
        torch.set_num_threads(previous_threads)

    for name, plan in plans.items():
        notes[name]["sweep"] = plan.to_dict()
    write_manifest(
        folder,
        {
            "title": "paretoscope (tiny test assets)",
            "description": "Untrained agents and short episodes, for tests.",
            "defaults": {"env": CHEETAH, "agent": "cheetah-morvs", "dataset": "cheetah-amateur"},
            "agents": notes,
            "datasets": {
                "cheetah-amateur": {"label": "HalfCheetah, amateur, 24 episodes"},
                "hopper3-random": {"label": "Hopper-v3, random policies, 16 episodes"},
            },
        },
    )
    return folder


def _policy_set(cls: type, spec: object, members: int, seed: int) -> object:
    """`members` small random linear policies spread along the first objective's weight."""
    n_obj = spec.n_obj  # type: ignore[attr-defined]
    obs_dim = spec.obs_dim  # type: ignore[attr-defined]
    act_dim = spec.act_dim  # type: ignore[attr-defined]
    rng = np.random.default_rng(seed)
    first = np.linspace(1.0, 0.0, members)
    preferences = np.zeros((members, n_obj))
    preferences[:, 0] = first
    preferences[:, 1:] = ((1.0 - first) / (n_obj - 1))[:, None]
    matrices = rng.normal(0.0, 0.3, size=(members, act_dim, obs_dim))
    return cls(
        spec.id,  # type: ignore[attr-defined]
        preferences,
        matrices,
        np.zeros((members, obs_dim)),
        np.ones((members, obs_dim)),
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--horizon", type=int, default=DEFAULT_HORIZON)
    args = parser.parse_args()
    build_tiny_assets(args.folder, horizon=args.horizon)
    print(args.folder)


if __name__ == "__main__":
    main()
