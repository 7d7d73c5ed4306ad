"""A loop `for layer in self.layers: x = layer(x)` over an `nn.ModuleList` of `Linear`s runs the
first layer on the input itself: its input features tie the input's last size, so a named `Dim`
there fails export (XPT305), where a `Dim` on another dimension exports. Spelled in `forward`, with
an op after the layer, over a list display of differing layers, with sizes `__init__` holds, and in
a block of another file, `enumerate`d (with a residual sum), over a list built from a generator;
the input rebound before the loop, or in it before the layer, is a near
miss. Torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(3, 5, 8),)"
_SAME = "self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(3)])"
_DIFFERING = "self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 16), torch.nn.Linear(16, 4)])"
_HELD = "self.width = 8\nself.layers = torch.nn.ModuleList([torch.nn.Linear(self.width, self.width) for _ in range(2)])"
_LOOP = "for layer in self.layers:\n    x = layer(x)\nreturn x"
_BLOCK = """
class Block(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8) for _ in range(2)])

    def forward(self, x):
        for layer in self.layers:
            x = torch.relu(layer(x))
        return x
"""


def _pair(name: str, body: str, **more: str) -> list[Program]:
    """The loop under a named `Dim` on the last size (fails) and on the tokens (exports)."""
    return [Program(f"{name}-width", body, _ARGS, '{"x": {2: Dim("k")}}', fails=True, **more),
            Program(f"{name}-tokens", body, _ARGS, '{"x": {1: Dim("n")}}', fails=False, **more)]


PROGRAMS: list[Program] = [
    *_pair("loop-in-forward", _LOOP, init=_SAME),
    *_pair("loop-then-op", "for layer in self.layers:\n    x = layer(x).relu()\nreturn x", init=_SAME),
    *_pair("differing-layers", _LOOP, init=_DIFFERING),
    *_pair("sizes-init-holds", _LOOP, init=_HELD),
    *_pair("enumerated", "for i, layer in enumerate(self.layers):\n    x = layer(x) * (i + 1)\nreturn x", init=_SAME),
    *_pair("enumerated-residual", "for depth, block in enumerate(self.layers):\n    x = x + block(x)\nreturn x",
           init=_SAME),
    *_pair("built-from-generator", _LOOP,
           init="self.layers = torch.nn.ModuleList(torch.nn.Linear(8, 8) for _ in range(2))"),
    Program("enumerated-rebound-before", "x = x.transpose(1, 2)\nfor i, layer in enumerate(self.layers):\n"
            "    x = layer(x)\nreturn x", "(torch.randn(3, 8, 5),)", '{"x": {2: Dim("k")}}', fails=False,
            init="self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8)])"),
    *_pair("block-of-another-file", "return self.block(x)", init="self.block = Block()", block=_BLOCK),
    Program("rebound-in-loop-first", "for layer in self.layers:\n    x = x.transpose(1, 2)\n    x = layer(x)\nreturn x",
            "(torch.randn(3, 8, 5),)", '{"x": {2: Dim("k")}}', fails=False,
            init="self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8)])"),
    Program("rebound-before-loop", "x = x.transpose(1, 2)\n" + _LOOP, "(torch.randn(3, 8, 5),)",
            '{"x": {2: Dim("k")}}', fails=False, init="self.layers = torch.nn.ModuleList([torch.nn.Linear(8, 8)])"),
]

BATCH = ProgramBatch("firstlayer", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
