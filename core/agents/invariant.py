"""Agent arithmetic that gives the same bits whatever the batch, the threads or the CPU.

Why: a float32 GEMM sums each dot product in an order its BLAS chooses from the shapes, the
thread count and the CPU (gemv for one row, other blockings for a few rows, AVX2 or AVX-512
kernels, a split of the inner sums over two threads), and float addition is not associative.
So one episode acted differently alone (a dashboard replay) than inside a sweep batch of 64,
and a sweep stored on one machine did not replay on another.

How: every product is computed exactly. Each row of the left operand and each row of the
[out, in] weight is scaled by a power of two so that its largest magnitude becomes 2^bits and
rounded to integers, with bits chosen so that every sum of `in` products stays below 2^53; the
float64 GEMM of those integers is then exact, whatever its kernel, blocking, thread split or
batch, and the result is scaled back and rounded once to float32. The rounding to integers
keeps 21 bits of each operand's row for 2048-long sums and 24 for short ones: about float32's
own accuracy (the imported PEDA and MORL-Baselines checkpoints act as in their own code, to
their golden tests' tolerances). Weights are quantized once per version and cached.

Everything else an agent computes in its networks goes through `paretoscope.agents.portable_math`
(tanh, GELU, softmax, LayerNorm, ...), which uses only operations IEEE defines to the bit.
`tests/test_batch_invariance.py` checks rows bit for bit in every batch on 1 and 2 threads;
`tests/test_portable_math.py` checks the actions bit for bit under every vector instruction
set torch and MKL can be told to use on the machine running the tests.

The networks use this whenever autograd is not recording (`torch.no_grad`, inference mode:
every `act`); training keeps the ordinary kernels.
"""

from __future__ import annotations

import hashlib
import json
import math
import weakref
from collections.abc import Mapping
from typing import Any, NamedTuple

import numpy as np
import torch

from paretoscope.agents.arithmetic import ARITHMETIC_VERSION


def fingerprint(
    config: dict[str, Any], spec: Mapping[str, Any], tensors: Mapping[str, torch.Tensor]
) -> str:
    """A digest of what decides an agent's actions: its config (provenance under ``training``
    left out), its spec, this arithmetic and its weights, tensor by tensor in name order.

    The same weights act differently under other arithmetic: episodes stored before it changed
    must not be served (or replayed) as this agent's, so the version is part of the digest.
    """
    record = {key: value for key, value in config.items() if key != "training"}
    record["spec"] = dict(spec)
    record["arithmetic"] = ARITHMETIC_VERSION
    digest = hashlib.sha256(json.dumps(record, sort_keys=True).encode("utf-8"))
    for name in sorted(tensors):
        digest.update(name.encode("utf-8"))
        digest.update(tensors[name].numpy().tobytes())
    return digest.hexdigest()[:32]


def enabled() -> bool:
    """Whether the networks should compute batch-invariantly now (autograd not recording)."""
    return not torch.is_grad_enabled()


def linear(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, out_by_in: bool = True
) -> torch.Tensor:
    """x @ W^T + b (`out_by_in`: nn.Linear's [out, in] weight) or x @ W + b ([in, out]),
    computed exactly on integers and rounded once to float32."""
    quantized = _quantized(weight, out_by_in)
    outputs, inputs = quantized.integers.shape
    left, left_scale = _integers(_float32(x).reshape(-1, inputs), _bits(inputs))
    out = _product(left, quantized.integers.T)
    out *= left_scale
    out *= quantized.scale.T
    if bias is not None:
        out += _float32(bias)
    return _back(out.reshape(*x.shape[:-1], outputs), x)


