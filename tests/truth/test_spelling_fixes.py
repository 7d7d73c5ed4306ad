"""A fix offered on another spelling of a rule example is proven as the example's own is: the
fixed code exports where the original fails and computes what eager computes, on the example's
inputs and on its `other_args` (the other branch, another size).

The variants come from tests/engine/test_spellings.py (a flagged expression bound to a name on
the line before, unpacked from a tuple, passed through a helper, an `if`/`else` negated, a
statement split in two, a threshold read from a `self.` attribute); one per rule and kind whose
fix is still offered, proven with real torch (bench/spelling.py proves every one).
"""

from __future__ import annotations

import functools

import pytest

from tests.conftest import all_cases
from tests.engine.test_spellings import VARIANTS, Variant, difference, verdict
from tests.truth.harness import prove_snippet
from xport_lint.analyzers.rule import Invalid, Rule

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

#: the inputs that drive each example's other branch or size, by its source
_OTHER_ARGS = {
    case.source: case.other_args for _, case, _ in all_cases() if isinstance(case, Invalid) and case.other_args
}


def _sample() -> list[Variant]:
    """The first variant of each (rule, kind) whose original has a fix and that keeps it (of
    examples exported through `xport_example()`, as the proof runs them)."""
    chosen: dict[tuple[str, str], Variant] = {}
    for variant in VARIANTS:
        key = (variant.rule.CODE, variant.kind)
        if key in chosen or variant.files or variant.rule.SCOPE.value != "traced":
            continue  # a package (another file's helper) is not what the proof loads
        if "def xport_example(" not in variant.source:
            continue
        if any(fixed for _, fixed in verdict(variant.original, variant.rule.CODE)) and difference(variant) is None:
            chosen[key] = variant
    return list(chosen.values())


def with_inputs(variant: Variant) -> str:
    """The variant with `xport_inputs()` giving its example's `other_args`, as the proof reads them
    (a snippet of the fix corpus has its own)."""
    if "def xport_inputs(" in variant.source:
        return variant.source
    other = _OTHER_ARGS.get(variant.original)
    return variant.source + f"\ndef xport_inputs():\n    return [{other}]\n" if other else (
        variant.source + "\ndef xport_inputs():\n    return []\n"
    )


@pytest.mark.parametrize("variant", [pytest.param(v, id=f"{v.case_id}-{v.kind}") for v in _sample()])
def test_the_fix_of_a_spelling_variant_is_proven(variant: Variant) -> None:
    original, why = original_proof(variant.original)
    if original != "proven":  # the example's own fix does not pass this proof: nothing to compare
        pytest.skip(f"the example itself: {original}: {why[:120]}")
    proof, detail = prove_snippet(with_inputs(variant))
    assert proof == "proven", f"{proof}: {detail}\n--- variant:\n{variant.source}"


@functools.cache
def original_proof(source: str) -> tuple[str, str]:
    return prove_snippet(with_inputs(Variant("", "", Rule, source, source)))


#: `count = mask.sum().item(); if count == 0: raise`, its test bound to a name, unpacked or
#: passed through a helper: `torch._check(not value)` would ask for the value (a guard on data)
_BOUND_CHECKS = [
    v for v in VARIANTS
    if v.rule.CODE == "XPT104" and "class CountCheck(" in v.original and v.kind in ("bind", "unpack", "helper")
]


@pytest.mark.parametrize("variant", [pytest.param(v, id=v.kind) for v in _BOUND_CHECKS])
def test_a_validation_test_bound_first_becomes_a_check_that_exports(variant: Variant) -> None:
    proof, detail = prove_snippet(with_inputs(variant))
    assert proof == "proven", f"{proof}: {detail}\n--- variant:\n{variant.source}"


#: spellings whose fix once left the number behind (the test read through a name, a tuple or a
#: helper): each is proven, whatever the sample above picks. (original, kinds) by the example's
#: class; the fact each exercises in the comment
_THROUGH_NAMES = {
    # `count = int(mask.sum())` then `value = count > 0; if value:`: both become tensors
    "class Density(": ("bind", "unpack", "helper"),
    # `value = int(ids.max()) >= self.vocab; if value: raise`: `int()` cannot be carried as a symbol
    "class Lookup(": ("bind", "unpack", "split"),
    # `value = peak > 1.0; if value: x = x / peak`: `peak` read by the test's binding and the branch
    "class MaxNormalize(": ("bind", "unpack", "helper"),
    # `while _h(i < limit):`: the helper's `return`, read at the call, binds `limit` as its tensor
    "class Accumulate(": ("helper",),
    # `self.experts[_h(best)](x)`
    "class HardRoute(": ("helper",),
    # `value = len(x); for i in range(value):` under a dynamic batch: `len()` would pin it
    "class PerRowLoop(": ("bind", "unpack"),
    # `value = bool(negative.any())` then `-x if value else x`: torch.where of the bound tensor
    "class Flip(": ("bind", "unpack"),
    # `int(size.item())` / `int(lengths.max())` reaching a size through a name, a tuple, a helper
    "class Resize(": ("bind", "unpack", "helper"),
    "class Trim(": ("bind", "unpack", "helper"),
}
_FIXED_THROUGH_NAMES = [
    v for v in VARIANTS
    if v.rule.CODE in ("XPT104", "XPT203", "XPT204", "XPT302") and not v.files
    and any(marker in v.original and v.kind in kinds for marker, kinds in _THROUGH_NAMES.items())
    and "def xport_example(" in v.source
]


@pytest.mark.parametrize("variant", [pytest.param(v, id=f"{v.case_id}-{v.kind}") for v in _FIXED_THROUGH_NAMES])
def test_a_number_read_through_names_or_helpers_is_fixed_as_written_inline(variant: Variant) -> None:
    assert difference(variant) is None
    proof, detail = prove_snippet(with_inputs(variant))
    assert proof == "proven", f"{proof}: {detail}\n--- variant:\n{variant.source}"
