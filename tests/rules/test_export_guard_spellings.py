"""Export guards spelt the ways real code spells them (issue 23's precision, transformers' masks):
`torch.compiler.is_compiling()` is True and `torch.jit.is_tracing()` False while torch.export traces,
in both modes (torch 2.13), so a test of tensor data behind `not <guard> and ...`, or on the side
of a conditional expression export does not take, is never evaluated. The guard bound to a name
first as an `or`/`and` of guards, through a flag of the module, inside a helper (`|=`, try/except
around an import), or in a conditional expression. Near misses: the same code without a guard that
is known while exporting (a flag of the module alone, `torch.jit.is_tracing()` alone), which fails.

Figures (BEFORE is this file run on the engine of `5dc9469`): exporting programs with an error,
non-strict 11/12 -> 0/12, strict 8/13 -> 0/13; failing programs with one 4/4 and 3/3 before and after."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_ARGS = "(torch.randn(2, 4), torch.ones(2, 4))"
_NONE = "None"
_BRANCH = "if not {flag} and torch.all(mask == 1):\n    return x\nreturn x * mask"

_IS_TRACING = """
def is_tracing(tensor=None):
    _is_tracing = torch.compiler.is_compiling() or torch.jit.is_tracing()
    if tensor is not None:
        _is_tracing |= isinstance(tensor, torch.fx.Proxy)
    return _is_tracing


def ignore_causal_mask(mask):
    if not is_tracing(mask) and torch.all(mask == 1):
        return True
    return False
"""

_TRY_COMPILING = """
def is_torchdynamo_compiling():
    try:
        import torch

        return torch.compiler.is_compiling()
    except Exception:
        try:
            import torch._dynamo as dynamo

            return dynamo.is_compiling()
        except Exception:
            return False
"""


def _guarded(name: str, flag: str, bound: str = "", fails: bool = False, **more: str) -> Program:
    body = (bound + "\n" if bound else "") + _BRANCH.format(flag=flag)
    return Program(name, body, _ARGS, _NONE, fails=fails, params="x, mask", violation=False, **more)


PROGRAMS: list[Program] = [
    _guarded("bound-or-tracing-first", "is_tracing", "is_tracing = torch.jit.is_tracing() or torch.compiler.is_compiling()"),
    _guarded("bound-or-compiling-first", "is_tracing", "is_tracing = torch.compiler.is_compiling() or torch.jit.is_tracing()"),
    _guarded("bound-or-two-compiler-guards", "busy",
             "busy = torch.compiler.is_exporting() or torch.compiler.is_compiling()"),
    _guarded("bound-or-of-a-flag-of-the-module", "skip", "skip = self.fast or torch.compiler.is_compiling()",
             init="self.fast = False"),
    _guarded("inline-or-chain", "(torch.jit.is_tracing() or torch.compiler.is_compiling())"),
    Program("bound-and-of-negations",
            "eager = not torch.compiler.is_compiling() and not torch.jit.is_tracing()\n"
            "if eager and torch.all(mask == 1):\n    return x\nreturn x * mask",
            _ARGS, _NONE, fails=False, params="x, mask"),
    Program("bound-then-augmented",
            "tracing = torch.jit.is_tracing()\ntracing |= torch.compiler.is_compiling()\n"
            + _BRANCH.format(flag="tracing"), _ARGS, _NONE, fails=False, params="x, mask"),
    Program("helper-with-augmented-flag", "if ignore_causal_mask(mask):\n    return x\nreturn x * mask",
            _ARGS, _NONE, fails=False, params="x, mask", top=_IS_TRACING),
    _guarded("helper-in-try-except", "is_torchdynamo_compiling()", top=_TRY_COMPILING),
    Program("ternary-compiling-first", "scale = 1.0 if torch.compiler.is_compiling() else float(x.abs().max())\n"
            "return x / scale", "(torch.randn(2, 4),)", _NONE, fails=False),
    Program("ternary-or-of-guards",
            "scale = 1.0 if (torch.jit.is_tracing() or torch.compiler.is_compiling()) else float(x.abs().max())\n"
            "return x / scale", "(torch.randn(2, 4),)", _NONE, fails=False),
    Program("ternary-not-compiling",
            "scale = float(x.abs().max()) if not torch.compiler.is_compiling() else 1.0\nreturn x / scale",
            "(torch.randn(2, 4),)", _NONE, fails=False),
    # near misses: no guard known while exporting
    _guarded("bound-flag-of-the-module-alone", "skip", "skip = self.fast", fails=True, init="self.fast = False"),
    _guarded("bound-tracing-alone", "tracing", "tracing = torch.jit.is_tracing()", fails=True),
    _guarded("bound-and-of-guards", "busy", "busy = torch.compiler.is_compiling() and torch.jit.is_tracing()",
             fails=True),
    Program("ternary-tracing-first", "scale = 1.0 if torch.jit.is_tracing() else float(x.abs().max())\n"
            "return x / scale", "(torch.randn(2, 4),)", _NONE, fails=True, strict_fails=False, violation=False),
]

BATCH = ProgramBatch("guardspelt", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
