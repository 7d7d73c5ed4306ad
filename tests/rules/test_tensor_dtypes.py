"""What a tensor holds decides two failures XPT203 reports (measured on torch 2.13): `.tolist()` of a
tensor that does not hold integers (floating point or booleans) fails strict export ("Tensor.tolist()
with non-integer tensor") and exports non-strict; of integers it exports in both modes. And
`torch.as_tensor` of a number or list read from data fails in both modes, whatever the dtype, where
`torch.tensor` of the same read exports. The dtype comes from the code that makes the tensor
(`dtypes.py`): a cast, the op, a factory, the export's example input, a buffer `__init__` keeps,
a helper's parameter where every call of the file passes one dtype; unknown -> no strict error. Each spelling's torch outcome is checked in the same test, both modes;
the `torch.as_tensor` -> `torch.tensor` fix is proven where offered."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, Program, ProgramBatch, exporting_last_module
from xport_lint.analyzers.model import Mode

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("", exporting_last_module)
case = CASES.case

# -- `.tolist()` of a tensor that is not integral: strict only --------------------------------------

case("mean-tolist-bound-first", None, "Unsupported", """
class A(nn.Module):
    def forward(self, x):
        means = x.mean(dim=0)
        values = means.tolist()
        return x * values[0]
""")

case("softmax-tolist-unpacked", None, "Unsupported", """
class A(nn.Module):
    def forward(self, x):
        a, b, c = x[0].softmax(dim=-1).tolist()
        return x * a
""")

case("tolist-in-a-helper-of-the-file", None, "Unsupported", """
def _weights(t):
    return (t / t.sum()).tolist()


class A(nn.Module):
    def forward(self, x):
        return x * _weights(x[0])[0]
""")

case("float-parameter-tolist-set-in-init", None, "Unsupported", """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.scale = nn.Parameter(torch.ones(3))

    def forward(self, x):
        return x * self.scale.tolist()[0]
""")

case("example-input-sum-tolist", None, "Unsupported", """
class A(nn.Module):
    def forward(self, x):
        return x * x.sum(dim=0).tolist()[0]


def xport_example():
    return {"model": A(), "args": (torch.randn(2, 3),)}
""")

case("negated-comparison-tolist", None, "Unsupported", """
class A(nn.Module):
    def forward(self, x):
        keep = ~(x[0] < 0)
        return x * keep.tolist()[0]
""")

case("to-float32-tolist", None, "Unsupported", """
class A(nn.Module):
    def forward(self, x):
        counts = (x > 0).sum(dim=0).to(torch.float32)
        return x * counts.tolist()[0]
""")

case("helper-parameter-given-a-softmax", None, "Unsupported", """
def _as_list(t):
    return t.tolist()


class A(nn.Module):
    def forward(self, x):
        probs = x[0].softmax(dim=-1)
        return x * _as_list(probs)[0]
""")

case("method-parameter-given-the-float-example-input", None, "Unsupported", """
class A(nn.Module):
    def _first_column(self, t):
        return t[:, 0].tolist()

    def forward(self, x):
        return x * self._first_column(x)[0]


def xport_example():
    return {"model": A(), "args": (torch.randn(2, 3),)}
""")

# near misses: integral, or the dtype is not known (no strict error claimed)
case("float-example-input-rebound-to-counts-exports", None, None, """
class A(nn.Module):
    def forward(self, x):
        x = (x > 0).sum(dim=0)
        return x.tolist()[0] + x


def xport_example():
    return {"model": A(), "args": (torch.randn(2, 3),)}
""")

case("float-buffer-replaced-by-counts-in-forward-exports", None, None, """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.counts = torch.zeros(3)

    def forward(self, x):
        self.counts = (x > 0).sum(dim=0)
        return x + self.counts.tolist()[0]
""")

case("floor-division-of-counts-tolist-exports", None, None, """
class A(nn.Module):
    def forward(self, x):
        halves = (x > 0).sum(dim=0).div(2, rounding_mode="floor")
        return x + halves.tolist()[0]
""")

case("helper-parameter-given-argmax-exports", None, None, """
def _as_list(t):
    return t.tolist()


class A(nn.Module):
    def forward(self, x):
        return x + _as_list(x.argmax(dim=-1))[0]
