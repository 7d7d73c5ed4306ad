"""Entries of nested inputs (a dict or a tuple the example passes as one argument) are declared
and tied as inputs of their own: `{"batch": {"ids": {1: Dim("a")}, "mask": {1: Dim("b")}}}`
ties `a` to `b` where the entries broadcast (XPT305), a shared `Dim` exports; a `Linear`'s
input features tie the last size of an entry. Spelled read inline (`batch["ids"]`), bound to a
name first, unpacked from a tuple (`ids, mask = batch`), indexed (`pair[0]`), nested two deep,
declared by a tuple `dynamic_shapes`, through a variable, and at an export call; a `Dim` on
another dimension is the near miss. Torch 2.13's outcome checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.runner import size_facts

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_DICT = '({"ids": torch.randn(2, 7), "mask": torch.ones(2, 7)},)'
_TUPLE = "((torch.randn(2, 7), torch.ones(2, 7)),)"
_LINEAR = "self.proj = torch.nn.Linear(8, 4)"


def _pair(name: str, body: str, args: str, apart: str, shared: str, **more: str) -> list[Program]:
    """`body` under a `Dim` per entry (fails) and one shared `Dim` `s` (exports)."""
    prelude = more.pop("prelude", "")
    return [Program(f"{name}-apart", body, args, apart, fails=True, params="batch", prelude=prelude, **more),
            Program(f"{name}-shared", body, args, shared, fails=False, params="batch",
                    prelude=prelude + '\ns = Dim("s")', **more)]


PROGRAMS: list[Program] = [
    *_pair("dict-inline", 'return batch["ids"] * batch["mask"]', _DICT,
           '{"batch": {"ids": {1: Dim("a")}, "mask": {1: Dim("b")}}}', '{"batch": {"ids": {1: s}, "mask": {1: s}}}'),
    *_pair("dict-bound-first", 'ids = batch["ids"]\nmask = batch["mask"]\nreturn ids + mask', _DICT,
           '{"batch": {"ids": {1: Dim("a")}, "mask": {1: Dim("b")}}}', '{"batch": {"ids": {1: s}, "mask": {1: s}}}'),
    *_pair("tuple-unpacked", "ids, mask = batch\nreturn ids - mask", _TUPLE,
           '{"batch": ({1: Dim("a")}, {1: Dim("b")})}', '{"batch": ({1: s}, {1: s})}'),
    *_pair("tuple-indexed-by-tuple-shapes", "return batch[0] * batch[1]", _TUPLE,
           '(({1: Dim("a")}, {1: Dim("b")}),)', "(({1: s}, {1: s}),)"),
    *_pair("two-deep", 'return batch["pair"][0] + batch["pair"][1]',
           '({"pair": (torch.randn(2, 7), torch.ones(2, 7))},)',
           '{"batch": {"pair": ({1: Dim("a")}, {1: Dim("b")})}}', '{"batch": {"pair": ({1: s}, {1: s})}}'),
    Program("shapes-through-a-variable-apart", 'return batch["ids"] * batch["mask"]', _DICT, "shapes", fails=True,
            params="batch", prelude='entries = {"ids": {1: Dim("a")}, "mask": {1: Dim("b")}}\nshapes = {"batch": entries}'),
    Program("shapes-through-a-variable-shared", 'return batch["ids"] * batch["mask"]', _DICT, "shapes", fails=False,
            params="batch", prelude='s = Dim("s")\nentries = {"ids": {1: s}, "mask": {1: s}}\nshapes = {"batch": entries}'),
    Program("dict-entry-into-linear-width", 'features = batch["features"]\nreturn self.proj(features)',
            '({"features": torch.randn(3, 8)},)', '{"batch": {"features": {1: Dim("w")}}}', fails=True,
            params="batch", init=_LINEAR),
    Program("dict-entry-into-linear-rows", 'features = batch["features"]\nreturn self.proj(features)',
            '({"features": torch.randn(3, 8)},)', '{"batch": {"features": {0: Dim("b")}}}', fails=False,
            params="batch", init=_LINEAR),
    Program("tuple-entries-other-dim", "ids, mask = batch\nreturn ids[:, :1] - mask[:, :1]", _TUPLE,
            '{"batch": ({1: Dim("a")}, {1: Dim("b")})}', fails=False, params="batch"),
]

BATCH = ProgramBatch("nested", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()

_HOVERED = '''import torch
from torch.export import Dim


class M(torch.nn.Module):
    def forward(self, batch):
        ids, mask = batch
        n = ids.shape[1]
        return ids[:, :n] * mask.size(1)


def xport_example():
    seq = Dim("s", max=64)
    return {"model": M(), "args": ((torch.randn(2, 7), torch.ones(2, 7)),), "dynamic_shapes": {"batch": ({1: seq}, None)}}
'''


def test_hover_on_an_entry_size_shows_its_dim() -> None:
    """The hover reads the same facts: an entry's declared size shows its `Dim` and range, an
    entry declared static says so."""
    facts = {span.start.line: text for span, text in size_facts(_HOVERED, "model.py")}
    assert facts[8].startswith('`batch[0].shape[1]` is dynamic, `Dim("s", max=64)`: `s ∈ [2, 64]`'), facts
    assert facts[9].startswith("`batch[1].shape[1]` is static"), facts
