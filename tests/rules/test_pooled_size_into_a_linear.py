"""A pooled size flattened into a fixed `Linear` (issue 24, written from a held-out probe's misses):
an old ResNet head pools a stride-2 stem's output by a fixed window (`nn.AvgPool2d(4)`,
`F.avg_pool2d(x, 4)`) and flattens it (`x.view(x.size(0), -1)`, `torch.flatten(x, 1)`,
`x.reshape(b, -1)`) into `nn.Linear(8, 10)`: the features are `8 * (((h + 1) // 2) // 4)`, equal to
8 for some heights of `Dim("h", min=7, max=512)` only, so export guards the height into that part
and fails with a constraint violation in both modes (torch 2.13). Near misses: an adaptive pool (the
features no longer depend on the height), the height static, a range where the size always fits.

Figures (BEFORE is this file run on the engine of `3413ebe`): failing programs with an error 0/5 ->
5/5 in both modes; exporting programs with one 0/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_IMAGE = "(torch.randn(2, 3, 8, 8),)"
_HEIGHT = '{"x": {2: Dim("h", min=7, max=512)}}'
_INIT = ("self.conv1 = torch.nn.Conv2d(3, 8, 3, stride=2, padding=1)\nself.avgpool = torch.nn.AvgPool2d(4)\n"
         "self.fc = torch.nn.Linear(8, 10)")
_VIEWED = "x = F.relu(self.conv1(x))\nx = self.avgpool(x)\nx = x.view(x.size(0), -1)\nreturn self.fc(x)"


def _head(name: str, body: str, shapes: str = _HEIGHT, fails: bool = True, init: str = _INIT) -> Program:
    return Program(name, body, _IMAGE, shapes, fails=fails, init=init)


PROGRAMS: list[Program] = [
    _head("pooled-then-viewed", _VIEWED),
    _head("pooled-by-function-then-flattened", "x = F.relu(self.conv1(x))\nx = torch.flatten(F.avg_pool2d(x, 4), 1)\nreturn self.fc(x)"),
    _head("pooled-then-reshaped", "b = x.shape[0]\nx = self.avgpool(torch.relu(self.conv1(x)))\nreturn self.fc(x.reshape(b, -1))"),
    _head("convolved-then-flattened", "x = self.conv1(x)\nreturn self.fc2(x.flatten(1))",
          init=_INIT + "\nself.fc2 = torch.nn.Linear(128, 10)"),
    Program("pooled-in-a-head-method", "return self.head(F.relu(self.conv1(x)))", _IMAGE, _HEIGHT, fails=True,
            init=_INIT, methods="def head(self, x):\n    x = self.avgpool(x)\n    return self.fc(x.view(x.size(0), -1))"),
    # near misses
    _head("adaptive-pool", "x = F.relu(self.conv1(x))\nx = F.adaptive_avg_pool2d(x, 1)\nx = x.view(x.size(0), -1)\n"
          "return self.fc(x)", fails=False),
    _head("height-static", _VIEWED, '{"x": {0: Dim("b")}}', fails=False),
    _head("range-where-it-fits", _VIEWED, '{"x": {2: Dim("h", min=7, max=8)}}', fails=False),
]

BATCH = ProgramBatch("pooledhead", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
