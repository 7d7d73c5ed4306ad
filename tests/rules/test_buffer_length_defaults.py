"""A buffer whose length is an argument of `__init__` with an integer default
(`torch.arange(max_positions).expand((1, -1))`, `max_positions=64`) has that length in a model
built with its defaults: slicing it by an input size bounds that size (XPT306), in the model's
own class and in a submodule of another file, the default positional or keyword-only; a `Dim`
within the length is the near miss, a length rebound in `__init__` is no claim. A parent may
build the block with another length, so a default bounds only an unbounded `Dim` (which fails
whatever the length): a block built longer under a bounded `Dim` within it exports, no error. Torch 2.13's
outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_IDS = "(torch.randint(0, 100, (2, 10)),)"


def _embeddings(signature: str, length: str = "max_positions") -> str:
    return f"""
class Block(torch.nn.Module):
    def forward(self, x):
        return x


class Embeddings(torch.nn.Module):
    def __init__(self, {signature}):
        super().__init__()
        self.embed = torch.nn.Embedding(100, 8)
        self.register_buffer("position_ids", torch.arange({length}).expand((1, -1)), persistent=False)
        self.positions = torch.nn.Embedding({length}, 8)

    def forward(self, input_ids):
        seq_length = input_ids.shape[-1]
        return self.embed(input_ids) + self.positions(self.position_ids[:, :seq_length])
"""


def _pair(name: str, block: str, fails: bool = True) -> list[Program]:
    """The block of another file under an unbounded `Dim` and one within the length."""
    made = {"params": "ids", "block": block, "top": "from .blocks import Embeddings", "init": "self.inner = Embeddings()"}
    return [Program(f"{name}-unbounded", "return self.inner(ids)", _IDS, '{"ids": {1: Dim("seq")}}', fails=fails,
                    **made),
            Program(f"{name}-within", "return self.inner(ids)", _IDS, '{"ids": {1: Dim("seq", max=60)}}',
                    fails=False, **made)]


_HERE = """
def __init__(self, max_positions=64):
    super().__init__()
    self.register_buffer("position_ids", torch.arange(max_positions).expand((1, -1)), persistent=False)
"""

PROGRAMS: list[Program] = [
    *_pair("file-positional-default", _embeddings("max_positions=64")),
    *_pair("file-keyword-only-default", _embeddings("*, max_positions=64")),
    Program("here-default-unbounded", "n = x.size(1)\nreturn x + self.position_ids[:, :n]", "(torch.randn(2, 10),)",
            '{"x": {1: Dim("n")}}', fails=True, methods=_HERE),
    Program("here-default-within", "n = x.size(1)\nreturn x + self.position_ids[:, :n]", "(torch.randn(2, 10),)",
            '{"x": {1: Dim("n", max=32)}}', fails=False, methods=_HERE),
    Program("file-rebound-in-init-within", "return self.inner(ids)", _IDS, '{"ids": {1: Dim("seq", max=100)}}',
            fails=False, params="ids", block=_embeddings("max_positions=64").replace(
                "super().__init__()", "super().__init__()\n        max_positions = max_positions * 2"),
            top="from .blocks import Embeddings", init="self.inner = Embeddings()"),
    # built longer than the default: a bounded `Dim` within the built length exports, and no claim is made
    Program("file-built-longer-within", "return self.inner(ids)", _IDS, '{"ids": {1: Dim("seq", max=100)}}',
            fails=False, params="ids", block=_embeddings("max_positions=64"), top="from .blocks import Embeddings",
            init="self.inner = Embeddings(max_positions=128)"),
]

BATCH = ProgramBatch("bufferdefaults", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
