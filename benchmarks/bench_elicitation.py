"""How well elicitation finds a person's preferred policy: simulated people on bundled fronts.

For each front, --people simulated people (weights uniform on the simplex, the default choice
noise, which the model also assumes) answer the questions of an elicitation session, once with
the informative strategy (largest expected information gain) and once with random pairs. After
each question, a person's regret is their utility of the best policy on the front minus their
utility of the recommended one, as a share of their utility's range over the front. Prints, per
front and strategy: the share of people with regret <= 5% after the issue's number of
questions (target: >= 90% for info), and the fewest questions at which that share reaches 90%
(searched up to twice that number; target: info needs fewer than random).

Fronts: the bundled HalfCheetah MORvS front (2 objectives, after 8 questions) and the bundled
Hopper-v3 MORvS front (3 objectives, after 12), as `paretoscope front` reads them.

    python benchmarks/bench_elicitation.py [--people 200] [--particles 4000]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

import numpy as np

REPO = Path(__file__).resolve().parents[1]
if str(REPO) not in sys.path:
    sys.path.insert(0, str(REPO))

from paretoscope.catalog import bundled_assets_dir  # noqa: E402
from paretoscope.cli.front import load_front  # noqa: E402
from paretoscope.decision.elicitation import DEFAULT_NOISE, ElicitationSettings  # noqa: E402
from paretoscope.decision.simulated import SimulatedPerson, simulate  # noqa: E402

# (env, agent, questions the issue asks about)
FRONTS = (("MO-HalfCheetah-v2", "halfcheetah-morvs", 8), ("MO-Hopper-v3", "hopper-morvs", 12))
REGRET = 0.05  # of the person's utility range over the front
TARGET_SHARE = 0.90


def regrets(returns: np.ndarray, weights: np.ndarray, strategy: str, questions: int,
            seed: int, particles: int) -> np.ndarray:  # fmt: skip
    """(questions + 1,) the person's relative regret after 0, 1, ... questions."""
    person = SimulatedPerson(tuple(weights.tolist()), DEFAULT_NOISE, seed)
    settings = ElicitationSettings(seed=seed, particles=particles)
    states = simulate(returns, person, questions, strategy, settings)  # type: ignore[arg-type]
    values = states[0].front.scaled @ weights
    spread = values.max() - values.min()
    out = np.array([(values.max() - values[s.recommendation]) / spread for s in states])
    # A front that runs out of pairs keeps its last recommendation.
    return np.pad(out, (0, questions + 1 - len(out)), mode="edge")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--people", type=int, default=200)
    parser.add_argument("--particles", type=int, default=4000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    results = bundled_assets_dir() / "results"
    print(f"people {args.people} per front, noise {DEFAULT_NOISE:g}, particles {args.particles}")
    for env, agent, questions in FRONTS:
        report = load_front(results, env, agent, None)
        k = report.returns.shape[1]
        people = np.random.default_rng([args.seed, k]).dirichlet(np.ones(k), size=args.people)
        longest = 2 * questions
        print(f"\n{agent} on {env} ({k} objectives), after {questions} questions:")
        for strategy in ("info", "random"):
            began = time.perf_counter()
            table = np.array([
                regrets(report.returns, w, strategy, longest, args.seed * 100_000 + i,
                        args.particles)
                for i, w in enumerate(people)
            ])  # fmt: skip
            share = (table <= REGRET + 1e-12).mean(axis=0)
            reached = np.flatnonzero(share >= TARGET_SHARE)
            needed = f"{reached[0]}" if len(reached) else f"more than {longest}"
            print(
                f"  {strategy:6s}: {share[questions]:.1%} of people within {REGRET:.0%} regret "
                f"(target >= {TARGET_SHARE:.0%}); {TARGET_SHARE:.0%} reached after {needed} "
                f"questions; share by question count: "
                + " ".join(f"{value:.2f}" for value in share)
                + f" ({time.perf_counter() - began:.0f} s)"
            )


if __name__ == "__main__":
    main()
