"""Elementwise and row-wise functions that give the same bits on every CPU.

Why: torch computes ``tanh``, ``exp``, ``log`` and ``sqrt`` with code chosen at run time from
the CPU (MKL's vector math for the instruction set it finds, Sleef for AVX2 or AVX-512), and
sums a row with as many partial sums as the vector is wide. Each is accurate to an ulp or so,
but their last bits differ between machines, so an agent acted differently on an AVX-512
server than on the AVX2 machine that stored its episodes, and a stored episode no longer
replayed. `tests/test_portable_math.py` runs the agents under every code path torch and MKL
can be made to take on one machine and compares the bits.

How: only IEEE operations whose result is defined to the bit (+, -, *, /, comparisons,
rounding to an integer, integer bit operations, conversions), in float64:
- `exp` and `expm1`: Cody-Waite reduction by ln 2, a Taylor polynomial on |r| <= ln 2 / 2,
  and 2^k built from its bits; `log`: the exponent from the bits and 2 atanh(f / (2 + f))
  as a series; `rsqrt`: a bit-trick start and Newton steps.
- `row_sum`: each row scaled by a power of two so that its integers, rounded, can be summed
  exactly in float64 (every partial sum an integer below 2^53), in whatever order.
Results are then rounded once to float32, so they are within an ulp or so of torch's own.
"""

from __future__ import annotations

import math

import torch

_LN2_HI = 6.93147180369123816490e-01  # 32 significant bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.0 / math.log(2.0)
# |x| beyond this exp over- or underflows float32 anyway; keeps 2^k a normal float64.
_EXP_LIMIT = 200.0
# Taylor coefficients 1/n! of expm1 on |r| <= ln 2 / 2 (the 15th term is below 2^-60).
_EXPM1_TERMS = 14
_HALF_LN2 = 0.5 * math.log(2.0)
# atanh series terms 1/(2n+1) for |s| <= 3 - 2 sqrt(2) (the 12th term is below 2^-60).
_LOG_TERMS = 12
_SQRT2 = math.sqrt(2.0)
_MANTISSA_BITS = 0x000F_FFFF_FFFF_FFFF
_ONE_BITS = 0x3FF0_0000_0000_0000
_RSQRT_MAGIC = 0x5FE6_EB50_C7B5_37A9
_RSQRT_STEPS = 5  # relative error 3.5e-2 -> ~1e-21 after five Newton steps


def _float64(x: torch.Tensor) -> torch.Tensor:
    return x.to(torch.float64)


def power_of_two(k: torch.Tensor) -> torch.Tensor:
    """2.0^k as float64 for integer-valued k in [-1022, 1023], from its bits (exact)."""
    return ((k.to(torch.int64) + 1023) << 52).view(torch.float64)


def _expm1_small(r: torch.Tensor) -> torch.Tensor:
    """e^r - 1 for |r| <= ln 2 / 2: r (1 + r/2 (1 + r/3 (1 + ... (1 + r/N)))), by Horner."""
    nested = 1.0 + r / _EXPM1_TERMS
    for n in range(_EXPM1_TERMS - 1, 1, -1):
        nested = 1.0 + r * nested / n
    return r * nested


def exp(x: torch.Tensor) -> torch.Tensor:
    """e^x in float64 (NaN stays NaN; beyond +-200 it is clamped, out of float32's range)."""
    x = _float64(x)
    clamped = x.clamp(-_EXP_LIMIT, _EXP_LIMIT)
    k = torch.round(clamped * _INV_LN2)
    r = (clamped - k * _LN2_HI) - k * _LN2_LO
    k = torch.nan_to_num(k, nan=0.0)
    return torch.where(x.isnan(), x, (1.0 + _expm1_small(r)) * power_of_two(k))


def expm1(x: torch.Tensor) -> torch.Tensor:
    """e^x - 1 in float64, accurate near 0."""
    x = _float64(x)
    small = x.abs() <= _HALF_LN2
    return torch.where(small, _expm1_small(torch.where(small, x, 0.0)), exp(x) - 1.0)


