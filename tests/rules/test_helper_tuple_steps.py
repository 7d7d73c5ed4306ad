"""Numbers read from data unpacked from a helper's returned tuple (`lo, hi = _bounds(x)`), then
tested: the step writes the tuple at the call (`lo, hi = x.min().item(), x.max().item()`), which
the branch rewrites then bind to the tensors they read (rewrites.state.helper_tuple_at_call).
Each spelling's torch outcome is checked in the same test, both modes, and every fix offered
proven (export + equal to eager): a module-level helper, a `@staticmethod`, a negated test, a
ternary; the tuple bound whole and read only by constant indices (`stats = _stats(x); stats[1]`:
written at the call into one local per element); refused where a local of the helper would be
written without the parentheses it needs, the call passes an expression, or the tuple is read whole."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

case("module-helper-pair-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
def _bounds(t):
    return t.min().item(), t.max().item()


class A(nn.Module):
    def forward(self, x):
        lo, hi = _bounds(x)
        return (x - lo) / (hi - lo) if hi - lo > 1.0 else x - lo
""")

case("staticmethod-pair-negated-test", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    @staticmethod
    def _stats(t):
        return t.mean().item(), t.std().item()

    def forward(self, x):
        mean, std = self._stats(x)
        if not std > 1.0:
            return x - mean
        return (x - mean) / std
""")

case("method-pair-one-element-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def _peaks(self, t):
        return t.max().item(), t.min().item()

    def forward(self, x):
        top, _ = self._peaks(x)
        if top > 0.5:
            return x * 2
        return x
""")

case("helper-pair-of-an-expression-argument", 'GuardOnDataDependentSymNode', 'UserError', """
def _bounds(t):
    return t.min().item(), t.max().item()


class A(nn.Module):
    def forward(self, x):
        lo, hi = _bounds(x * 2)
        if hi - lo > 1.0:
            return x / (hi - lo)
        return x
""")

case("helper-local-needing-parentheses", 'GuardOnDataDependentSymNode', 'UserError', """
def _count_and_rows(t):
    mask = t.sum(dim=1) > 0
    return int(mask.sum()), t * mask.unsqueeze(1)


class A(nn.Module):
    def forward(self, x):
        count, rows = _count_and_rows(x)
        if count == 0:
            return x
        return rows / count
""")

case("helper-pair-of-shapes-tested", None, None, """
def _dims(t):
    return t.shape[0], t.shape[1]


class A(nn.Module):
    def forward(self, x):
        rows, cols = _dims(x)
        if rows * cols > 4:
            return x * 2
        return x
""")

case("module-helper-tuple-indexed", 'GuardOnDataDependentSymNode', 'UserError', """
def _stats(t):
    return t.mean().item(), t.std().item()


class A(nn.Module):
    def forward(self, x):
        stats = _stats(x)
        if stats[1] > 1.0:
            return (x - stats[0]) / stats[1]
        return x - stats[0]
""")

case("staticmethod-tuple-indexed-in-a-ternary", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    @staticmethod
    def _range(t):
        return t.min().item(), t.max().item()

    def forward(self, x):
        bounds = self._range(x)
        return x - bounds[0] if bounds[1] > 1.0 else x
""")

case("method-triple-indexed-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def _summary(self, t):
        return t.min().item(), t.mean().item(), t.max().item()

    def forward(self, x):
        summary = self._summary(x)
        if not summary[2] > 1.0:
            return x + 1
        return x / summary[2]
""")

case("helper-tuple-indexed-from-the-end", 'GuardOnDataDependentSymNode', 'UserError', """
def _stats(t):
    return t.mean().item(), t.std().item()


class A(nn.Module):
    def forward(self, x):
        stats = _stats(x)
        if stats[-1] > 1.0:
            return x / stats[-1]
        return x
""")

case("helper-tuple-indexed-and-passed-whole", 'GuardOnDataDependentSymNode', 'UserError', """
def _stats(t):
    return t.mean().item(), t.std().item()


def _spread(stats):
    return stats[1]


class A(nn.Module):
    def forward(self, x):
        stats = _stats(x)
        if stats[1] > 1.0:
            return x * _spread(stats)
        return x
""")

case("helper-tuple-of-sizes-indexed", None, None, """
def _dims(t):
    return t.shape[0], t.shape[1]


class A(nn.Module):
    def forward(self, x):
        dims = _dims(x)
        if dims[0] < dims[1]:
            return x.t()
        return x
""")

case("staticmethod-masked-pair-of-a-local-length-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    @staticmethod
    def _flatten(scores, labels, ignore):
        valid = labels != ignore
        return scores[valid], labels[valid]

    def forward(self, x):
        labels = (x > 0).long()
        scores, labels = self._flatten(x, labels, 0)
        if len(labels) == 0:
            return x.sum()
        return scores.sum() / len(labels)
""")

case("staticmethod-masked-pair-negated-size-test", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    @staticmethod
    def _flatten(scores, labels, ignore):
        valid = labels != ignore
        return scores[valid], labels[valid]

    def forward(self, x):
        labels = (x > 0).long()
        scores, labels = self._flatten(x, labels, 0)
        if not labels.shape[0] > 3:
            return x.sum()
        return scores.sum()
""")

case("module-helper-masked-pair-of-two-locals", 'GuardOnDataDependentSymNode', 'UserError', """
def _flatten(scores, labels, ignore):
    valid = labels != ignore
    kept = labels[valid]
    return scores[valid], kept


class A(nn.Module):
    def forward(self, x):
        labels = (x > 0).long()
        scores, labels = _flatten(x, labels, 0)
        if labels.numel() > 0:
            return scores.sum()
        return x.sum()
""")

case("method-masked-pair-of-a-local", 'GuardOnDataDependentSymNode', 'UserError', """
class A(nn.Module):
    def _flatten(self, scores, labels, ignore):
        valid = labels != ignore
        return scores[valid], labels[valid]

    def forward(self, x):
        labels = (x > 0).long()
        scores, labels = self._flatten(x, labels, 0)
        if len(labels) == 0:
            return x.sum()
        return scores.sum()
""")

case("staticmethod-pair-of-sizes-through-a-local", None, None, """
class A(nn.Module):
    @staticmethod
    def _sizes(scores, labels, ignore):
        rows = labels.shape[0]
        return scores.shape[1], rows

    def forward(self, x):
        labels = (x > 0).long()
        cols, rows = self._sizes(x, labels, 0)
        if len(x) == rows and cols > 2:
            return x * 2
        return x
""")

KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {
    "helper-pair-of-an-expression-argument": "the call passes an expression, which the tuple written at the call would"
    " compute once per element",
    "helper-tuple-indexed-from-the-end": "`stats[-1]`: an index from the end is not followed to its element",
    "helper-tuple-indexed-and-passed-whole": "the tuple is also read whole (`_spread(stats)`): no local per element",
    "helper-local-needing-parentheses": "the helper's local, written in, would need parentheses (`(t > 0).sum()`)",
}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
