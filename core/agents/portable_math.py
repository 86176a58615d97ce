"""Elementwise and row-wise functions that give the same bits on every CPU.

Why: torch computes ``tanh``, ``exp``, ``log`` and ``sqrt`` with code chosen at run time from
the CPU (MKL's vector math for the instruction set it finds, Sleef for AVX2 or AVX-512), and
sums a row with as many partial sums as the vector is wide. Each is accurate to an ulp or so,
but their last bits differ between machines, so an agent acted differently on an AVX-512
server than on the AVX2 machine that stored its episodes, and a stored episode no longer
replayed. `tests/test_portable_math.py` runs the agents under every code path torch and MKL
can be made to take on one machine and compares the bits.

How: only IEEE operations whose result is defined to the bit (+, -, *, /, comparisons,
rounding to an integer, integer bit operations, conversions), in float64, with numpy (a few
microseconds less per operation than torch on an agent's small arrays; its ufuncs do one
operation each, so nothing is fused):
- `exp` and `expm1`: Cody-Waite reduction by ln 2, a Taylor polynomial on |r| <= ln 2 / 2,
  and 2^k built from its bits; `log`: the exponent from the bits and 2 atanh(f / (2 + f))
  as a series; `rsqrt`: a bit-trick start and Newton steps.
- `row_sum`: each row scaled by a power of two so that its integers, rounded, can be summed
  exactly in float64 (every partial sum an integer below 2^53), in whatever order.
Results are then rounded once to float32, so they are within an ulp or so of torch's own.
The functions take and return torch tensors (no autograd: the networks call them only when
it is off).
"""

from __future__ import annotations

import math

import numpy as np
import torch

_LN2_HI = 6.93147180369123816490e-01  # 32 significant bits: k * _LN2_HI is exact
_LN2_LO = 1.90821492927058770002e-10
_INV_LN2 = 1.0 / math.log(2.0)
# |x| beyond this exp over- or underflows float32 anyway; keeps 2^k a normal float64.
_EXP_LIMIT = 200.0
# Taylor terms of expm1 on |r| <= ln 2 / 2 (the 15th term is below 2^-60).
_EXPM1_TERMS = 14
# atanh series terms 1/(2n+1) for |s| <= 3 - 2 sqrt(2) (the 12th term is below 2^-60).
_LOG_TERMS = 12
_SQRT2 = math.sqrt(2.0)
_MANTISSA_BITS = 0x000F_FFFF_FFFF_FFFF
_ONE_BITS = 0x3FF0_0000_0000_0000
_RSQRT_MAGIC = 0x5FE6_EB50_C7B5_37A9
_RSQRT_STEPS = 5  # relative error 3.5e-2 -> ~1e-21 after five Newton steps


def _wide(x: torch.Tensor) -> np.ndarray:
    """x as a float64 numpy array of its own (a copy: the functions below work in place)."""
    x = x.detach()
    if x.device.type == "cpu" and x.dtype in (torch.float32, torch.float64):
        # numpy's conversion: half the cost of a torch `.to` call on an agent's small arrays
        return x.numpy().astype(np.float64)
    return x.to(device="cpu", dtype=torch.float64).numpy()


def _back(values: np.ndarray, like: torch.Tensor) -> torch.Tensor:
    """`values` rounded once to `like`'s dtype, on its device."""
    if like.dtype == torch.float32 and like.device.type == "cpu":  # the networks' case
        return torch.from_numpy(values.astype(np.float32))
    return torch.from_numpy(values).to(device=like.device, dtype=like.dtype)


def _power_of_two(k: np.ndarray) -> np.ndarray:
    """2.0^k as float64 for integer-valued k in [-1022, 1023], from its bits (exact)."""
    return ((k.astype(np.int64) + 1023) << 52).view(np.float64)


def _expm1_reduced(r: np.ndarray) -> np.ndarray:
    """e^r - 1 for |r| <= ln 2 / 2: r (1 + r/2 (1 + r/3 (1 + ... (1 + r/N)))), by Horner."""
    nested = r / _EXPM1_TERMS
    nested += 1.0
    for n in range(_EXPM1_TERMS - 1, 1, -1):
        nested *= r
        nested /= n
        nested += 1.0
    nested *= r
    return nested


