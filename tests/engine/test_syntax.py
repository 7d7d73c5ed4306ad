"""What an expression says on its face, read one way by the fact layers and the rules."""

from __future__ import annotations

import libcst as cst
import pytest

from xport_lint.analyzers.positions import code_of
from xport_lint.analyzers.syntax import UNKNOWN, counted, literal_value


@pytest.mark.parametrize(("code", "value"), [
    ("t.shape[0]", "t"), ("t.shape[-1]", "t"), ("self.pos.shape[1]", "self.pos"), ("t.size(2)", "t"),
    ("t.size(dim=2)", "t"), ("t.numel()", "t"), ("t.dim()", "t"), ("t.ndim", "t"), ("len(t)", "t"),
    ("len(x[mask])", "x[mask]"),
])
def test_a_size_read_as_one_int_names_what_it_measures(code: str, value: str) -> None:
    measured = counted(cst.parse_expression(code))
    assert measured is not None and code_of(measured) == value


@pytest.mark.parametrize("code", ["t.size()", "t.shape", "t.sum()", "t.shape[0] + 1", "len(*parts)", "t[0]", "n"])
def test_anything_else_measures_nothing(code: str) -> None:
    assert counted(cst.parse_expression(code)) is None


@pytest.mark.parametrize(("code", "value"), [
    ("3", 3), ("-1", -1), ("0.5", 0.5), ("-2.0", -2.0), ('"gelu"', "gelu"), ("True", True), ("None", None),
])
def test_a_literal_has_its_value(code: str, value: object) -> None:
    assert literal_value(cst.parse_expression(code)) == value


@pytest.mark.parametrize("code", ["b'raw'", "x", "1 + 2", "(1, 2)", "-x"])
def test_anything_else_is_unknown(code: str) -> None:
    assert literal_value(cst.parse_expression(code)) is UNKNOWN
