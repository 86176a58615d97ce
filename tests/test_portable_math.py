"""The agents act bit for bit the same whatever vector code torch and MKL pick for this CPU, and
`paretoscope.agents.portable_math` computes what torch computes (to float32's last bit against
float64
references, with NaN, infinities and signed zeros where torch has them).

Independent truth: float64 references (numpy, or torch in float64) rounded once to float32;
`math.fsum` for sums; the same agents run in subprocesses told to use other instruction sets
(``ATEN_CPU_CAPABILITY`` for torch's own kernels, ``MKL_ENABLE_INSTRUCTIONS`` for MKL's BLAS and
vector maths), where torch's own tanh, exp and softmax come out with other last bits.
"""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys

import numpy as np
import pytest
import torch

from paretoscope.agents import invariant, portable_math
from tests.conftest import REPO_DIR

VALUES = torch.cat(
    (
        torch.linspace(-30.0, 30.0, 60_001),
        torch.tensor([0.0, -0.0, 1e-30, -1e-8, 3e-4, 88.0, 89.0, -104.0, -110.0]),
    )
)


def float32_ulps(ours: torch.Tensor, reference: np.ndarray) -> int:
    """Largest distance in float32 steps between `ours` and the float64 `reference` rounded to
    float32 (both finite and of one sign wherever compared)."""
    expected = torch.from_numpy(reference).to(torch.float32)
    assert torch.equal(ours.isnan(), expected.isnan())
    finite = ours.isfinite() & expected.isfinite()
    assert torch.equal(ours[~finite & ~ours.isnan()], expected[~finite & ~expected.isnan()])
    a = ours[finite].view(torch.int32).to(torch.int64)
    b = expected[finite].view(torch.int32).to(torch.int64)
    return int((a - b).abs().max())


@pytest.mark.parametrize(
    ("ours", "reference"),
    [
        (lambda x: portable_math.exp(x).to(torch.float32), np.exp),
        (lambda x: portable_math.expm1(x).to(torch.float32), np.expm1),
        (portable_math.tanh, np.tanh),
        (portable_math.sigmoid, lambda x: 1.0 / (1.0 + np.exp(-x))),
    ],
    ids=["exp", "expm1", "tanh", "sigmoid"],
)
def test_elementwise_functions_round_like_float64_references(ours, reference) -> None:
    with np.errstate(over="ignore"):
        assert float32_ulps(ours(VALUES), reference(VALUES.double().numpy())) <= 1


def test_log_rounds_like_numpy_and_keeps_its_special_values() -> None:
    positive = torch.logspace(-44, 38, 50_001).to(torch.float32)
    positive = positive[positive > 0]
    ours = portable_math.log(positive).to(torch.float32)
    assert float32_ulps(ours, np.log(positive.double().numpy())) <= 1
    special = portable_math.log(torch.tensor([0.0, -1.0, math.nan, math.inf, 1.0]))
    assert special[0] == -math.inf and special[1].isnan() and special[2].isnan()
    assert special[3] == math.inf and special[4] == 0.0


def test_special_values_follow_torch() -> None:
    special = torch.tensor([math.nan, math.inf, -math.inf, 0.0, -0.0])
    for ours, theirs in ((portable_math.tanh, torch.tanh), (portable_math.sigmoid, torch.sigmoid)):
        result, expected = ours(special), theirs(special)
        assert torch.equal(result.isnan(), expected.isnan())
        assert torch.equal(torch.nan_to_num(result), torch.nan_to_num(expected))
        assert torch.equal(result.signbit(), expected.signbit())


def test_rsqrt_is_accurate_to_float64_rounding() -> None:
    values = torch.logspace(-12, 12, 20_001, dtype=torch.float64)
    relative = (portable_math.rsqrt(values) * values.sqrt() - 1.0).abs()
    assert float(relative.max()) < 4e-16


def test_row_sums_are_exact_to_the_rows_resolution_and_ignore_the_order() -> None:
    rng = np.random.default_rng(0)
    # Wide dynamic range and cancellation: the hard cases for a float sum.
    rows = rng.normal(size=(50, 777)) * np.exp(rng.uniform(-20, 20, size=(50, 777)))
    rows = torch.from_numpy(rows.astype(np.float32))
    sums = portable_math.row_sum(rows)
    shuffled = portable_math.row_sum(rows[:, torch.from_numpy(rng.permutation(777))])
    assert torch.equal(sums, shuffled)
    for row, total in zip(rows.double().numpy(), sums.numpy(), strict=True):
        exact = math.fsum(row)
        # Each term rounded to 2^-(52 - 10) of the row's peak: at most 777 half-steps off.
        assert abs(total - exact) <= 777 * 2.0 ** -(52 - 10) * np.abs(row).max()
    with_nan = rows.clone()
    with_nan[0, 3] = math.nan
    with_nan[1, 5] = math.inf
    special = portable_math.row_sum(with_nan)
    assert special[0].isnan() and special[1] == math.inf
    assert torch.equal(special[2:], sums[2:])


