"""A convolution whose kernel and stride are arguments of its block's `__init__` (XPT307 through
shapes.py's size terms): the block built with its defaults runs the defaults (a positional or
keyword argument of the convolution, keyword-only in `__init__`, inside an `nn.Sequential`, a
block of another file, kept as `self.kernel_size` first), or fields of the configuration class it
is built from (`config.kernel_size`, `self.config.kernel_size`, their defaults in a dataclass);
the model built with a literal (by keyword or position, kept as `self.kernel_size` too, by a
helper of the file, or a configuration built with a smaller field) runs that value (an average
pool's window too), and with a
name, one the shapes do not read: nothing is said. Blocks and configurations built in another
file: tests/project/test_conv_defaults_across_files.py. Torch 2.13's outcome checked
in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import Program, ProgramBatch

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_LINE = "(torch.randn(2, 4, 16),)"
_STEM = """
class Stem(torch.nn.Module):
    def __init__(self, in_channels=4, kernel_size=5):
        super().__init__()
        self.conv = torch.nn.Conv1d(in_channels, 8, kernel_size)

    def forward(self, x):
        return torch.relu(self.conv(x))
"""
_STRIDED_KEYWORDS = """
class Down(torch.nn.Module):
    def __init__(self, kernel_size=3, stride=2):
        super().__init__()
        self.conv = torch.nn.Conv1d(4, 4, kernel_size=kernel_size, stride=stride)

    def forward(self, x):
        return self.conv(x)
"""
_KEYWORD_ONLY = """
class Stem(torch.nn.Module):
    def __init__(self, *, kernel_size=5):
        super().__init__()
        self.conv = torch.nn.Conv1d(4, 8, kernel_size)

    def forward(self, x):
        return self.conv(x) * 2
"""
_SEQUENTIAL = """
class Stem(torch.nn.Module):
    def __init__(self, kernel_size=5):
        super().__init__()
        self.net = torch.nn.Sequential(torch.nn.Conv1d(4, 8, kernel_size), torch.nn.ReLU())

    def forward(self, x):
        return self.net(x)
"""
_KEPT = """
class Stem(torch.nn.Module):
    def __init__(self, kernel_size=5):
        super().__init__()
        self.kernel_size = kernel_size
        self.conv = torch.nn.Conv1d(4, 8, self.kernel_size)

    def forward(self, x):
        return torch.relu(self.conv(x))
"""
_CONFIGURED = """
from dataclasses import dataclass


@dataclass
class StemConfig:
    kernel_size: int = 7
    stride: int = 2


class Stem(torch.nn.Module):
    def __init__(self, config: StemConfig = StemConfig()):
        super().__init__()
        self.config = config
        self.conv = torch.nn.Conv1d(4, 8, self.config.kernel_size, stride=config.stride)

    def forward(self, x):
        return self.conv(x)
"""
_POOLED = """
class Pool(torch.nn.Module):
    def __init__(self, kernel_size=2):
        super().__init__()
        self.pool = torch.nn.AvgPool1d(kernel_size)

    def forward(self, x):
        return self.pool(x)
"""
_SMALL_STEM = """

def small_stem():
    return Stem(kernel_size=3)
"""
_BLOCK = "class Block(torch.nn.Module):\n    def forward(self, x):\n        return x\n" + _STEM


def _stem(name: str, top: str, low: int, fails: bool, built: str = "Stem()", strict_fails: bool | None = None,
          bound_first: str = "") -> Program:
    init = f"{bound_first}\nself.stem = {built}" if bound_first else f"self.stem = {built}"
    return Program(name, "return self.stem(x)", _LINE, f'{{"x": {{2: Dim("t", min={low})}}}}', fails=fails,
                   strict_fails=strict_fails, top="KERNEL = 3\n" + top, init=init)


PROGRAMS: list[Program] = [
    # built with its defaults: the defaults decide
    _stem("default-kernel-below", _STEM, 4, True),
    _stem("default-kernel-enough", _STEM, 6, False),
    _stem("keyword-kernel-and-stride", _STRIDED_KEYWORDS, 2, True, "Down()"),
    _stem("keyword-kernel-and-stride-enough", _STRIDED_KEYWORDS, 5, False, "Down()"),
    _stem("keyword-only-default", _KEYWORD_ONLY, 5, True),
    _stem("keyword-only-enough", _KEYWORD_ONLY, 6, False),
    _stem("sequential-default", _SEQUENTIAL, 5, True),
    _stem("sequential-enough", _SEQUENTIAL, 6, False),
    Program("file-default-kernel", "return self.stem(x)", _LINE, '{"x": {2: Dim("t", min=4)}}', fails=True,
            block=_BLOCK, top="from .blocks import Stem", init="self.stem = Stem()"),
    _stem("config-fields", _CONFIGURED, 6, True),
    _stem("config-fields-one-long", _CONFIGURED, 7, True, strict_fails=False),
    _stem("config-fields-enough", _CONFIGURED, 9, False),
    # built by a class of the file with another value: that value decides
    _stem("built-smaller-by-keyword", _STEM, 4, False, "Stem(kernel_size=3)"),
    _stem("built-smaller-by-position", _STEM, 4, False, "Stem(4, 3)"),
    _stem("built-smaller-still-short", _STEM, 3, True, "Stem(kernel_size=3)"),
    _stem("built-larger-by-keyword", _STEM, 6, True, "Stem(kernel_size=7)"),
    _stem("built-with-the-default", _STEM, 4, True, "Stem(kernel_size=5)"),
    _stem("built-from-a-name", _STEM, 4, False, "Stem(kernel_size=KERNEL)"),
    _stem("kept-default", _KEPT, 4, True),
    _stem("kept-built-smaller", _KEPT, 4, False, "Stem(kernel_size=3)"),
    # built smaller outside an `__init__` (a helper of the file), or from a configuration built
    # with a smaller field: every call of the file counts
    _stem("built-smaller-by-helper", _STEM + _SMALL_STEM, 4, False, "small_stem()"),
    _stem("config-built-smaller", _CONFIGURED, 4, False, "Stem(StemConfig(kernel_size=3, stride=1))"),
    _stem("config-built-smaller-bound-first", _CONFIGURED, 4, False, "Stem(config)",
          bound_first="config = StemConfig(kernel_size=3, stride=1)"),
    # a pool's window read the same way: 1 long at the low end fails non-strict export only
    _stem("pool-default-one-long", _POOLED, 2, True, "Pool()", strict_fails=False),
    _stem("pool-default-enough", _POOLED, 4, False, "Pool()"),
    _stem("pool-built-larger-one-long", _POOLED, 4, True, "Pool(kernel_size=3)", strict_fails=False),
    _stem("pool-built-smaller", _POOLED, 2, False, "Pool(1)"),
]

BATCH = ProgramBatch("convdefaults", {"spellings": PROGRAMS}, {})
test_error_exactly_where_export_fails = BATCH.error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
