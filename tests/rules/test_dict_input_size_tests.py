"""A size test on an entry of a nested input (a dict or tuple the example passes as one
argument) is judged like one on an input: `if inputs["pixels"].shape[0] > 8:` under a named
`Dim` on that entry narrows its range (ConstraintViolationError, both modes), read inline, bound
to a name first, indexed from a tuple, two deep, negated, through a helper of the same file and
in a block of another file; a range that decides the test exports, and a dict of Python options
the example passes beside the tensor stays Python values. Torch 2.13's outcome checked in the
same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_DICT = '({"pixels": torch.randn(4, 3)},)'
_NAMED = '{"inputs": {"pixels": {0: Dim("b")}}}'
_INLINE = 'if inputs["pixels"].shape[0] > 8:\n    return inputs["pixels"] * 2\nreturn inputs["pixels"] + 1'
_BLOCK = '''
import torch


class Block(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 8:
            return x * 2
        return x + 1
'''

PROGRAMS: list[Program] = [
    Program("dict-inline", _INLINE, _DICT, _NAMED, fails=True, params="inputs"),
    Program("dict-bound-first", "px = inputs['pixels']\nif px.shape[0] > 8:\n    return px * 2\nreturn px + 1",
            _DICT, _NAMED, fails=True, params="inputs"),
    Program("dict-negated-size-call", 'if not inputs["pixels"].size(0) > 8:\n    return inputs["pixels"] * 2\n'
            'return inputs["pixels"] + 1', _DICT, _NAMED, fails=True, params="inputs"),
    Program("tuple-indexed", "if pair[0].shape[0] > 8:\n    return pair[0] * pair[1]\nreturn pair[0] + pair[1]",
            "((torch.randn(4, 3), torch.ones(4, 3)),)", '{"pair": ({0: Dim("b")}, {0: Dim("b")})}',
            fails=True, params="pair", prelude="", ),
    Program("two-deep", 'if batch["pair"][1].shape[0] > 8:\n    return batch["pair"][1] * 2\nreturn batch["pair"][0]',
            '({"pair": (torch.randn(4, 3), torch.ones(4, 3))},)', '{"batch": {"pair": (None, {0: Dim("b")})}}',
            fails=True, params="batch"),
    Program("helper-same-file", 'if _big(inputs["pixels"]):\n    return inputs["pixels"] * 2\nreturn inputs["pixels"] + 1',
            _DICT, _NAMED, fails=True, params="inputs", top="def _big(t):\n    return t.shape[0] > 8"),
    Program("block-other-file", 'return self.block(inputs["pixels"])', _DICT, _NAMED, fails=True,
            params="inputs", init="self.block = Block()", block=_BLOCK),
    # near misses: the range decides the test, the entry is static, the tested entry is a Python number
    Program("range-decides", _INLINE, _DICT, '{"inputs": {"pixels": {0: Dim("b", max=8)}}}', fails=False,
            params="inputs"),
    Program("other-entry-dynamic", 'if inputs["pixels"].shape[1] > 8:\n    return inputs["mask"] * 2\n'
            'return inputs["mask"] + 1', '({"pixels": torch.randn(4, 3), "mask": torch.ones(4, 3)},)',
            '{"inputs": {"pixels": {0: Dim("b")}, "mask": {0: Dim("b")}}}', fails=False, params="inputs"),
    Program("number-entry", 'if inputs["scale"] > 1:\n    return inputs["pixels"] * inputs["scale"]\n'
            'return inputs["pixels"]', '({"pixels": torch.randn(4, 3), "scale": 2},)',
            '{"inputs": {"pixels": {0: Dim("b")}, "scale": None}}', fails=False, params="inputs"),
    Program("options-dict-not-an-input", 'if options["limit"] > 8:\n    return x * 2\nreturn x + 1',
            "(torch.randn(4, 3),)", '{"x": {0: Dim("b")}}', fails=False, params='x, options={"limit": 4}'),
    Program("key-membership", 'if "mask" in inputs:\n    return inputs["pixels"] * inputs["mask"]\n'
            'return inputs["pixels"]', '({"pixels": torch.randn(4, 3), "mask": torch.ones(4, 3)},)',
            '{"inputs": {"pixels": {0: Dim("b")}, "mask": {0: Dim("b")}}}', fails=False, params="inputs"),
]

BATCH = ProgramBatch("dictsize", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
