"""The fingerprint test (issue 50): everything that changes an episode is part of its key.

An imported agent's importer options and kind decide how it acts, so they change its
fingerprint and so every episode key; `paretoscope evaluate` passes them to the importer (it
once ignored them and served the rows of other options); an option that cannot apply is
refused, never ignored.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pandas as pd
import pytest

from paretoscope.agents.importers import import_agent
from paretoscope.cli import main
from paretoscope.errors import ParetoscopeError
from paretoscope.evaluate import agent_fingerprint
from paretoscope.results_store import episode_key

FIXTURES = Path(__file__).parent / "fixtures"
GPI_LS = FIXTURES / "morl-baselines/gpi-ls/minecart-v0/GPI-LS.tar"
MORLD = FIXTURES / "morl-baselines/morld/mo-halfcheetah-v5/morld_save.tar"
PCN = FIXTURES / "morl-baselines/pcn/deep-sea-treasure-v0/PCN_model.pt"
PEDA_RVS = FIXTURES / "peda/ckpts/MO-Hopper-v3/rvs/step=1.ckpt"

# Each file with option sets that differ in one importer option at a time.
OPTION_VARIANTS: dict[str, tuple[Path, bool, list[Mapping[str, str]]]] = {
    "gpi-ls use_gpi": (GPI_LS, False, [{"use_gpi": "true"}, {"use_gpi": "false"}]),
    "morld members": (
        MORLD,
        False,
        [{"members": "archive"}, {"members": "population"}, {"members": "all"}],
    ),
    "morld sample": (MORLD, False, [{"sample": "false"}, {"sample": "true"}]),
    "pcn horizon": (PCN, True, [{"horizon": "2"}, {"horizon": "3"}]),
}


def _key(fingerprint: str, env_id: str, n_obj: int) -> str:
    return episode_key(fingerprint, env_id, [1.0 / n_obj] * n_obj, None, seed=0, horizon=10)


@pytest.mark.parametrize("name", OPTION_VARIANTS)
def test_each_import_option_changes_the_fingerprint_and_the_key(name: str) -> None:
    path, trust, variants = OPTION_VARIANTS[name]
    agents = [import_agent(path, trust=trust, options=options) for options in variants]
    fingerprints = [agent_fingerprint(agent) for agent in agents]
    assert len(set(fingerprints)) == len(variants), fingerprints
    spec = agents[0].spec
    keys = {_key(fingerprint, spec.env_id, spec.n_obj) for fingerprint in fingerprints}
    assert len(keys) == len(variants)


def test_the_kind_is_part_of_the_fingerprint() -> None:
    """Two agents with the same weights and config but another kind act differently: the
    kind (in the spec the fingerprint digests) tells them apart."""
    from dataclasses import replace

    agent = import_agent(GPI_LS)
    before = agent_fingerprint(agent)
    agent.spec = replace(agent.spec, kind="morlb_envelope")
    assert agent_fingerprint(agent) != before


def test_a_kind_the_file_contradicts_is_refused() -> None:
    with pytest.raises(ParetoscopeError, match=r"holds a 'rvs' model"):
        import_agent(PEDA_RVS, "MO-Hopper-v3", kind="bc")


def _store_rows(store: Path) -> pd.DataFrame:
    shards = sorted(store.rglob("*.parquet"))
    return pd.concat([pd.read_parquet(shard) for shard in shards], ignore_index=True)


def test_evaluate_never_serves_rows_stored_for_other_import_options(tmp_path: Path) -> None:
    """Two real `evaluate` runs into one store, with use_gpi true then false: the second
    computes its own episodes (new rows under another fingerprint), and a third run with
    use_gpi true again is served from the store (no new rows)."""
    store = tmp_path / "results"

    def evaluate(use_gpi: str) -> None:
        argv = [
            "evaluate",
            str(GPI_LS),
            "--env",
            "minecart-v0",
            "--granularity",
            "2",
            "--horizon",
            "20",
            "--workers",
            "1",
            "--out",
            str(store),
            "--set",
            f"use_gpi={use_gpi}",
            "--json",
        ]
        assert main(argv) == 0

    evaluate("true")
    first = _store_rows(store)
    evaluate("false")
    both = _store_rows(store)
    assert len(both) == 2 * len(first)
    assert both["agent_fingerprint"].nunique() == 2
    assert set(first["episode_key"]).isdisjoint(
        set(both["episode_key"]) - set(first["episode_key"])
    )
    evaluate("true")
    assert len(_store_rows(store)) == len(both)


@pytest.mark.parametrize(
    ("options", "message"),
    [
        (["--type", "bc"], r"--kind bc: .*holds a 'rvs' model"),
        (["--device", "bogus:7"], r"device: 'bogus:7' is not a torch device"),
        (["--device", "meta"], r"device: 'meta' cannot apply to .*acts on the CPU only"),
    ],
)
def test_evaluate_refuses_an_option_that_cannot_apply(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], options: list[str], message: str
) -> None:
    argv = ["evaluate", str(PEDA_RVS), "--env", "MO-Hopper-v3", "--out", str(tmp_path), *options]
    assert main(argv) == 2
    assert re.search(message, capsys.readouterr().err)
    assert not list(tmp_path.rglob("*.parquet"))


def test_builtin_agents_refuse_import_answers(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["evaluate", "random", "--env", "deep-sea-treasure-v0", "--out", str(tmp_path)]
    assert main([*argv, "--set", "use_gpi=false"]) == 2
    assert "use_gpi=false answer an importer's questions" in capsys.readouterr().err
