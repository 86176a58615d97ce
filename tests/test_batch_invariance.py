"""Row i of a batch acts bit for bit the same whatever else is in the batch, on 1 and 2 torch
threads, for every agent kind; and so a sweep replays exactly whatever its batch size."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch

from paretoscope.agents import load
from paretoscope.agents.architecture import (
    BCArchitecture,
    MORvSArchitecture,
    TransformerArchitecture,
)
from paretoscope.agents.base import Agent, Conditioning
from paretoscope.agents.conditioned import ObservationNormalizer, create_agent
from paretoscope.agents.peda import import_peda
from paretoscope.agents.policy_set import PolicySetAgent
from paretoscope.agents.target_model import LinearTargetModel, published_target_model
from paretoscope.envs import get_spec
from tests.batch_invariance import (
    episode_pool,
    initial_target_failures,
    invariance_failures,
    run_rows,
)
from tests.conftest import PEDA_FIXTURES, REPO_DIR

HOPPER = "MO-Hopper-v3"
CHEETAH = "MO-HalfCheetah-v2"
ASSETS = REPO_DIR / "assets" / "agents"
ALL_SIZES = tuple(range(1, 71))
# For the big networks: sizes around the usual BLAS block sizes, and the sweep's default 64.
FEW_SIZES = (1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 70)


@pytest.fixture
def torch_threads() -> Iterator[Callable[[int], None]]:
    previous = torch.get_num_threads()
    yield torch.set_num_threads
    torch.set_num_threads(previous)


def tiny(kind: str, env_id: str = HOPPER, seed: int = 0, **overrides) -> Agent:
    spec = get_spec(env_id)
    rng = np.random.default_rng(seed)
    normalizer = ObservationNormalizer(
        mean=tuple(rng.normal(0, 0.5, spec.obs_dim)), std=tuple(rng.uniform(0.5, 2, spec.obs_dim))
    )
    conditioning = overrides.pop("conditioning", None)
    architecture: object
    if kind == "modt":
        fields = {"hidden_size": 32, "n_layer": 2, "n_head": 2, "inner_size": 64}
        architecture = TransformerArchitecture(**{**fields, "context_length": 3, **overrides})
    elif kind == "morvs":
        architecture = MORvSArchitecture(**{"hidden_sizes": (32, 32), **overrides})
    else:
        architecture = BCArchitecture(
            **{"hidden_sizes": (32, 32), "context_length": 4, **overrides}
        )
    corner = rng.uniform(100, 3000, size=(spec.n_obj, spec.n_obj))
    return create_agent(
        kind,
        env_id,
        architecture=architecture,  # type: ignore[arg-type]
        conditioning=conditioning,
        normalizer=normalizer,
        target_model=None if kind == "bc" else LinearTargetModel(corner.tolist()),
        seed=seed,
    )


def policy_set(env_id: str = CHEETAH, members: int = 5, seed: int = 0) -> PolicySetAgent:
    spec = get_spec(env_id)
    rng = np.random.default_rng(seed)
    preferences = rng.dirichlet(np.ones(spec.n_obj), size=members)
    return PolicySetAgent(
        env_id,
        preferences,
        rng.normal(0.0, 0.5, size=(members, spec.act_dim, spec.obs_dim)),
        rng.normal(0.0, 1.0, size=(members, spec.obs_dim)),
        rng.uniform(0.5, 2.0, size=(members, spec.obs_dim)),
        rng.uniform(0.0, 1000.0, size=(members, spec.n_obj)),
    )


# name -> (builder, env, steps, sizes)
AGENTS: dict[str, tuple[Callable[[], Agent], str, int, tuple[int, ...]]] = {
    "morvs-tiny": (lambda: tiny("morvs"), HOPPER, 3, ALL_SIZES),
    "bc-tiny": (lambda: tiny("bc"), HOPPER, 6, ALL_SIZES),
    "modt-tiny": (lambda: tiny("modt"), HOPPER, 5, ALL_SIZES),
    "modt-gelu-scalar-return": (
        lambda: tiny(
            "modt",
            CHEETAH,
            activation="gelu_new",
            n_head=1,
            conditioning=Conditioning(
                preference_in_state=True,
                preference_in_return=False,
                preference_in_action=True,
                vector_return=False,
            ),
        ),
        CHEETAH,
        4,
        ALL_SIZES,
    ),
    "morvs-default-3x512": (
        lambda: create_agent(
            "morvs", CHEETAH, target_model=published_target_model(CHEETAH), seed=0
        ),
        CHEETAH,
        3,
        ALL_SIZES,
    ),
    "policy_set": (policy_set, CHEETAH, 3, ALL_SIZES),
    "policy_set-hopper": (lambda: policy_set(HOPPER, members=7, seed=1), HOPPER, 3, ALL_SIZES),
}
for _name in sorted(path.name for path in ASSETS.iterdir() if (path / "config.json").is_file()):
    _env = json.loads((ASSETS / _name / "config.json").read_text())["env_id"]
    AGENTS[f"bundled-{_name}"] = (
        lambda path=ASSETS / _name: load(path),
        _env,
        4,
        FEW_SIZES,
    )


def peda_fixture(env: str, peda_type: str) -> Agent:
    if not PEDA_FIXTURES.is_dir():
        pytest.skip(f"PEDA fixtures missing at {PEDA_FIXTURES}")
    golden = json.loads((PEDA_FIXTURES / "golden.json").read_text())
    return import_peda(PEDA_FIXTURES / golden["models"][f"{env}/{peda_type}"]["checkpoint"], env,
                       peda_type)  # fmt: skip


for _env in (CHEETAH, HOPPER):
    for _type in ("dt", "rvs", "bc"):
        AGENTS[f"peda-{_type}-{_env}"] = (
            lambda env=_env, peda_type=_type: peda_fixture(env, peda_type),
            _env,
            7 if _type == "dt" else 3,  # longer than the DT's context of 5
            FEW_SIZES,
        )


def check(
    agent: Agent, env_id: str, steps: int, sizes: tuple[int, ...], threads, rows: int = 70
) -> None:
    pool = episode_pool(env_id, rows=rows, steps=steps, seed=3)
    threads(1)
    reference = run_rows(agent, pool, np.arange(pool.rows))
    problems = initial_target_failures(agent, pool)[:3]
    for count in (1, 2):
        threads(count)
        failures = invariance_failures(agent, pool, sizes, seed=count, reference=reference)
        problems += [f"on {count} torch thread(s): {failure}" for failure in failures[:3]]
    assert problems == []


@pytest.mark.parametrize("name", sorted(AGENTS))
def test_rows_are_bit_identical_in_any_batch(name: str, torch_threads) -> None:
    build, env_id, steps, sizes = AGENTS[name]
    check(build(), env_id, steps, sizes, torch_threads)


def peda_default_size(tmp_path: Path, env: str, peda_type: str) -> Agent:
    """PEDA's published sizes (hidden 512, a 3-layer DT with 2048 inner), random weights."""
    from tests.test_peda_import import random_state_dict_from_manifest, write_ckpt

    if not PEDA_FIXTURES.is_dir():
        pytest.skip(f"PEDA fixtures missing at {PEDA_FIXTURES}")
    manifest = json.loads((PEDA_FIXTURES / "manifest-default-sizes.json").read_text())
    state = random_state_dict_from_manifest(
        manifest["models"][f"{env}/{peda_type}"]["state_dict"], 0
    )
    path = write_ckpt(tmp_path / "ckpt" / "step=1.ckpt", state)
    return import_peda(path, env, peda_type)


