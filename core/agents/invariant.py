"""Batch-invariant matrix products: row i of a product is bit-identical whatever else is batched.

Why: a float32 GEMM sums each dot product in an order its BLAS chooses from the shapes (gemv
for one row, other kernels and blockings for a few rows, other thread splits, even a row's
position inside a register tile), and float addition is not associative. So one episode acted
differently alone (a dashboard replay) than inside a sweep batch of 64.

How: the products are computed exactly, in integers, where the order of a sum cannot matter.
1. Each row of the left operand is scaled so that its largest magnitude becomes 2^20, each
   column of a weight by a power of two that brings its largest magnitude below 2^20, and both
   are rounded to integers X (W). Elementwise, so the integers depend on that row (column).
2. X.W (below 2^53 for K <= 8192) is computed exactly by one of two backends, which therefore
   give the same bits whatever BLAS kernel, blocking, thread count or batch shape runs them:
   - int8 (the big products, on the CPU): with base-128 digits X = 2^14 d0 + 2^7 d1 + d2
     (|d| <= 64, so that sums of two digits fit int8 too), six int8 x int8 -> int32 GEMMs
     (`torch._int_mm`, VNNI on x86) give Karatsuba's six digit products, whose weighted sum
     is X.W, exactly in float64. An int8 GEMM is about eight times faster than a float32
     one here, which pays for the six;
   - float64 (small products, batched attention products, other devices, or where int8 GEMMs
     are missing or inexact): one float64 GEMM of the integers.
3. X.W times the row's and the column's scale, plus the bias, is rounded to float32. The inputs
   keep 20 bits below the largest magnitude of their row (column): a few float32 ulps.

A row (column) holding a NaN or an infinity gives non-finite outputs (the rollout stops such a
row as diverged). A weight's integers are computed once per version of its data and cached
outside the module, so they neither pickle nor go stale after an optimiser step or
`load_state_dict`.

Everything else the networks do is row-wise already: elementwise ops, LayerNorm and softmax
(one row at a time), embeddings and concatenations. The exception is the tanh-approximated GELU,
whose vectorised and scalar-tail code differ, so `gelu_new` spells out GPT-2's formula.

The networks use this whenever autograd is not recording (`torch.no_grad`, inference mode:
every `act`); training keeps the ordinary float32 kernels and their gradients.
"""

from __future__ import annotations

import functools
import math
import weakref
from dataclasses import dataclass
from typing import Literal

import torch

# Bumped whenever the arithmetic changes the actions, so stored episodes of the old arithmetic
# stop matching the agent's fingerprint instead of failing to replay.
ARITHMETIC_VERSION = "exact-int-v1"

Backend = Literal["int8", "float64"]

_FULL_SCALE = float(1 << 20)  # integer magnitudes up to 2^20 (+1)
# X.W and every partial sum of it stay below 2^53 (exact in float64) up to this K.
MAX_INNER = 7680
# Below this many multiply-adds (M K N), one float64 GEMM beats six int8 ones and their
# recombination; both give the same bits, so the choice is about speed only.
_INT8_MIN_WORK = 1 << 21
# X + _BIAS = sum (d_i + 64) 128^i with every d_i + 64 in [0, 128] (see `_digit_planes`).
_BIAS = 64 * (1 + 128 + 128 * 128)
_DIGIT_SHIFTS = (14, 7, 0)  # d0 (most significant), d1, d2
_DIGIT_MASKS = (0xFF, 0x7F, 0x7F)  # the top field may reach 128


def enabled() -> bool:
    """Whether the networks should compute batch-invariantly now (autograd not recording)."""
    return not torch.is_grad_enabled()


@dataclass(frozen=True)
class _Fixed:
    """One operand as integers along its inner dimension: x ~= integers * scale."""

    integers: torch.Tensor  # int32, |X| <= 2^20 + 1, (..., M, K)
    scale: torch.Tensor  # float32, (..., M, 1)


def _fixed_rows(x: torch.Tensor) -> _Fixed:
    """The rows of x (..., M, K) as integers, the largest magnitude of each row at 2^20.

    A row with a NaN or an infinity gets a non-finite scale, which carries into its outputs
    (its integers are zeros where x was not finite); an all-zero row gets scale 0.
    """
    if x.dtype != torch.float32:
        x = x.to(torch.float32)
    peak = x.abs().amax(dim=-1, keepdim=True)
    scale = peak * (1.0 / _FULL_SCALE)  # exact: a power of two
    # x / scale = 2^20 x / peak, one rounding; 0/0 and x/inf (NaN) become integer 0.
    scaled = torch.nan_to_num_(x / scale, 0.0, 0.0, 0.0)
    return _Fixed(scaled.round_().to(torch.int32), scale)


