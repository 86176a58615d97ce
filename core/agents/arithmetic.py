"""Which arithmetic the networks compute with (`paretoscope.agents.invariant`).

It is part of every network agent's fingerprint, so of everything keyed by one. It lives apart
from torch so that such keys can be made without importing it (a saved gallery layout).
"""

from __future__ import annotations

# Bumped whenever the arithmetic changes the actions, so stored episodes of the old arithmetic
# stop matching the agent's fingerprint instead of failing to replay.
ARITHMETIC_VERSION = "exact-integer-products-v2"
