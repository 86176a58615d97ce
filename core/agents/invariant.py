"""Batch-invariant matrix products: row i of a product is bit-identical whatever else is batched.

Why: a float32 GEMM sums each dot product in an order its BLAS chooses from the shapes (gemv
for one row, other kernels and blockings for a few rows, other thread splits for other sizes,
and, with an [in, out] weight and a narrow output, even a row's position in a register tile),
and float addition is not associative. So one episode acted differently alone (a dashboard
replay) than inside a sweep batch of 64.

How: every product is computed in chunks of exactly `CHUNK_ROWS` rows, the last one padded
with zeros, always with the weight as [out, in] (nn.Linear's layout; [in, out] weights are
transposed once and cached). Each GEMM call therefore has the same shape and layout whatever
the batch, so BLAS takes the same kernel, blocking and thread split for it; and inside such a
call a row's sums do not depend on its position or on the other rows. That last part is how
MKL's kernels behave, not something BLAS promises: tests/test_batch_invariance.py checks it
bit for bit on 1 and 2 torch threads for every layer shape of every agent kind (and it held
on 16 threads and up to 21 chunks when probed), so a BLAS that broke it would fail there.
The chunks go to BLAS as one batched GEMM. 16-row chunks cost nothing at the sweeps' batches
of 64 (the same time per step as one 64-row GEMM, benchmarks here), while a single episode (a
replay, the live view) pays for 16 rows, not 64: 0.4 ms per step for the default 3 x 512 MLP
on one core, against 1.1 ms with 64-row chunks.

Attention's two products per (batch row, head) are products of two activations, small next
to the linear layers: they are computed exactly, as a float64 GEMM of integers (`matmul`),
so no kernel choice can reach them.

Everything else the networks do is row-wise already: elementwise ops, LayerNorm and softmax
(one row at a time), embeddings and concatenations. The exception is the tanh-approximated GELU,
whose vectorised and scalar-tail code differ, so `gelu_new` spells out GPT-2's formula.

The networks use this whenever autograd is not recording (`torch.no_grad`, inference mode:
every `act`); training keeps the ordinary kernels.
"""

from __future__ import annotations

import hashlib
import json
import math
import weakref
from collections.abc import Mapping
from typing import Any

import torch

# Bumped whenever the arithmetic changes the actions, so stored episodes of the old arithmetic
# stop matching the agent's fingerprint instead of failing to replay.
ARITHMETIC_VERSION = "float32-chunks-16-v1"

CHUNK_ROWS = 16


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


def _pad_rows(flat: torch.Tensor, multiple: int) -> torch.Tensor:
    """`flat` (M, ...) with zero rows appended up to a multiple of `multiple` rows."""
    missing = -flat.shape[0] % multiple
    if missing == 0:
        return flat.contiguous()
    return torch.cat((flat, flat.new_zeros((missing, *flat.shape[1:]))))


def linear(
    x: torch.Tensor, weight: torch.Tensor, bias: torch.Tensor | None, out_by_in: bool = True
) -> torch.Tensor:
    """x @ W^T + b (`out_by_in`: nn.Linear's [out, in] weight) or x @ W + b ([in, out]),
    each output row depending on its own input row only, bit for bit."""
    rows_by_in = weight if out_by_in else _transposed(weight)
    outputs, inputs = rows_by_in.shape
    flat = x.reshape(-1, inputs)
    count = flat.shape[0]
    chunks = _pad_rows(flat, CHUNK_ROWS).view(-1, CHUNK_ROWS, inputs)
    right = rows_by_in.t().expand(chunks.shape[0], inputs, outputs)
    out = torch.bmm(chunks, right) if bias is None else torch.baddbmm(bias, chunks, right)
    return out.view(-1, outputs)[:count].reshape(*x.shape[:-1], outputs)


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a (..., M, K) @ b (..., K, N) for two activations (attention), each entry depending on
    its own row of a and column of b only, bit for bit.

    Computed exactly: each row of a and each column of b is scaled so that its largest
    magnitude becomes 2^bits and rounded to integers, with bits chosen so that every sum of
    K products stays below 2^53; the float64 GEMM of those integers is then exact, whatever
    its kernel or the number of matrices in the batch. Attention's products are small next
    to the linear layers, so the float64 GEMM costs little.
    """
    inner = a.shape[-1]
    bits = min(23, (53 - math.ceil(math.log2(max(inner, 2)))) // 2)
    left, left_scale = _integers(a, bits)
    right, right_scale = _integers(b.transpose(-1, -2), bits)
    total = torch.matmul(left, right.transpose(-1, -2))
    return ((total * left_scale) * right_scale.transpose(-1, -2)).to(torch.float32)


def _integers(x: torch.Tensor, bits: int) -> tuple[torch.Tensor, torch.Tensor]:
    """The rows of x (..., M, K) as float64 integers with each row's largest magnitude at
    2^bits, and the row scales (..., M, 1) float32 with x ~= integers * scale.

    A row with a NaN or an infinity gets a non-finite scale, which carries into its outputs
    (its integers are zeros where x was not finite); an all-zero row gets scale 0.
    """
    x = x.to(torch.float32)
    peak = x.abs().amax(dim=-1, keepdim=True)
    scale = peak * (1.0 / float(1 << bits))  # exact: a power of two
    # x / scale = 2^bits x / peak, one rounding; 0/0 and x/inf (NaN) become 0.
    scaled = torch.nan_to_num_(x / scale, 0.0, 0.0, 0.0).round_()
    return scaled.to(torch.float64), scale


class _Cached:
    """A weight's [out, in] copy, for one version of its data."""

    def __init__(self, weight: torch.Tensor) -> None:
        self.key = _version_key(weight)
        # A plain tensor even inside inference mode: the cache outlives the call.
        with torch.inference_mode(False), torch.no_grad():
            self.transposed = weight.detach().t().contiguous()


def _version_key(weight: torch.Tensor) -> tuple[object, ...]:
    # _version moves on every in-place change (optimiser step, load_state_dict, copy_);
    # data_ptr and device on `.to(...)`.
    return (weight._version, weight.data_ptr(), weight.device, weight.dtype)


_TRANSPOSED: dict[int, tuple[weakref.ref[torch.Tensor], _Cached]] = {}


def _transposed(weight: torch.Tensor) -> torch.Tensor:
    """weight^T as a contiguous [out, in] tensor, cached per version of the weight (outside
    the module, so it neither pickles nor goes stale)."""
    if weight.is_inference():
        return weight.t().contiguous()  # no version counter to key a cache on
    key = id(weight)
    entry = _TRANSPOSED.get(key)
    if entry is not None and entry[0]() is weight and entry[1].key == _version_key(weight):
        return entry[1].transposed
    cached = _Cached(weight)
    _TRANSPOSED[key] = (weakref.ref(weight, lambda _: _TRANSPOSED.pop(key, None)), cached)
    return cached.transposed


_GELU_SCALE = math.sqrt(2.0 / math.pi)


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's tanh GELU as separate elementwise ops (torch's fused kernel computes the tail of
    a tensor with other code than its vectorised body, so a value's result depends on where it
    sits). Each op here gives a value's result from that value alone."""
    inner = x + 0.044715 * (x * x * x)
    return 0.5 * x * (1.0 + torch.tanh(_GELU_SCALE * inner))
