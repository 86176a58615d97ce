"""`table_gamma`: the one discount of a stored table, as every reader of sweeps asks it."""

from __future__ import annotations

import math

import pandas as pd
import pytest

from paretoscope.discount import table_gamma
from paretoscope.errors import ParetoscopeError


def test_a_table_without_discounts_is_undiscounted() -> None:
    assert table_gamma(pd.DataFrame({"return_a": [1.0]}), "t", "plot") == 1.0
    assert table_gamma(pd.DataFrame({"gamma": []}), "t", "plot") == 1.0
    # Rows stored before discounting existed have no value: undiscounted.
    assert table_gamma(pd.DataFrame({"gamma": [math.nan, 1.0]}), "t", "plot") == 1.0


def test_one_discount_is_read_and_a_mix_is_refused_by_name() -> None:
    assert table_gamma(pd.DataFrame({"gamma": [0.9, 0.9]}), "t", "plot") == 0.9
    mixed = pd.DataFrame({"gamma": [0.9, math.nan, 0.99]})
    with pytest.raises(ParetoscopeError) as refused:
        table_gamma(mixed, "sweep table for dst", "summarise")
    assert str(refused.value) == (
        "sweep table for dst mixes discounts [0.9, 0.99, 1.0]: summarise one gamma at a time"
    )
