"""`len()` of the list `.tolist()` reads from a tensor is the tensor's first size, not data:
measured on torch 2.13, each test of it exports non-strict (a static first size); strict exports it
for a tensor of integers and fails on the `.tolist()` of a float tensor (Unsupported, whatever the
list is used for: XPT203 reads the float example input `xport_example()` returns); a list built
from the elements by a comprehension filtered on data stays data (non-strict fails on the filter)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("")

_MODEL = """
def has_many(values):
    return len(values) > 1


class Model(nn.Module):
    def forward(self, x):
{body}


def xport_example():
    return Model(), ({example},)


def xport_inputs():
    return [({example},)]
"""

_STRICT_ONLY = (None, "Unsupported")
_FLOATS, _INTEGERS = "torch.randn(4)", "torch.arange(4)"
#: (name, the body of forward, the example input, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("len-inline", "if len(x.tolist()) > 1:\n    return x + 1\nreturn x - 1", _FLOATS, *_STRICT_ONLY),
    ("len-bound-first", "values = x.tolist()\nif len(values) > 1:\n    return x + 1\nreturn x - 1", _FLOATS,
     *_STRICT_ONLY),
    ("len-negated", "values = x.tolist()\nif not len(values) == 0:\n    return x + 1\nreturn x - 1", _FLOATS,
     *_STRICT_ONLY),
    ("len-through-a-helper", "if has_many(x.tolist()):\n    return x + 1\nreturn x - 1", _FLOATS, *_STRICT_ONLY),
    ("len-equals-zero", "if len(x.tolist()) == 0:\n    return x - 1\nreturn x + 1", _FLOATS, *_STRICT_ONLY),
    ("len-of-a-2d-tolist", "rows = x.tolist()\nif len(rows) > 1:\n    return x + 1\nreturn x - 1", "torch.randn(4, 3)",
     *_STRICT_ONLY),
    ("len-unpacked", "values, bias = x.tolist(), 1\nif len(values) > bias:\n    return x + 1\nreturn x - 1", _FLOATS,
     *_STRICT_ONLY),
    ("len-of-an-integer-tolist", "if len(x.tolist()) > 1:\n    return x + 1\nreturn x - 1", _INTEGERS, None, None),
    ("len-of-a-data-filtered-comprehension",
     "kept = [v for v in x.tolist() if v > 0]\nif len(kept) > 1:\n    return x + 1\nreturn x - 1", _FLOATS,
     "GuardOnDataDependentSymNode", "Unsupported"),
]
for name, body, example, non_strict, strict in _SPELLINGS:
    indented = "\n".join(" " * 8 + line for line in body.splitlines())
    CASES.case(name, non_strict, strict, _MODEL.format(body=indented, example=example))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()

#: the length tested by a function of another file, given the list (`blocks.py`, which the model
#: file's `Block` import needs)
_OTHER_FILE = "class Block(torch.nn.Module):\n    def forward(self, x):\n        return x\n\n\ndef has_many(values):\n    return len(values) > 1\n"
_OTHER_FILE_BODY = "if has_many(x.tolist()):\n    return x + 1\nreturn x - 1"
OTHER_FILE_PROGRAMS = [
    Program("other-file-helper-integers", _OTHER_FILE_BODY, "(torch.arange(4),)", "None", fails=False,
            block=_OTHER_FILE, top="from .blocks import has_many"),
    Program("other-file-helper-floats", _OTHER_FILE_BODY, "(torch.randn(4),)", "None", fails=False, strict_fails=True,
            violation=False, block=_OTHER_FILE, top="from .blocks import has_many"),
]
#: the export call's float example gives the dtype: strict's failure at `.tolist()` is XPT203 (dtypes.py)
OTHER_FILE_BATCH = ProgramBatch("tolistlen", {"other-file": OTHER_FILE_PROGRAMS}, {})
test_other_file_error_exactly_where_export_fails = OTHER_FILE_BATCH.error_exactly_where_export_fails()