def _fixed_columns(columns: torch.Tensor) -> _Fixed:
    """Rows of W^T (N, K) as integers scaled by powers of two, so that multiplying by a
    column's scale is exact (computed once per weight, so the op count does not matter)."""
    columns = columns.to(torch.float32)
    peak = columns.abs().amax(dim=-1, keepdim=True)
    finite = torch.isfinite(peak)
    # peak < 2^e; e from the float's exponent field E: e = E - 126, at least -100 (zero rows).
    biased = torch.where(finite, peak, torch.zeros_like(peak)).view(torch.int32) >> 23
    biased = biased.clamp(min=26)
    up = ((273 - biased) << 23).view(torch.float32)  # 2^(20 - e), exact
    integers = torch.round(torch.where(finite, columns, torch.zeros_like(columns)) * up)
    scale = ((biased - 19) << 23).view(torch.float32)  # 2^(e - 20)
    scale = torch.where(finite, scale, torch.full_like(scale, math.nan))
    return _Fixed(integers.to(torch.int32), scale)


@functools.cache
def _digit_fields(device: torch.device) -> tuple[torch.Tensor, torch.Tensor]:
    shape = (3, 1, 1)
    shifts = torch.tensor(_DIGIT_SHIFTS, dtype=torch.int32, device=device).view(shape)
    masks = torch.tensor(_DIGIT_MASKS, dtype=torch.int32, device=device).view(shape)
    return shifts, masks


def _digit_planes(integers: torch.Tensor) -> torch.Tensor:
    """Integers (M, K) as the six int8 planes (6, M, K) of Karatsuba's products: d0, d1, d2,
    d0 + d1, d1 + d2, d0 + d2, where X = 2^14 d0 + 2^7 d1 + d2, d0 in [-64, 64] and d1, d2 in
    [-64, 63], so that every sum of two fits int8 as well."""
    shifts, masks = _digit_fields(integers.device)
    # |X| <= 2^20 + 1, so X + _BIAS >= 0 and its base-128 fields are the digits + 64.
    digits = (((integers + _BIAS).unsqueeze(0) >> shifts) & masks).sub_(64).to(torch.int8)
    pairs = digits[:2] + digits[1:]  # d0 + d1, d1 + d2
    return torch.cat((digits, pairs, (digits[0] + digits[2]).unsqueeze(0)))


# X.W = sum_p _KARATSUBA[p] P_p over the six products of the planes above, P_p = planes_p of
# X times planes_p of W; every |weight * product| is below 1.04 K 2^40, so any partial sum of
# the six is an integer below 2^53 up to MAX_INNER: exact in float64, in any BLAS order.
_B = 128.0
_KARATSUBA = (
    _B**4 - _B**3 - _B**2,
    -(_B**3) + _B**2 - _B,
    -(_B**2) - _B + 1.0,
    _B**3,
    _B,
    _B**2,
)


@functools.cache
def _karatsuba_weights(device: torch.device) -> torch.Tensor:
    return torch.tensor(_KARATSUBA, dtype=torch.float64, device=device)


def _int8_total(planes: torch.Tensor, weight: _Weight) -> torch.Tensor:
    """X.W (M, N) float64, exact, from the left planes (6, M, K) by six int8 GEMMs."""
    rows = planes.shape[1]
    products = torch.empty((6, rows, weight.outer), dtype=torch.int32, device=planes.device)
    for index, (a, b) in enumerate(zip(planes, weight.planes(), strict=True)):
        torch._int_mm(a, b, out=products[index])
    wide = products.view(6, -1).to(torch.float64)
    return (_karatsuba_weights(planes.device) @ wide).view(rows, weight.outer)


class _Weight:
    """A weight prepared for both backends: its integers (float64 [K, N] for one GEMM, and
    the six int8 digit planes, column-major [K, N]) and its column scales [1, N]."""

    def __init__(self, columns: _Fixed) -> None:
        self.inner = int(columns.integers.shape[-1])
        self.outer = int(columns.integers.shape[-2])
        self.scale = columns.scale.transpose(-1, -2).to(torch.float64)
        self._integers = columns.integers
        self._float64: torch.Tensor | None = None
        self._planes: tuple[torch.Tensor, ...] | None = None

    def float64(self) -> torch.Tensor:
        if self._float64 is None:
            self._float64 = self._integers.t().to(torch.float64).contiguous()
        return self._float64

    def planes(self) -> tuple[torch.Tensor, ...]:
        if self._planes is None:
            # int8 GEMMs read a column-major right operand fastest.
            self._planes = tuple(plane.t() for plane in _digit_planes(self._integers))
        return self._planes


