"""An `isinstance` test says what a name holds where it holds and where it fails (issue 23,
held-out 3: demucs' `center_trim`). There `reference` is a tensor or an int length: `ref_size =
reference` in the `else` of `isinstance(reference, torch.Tensor)` is the int, and `delta =
tensor.size(-1) - ref_size` a difference of sizes, not tensor data, but `if delta < 0:` was a false
XPT101 error. Each spelling below exports on torch 2.13 in both modes (checked in the test); a
data test in the tensor branch, a number read from data in the other branch and a data test after
`if not isinstance(...): return` stay errors. Findings do not depend on the order of functions."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers import Config, check_source

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 8), torch.randn(2, 6))"
_SHAPES = '{"x": {0: Dim("b")}, "y": None}'
_CALLS = "return trim(x, y) + trim(x, 6)"

#: demucs' `center_trim`, reduced: `reference` a tensor or an int length
_ELSE = """
def trim(tensor, reference):
    if isinstance(reference, torch.Tensor):
        ref_size = reference.size(-1)
    else:
        ref_size = reference
    delta = tensor.size(-1) - ref_size
    if delta < 0:
        raise ValueError("shorter than the reference")
    return tensor[..., :ref_size]
"""
_NOT = """
def trim(tensor, reference):
    if not isinstance(reference, torch.Tensor):
        if tensor.size(-1) - reference < 0:
            raise ValueError("shorter than the reference")
        return tensor[..., :reference]
    return tensor[..., :reference.size(-1)]
"""
_EARLY_RETURN = """
def trim(tensor, reference):
    if isinstance(reference, torch.Tensor):
        return tensor[..., :reference.size(-1)]
    if tensor.size(-1) - reference < 0:
        raise ValueError("shorter than the reference")
    return tensor[..., :reference]
"""
_CONDITIONAL = """
def trim(tensor, reference):
    ref_size = reference.size(-1) if isinstance(reference, torch.Tensor) else reference
    if tensor.size(-1) - ref_size < 0:
        raise ValueError("shorter than the reference")
    return tensor[..., :ref_size]
"""
_NUMBERS = """
def trim(tensor, reference):
    if isinstance(reference, (int, float)):
        ref_size = int(reference)
    else:
        ref_size = reference.size(-1)
    if tensor.size(-1) - ref_size < 0:
        raise ValueError("shorter than the reference")
    return tensor[..., :ref_size]
"""
_FLAG = """
def trim(tensor, reference):
    is_tensor = torch.is_tensor(reference)
    if is_tensor:
        ref_size = reference.size(-1)
    else:
        ref_size = reference
    if tensor.size(-1) - ref_size < 0:
        raise ValueError("shorter than the reference")
    return tensor[..., :ref_size]
"""
_HELPER = """
def _is_tensor(value):
    return isinstance(value, torch.Tensor)


def trim(tensor, reference):
    if _is_tensor(reference):
        ref_size = reference.size(-1)
    else:
        ref_size = reference
    if tensor.size(-1) - ref_size < 0:
        raise ValueError("shorter than the reference")
    return tensor[..., :ref_size]
"""
_AND = """
def trim(tensor, reference):
    if not isinstance(reference, torch.Tensor) and tensor.size(-1) < reference:
        raise ValueError("shorter than the reference")
    length, ref = tensor.size(-1), reference
    return tensor[..., :ref.size(-1)] if isinstance(ref, torch.Tensor) else tensor[..., :min(length, ref)]
"""
#: true errors beside them
_DATA_IN_THE_TENSOR_BRANCH = """
def trim(tensor, reference):
    if isinstance(reference, torch.Tensor):
        if reference.sum() > 0:
            return tensor * 2
        ref_size = reference.size(-1)
    else:
        ref_size = reference
    return tensor[..., :ref_size]
"""
_DATA_AFTER_A_RETURN = """
def trim(tensor, reference):
    if not isinstance(reference, torch.Tensor):
        return tensor[..., :reference]
    if reference.max() > 0:
        return tensor * 2
    return tensor
"""


def _program(name: str, top: str, fails: bool, body: str = _CALLS) -> Program:
    return Program(name, body, _ARGS, _SHAPES, fails=fails, top=top, params="x, y", violation=False)


PROGRAMS: list[Program] = [
    _program("else-branch", _ELSE, False),
    _program("if-not", _NOT, False),
    _program("early-return", _EARLY_RETURN, False),
    _program("conditional-expression", _CONDITIONAL, False),
    _program("python-numbers", _NUMBERS, False),
    _program("flag-bound-first", _FLAG, False),
    _program("through-a-helper", _HELPER, False),
    _program("and-side", _AND, False),
    Program(
        "else-branch-another-file",
        _CALLS,
        _ARGS,
        _SHAPES,
        fails=False,
        top="from .blocks import trim",
        params="x, y",
        violation=False,
        block=_ELSE + "\n\nclass Block(torch.nn.Module):\n    pass\n",
    ),
    # true errors beside them
    _program("data-in-the-tensor-branch", _DATA_IN_THE_TENSOR_BRANCH, True),
    _program("data-after-a-return", _DATA_AFTER_A_RETURN, True),
    _program("number-read-from-data-in-the-else-branch", _ELSE, True, body="return trim(x, int(y.sum()))"),
]

BATCH = ProgramBatch("isinstnarrow", {"programs": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()


def test_findings_do_not_depend_on_the_order_of_functions() -> None:
    """The helper after its caller, and two helpers in either order: the same errors."""
    first = _DATA_AFTER_A_RETURN.replace("def trim(", "def trim_data(")
    forward = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x, y):\n"
    forward += "        return trim(x, y) + trim(x, 6) + trim_data(x, y)\n"
    orders = [_ELSE + first, first + _ELSE]
    seen = []
    for helpers in orders:
        for source in (forward + helpers, "import torch\n" + helpers + forward.removeprefix("import torch\n")):
            found = check_source(source, "m.py", Config(select=("ALL",)))
            seen.append(
                sorted(
                    (f.code, source.splitlines()[f.span.start.line - 1].strip())
                    for f in found
                    if f.severity.value == "error"
                )
            )
    assert seen[0] == [("XPT101", "if reference.max() > 0:")]
    assert all(found == seen[0] for found in seen), seen
