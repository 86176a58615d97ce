"""The one JSON parse for files that may come from anyone (`paretoscope.jsonfile.loads`):
nesting is bounded before Python's recursive parser sees the text, and every failure is a
message that starts with where the text came from."""

from __future__ import annotations

import json

import pytest

from paretoscope.errors import ParetoscopeError
from paretoscope.jsonfile import MOST_JSON_DEPTH, loads


def test_json_nested_to_the_bound_loads_and_one_level_more_is_refused() -> None:
    deepest = "[" * MOST_JSON_DEPTH + "]" * MOST_JSON_DEPTH
    assert loads(deepest, "x.json") == json.loads(deepest)
    deeper = "{" + '"a": ' + deepest + "}"
    with pytest.raises(
        ParetoscopeError, match=rf"^x\.json: .*nested deeper than {MOST_JSON_DEPTH}"
    ):
        loads(deeper, "x.json")


def test_a_hundred_thousand_levels_are_a_message_not_a_recursion_error() -> None:
    with pytest.raises(ParetoscopeError, match=r"^config\.json: not readable JSON \(nested"):
        loads(b"[" * 100_000 + b"]" * 100_000, "config.json")


def test_brackets_inside_strings_do_not_count_as_nesting() -> None:
    text = json.dumps({"note": "[{" * 10_000 + '\\"', "list": [[1]]})
    assert loads(text, "x.json") == json.loads(text)


# The last: an integer literal longer than Python reads (4,300 digits), a ValueError of its own.
@pytest.mark.parametrize("text", [b"{not json", b"\xff\xfe", b"", b"[" + b"9" * 5000 + b"]"])
def test_what_is_not_json_is_a_message_naming_the_source(text: bytes) -> None:
    with pytest.raises(ParetoscopeError, match=r"^x\.json: not readable JSON \("):
        loads(text, "x.json")
