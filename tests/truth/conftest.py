"""Each truth test starts from the torch global state a fresh process has: grad mode as the one
before it found it, and `nn.Module` without Dynamo's generation tagging.

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


@pytest.fixture(autouse=True)
def _modules_untagged() -> None:
    """Each truth test starts without Dynamo's generation tagging of `nn.Module`.

    Entering `torch.compile`'s context once patches `Module.__init__` and `Module.__setstate__` for
    the rest of the process, and strict export then refuses `copy.copy`/`copy.deepcopy` of a module
    (measured on torch 2.13: `copy.copy(self.proj)` exports in a fresh process and fails with
    "Attempted to inline function marked as skipped" after it), so outcomes would depend on which
    tests a worker ran first. The measured claim is the fresh process's."""
    torch = sys.modules.get("torch")
    if torch is None or getattr(torch.nn.Module, "___needs_generation_tag_patch", True):
        return
    module = torch.nn.Module
    for name in ("__init__", "__setstate__"):
        patched = getattr(module, name)
        original = dict(zip(patched.__code__.co_freevars, (c.cell_contents for c in patched.__closure__ or ()), strict=True))
        setattr(module, name, original["init" if name == "__init__" else "setstate"])
    module.___needs_generation_tag_patch = True
