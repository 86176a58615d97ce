"""The documented caps on whole numbers a user gives (seeds, counts, network sizes): one
definition each, checked by the command line's option types (`paretoscope.cli.options`), the
settings objects and the notebook API alike. (What a message quotes of a user's value is cut
by `paretoscope.text.quoted`.) docs/reference.md lists them."""

from __future__ import annotations

from dataclasses import dataclass

# Seeds as numpy's and gymnasium's generators take them: unsigned 32-bit.
MAX_SEED = 2**32 - 1
# Episodes per preference (evaluate) or per collection (data collect): their seed lists and
# preference draws are built up front.
MAX_EPISODES = 100_000
# Steps of an episode (`--horizon`; an env with a registered time limit allows at most that).
MAX_HORIZON = 100_000
# Episodes stepped in lockstep (`--batch-size`): each holds its own environment.
MAX_BATCH_SIZE = 1_024
# Members of a behaviour set (train behaviour --preferences).
MAX_MEMBERS = 1_000
# An offline network's shape: its layers (or transformer blocks), widths, heads and context.
MAX_LAYERS = 16
MAX_WIDTH = 8_192
MAX_HEADS = 64
MAX_CONTEXT = 1_000
# Videos per agent in a report (each a recorded episode embedded in one HTML file).
MAX_REPORT_VIDEOS = 100


@dataclass(frozen=True)
class Bounds:
    """An inclusive range of whole numbers, and how a message says it."""

    low: int
    high: int

    def __contains__(self, value: object) -> bool:
        return isinstance(value, int) and self.low <= value <= self.high

    def expected(self) -> str:
        return f"a whole number from {self.low} to {self.high}"

    def problem(self, value: int) -> str | None:
        """What is wrong with `value` (None: it is within the bounds)."""
        if self.low <= value <= self.high:
            return None
        # A number too long to write (Python refuses over 4300 digits) is said by its size.
        shown = str(value) if value.bit_length() <= 128 else f"a {value.bit_length()}-bit number"
        return f"expected {self.expected()}, got {shown}"


SEEDS = Bounds(0, MAX_SEED)
EPISODES = Bounds(1, MAX_EPISODES)
MEMBERS = Bounds(1, MAX_MEMBERS)
HORIZONS = Bounds(1, MAX_HORIZON)
BATCH_SIZES = Bounds(1, MAX_BATCH_SIZE)
LAYERS = Bounds(1, MAX_LAYERS)
WIDTHS = Bounds(1, MAX_WIDTH)
HEADS = Bounds(1, MAX_HEADS)
CONTEXTS = Bounds(1, MAX_CONTEXT)
REPORT_VIDEOS = Bounds(0, MAX_REPORT_VIDEOS)