def _reduce(x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(k, e^r - 1) with x = k ln 2 + r, |r| <= ln 2 / 2 (x clamped to +-200; NaN stays in
    the second, k is 0 there)."""
    clamped = np.clip(x, -_EXP_LIMIT, _EXP_LIMIT)
    k = np.rint(clamped * _INV_LN2) + 0.0  # + 0.0: k = -0 would make r = -0 into +0
    r = clamped - k * _LN2_HI
    r -= k * _LN2_LO
    k[np.isnan(k)] = 0.0
    return k, _expm1_reduced(r)


def _exp(x: np.ndarray) -> np.ndarray:
    k, small = _reduce(x)
    small += 1.0
    small *= _power_of_two(k)
    return small


def _expm1(x: np.ndarray) -> np.ndarray:
    k, small = _reduce(x)
    # k = 0 (|x| <= ln 2 / 2): the polynomial itself, accurate near 0; else 2^k e^r - 1.
    return np.where(k == 0, small, (small + 1.0) * _power_of_two(k) - 1.0)


def _log(x: np.ndarray) -> np.ndarray:
    positive = (x > 0) & np.isfinite(x)
    safe = np.where(positive, x, 1.0)
    # float32 inputs are normal in float64, so the exponent field is the exponent.
    bits = safe.view(np.int64)
    exponent = ((bits >> 52) & 0x7FF) - 1023
    mantissa = ((bits & _MANTISSA_BITS) | _ONE_BITS).view(np.float64)  # in [1, 2)
    high = mantissa > _SQRT2
    mantissa = np.where(high, mantissa * 0.5, mantissa)  # now in (0.707, 1.414]
    power = (exponent + high).astype(np.float64)
    f = mantissa - 1.0
    s = f / (2.0 + f)
    s2 = s * s
    series = np.full_like(s, 1.0 / (2 * _LOG_TERMS - 1))
    for n in range(_LOG_TERMS - 2, -1, -1):
        series *= s2
        series += 1.0 / (2 * n + 1)
    result = power * _LN2_HI + (power * _LN2_LO + 2.0 * s * series)
    result[x == 0] = -math.inf
    result[x == math.inf] = math.inf
    result[(x < 0) | np.isnan(x)] = math.nan
    return result


def _tanh(x: np.ndarray) -> np.ndarray:
    """tanh in float64: expm1(2|x|) / (expm1(2|x|) + 2) with x's sign."""
    y = _expm1(2.0 * np.minimum(np.abs(x), 20.0))  # tanh(20) rounds to 1 in float64
    return np.copysign(y / (y + 2.0), x)


def _rsqrt(x: np.ndarray) -> np.ndarray:
    """1 / sqrt(x) for positive normal x: a bit-trick start, then Newton."""
    y = (_RSQRT_MAGIC - (x.view(np.int64) >> 1)).view(np.float64)
    half = 0.5 * x
    for _ in range(_RSQRT_STEPS):
        y = y * (1.5 - half * y * y)
    return y


def _row_sum(x: np.ndarray) -> np.ndarray:
    """Sums over the last axis (kept, size 1), exact to 2^-(52 - ceil(log2 n)) of each row's
    largest magnitude, the same in any order; a row with a NaN or an infinity sums to what
    IEEE addition gives (its integers are the NaN or the infinity)."""
    count = x.shape[-1]
    bits = 52 - math.ceil(math.log2(max(count, 2)))
    peak = np.abs(x).max(axis=-1, keepdims=True)
    peak[~(np.isfinite(peak) & (peak > 0))] = 1.0
    exponent = ((peak.view(np.int64) >> 52) & 0x7FF) - 1023  # peak in [2^e, 2^(e+1))
    scale = _power_of_two(exponent + 1 - bits)
    integers = np.rint(x / scale)
    return integers.sum(axis=-1, keepdims=True) * scale


def exp(x: torch.Tensor) -> torch.Tensor:
    """e^x in float64 (NaN stays NaN; beyond +-200 it is clamped, out of float32's range)."""
    return torch.from_numpy(_exp(_wide(x)))


def expm1(x: torch.Tensor) -> torch.Tensor:
    """e^x - 1 in float64, accurate near 0."""
    return torch.from_numpy(_expm1(_wide(x)))


def log(x: torch.Tensor) -> torch.Tensor:
    """ln x in float64: -inf at 0, NaN below 0 or at NaN, inf at inf."""
    return torch.from_numpy(_log(_wide(x)))


def rsqrt(x: torch.Tensor) -> torch.Tensor:
    """1 / sqrt(x) in float64 for positive normal x."""
    return torch.from_numpy(_rsqrt(_wide(x)))


def row_sum(x: torch.Tensor) -> torch.Tensor:
    """The sum over the last dimension, float64, the same whatever the order of the sums.

    Each row is scaled by a power of two so that its largest magnitude is just below
    2^(52 - ceil(log2 n)) and rounded to integers: every partial sum is then an exact integer,
    so any order gives the same total. The rounding loses what lies below 2^-(52 - log2 n)
    of the row's largest value (2^-41 for 2048 terms), far under float32's resolution.
    """
    return torch.from_numpy(_row_sum(_wide(x))[..., 0])


def tanh(x: torch.Tensor) -> torch.Tensor:
    """tanh x, rounded to x's dtype."""
    return _back(_tanh(_wide(x)), x)


def sigmoid(x: torch.Tensor) -> torch.Tensor:
    """1 / (1 + e^-x), rounded to x's dtype."""
    denominator = _exp(-_wide(x))
    denominator += 1.0
    return _back(1.0 / denominator, x)


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension, rounded to x's dtype."""
    wide = _wide(x)
    wide -= wide.max(axis=-1, keepdims=True)
    weights = _exp(wide)
    weights /= _row_sum(weights)
    return _back(weights, x)


def log_softmax(x: torch.Tensor) -> torch.Tensor:
    """Log-softmax over the last dimension, rounded to x's dtype."""
    wide = _wide(x)
    wide -= wide.max(axis=-1, keepdims=True)
    wide -= _log(_row_sum(_exp(wide)))
    return _back(wide, x)


def layer_norm(
    x: torch.Tensor, weight: torch.Tensor | None, bias: torch.Tensor | None, eps: float
) -> torch.Tensor:
    """LayerNorm over the last dimension (biased variance, as torch), rounded to x's dtype."""
    centred = _wide(x)
    count = centred.shape[-1]
    centred -= _row_sum(centred) / count
    variance = _row_sum(centred * centred) / count
    variance += eps
    centred *= _rsqrt(variance)
    if weight is not None:
        centred *= _wide(weight)
    if bias is not None:
        centred += _wide(bias)
    return _back(centred, x)


_GELU_SCALE = math.sqrt(2.0 / math.pi)


def gelu_new(x: torch.Tensor) -> torch.Tensor:
    """GPT-2's tanh GELU, 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))), rounded to x's
    dtype."""
    wide = _wide(x)
    inner = _GELU_SCALE * (wide + 0.044715 * (wide * wide * wide))
    out = _tanh(inner)
    out += 1.0
    out *= 0.5 * wide
    return _back(out, x)
