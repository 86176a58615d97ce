"""The demo's MORL-Baselines step: its clear error without the library (the tests' usual case)
and, where the build-time extra is installed (`pip install -e ".[demo]"`), a real training."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import numpy as np
import pytest

from paretoscope.agents.importers import import_agent
from paretoscope.demo import morlb_training
from paretoscope.errors import ParetoscopeError

DST = "deep-sea-treasure-v0"
HAVE_MORL_BASELINES = importlib.util.find_spec("morl_baselines") is not None


def _train(folder: Path, algorithm: str = "envelope") -> Path:
    return morlb_training.train_with_morl_baselines(
        algorithm,
        DST,
        folder,
        timesteps=300,
        seed=3,
        episode_limit=50,
        options={"net_arch": [16, 16], "batch_size": 16, "learning_starts": 50},
        train_options={"eval_freq": 10**9},
        reference_point=(0.0, -25.0),
        known_front=None,
        progress=False,
    )


@pytest.mark.skipif(HAVE_MORL_BASELINES, reason="checks the message shown without the library")
def test_without_the_library_the_step_names_the_install_line(tmp_path: Path) -> None:
    with pytest.raises(ParetoscopeError, match=r'pip install -e "\.\[demo\]"'):
        _train(tmp_path / "x")
    assert not (tmp_path / "x").exists()  # nothing written


def test_an_unknown_algorithm_is_refused_naming_the_known_ones() -> None:
    with pytest.raises(ParetoscopeError, match="gpi-ls, capql, envelope"):
        morlb_training.saved_file_name("pgmorl")


@pytest.mark.skipif(not HAVE_MORL_BASELINES, reason="MORL-Baselines is a build-time extra")
def test_a_seeded_training_saves_the_same_file_and_imports(tmp_path: Path) -> None:
    import torch

    first, second = _train(tmp_path / "a"), _train(tmp_path / "b")
    assert first.name == "Envelope.tar"
    weights = [torch.load(path, weights_only=False)["q_net_state_dict"] for path in (first, second)]
    for name, tensor in weights[0].items():
        assert torch.equal(tensor, weights[1][name]), name
    agent = import_agent(first, env_id=DST, kind=morlb_training.import_kind("envelope"))
    agent.reset(1)
    action = agent.act(np.zeros((1, 2)), np.array([[0.5, 0.5]]), np.zeros((1, 2)))
    assert action.shape == (1,)
    assert (tmp_path / "a" / morlb_training.TRAINING_LOG).is_file()  # the library's prints
