"""Symbolic shapes, a fourteenth batch written before the engine was touched, from what issue 24
left as library authors write it: `_assert`/`_check` helpers of another file with two statements
(called by name and through `blocks.`), convolutions whose kernel and stride come from a
constructor's defaults (diffusers' `Downsample2D`, a stem in this file) or a config dataclass
(transformers), two independently declared dims related by an op (`x + y[1:]`, a helper of another
file doing it, `x @ w`, `torch.bmm`, hidden states plus position embeddings), a fixed-length
`position_ids` buffer sliced by the sequence length (here and in a submodule of another file),
float arithmetic on sizes (`int(h / 1)`, torchvision's center crop `round((h - size) / 2.0)` in
another file, `round(b / 2.0)`), `torch.cond` with branch methods against its contract, the
declaration contradicting the example, and near misses where the range decides (`% 2` on `2 * c`,
a branch a preceding `torch._check` decides, an `assert` on a Python int input).

Each outcome was measured on torch 2.13.0 in both modes before the engine was touched, and torch
must still agree.

42 programs: 21 fail with a constraint violation non-strict and 17 strict, 5 fail otherwise in both
modes (`torch.cond`'s contract twice, an example above its `Dim`'s max, a rank mismatch, a derived
dim the example does not satisfy: `UserError`, not a constraint violation); 14 export non-strict
and 18 strict. Facts measured on the way: a `Conv2d(k=3, s=2)` under `Dim("h", min=3)` and a
`Conv1d(k=7, s=2)` under `min=7` fail non-strict only (the output is 1 long at the low end:
`1 + ((h - 3) // 2) != 1`), and export from `min=5` and `min=9`; a `Conv1d(k=5)` followed by
`torch.relu` under `min=5` fails in both modes and exports from `min=6`; `int(x.shape[-2] / 1)`
fails non-strict only (`Dim.DYNAMIC` and a named `Dim`: specialised to 16), strict exports it;
`round(b / 2.0)` exports under `Dim("b", min=5, max=10)` and fails under `Dim("b")`; the center
crop fails in both modes (non-strict: `round((h - 8) / 2.0) == 4`, torch suggests `min=12`);
`torch._check(cond, lambda: "...")` inside a helper fails strict export with
`AttributeError: 'function' object has no attribute 'is_quantized'` (the batch's helper passes no
message).

BEFORE (the engine at fa37fd7, nothing tuned for this batch): 13/21 constraint violations flagged
non-strict (62 %), 11/17 strict (65 %); 5/5 other failures in both modes; 0 false errors (of 14
exporting programs non-strict, 18 strict). Missed: convolutions whose kernel and stride are
`__init__` arguments with defaults (in this file and another, 4 non-strict, 3 strict) or fields of
a config dataclass (2 non-strict, 1 strict), a `position_ids` buffer of a submodule of another file
sliced by the sequence length, a center crop in a helper of another file.

AFTER: a convolution's kernel, stride, padding and dilation are read as shapes.py reads a layer's
other sizes (`Sizes.layer_integer`): a literal, an argument of `__init__` with an integer default
joined over the calls of the file that build the module (`Stem(kernel_size=3)` runs 3; calls
giving different values, or a name, leave it unknown), a constant `__init__` set, or a field of
the configuration class it is built from (`config.kernel_size`, `self.config.stride`: their
defaults, as a buffer's length is read); XPT307 judges the output at the range's low end from
those (tests/rules/test_conv_init_defaults.py: 17 programs, each measured in both modes) ->
19/21 constraint violations flagged non-strict (90 %), 15/17 strict (88 %); 5/5 other failures;
0 false errors (of 14 and 18 exporting programs). Left (KNOWN_MISSES): a default-sized buffer of a
submodule of another file against a bounded `Dim` (XPT306 counts a length from an `__init__`
default only against a `Dim` with no `max`: the parent in another file may build it with
another), and a center crop in a multi-statement helper of another file (the index carries
one-line helpers' returns only).
"""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