def _bits(inner: int) -> int:
    """Bits per operand so that `inner` products of two such integers sum below 2^53."""
    return min(23, (53 - math.ceil(math.log2(max(inner, 2)))) // 2)


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a (..., M, K) @ b (..., K, N) for two activations (attention), each entry depending on
    its own row of a and column of b only, bit for bit.

    Computed exactly as `linear` is: each row of a and each column of b is scaled so that its
    largest magnitude becomes 2^bits and rounded to integers, and the float64 GEMM of those
    integers is exact, whatever its kernel or the number of matrices in the batch.
    """
    bits = _bits(a.shape[-1])
    left, left_scale = _integers(_float32(a), bits)
    right, right_scale = _integers(np.swapaxes(_float32(b), -1, -2), bits)
    out = _product(left, np.swapaxes(right, -1, -2))
    out *= left_scale
    out *= np.swapaxes(right_scale, -1, -2)
    return _back(out, a)


def _float32(x: torch.Tensor) -> np.ndarray:
    """x's values as a float32 numpy array (a view where x is a float32 CPU tensor)."""
    x = x.detach()
    if x.dtype != torch.float32 or x.device.type != "cpu":  # rare: a conversion costs more
        x = x.to(device="cpu", dtype=torch.float32)
    return x.numpy()


def _back(values: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    """float64 `values` rounded once to a float32 tensor on `like`'s device."""
    out = torch.from_numpy(values.astype(np.float32))
    return out if like.device.type == "cpu" else out.to(like.device)


def _product(left: np.ndarray, right: np.ndarray) -> np.ndarray:
    """left @ right of float64 integers (exact), by torch's GEMM: it keeps to the thread count
    set with torch.set_num_threads, as the sweeps' workers need."""
    return torch.matmul(torch.from_numpy(left), torch.from_numpy(right)).numpy()


def _integers(x: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """The rows of x (..., M, K), float32, as float64 integers with each row's largest
    magnitude at 2^bits, and the row scales (..., M, 1) float32 with x ~= integers * scale.

    A row with a NaN or an infinity gets a non-finite scale, which carries into its outputs
    (its integers are zeros where x was not finite); an all-zero row gets scale 0.
    """
    peak = np.abs(x).max(axis=-1, keepdims=True)
    scale = peak * np.float32(1.0 / float(1 << bits))  # exact: a power of two
    # x / scale = 2^bits x / peak, one rounding; 0/0 and x/inf (NaN) become 0.
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = x / scale
    scaled[~np.isfinite(scaled)] = 0.0
    np.rint(scaled, out=scaled)
    return scaled.astype(np.float64), scale


class _Quantized:
    """A weight's [out, in] rows as integers and row scales (`_integers`)."""

    def __init__(self, weight: torch.Tensor, out_by_in: bool) -> None:
        rows = _float32(weight if out_by_in else weight.t())
        # Contiguous: the integers are the right operand of every product.
        self.integers, self.scale = _integers(np.ascontiguousarray(rows), _bits(rows.shape[1]))


def _version_key(weight: torch.Tensor) -> tuple[object, ...]:
    # _version moves on every in-place change (optimiser step, load_state_dict, copy_);
    # data_ptr and device on `.to(...)`.
    return (weight._version, weight.data_ptr(), weight.device, weight.dtype)


class _Entry(NamedTuple):
    owner: weakref.ref[torch.Tensor]
    version: tuple[object, ...]
    quantized: _Quantized


_QUANTIZED: dict[tuple[int, bool], _Entry] = {}


def _quantized(weight: torch.Tensor, out_by_in: bool) -> _Quantized:
    """The weight's quantized rows, cached per version of the weight (outside the module, so
    the cache neither pickles nor goes stale)."""
    if weight.is_inference():
        return _Quantized(weight, out_by_in)  # no version counter to key a cache on
    key = (id(weight), out_by_in)
    version = _version_key(weight)
    entry = _QUANTIZED.get(key)
    if entry is not None and entry.owner() is weight and entry.version == version:
        return entry.quantized
    quantized = _Quantized(weight, out_by_in)
    owner = weakref.ref(weight, lambda _: _QUANTIZED.pop(key, None))
    _QUANTIZED[key] = _Entry(owner, version, quantized)
    return quantized