""")

case("helper-parameter-given-floats-and-integers-unknown", None, "Unsupported", """
def _as_list(t):
    return t.tolist()


class A(nn.Module):
    def forward(self, x):
        return x + _as_list(x.argmax(dim=-1))[0] + _as_list(x.sum(dim=0))[0]
""")

case("count-tolist-exports", None, None, """
class A(nn.Module):
    def forward(self, x):
        counts = (x > 0).sum(dim=0)
        return x + counts.tolist()[0]
""")

case("long-cast-of-a-mean-tolist-exports", None, None, """
class A(nn.Module):
    def forward(self, x):
        return x + x.mean(dim=0).long().tolist()[0]
""")

case("integer-example-input-tolist-exports", None, None, """
class A(nn.Module):
    def forward(self, x, idx):
        return x + idx.tolist()[0]


def xport_example():
    return {"model": A(), "args": (torch.randn(2, 3), torch.tensor([1, 2]))}


def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor([0, 1]))]
""")

case("arange-buffer-tolist-exports", None, None, """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("steps", torch.arange(3))

    def forward(self, x):
        return x + self.steps.tolist()[0]
""")

case("tolist-of-a-submodule-output-unknown-dtype", None, "Unsupported", """
class A(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        return x * self.proj(x)[0].tolist()[0]
""")

# -- `torch.as_tensor` of a read: both modes --------------------------------------------------------

case("as-tensor-of-an-item", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    def forward(self, x):
        return x + torch.as_tensor(x.min().item())
""")

case("as-tensor-of-an-integer-tolist-bound-first", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    def forward(self, x):
        counts = (x > 0).sum(dim=0).tolist()
        return x + torch.as_tensor(counts)
""")

case("as-tensor-of-an-element-unpacked", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    def forward(self, x):
        low, high = x.aminmax()
        span = torch.as_tensor(high.item() - low.item(), dtype=x.dtype)
        return x / span
""")

case("as-tensor-of-a-read-in-a-method", "GuardOnDataDependentSymNode", "UserError", """
class A(nn.Module):
    def _peak(self, t):
        return torch.as_tensor(t.abs().max().item())

    def forward(self, x):
        return x / self._peak(x)
""")

case("tensor-of-an-item-exports", None, None, """
class A(nn.Module):
    def forward(self, x):
        return x + torch.tensor(x.min().item(), dtype=x.dtype)
""")

case("as-tensor-of-a-tensor-exports", None, None, """
class A(nn.Module):
    def forward(self, x):
        return torch.as_tensor(x.sum(dim=0)) + x
""")

case("as-tensor-of-a-size-exports", None, None, """
class A(nn.Module):
    def forward(self, x):
        return x / torch.as_tensor(x.shape[-1])
""")

#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    ("helper-parameter-given-floats-and-integers-unknown", Mode.STRICT): (
        "the helper's calls pass an integer tensor and one whose dtype is not known (the input of a tuple-form"
        " example): their join is unknown, so no strict error is claimed"
    ),
    ("tolist-of-a-submodule-output-unknown-dtype", Mode.STRICT): (
        "a submodule's output dtype is not read (`nn.Linear` gives floats, a user module anything): unknown, so no"
        " strict error is claimed"
    ),
}
#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX: dict[str, str] = {}

BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()

_BLOCKS = """
class Block(torch.nn.Module):
    pass


def norms(t):
    return t.norm(dim=1).tolist()


def bias(t):
    return torch.as_tensor(t.mean().item())
"""

PROGRAMS: list[Program] = [
    Program("float-tolist-in-a-helper-of-another-file", "first, second = norms(x)\nreturn x * first",
            "(torch.randn(2, 3),)", "None", fails=False, strict_fails=True, violation=False, block=_BLOCKS,
            top="from .blocks import norms"),
    Program("as-tensor-of-a-read-in-a-helper-of-another-file", "return x - bias(x)", "(torch.randn(2, 3),)", "None",
            fails=True, violation=False, block=_BLOCKS, top="from .blocks import bias"),
]
PROJECT_BATCH = ProgramBatch("dtypes", {"projects": PROGRAMS}, {})
test_error_exactly_where_a_project_fails = PROJECT_BATCH.error_exactly_where_export_fails()