_BLOCKS = """
from dataclasses import dataclass


class Block(torch.nn.Module):
    def forward(self, x):
        return x


def check_image_size(x, size):
    _, _, height, width = x.shape
    torch._assert(height == size, "input height must match the model")


def check_heads(hidden, num_heads):
    width = hidden.shape[-1]
    torch._check(width % num_heads == 0)


class Downsample(torch.nn.Module):
    def __init__(self, channels=4, kernel_size=3, stride=2):
        super().__init__()
        self.conv = torch.nn.Conv2d(channels, channels, kernel_size, stride=stride)

    def forward(self, hidden_states):
        return self.conv(hidden_states)


@dataclass
class StemConfig:
    in_channels: int = 4
    hidden_size: int = 8
    kernel_size: int = 7
    stride: int = 2


class ConvStem(torch.nn.Module):
    def __init__(self, config=StemConfig()):
        super().__init__()
        self.conv = torch.nn.Conv1d(config.in_channels, config.hidden_size, config.kernel_size, stride=config.stride)

    def forward(self, x):
        return self.conv(x)


class TextEmbeddings(torch.nn.Module):
    def __init__(self, max_positions=64, width=8):
        super().__init__()
        self.position_embedding = torch.nn.Embedding(max_positions, width)
        self.register_buffer("position_ids", torch.arange(max_positions).expand((1, -1)), persistent=False)

    def forward(self, inputs_embeds):
        seq_length = inputs_embeds.shape[1]
        position_ids = self.position_ids[:, :seq_length]
        return inputs_embeds + self.position_embedding(position_ids)


def center_crop(image, size):
    _, h, w = image.shape[-3:]
    top = int(round((h - size) / 2.0))
    left = int(round((w - size) / 2.0))
    return image[..., top:top + size, left:left + size]


def shift_right(hidden, past):
    return hidden + past[1:]
"""
_IMAGE = "(torch.randn(2, 4, 16, 16),)"
_TOKENS = "(torch.randn(2, 16, 8),)"
_SEQUENCE = "(torch.randn(2, 4, 16),)"
_LOCAL_STEM = """
class Stem(torch.nn.Module):
    def __init__(self, in_channels=4, kernel_size=5):
        super().__init__()
        self.conv = torch.nn.Conv1d(in_channels, 8, kernel_size)

    def forward(self, x):
        return torch.relu(self.conv(x))
"""
_POSITION_IDS_INIT = """
self.register_buffer("position_ids", torch.arange(32).expand((1, -1)), persistent=False)
self.position_embedding = torch.nn.Embedding(32, 8)
"""
_POSITION_IDS_BODY = """
seq_length = x.size(1)
position_ids = self.position_ids[:, :seq_length]
return x + self.position_embedding(position_ids)
"""
_COND_METHODS = """
def scale_up(self, hidden):
    return hidden * 2

def scale_down(self, hidden):
    return hidden / 2

def split_heads(self, hidden):
    return hidden[:, :4], hidden[:, 4:]
"""


def _block(name: str, body: str, args: str, shapes: str, fails: bool, imported: str, **more: str) -> Program:
    """A program whose forward uses `imported` of `blocks.py`."""
    return Program(name, body, args, shapes, fails=fails, block=_BLOCKS, top=f"from .blocks import {imported}",
                   **more)


