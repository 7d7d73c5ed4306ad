"""Each truth test starts from torch's global grad mode as the one before it found it.

A measured program can change that global state for good: constructing `torch.set_grad_enabled(False)`
(in `__init__`, say) switches grad mode off at once, before any `with`. Left off, it changes what the
next program's export does in the same worker: `torch.cond` with a branch returning its operand
exports with grad off and fails with it on (measured on torch 2.13), so outcomes would depend on
which tests a worker ran first.
"""

from __future__ import annotations

import sys
from collections.abc import Iterator

import pytest


@pytest.fixture(autouse=True)
def _grad_mode_restored() -> Iterator[None]:
    torch = sys.modules.get("torch")
    before = torch.is_grad_enabled() if torch is not None else True
    yield
    torch = sys.modules.get("torch")
    if torch is not None:
        torch.set_grad_enabled(before)
