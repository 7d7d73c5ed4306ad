"""An entry of a nested input (`inputs["features"]`, `pair[0]`) handed to a submodule carries its
declared `Dim`s and its rank (from the example) into the submodule's `forward`, as a whole input
does: a `Linear` there ties the last dimension (XPT305). Spelled with the entry read inline, bound
to a name first, a tuple's element, and a submodule of this file; the batch dimension alone
exports. Torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_BLOCK = """
class Block(torch.nn.Module):
    def forward(self, x):
        return x


class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = torch.nn.Linear(8, 2)

    def forward(self, hidden):
        return self.dense(hidden)
"""
_HERE = """
class Head(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.dense = torch.nn.Linear(8, 2)

    def forward(self, hidden):
        return self.dense(hidden).relu()
"""
_FEATURES = '({"features": torch.randn(3, 8)},)'
_PAIR = "((torch.randn(3, 8), torch.randn(3, 4)),)"


def _file(name: str, body: str, args: str, shapes: str, fails: bool, params: str) -> Program:
    return Program(name, body, args, shapes, fails=fails, params=params, block=_BLOCK, top="from .blocks import Head",
                   init="self.head = Head()")


PROGRAMS: list[Program] = [
    _file("dict-entry-inline-width", 'return self.head(inputs["features"])', _FEATURES,
          '{"inputs": {"features": {1: Dim("w")}}}', True, "inputs"),
    _file("dict-entry-bound-width", 'feats = inputs["features"]\nreturn self.head(feats)', _FEATURES,
          '{"inputs": {"features": {1: Dim("w")}}}', True, "inputs"),
    _file("dict-entry-inline-batch", 'return self.head(inputs["features"])', _FEATURES,
          '{"inputs": {"features": {0: Dim("b")}}}', False, "inputs"),
    _file("tuple-entry-width", "return self.head(pair[0]) + pair[1].sum()", _PAIR,
          '{"pair": ({1: Dim("w")}, None)}', True, "pair"),
    _file("tuple-entry-batch", "return self.head(pair[0])", _PAIR, '{"pair": ({0: Dim("b")}, None)}', False, "pair"),
    Program("dict-entry-here-width", 'return self.head(inputs["features"])', _FEATURES,
            '{"inputs": {"features": {1: Dim("w")}}}', fails=True, params="inputs", top=_HERE,
            init="self.head = Head()"),
    Program("dict-entry-here-batch", 'return self.head(inputs["features"])', _FEATURES,
            '{"inputs": {"features": {0: Dim("b")}}}', fails=False, params="inputs", top=_HERE,
            init="self.head = Head()"),
]

BATCH = ProgramBatch("entryinto", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