def log(x: torch.Tensor) -> torch.Tensor:
    """ln x in float64: -inf at 0, NaN below 0 or at NaN, inf at inf."""
    x = _float64(x)
    positive = (x > 0) & x.isfinite()
    safe = torch.where(positive, x, 1.0)
    # float32 inputs are normal in float64, so the exponent field is the exponent.
    bits = safe.view(torch.int64)
    exponent = ((bits >> 52) & 0x7FF) - 1023
    mantissa = ((bits & _MANTISSA_BITS) | _ONE_BITS).view(torch.float64)  # in [1, 2)
    high = mantissa > _SQRT2
    mantissa = torch.where(high, mantissa * 0.5, mantissa)  # now in (0.707, 1.414]
    exponent = _float64(exponent + high.to(torch.int64))
    f = mantissa - 1.0
    s = f / (2.0 + f)
    s2 = s * s
    series = torch.full_like(s, 1.0 / (2 * _LOG_TERMS - 1))
    for n in range(_LOG_TERMS - 2, -1, -1):
        series = 1.0 / (2 * n + 1) + s2 * series
    log_mantissa = 2.0 * s * series
    result = exponent * _LN2_HI + (exponent * _LN2_LO + log_mantissa)
    result = torch.where(x == 0, -math.inf, result)
    result = torch.where(x == math.inf, math.inf, result)
    return torch.where((x < 0) | x.isnan(), math.nan, result)


def _tanh64(wide: torch.Tensor) -> torch.Tensor:
    """tanh in float64: expm1(2|x|) / (expm1(2|x|) + 2) with x's sign."""
    y = expm1(2.0 * wide.abs().clamp(max=20.0))  # tanh(20) rounds to 1 in float64
    return torch.copysign(y / (y + 2.0), wide)


def tanh(x: torch.Tensor) -> torch.Tensor:
    """tanh x, rounded to x's dtype."""
    return _tanh64(_float64(x)).to(x.dtype)


def sigmoid(x: torch.Tensor) -> torch.Tensor:
    """1 / (1 + e^-x), rounded to x's dtype."""
    return (1.0 / (1.0 + exp(-_float64(x)))).to(x.dtype)


def rsqrt(x: torch.Tensor) -> torch.Tensor:
    """1 / sqrt(x) in float64 for positive normal x: a bit-trick start, then Newton."""
    x = _float64(x)
    y = (_RSQRT_MAGIC - (x.view(torch.int64) >> 1)).view(torch.float64)
    half = 0.5 * x
    for _ in range(_RSQRT_STEPS):
        y = y * (1.5 - half * y * y)
    return y


def row_sum(x: torch.Tensor) -> torch.Tensor:
    """The sum over the last dimension, float64, the same whatever the order of the sums.

    Each row is scaled by a power of two so that its largest magnitude is just below
    2^(52 - ceil(log2 n)) and rounded to integers: every partial sum is then an exact integer,
    so any order gives the same total. The rounding loses what lies below 2^-(52 - log2 n)
    of the row's largest value (2^-41 for 2048 terms), far under float32's resolution.
    """
    x = _float64(x)
    count = x.shape[-1]
    bits = 52 - math.ceil(math.log2(max(count, 2)))
    peak = x.abs().amax(dim=-1, keepdim=True)
    finite_peak = torch.where(peak.isfinite() & (peak > 0), peak, 1.0)
    exponent = ((finite_peak.view(torch.int64) >> 52) & 0x7FF) - 1023  # peak in [2^e, 2^(e+1))
    scale = power_of_two(exponent + 1 - bits)
    integers = torch.round(x / scale)
    total = integers.sum(dim=-1, keepdim=True) * scale
    # A row with a NaN or an infinity sums as torch would (NaN, or the infinity).
    fallback = x.sum(dim=-1, keepdim=True)
    return torch.where(peak.isfinite(), total, fallback).squeeze(-1)


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension, rounded to x's dtype."""
    wide = _float64(x)
    shifted = wide - wide.amax(dim=-1, keepdim=True)
    weights = exp(shifted)
    return (weights / row_sum(weights).unsqueeze(-1)).to(x.dtype)


def log_softmax(x: torch.Tensor) -> torch.Tensor:
    """Log-softmax over the last dimension, rounded to x's dtype."""
    wide = _float64(x)
    shifted = wide - wide.amax(dim=-1, keepdim=True)
    return (shifted - log(row_sum(exp(shifted))).unsqueeze(-1)).to(x.dtype)


def layer_norm(
    x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, eps: float
) -> torch.Tensor:
    """LayerNorm over the last dimension (biased variance, as torch), rounded to x's dtype."""
    wide = _float64(x)
    count = wide.shape[-1]
    centred = wide - (row_sum(wide) / count).unsqueeze(-1)
    variance = row_sum(centred * centred) / count
    out = centred * rsqrt(variance + eps).unsqueeze(-1)
    if weight is not None:
        out = out * _float64(weight)
    if bias is not None:
        out = out + _float64(bias)
    return out.to(x.dtype)


_GELU_SCALE = math.sqrt(2.0 / math.pi)


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's tanh GELU, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), rounded to x's
    dtype."""
    wide = _float64(x)
    inner = _GELU_SCALE * (wide + 0.044715 * (wide * wide * wide))
    return (0.5 * wide * (1.0 + _tanh64(inner))).to(x.dtype)
