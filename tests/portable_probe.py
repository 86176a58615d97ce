"""Print digests of agents' actions on fixed inputs, as JSON, for tests/test_portable_math.py.

Run in a subprocess whose environment steers torch's and MKL's run-time choice of code
(``ATEN_CPU_CAPABILITY``, ``MKL_ENABLE_INSTRUCTIONS``): every agent's digest must come out
the same under each. ``control`` digests torch's own tanh, exp and softmax on fixed values, to
show whether the settings changed torch's code path on this machine at all.

    python -m tests.portable_probe
"""

from __future__ import annotations

import hashlib
import json
import os

import numpy as np
import torch

from paretoscope.agents import load
from paretoscope.agents.base import Agent
from paretoscope.agents.importers import import_agent
from paretoscope.agents.peda import import_peda
from tests.conftest import PEDA_FIXTURES, REPO_DIR

MORLB_FIXTURES = REPO_DIR / "tests" / "fixtures" / "morl-baselines"
ROWS = 23  # not a multiple of any vector width, so vector tails are exercised too
STEPS = 4


def actions_digest(agent: Agent, seed: int = 0) -> str:
    """Digest of `STEPS` steps of actions for `ROWS` random observations and preferences."""
    spec = agent.spec
    rng = np.random.default_rng(seed)
    preferences = rng.dirichlet(np.ones(spec.n_obj), ROWS)
    observations = rng.normal(0.0, 1.0, (ROWS, spec.obs_dim))
    agent.reset(ROWS)
    targets = agent.initial_target(preferences)
    digest = hashlib.sha256()
    for step in range(STEPS):
        actions = agent.act(observations + 0.1 * step, preferences, targets)
        digest.update(np.ascontiguousarray(actions, dtype=np.float64).tobytes())
    return digest.hexdigest()[:16]


def control_digest() -> str:
    """torch's own tanh, exp and softmax: these follow the run-time code path."""
    values = torch.linspace(-6.0, 6.0, 10_007, dtype=torch.float32)
    digest = hashlib.sha256()
    for result in (torch.tanh(values), torch.exp(values), torch.softmax(values, dim=0)):
        digest.update(result.numpy().tobytes())
    return digest.hexdigest()[:16]


def agents() -> dict[str, Agent]:
    found: dict[str, Agent] = {}
    for folder in sorted((REPO_DIR / "assets" / "agents").iterdir()):
        if (folder / "config.json").is_file() and "behaviour" not in folder.name:
            found[f"bundled/{folder.name}"] = load(folder)
    peda = json.loads((PEDA_FIXTURES / "golden.json").read_text())
    for key, entry in sorted(peda["models"].items()):
        env_id, peda_type = key.split("/")
        found[f"peda/{key}"] = import_peda(PEDA_FIXTURES / entry["checkpoint"], env_id, peda_type)
    golden = json.loads((MORLB_FIXTURES / "golden.json").read_text())
    for entry in golden["checkpoints"]:
        # Our own fixture files (PCN's is a whole pickle); PCN also needs its horizon.
        options = {"horizon": "10"} if entry["algo_key"] == "pcn" else {}
        found[f"morl-baselines/{entry['file']}"] = import_agent(
            MORLB_FIXTURES / entry["file"],
            trust=True,
            options=options,
        )
    return found


def main() -> None:
    torch.set_num_threads(int(os.environ.get("PROBE_THREADS", "1")))
    digests = {name: actions_digest(agent) for name, agent in agents().items()}
    print(json.dumps({"control": control_digest(), "agents": digests}))


if __name__ == "__main__":
    main()
