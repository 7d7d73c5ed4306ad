"""A size test on a tensor whose size depends on data (`h = x[x > 0]`) has one verdict however
the size is spelled: `h.shape[0]`, `h.size(0)`, `h.size()[0]`, `len(h)`, `h.numel()`,
`h.size(dim=0)`, bound to a name first and negated, or through a helper of the file (XPT105;
export fails in both modes). On a value read from data that is no tensor (`h = x.tolist()`), a size
method was nothing while `.shape` was that value (XPT104): both raise (a list has neither), so
export fails, and both are now the value read. Each outcome measured on torch 2.13 in both modes in
`test_torch_says_what_is_recorded`; every fix offered is proven. Left out: `len(h)` bound to a name
first or in a helper, whose torch.cond fix rewrites only a `len` inside the predicate (rewrites/
predicates.py), so the one bound earlier stays and export still fails there."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

SIZES = {
    "shape-indexed": "h.shape[0]", "size-of-a-dim": "h.size(0)", "size-indexed": "h.size()[0]",
    "len": "len(h)", "numel": "h.numel()", "size-of-a-dim-by-keyword": "h.size(dim=0)",
}

for name, size in SIZES.items():
    case(f"{name}-of-a-masked-selection-tested", "GuardOnDataDependentSymNode", "UserError", f"""
class A(nn.Module):
    def forward(self, x):
        h = x[x > 0]
        if {size} > 1:
            return h * 2
        return h + 1
""")
    if name == "len":
        continue  # bound first or in a helper, its torch.cond fix keeps `len(h)`, which fails (reported)
    case(f"{name}-of-a-masked-selection-bound-to-a-name-first-negated", "GuardOnDataDependentSymNode", "UserError", f"""
class A(nn.Module):
    def forward(self, x):
        h = x[x > 0]
        big = {size} > 1
        if not big:
            return h + 1
        return h * 2
""")
    case(f"{name}-of-a-masked-selection-through-a-helper", "GuardOnDataDependentSymNode", "UserError", f"""
def _big(h):
    return {size} > 1


class A(nn.Module):
    def forward(self, x):
        h = x[x > 0]
        if _big(h):
            return h * 2
        return h + 1
""")

for name, size in [(n, s) for n, s in SIZES.items() if n != "len"]:  # a list has a length: see below
    case(f"{name}-of-a-list-read-from-data", "AttributeError", "Unsupported", f"""
class A(nn.Module):
    def forward(self, x):
        h = x.tolist()
        if {size} > 1:
            return x * 2
        return x + 1
""")

KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

_NOT_A_TENSOR = "the value tested is a Python list read from data: no rewrite makes it a tensor's size"

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    f"{name}-of-a-list-read-from-data": _NOT_A_TENSOR for name in SIZES if name != "len"
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