PROGRAMS: list[Program] = [
    # _assert/_check helpers of another file, two statements each
    _block("file-assert-image-height", "check_image_size(x, 16)\nreturn x * 2", _IMAGE, '{"x": {2: Dim("h")}}',
           True, "check_image_size"),
    _block("file-assert-image-batch", "check_image_size(x, 16)\nreturn x * 2", _IMAGE, '{"x": {0: Dim("b")}}',
           False, "check_image_size"),
    Program("file-assert-module-alias", "blocks.check_image_size(x, 16)\nreturn x.mean(-1)", _IMAGE,
            '{"x": {2: Dim("h", min=2, max=32)}}', fails=True, block=_BLOCKS, top="from . import blocks"),
    _block("file-check-heads-width", "check_heads(x, 2)\nB, N, C = x.shape\nreturn x.reshape(B, N, 2, C // 2)",
           _TOKENS, '{"x": {2: Dim("c")}}', True, "check_heads"),
    _block("file-check-heads-derived", "check_heads(x, 2)\nB, N, C = x.shape\nreturn x.reshape(B, N, 2, C // 2)",
           _TOKENS, '{"x": {2: 2 * c}}', False, "check_heads", prelude='c = Dim("c")'),
    # conv sizes from constructor defaults and a config
    _block("file-downsample-default-height", "return self.down(x)", _IMAGE, '{"x": {2: Dim("h")}}', True,
           "Downsample", init="self.down = Downsample()"),
    _block("file-downsample-height-from-3", "return self.down(x)", _IMAGE, '{"x": {2: Dim("h", min=3, max=64)}}',
           True, "Downsample", init="self.down = Downsample()", strict_fails=False),
    _block("file-downsample-height-from-5", "return self.down(x)", _IMAGE, '{"x": {2: Dim("h", min=5, max=64)}}',
           False, "Downsample", init="self.down = Downsample()"),
    _block("file-config-stem-length", "return self.stem(x)", _SEQUENCE, '{"x": {2: Dim("t", min=4)}}', True,
           "ConvStem", init="self.stem = ConvStem()"),
    _block("file-config-stem-length-from-7", "return self.stem(x)", _SEQUENCE, '{"x": {2: Dim("t", min=7)}}', True,
           "ConvStem", init="self.stem = ConvStem()", strict_fails=False),
    _block("file-config-stem-length-from-9", "return self.stem(x)", _SEQUENCE, '{"x": {2: Dim("t", min=9)}}', False,
           "ConvStem", init="self.stem = ConvStem()"),
    Program("default-kernel-stem-length", "return self.stem(x)", _SEQUENCE, '{"x": {2: Dim("t", min=3)}}', fails=True,
            top=_LOCAL_STEM, init="self.stem = Stem()"),
    Program("default-kernel-stem-length-from-5", "return self.stem(x)", _SEQUENCE, '{"x": {2: Dim("t", min=5)}}',
            fails=True, top=_LOCAL_STEM, init="self.stem = Stem()"),
    Program("default-kernel-stem-length-from-6", "return self.stem(x)", _SEQUENCE, '{"x": {2: Dim("t", min=6)}}',
            fails=False, top=_LOCAL_STEM, init="self.stem = Stem()"),
    # two independently declared dims related by an op
    Program("shifted-add-two-dims", "return x + y[1:]", "(torch.randn(4, 3), torch.randn(5, 3))",
            '{"x": {0: Dim("dx")}, "y": {0: Dim("dy")}}', fails=True, params="x, y"),
    Program("shifted-add-derived", "return x + y[1:]", "(torch.randn(4, 3), torch.randn(5, 3))",
            '{"x": {0: dx}, "y": {0: dx + 1}}', fails=False, params="x, y", prelude='dx = Dim("dx")'),
    _block("file-shift-right-two-dims", "return shift_right(hidden, past)", "(torch.randn(4, 3), torch.randn(5, 3))",
           '{"hidden": {0: Dim("s")}, "past": {0: Dim("p")}}', True, "shift_right", params="hidden, past"),
    Program("matmul-inner-two-dims", "return x @ w", "(torch.randn(2, 8), torch.randn(8, 4))",
            '{"x": {1: Dim("k1")}, "w": {0: Dim("k2")}}', fails=True, params="x, w"),
    Program("matmul-inner-shared", "return torch.matmul(x, w)", "(torch.randn(2, 8), torch.randn(8, 4))",
            '{"x": {1: k}, "w": {0: k}}', fails=False, params="x, w", prelude='k = Dim("k")'),
    Program("bmm-head-dims", "scores = torch.bmm(q, k.transpose(1, 2))\nreturn scores.softmax(-1)",
            "(torch.randn(2, 5, 8), torch.randn(2, 6, 8))", '{"q": {2: Dim("dq")}, "k": {2: Dim("dk")}}',
            fails=True, params="q, k"),
    Program("hidden-plus-positions", "seq_len = hidden_states.shape[1]\nreturn hidden_states + position_embeds",
            "(torch.randn(2, 6, 8), torch.randn(1, 6, 8))",
            '{"hidden_states": {1: Dim("seq")}, "position_embeds": {1: Dim("pos")}}', fails=True,
            params="hidden_states, position_embeds"),
    # a fixed-length buffer sliced by an input size
    _block("file-position-ids-beyond", "return self.embeddings(x)", _TOKENS, '{"x": {1: Dim("seq", max=128)}}', True,
           "TextEmbeddings", init="self.embeddings = TextEmbeddings()"),
    _block("file-position-ids-within", "return self.embeddings(x)", _TOKENS, '{"x": {1: Dim("seq", max=64)}}', False,
           "TextEmbeddings", init="self.embeddings = TextEmbeddings()"),
    Program("position-ids-unbounded", _POSITION_IDS_BODY, _TOKENS, '{"x": {1: Dim("seq")}}', fails=True,
            init=_POSITION_IDS_INIT),
    Program("position-ids-within", _POSITION_IDS_BODY, _TOKENS, '{"x": {1: Dim("seq", max=32)}}', fails=False,
            init=_POSITION_IDS_INIT),
    # float arithmetic on sizes
    Program("int-height-over-one", "height = int(x.shape[-2] / 1)\nreturn x.reshape(-1, height, x.shape[-1])",
            _IMAGE, '{"x": {2: Dim.DYNAMIC}}', fails=True, strict_fails=False),
    Program("int-height-over-one-named", "height = int(x.shape[-2] / 1)\nreturn x.reshape(-1, height, x.shape[-1])",
            _IMAGE, '{"x": {2: Dim("h")}}', fails=True, strict_fails=False),
    _block("file-center-crop-height", "return center_crop(x, 8)", _IMAGE, '{"x": {2: Dim("h")}}', True,
           "center_crop"),
    Program("round-half-bounded", "half = round(x.shape[0] / 2.0)\nreturn x[:half]", "(torch.randn(6, 3),)",
            '{"x": {0: Dim("b", min=5, max=10)}}', fails=False),
    Program("round-half-unbounded", "b = x.shape[0]\nhalf = round(b / 2.0)\nreturn x[:half]", "(torch.randn(6, 3),)",
            '{"x": {0: Dim("b")}}', fails=True),
    # torch.cond against its contract (branches as methods, as library code writes them)
    Program("cond-operands-arity", "return torch.cond(x.sum() > 0, self.scale_up, self.scale_down, (x, x))", _TOKENS,
            '{"x": {0: Dim("b")}}', fails=True, violation=False, methods=_COND_METHODS),
    Program("cond-branch-structures", "return torch.cond(x.sum() > 0, self.split_heads, self.scale_up, (x,))",
            _TOKENS, '{"x": {0: Dim("b")}}', fails=True, violation=False, methods=_COND_METHODS),
    Program("cond-matching-branches", "return torch.cond(x.sum() > 0, self.scale_up, self.scale_down, (x,))", _TOKENS,
            '{"x": {0: Dim("b")}}', fails=False, methods=_COND_METHODS),
    # the declaration contradicting the example
    Program("example-above-max", "return x * 2", "(torch.randn(8, 3),)", '{"x": {0: Dim("b", max=4)}}', fails=True,
            violation=False),
    Program("example-size-one", "return x * 2", "(torch.randn(1, 3),)", '{"x": {0: Dim("b")}}', fails=True),
    Program("rank-mismatch-tuple", "return x * 2", "(torch.randn(8, 3),)", '{"x": (Dim("b"), None, None)}', fails=True,
            violation=False),
    Program("derived-not-satisfied", "return x.sum() + y.sum()", "(torch.randn(4), torch.randn(6))",
            '{"x": {0: dx}, "y": {0: dx + 1}}', fails=True, params="x, y", prelude='dx = Dim("dx")',
            violation=False),
    # where the range decides: no error
    Program("derived-even-modulo", "if x.shape[2] % 2 == 0:\n    return x * 2\nreturn x", _TOKENS, '{"x": {2: 2 * c}}',
            fails=False, prelude='c = Dim("c")'),
    Program("check-then-decided-branch", "torch._check(x.shape[0] >= 4)\nif x.shape[0] > 2:\n    return x * 2\n"
            "return x", "(torch.randn(6, 3),)", '{"x": {0: Dim("b", min=4)}}', fails=False),
    Program("assert-int-input", "assert n > 0, \"n must be positive\"\nreturn x * n", "(torch.randn(3, 4), 2)",
            '{"x": {0: Dim("b")}, "n": None}', fails=False, params="x, n"),
]

#: (program, mode) -> why xport-lint's verdict still differs from torch's
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    **{("file-position-ids-beyond", m): "a buffer of a submodule of another file sliced by an input size"
       for m in Mode},
    **{("file-center-crop-height", m): "float arithmetic on sizes unpacked in a helper of another file"
       for m in Mode},
}


BATCH = ProgramBatch("shapes14", {"batch": PROGRAMS}, KNOWN_MISSES)
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
