"""A method torch.Tensor does not have (torch_sparse's `SparseTensor.nnz()`, a Python int) reads
no tensor data, whatever the engine took the receiver for: its value is unknown, and an unknown
value raises no error (torch_geometric utils/_spmm.py: `if src.nnz() == 0:` under
`isinstance(src, SparseTensor)`). The names are torch 2.13's `dir(torch.Tensor)`
(data/tensor_methods.json, its callable attributes: `nnz` is not among them, `_nnz` is; `is_cuda`
is a property, so `src.is_cuda()` is another object's method). Measured on torch 2.13, both
modes: a module whose held object's `nnz()` returns an int exports. A tensor's own method
(`src.sum() == 0`) keeps its error."""

from __future__ import annotations

import textwrap

import pytest

from xport_lint.analyzers import check_source
from xport_lint.analyzers.model import Severity
from xport_lint.analyzers.names import tensor_method_names

SPELLINGS = {
    "in the test": """
        def spmm(src, other):
            if src.nnz() == 0:
                return other.new_zeros(other.size(0))
            return other * 2
    """,
    "bound to a name first": """
        def spmm(src, other):
            count = src.nnz()
            if count == 0:
                return other.new_zeros(other.size(0))
            return other * 2
    """,
    "a property called as a method": """
        def spmm(src, other):
            if not src.is_cuda() and not src.requires_grad():
                return other.new_zeros(other.size(0))
            return other * 2
    """,
    "unpacked from a tuple": """
        def spmm(src, other):
            count, rows = src.nnz(), other.size(0)
            if count > rows:
                return other.new_zeros(rows)
            return other * 2
    """,
}
MODEL = """
    class Model(torch.nn.Module):
        def forward(self, adj, x):
            return spmm(adj, x)
"""


def _errors(helper: str) -> list[str]:
    code = "import torch\n" + textwrap.dedent(helper) + textwrap.dedent(MODEL)
    return [f"{f.span.start.line}:{f.code}" for f in check_source(code, "model.py") if f.severity is Severity.ERROR]


@pytest.mark.parametrize("spelling", sorted(SPELLINGS))
def test_a_method_torch_tensor_lacks_reads_no_data(spelling: str) -> None:
    assert _errors(SPELLINGS[spelling]) == []


def test_a_tensor_method_still_reads_data() -> None:
    assert _errors(SPELLINGS["in the test"].replace("src.nnz()", "src.sum()")) == ["4:XPT101"]


def test_the_table_is_torch_tensors_names() -> None:
    names = tensor_method_names()
    assert {"_nnz", "item", "addmm", "unbind"} <= names and not {"nnz", "is_cuda", "shape"} & names