def test_row_functions_round_like_float64_torch() -> None:
    rng = np.random.default_rng(1)
    x = torch.from_numpy(rng.normal(0, 3, size=(64, 512)).astype(np.float32))
    weight = torch.from_numpy(rng.normal(size=512).astype(np.float32))
    bias = torch.from_numpy(rng.normal(size=512).astype(np.float32))
    wide = x.double()
    cases = [
        (portable_math.softmax(x), torch.softmax(wide, dim=-1)),
        (portable_math.log_softmax(x), torch.log_softmax(wide, dim=-1)),
        (
            portable_math.layer_norm(x, weight, bias, 1e-5),
            torch.nn.functional.layer_norm(wide, (512,), weight.double(), bias.double(), 1e-5),
        ),
    ]
    for ours, reference in cases:
        assert float32_ulps(ours, reference.numpy()) <= 1
    # GELU far below 0 is 1 + tanh(...) ~ 1e-16 cancelling: equal to 1e-12 there, not in ulps.
    gelu, reference = portable_math.gelu_new(x), torch.nn.functional.gelu(wide, approximate="tanh")
    torch.testing.assert_close(gelu, reference.to(torch.float32), rtol=2.0**-23, atol=1e-12)


def test_linear_layers_are_exact_integer_products_close_to_float64() -> None:
    rng = np.random.default_rng(2)
    for inputs in (3, 17, 512, 2048):
        x = torch.from_numpy(rng.normal(size=(9, inputs)).astype(np.float32))
        weight = torch.from_numpy(rng.normal(0, 0.05, size=(31, inputs)).astype(np.float32))
        bias = torch.from_numpy(rng.normal(size=31).astype(np.float32))
        with torch.no_grad():
            ours = invariant.linear(x, weight, bias)
            transposed = invariant.linear(x, weight.t().contiguous(), bias, out_by_in=False)
        reference = x.double() @ weight.double().t() + bias.double()
        # Each operand keeps 21-24 bits of its row's peak: within a few float32 roundings.
        scale = x.double().abs().max(dim=1, keepdim=True).values * weight.double().abs().sum(1)
        assert bool(((ours.double() - reference).abs() <= 2.0**-20 * scale + 1e-6).all())
        assert torch.equal(ours, transposed)
        for row in range(x.shape[0]):  # the same bits alone as in the batch
            with torch.no_grad():
                assert torch.equal(invariant.linear(x[row : row + 1], weight, bias)[0], ours[row])
        with torch.inference_mode():  # weights made in inference mode have no version to cache
            made_there = weight.clone()
            assert torch.equal(invariant.linear(x, made_there, bias), ours)


def test_a_cached_weight_is_quantized_again_when_it_changes_in_place() -> None:
    layer = torch.nn.Linear(8, 4)
    x = torch.randn(3, 8)
    with torch.no_grad():
        before = invariant.linear(x, layer.weight, layer.bias)
        layer.weight.mul_(2.0)  # an optimiser step, load_state_dict, copy_: all in place
        after = invariant.linear(x, layer.weight, layer.bias)
        expected = x.double() @ layer.weight.double().t() + layer.bias.double()
    assert not torch.equal(before, after)
    torch.testing.assert_close(after.double(), expected, rtol=1e-5, atol=1e-6)


# Run in subprocesses: the settings are read once, when torch and MKL load.
SETTINGS = {
    "native": {},
    "torch default (no vectors), MKL SSE4.2": {
        "ATEN_CPU_CAPABILITY": "default",
        "MKL_ENABLE_INSTRUCTIONS": "SSE4_2",
    },
    "torch AVX2, MKL AVX2": {"ATEN_CPU_CAPABILITY": "avx2", "MKL_ENABLE_INSTRUCTIONS": "AVX2"},
    "native, two threads": {"PROBE_THREADS": "2"},
}


def probe(settings: dict[str, str]) -> dict:
    clean = {
        key: value
        for key, value in os.environ.items()
        if key not in ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "PROBE_THREADS")
    }
    done = subprocess.run(
        [sys.executable, "-m", "tests.portable_probe"],
        cwd=REPO_DIR,
        env={**clean, **settings},
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def test_agents_act_alike_whatever_vector_code_this_cpu_runs() -> None:
    results = {name: probe(settings) for name, settings in SETTINGS.items()}
    native = results["native"]["agents"]
    assert len(native) >= 19  # bundled, PEDA and MORL-Baselines agents
    for name, result in results.items():
        different = sorted(k for k, v in result["agents"].items() if native.get(k) != v)
        assert different == [], f"{name}: actions differ from the native run for {different}"
    controls = {result["control"] for result in results.values()}
    if len(controls) == 1:
        pytest.skip("torch's own kernels took one code path under every setting on this CPU")