@pytest.mark.parametrize("peda_type", ["dt", "rvs", "bc"])
def test_peda_default_sizes_are_bit_identical_in_any_batch(
    peda_type: str, tmp_path: Path, torch_threads
) -> None:
    agent = peda_default_size(tmp_path, CHEETAH, peda_type)
    if peda_type == "dt":
        # The 3 x 512 DT with 2048 inner units is slow on a small machine: fewer, smaller
        # batches (24 rows are still 360 tokens, six 64-row chunks).
        check(agent, CHEETAH, 6, (1, 2, 5, 17, 24), torch_threads, rows=24)
    else:
        check(agent, CHEETAH, 3, FEW_SIZES, torch_threads)


# --- end to end: a sweep stores the same episodes whatever its batch size, and replays ----------


def sweep_agents() -> dict[str, Agent]:
    return {
        "morvs": tiny("morvs"),
        "bc": tiny("bc"),
        "modt": tiny("modt"),
        "policy_set": policy_set(HOPPER, members=4),
    }


@pytest.mark.parametrize("kind", ["morvs", "bc", "modt", "policy_set"])
def test_sweep_stores_the_same_returns_at_any_batch_size_and_replays(
    kind: str, tmp_path: Path
) -> None:
    from paretoscope.evaluate import objective_columns, sweep
    from paretoscope.metrics import preference_grid
    from paretoscope.results_store import KEY_COLUMN, ResultsStore
    from paretoscope.rollout import rollout_batch, stream_rollout
    from paretoscope.settings import SweepSettings

    agent = sweep_agents()[kind]
    spec = get_spec(HOPPER)
    preferences = preference_grid(spec.n_obj, 5)  # 21 preferences x 4 seeds: batches of 64 + 20
    settings = SweepSettings(preferences=preferences, seeds=[0, 1, 2, 3], horizon=20, workers=1)
    batched_store, single_store = ResultsStore(tmp_path / "b64"), ResultsStore(tmp_path / "b1")
    batched = sweep(
        agent, HOPPER, replace(settings, batch_size=64), store=batched_store, progress=False
    )
    single = sweep(
        agent, HOPPER, replace(settings, batch_size=1), store=single_store, progress=False
    )
    returns = objective_columns("return", spec)
    assert len(batched) == len(single) == 84
    assert list(batched[KEY_COLUMN]) == list(single[KEY_COLUMN])
    assert np.array_equal(batched[returns].to_numpy(), single[returns].to_numpy())
    assert np.array_equal(batched["length"].to_numpy(), single["length"].to_numpy())
    # What the stores hold is what the sweeps returned, bit for bit.
    for store in (batched_store, single_store):
        stored = store.read(HOPPER).set_index(KEY_COLUMN).loc[batched[KEY_COLUMN]]
        assert np.array_equal(stored[returns].to_numpy(), batched[returns].to_numpy())

    # A clicked point: one episode alone, streamed or as a batch of one, gives the stored row.
    for index in (0, 37, 83):
        row = batched.iloc[index]
        preference = row[objective_columns("preference", spec)].to_numpy(dtype=np.float64)
        seed, expected = int(row["seed"]), row[returns].to_numpy(dtype=np.float64)
        records = list(stream_rollout(agent, HOPPER, preference, seed, horizon=20))
        assert np.array_equal(records[-1].cumulative_return, expected)
        assert len(records) == int(row["length"])
        alone = rollout_batch(agent, HOPPER, preference[None], [seed], horizon=20)
        assert np.array_equal(alone.returns[0], expected)
