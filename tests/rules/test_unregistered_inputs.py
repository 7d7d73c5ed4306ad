"""XPT416: an example input that builds a class of the file that is no pytree node (a plain
dataclass or class, unregistered) fails export in both modes (measured on torch 2.13: ValueError
non-strict, UserError strict), as a positional or keyword input, bound to a name first, or inside a
list; a registered dataclass and a namedtuple export. Each spelling's torch outcome is checked in the
same test, both modes. The fix (registering the dataclass after its definition) gives the source of
`registered-dataclass-exports`, measured to export in both modes; the harness's fix proof is not run
here: it feeds the fixed module inputs the original module built, instances of the class it left
unregistered (the keyword case, whose inputs hold no such instance, proves out)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import collections\nimport dataclasses")
case = CASES.case

_BATCH = """
@dataclasses.dataclass
class Batch:
    features: torch.Tensor
    scale: torch.Tensor


class Head(nn.Module):
    def forward(self, batch):
        return batch.features * batch.scale
"""

case("dataclass-bound-to-a-name-first", "ValueError", "UserError", _BATCH + """

def xport_example():
    batch = Batch(torch.randn(2, 3), torch.randn(2, 3))
    return {"model": Head(), "args": (batch,)}


def xport_inputs():
    return [(Batch(torch.randn(2, 3), torch.randn(2, 3)),)]
""")

case("dataclass-in-an-export-call", "ValueError", "UserError", _BATCH + """

def export_head():
    return torch.export.export(Head(), (Batch(torch.randn(2, 3), torch.randn(2, 3)),))


def xport_example():
    return {"model": Head(), "args": (Batch(torch.randn(2, 3), torch.randn(2, 3)),)}


def xport_inputs():
    return [(Batch(torch.randn(2, 3), torch.randn(2, 3)),)]
""")

case("dataclass-as-a-keyword-input", "ValueError", "UserError", """
@dataclasses.dataclass
class Extra:
    bias: torch.Tensor


class Head(nn.Module):
    def forward(self, x, extra=None):
        return x + extra.bias


def xport_example():
    return {"model": Head(), "args": (torch.randn(2, 3),), "kwargs": {"extra": Extra(torch.randn(2, 3))}}


def xport_inputs():
    return [(torch.randn(2, 3),)]
""")

case("dataclasses-in-a-list", "ValueError", "UserError", """
@dataclasses.dataclass
class Item:
    features: torch.Tensor


class Head(nn.Module):
    def forward(self, items):
        return items[0].features + items[1].features


def xport_example():
    return {"model": Head(), "args": ([Item(torch.randn(2, 3)), Item(torch.randn(2, 3))],)}


def xport_inputs():
    return [([Item(torch.randn(2, 3)), Item(torch.randn(2, 3))],)]
""")

case("registered-dataclass-exports", None, None, _BATCH + """

torch.export.register_dataclass(Batch)


def xport_example():
    return {"model": Head(), "args": (Batch(torch.randn(2, 3), torch.randn(2, 3)),)}
""")

case("namedtuple-input-exports", None, None, """
Pair = collections.namedtuple("Pair", ["left", "right"])


class Head(nn.Module):
    def forward(self, pair):
        return pair.left * pair.right


def xport_example():
    return {"model": Head(), "args": (Pair(torch.randn(2, 3), torch.randn(2, 3)),)}
""")

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
