"""A number read from tensor data handed to a function cached with `functools.lru_cache` /
`functools.cache` fails non-strict export: the cache hashes it, and there is no concrete value
(measured on torch 2.13: "unhashable type: non-nested SymInt" for an integer read, a guard on data for
a float). Strict export exports some such calls (a plain `.item()`) and fails others, so XPT203 claims
non-strict only. Each spelling's torch outcome is checked in the same test, both modes."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("import functools\nfrom functools import lru_cache", exporting_last_module)
case = CASES.case

case("float-read-to-a-cached-function", "GuardOnDataDependentSymNode", None, """
@functools.cache
def _scale(v):
    return v * 2


class A(nn.Module):
    def forward(self, x):
        return x * _scale(x.max().item())
""")

case("integer-read-bound-first-to-an-lru-cache", "TypeError", None, """
@lru_cache(maxsize=8)
def _scale(k):
    return k + 1


class A(nn.Module):
    def forward(self, x):
        k = x.argmax().item()
        return x * _scale(k)
""")

case("read-unpacked-then-cached", "TypeError", None, """
@functools.lru_cache(maxsize=None)
def _offset(k):
    return k * 2


class A(nn.Module):
    def forward(self, x):
        first, _ = (x > 0).sum(dim=0)[:2].tolist()
        return x + _offset(first)
""")

case("static-size-to-a-cached-window-exports", None, None, """
@functools.lru_cache(maxsize=8)
def _window(n):
    return torch.hann_window(n)


class A(nn.Module):
    def forward(self, x):
        return x * _window(x.shape[-1])
""")

case("read-to-an-uncached-function-exports", None, None, """
def _scale(v):
    return v * 2


class A(nn.Module):
    def forward(self, x):
        return x * _scale(x.max().item())
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