@functools.cache
def int8_gemm_is_exact() -> bool:
    """Whether `torch._int_mm` exists here and sums int8 products exactly (no saturation),
    with the column-major right operands the int8 backend hands it."""
    gemm = getattr(torch, "_int_mm", None)
    if gemm is None:
        return False
    generator = torch.Generator().manual_seed(0)
    try:
        for rows, inner, columns in ((1, 7, 3), (5, 96, 17), (64, 300, 40)):
            a = torch.randint(-128, 128, (rows, inner), dtype=torch.int8, generator=generator)
            b = torch.randint(-128, 128, (columns, inner), dtype=torch.int8, generator=generator)
            a[0], b[0] = -128, -128  # the extremes, where saturating kernels go wrong
            exact = a.to(torch.int64) @ b.to(torch.int64).t()
            if not torch.equal(gemm(a, b.t()).to(torch.int64), exact):
                return False
    except RuntimeError:
        return False
    return True


def choose_backend(rows: int, weight: _Weight, device: torch.device) -> Backend:
    """The faster backend for a product of this size; both give the same bits."""
    if device.type != "cpu" or rows * weight.inner * weight.outer < _INT8_MIN_WORK:
        return "float64"
    return "int8" if int8_gemm_is_exact() else "float64"


def _check_inner(inner: int) -> None:
    if inner > MAX_INNER:
        raise ValueError(f"inner dimension {inner} is over {MAX_INNER}: X.W could round")


class _CachedWeight:
    """A weight's prepared form, for one version of its data."""

    def __init__(self, weight: torch.Tensor, out_by_in: bool) -> None:
        self.key = None if weight.is_inference() else _version_key(weight, out_by_in)
        # Plain tensors even inside inference mode: the cache outlives the call.
        with torch.inference_mode(False), torch.no_grad():
            columns = weight.detach()
            self.prepared = _Weight(_fixed_columns(columns if out_by_in else columns.t()))


def _version_key(weight: torch.Tensor, out_by_in: bool) -> tuple[object, ...]:
    # _version moves on every in-place change (optimiser step, load_state_dict, copy_);
    # data_ptr and device on `.to(...)`.
    return (weight._version, weight.data_ptr(), weight.device, weight.dtype, out_by_in)


_WEIGHTS: dict[int, tuple[weakref.ref[torch.Tensor], _CachedWeight]] = {}


def _prepared(weight: torch.Tensor, out_by_in: bool) -> _Weight:
    """`weight` ([out, in] when `out_by_in`, else [in, out]) prepared, cached per version."""
    if weight.is_inference():
        return _CachedWeight(weight, out_by_in).prepared  # no version counter to key on
    key = id(weight)
    entry = _WEIGHTS.get(key)
    if (
        entry is not None
        and entry[0]() is weight
        and entry[1].key == _version_key(weight, out_by_in)
    ):
        return entry[1].prepared
    cached = _CachedWeight(weight, out_by_in)
    _WEIGHTS[key] = (weakref.ref(weight, lambda _: _WEIGHTS.pop(key, None)), cached)
    return cached.prepared


def linear(
    x: torch.Tensor,
    weight: torch.Tensor,
    bias: torch.Tensor | None,
    out_by_in: bool = True,
    backend: Backend | None = None,
) -> torch.Tensor:
    """x @ W^T + b (`out_by_in`: nn.Linear's [out, in] weight) or x @ W + b ([in, out]).

    Each output row depends on its own input row only, bit for bit. `backend` forces how X.W
    is taken (for tests: both give the same bits); by default the faster for the size.
    """
    shape = x.shape
    prepared = _prepared(weight, out_by_in)
    _check_inner(prepared.inner)
    left = _fixed_rows(x.reshape(-1, shape[-1]) if x.dim() != 2 else x)
    rows = left.integers.shape[0]
    if (backend or choose_backend(rows, prepared, x.device)) == "int8":
        total = _int8_total(_digit_planes(left.integers), prepared)
    else:
        total = left.integers.to(torch.float64) @ prepared.float64()
    scaled = total * left.scale  # the rounding of the product (float64)
    if bias is None:
        out = scaled * prepared.scale
    else:
        # The column scale is a power of two, so its product is exact and the sum rounds
        # once, fused or not: the same in every kernel.
        out = torch.addcmul(bias.to(torch.float64), scaled, prepared.scale)
    out = out.to(torch.float32)
    return out if len(shape) == 2 else out.reshape(*shape[:-1], out.shape[-1])


def matmul(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a (..., M, K) @ b (..., K, N) for two activations (attention): each entry depends on its
    own row of a and column of b only, bit for bit."""
    _check_inner(a.shape[-1])
    left, right = _fixed_rows(a), _fixed_rows(b.transpose(-1, -2))
    total = left.integers.to(torch.float64) @ right.integers.to(torch.float64).transpose(-1, -2)
    return ((total * left.scale) * right.scale.transpose(-1, -2)).to(torch.float32)


_GELU_SCALE = math.sqrt(2.0 / math.pi)


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's tanh GELU as separate elementwise ops (torch's fused kernel computes the tail of
    a tensor with other code than its vectorised body, so a value's result depends on where it
    sits). Each op here gives a value's result from that value alone."""
    inner = x + 0.044715 * (x * x * x)
    return 0.5 * x * (1.0 + torch.tanh(_GELU_SCALE * inner))
