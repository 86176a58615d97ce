"""The one number formatter (paretoscope.text.number): strings worked out by hand."""

from __future__ import annotations

import pytest

from paretoscope.text import MISSING, number, numbers, signed


@pytest.mark.parametrize(
    ("value", "expected"),
    [
        (5374273.3989, "5,374,273"),  # integer digits are never rounded away
        (2170.4, "2,170"),  # 4 significant digits, thousands separated
        (4.41602, "4.416"),
        (0.5, "0.5"),  # no trailing zeros
        (12.0, "12"),
        (-10, "-10"),
        (1234.5678, "1,235"),
        (99999.6, "100,000"),
        (9.99996, "10"),
        (0.000123, "0.000123"),
        (-0.0, "0"),
        (-0.00004, "-4e-05"),  # below 1e-4: scientific
        (2.5e16, "2.5e+16"),
        (0, "0"),
        (float("inf"), "∞"),
        (float("-inf"), "-∞"),
        (None, "—"),
        (float("nan"), "—"),
    ],
)
def test_number_four_significant_digits(value: float | None, expected: str) -> None:
    assert number(value) == expected


def test_number_digits() -> None:
    assert number(3.14159, 2) == "3.1"
    assert number(-0.004, 2) == "-0.004"
    assert number(-0.0004, 1) == "-0.0004"
    assert number(-0.00004, 1) == "-4e-05"
    assert number(-0.0001, 1) == "-0.0001"
    assert number(-0.4, 1) == "-0.4"


def test_signed_and_lists() -> None:
    assert signed(1.5) == "+1.5"
    assert signed(-2) == "-2"
    assert signed(0.0) == "0"
    assert signed(None) == MISSING
    assert numbers([1, 0.5]) == "1, 0.5"
    # A thousands separator would read as a list separator: the list is joined by "; ".
    assert numbers([1200, 0.5]) == "1,200; 0.5"


def test_a_collection_is_named_by_a_few_items_and_a_count() -> None:
    from paretoscope.text import listed

    assert listed(["a", "b"]) == "'a', 'b'"
    assert listed(range(1_000_000)) == "0, 1, 2, 3, 4 and 999,995 more"


def test_a_message_is_cut_for_the_terminal_saying_how_much_more_it_had() -> None:
    from paretoscope.text import MESSAGE_LIMIT, terminal_message

    assert terminal_message("short\x1b") == "short\\x1b"
    cut = terminal_message("x" * 10_000_000)
    assert cut == "x" * MESSAGE_LIMIT + f"… ({10_000_000 - MESSAGE_LIMIT:,} more characters)"
    # Escapes lengthen a text: the cut counts what is shown.
    assert len(terminal_message("\x1b" * 10_000)) < MESSAGE_LIMIT + 40


def test_printable_escapes_only_what_it_shows() -> None:
    from paretoscope.text import printable

    assert printable("\x1b" * 10, 5) == "\\x1b…"
    assert printable("ab", 2) == "ab" and printable("abc", 2) == "a…"
