"""torch.cond rewrites that must export: a predicate is one tensor expression (Python's
`and`/`not` would call `bool()` on a data-dependent size again), and no `cond` is offered when a
branch holds code that cannot trace. Proven with real torch: the fixed snippet exports in every
mode the original failed in and equals eager on its inputs."""

from __future__ import annotations

import textwrap

import pytest

from tests.truth.harness import prove_snippet
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.runner import check_source

pytest.importorskip("torch")

SIZE_AND_FLAG = textwrap.dedent('''
    import torch
    from torch import nn

    LIMIT = 3


    class Head(nn.Module):
        def forward(self, x):
            boxes = x[x > 0]
            if boxes.numel() > LIMIT and not self.training:
                out = boxes.sum()
            else:
                out = boxes.mean()
            return out


    def xport_example():
        return Head().eval(), (torch.randn(16),)


    def xport_inputs():
        return [(torch.cat([torch.ones(2), -torch.ones(14)]),), (torch.ones(16),)]
''')

BRANCH_WITH_UNIQUE_LOOP = textwrap.dedent('''
    import torch
    from torch import nn


    class Head(nn.Module):
        def forward(self, x, idx):
            if x.sum() > 0:
                out = x
                for c in torch.unique(idx):
                    out = out + c
            else:
                out = x * 2
            return out


    def xport_example():
        return Head(), (torch.randn(4), torch.tensor([0, 1, 1, 2]))
''')


def test_a_size_test_joined_with_a_python_flag_becomes_one_tensor_predicate() -> None:
    fixed = [f for f in check_source(SIZE_AND_FLAG, "head.py", Config()) if f.code == "XPT105"]
    assert fixed and fixed[0].fix is not None
    rewritten = fixed[0].fix.edits[0].content
    assert "torch.logical_and(torch.tensor(boxes.numel() > LIMIT), torch.logical_not(torch.tensor(self.training)))" in (
        rewritten
    )
    assert prove_snippet(SIZE_AND_FLAG)[0] == "proven"


def test_no_cond_when_a_branch_loops_over_data_dependent_rows() -> None:
    findings = check_source(BRANCH_WITH_UNIQUE_LOOP, "head.py", Config())
    branch = next(f for f in findings if f.code == "XPT101")
    assert branch.fix is None
    assert any(f.code == "XPT201" for f in findings)


#: `scale` is bound before the `if` (by the other arm of an earlier branch) but each arm of the
#: second `if` assigns it before reading it: the arms' own, not an operand of the cond
ASSIGNED_IN_EACH_ARM = textwrap.dedent('''
    import torch
    from torch import nn


    class Head(nn.Module):
        def forward(self, x, fixed: bool = False):
            if fixed:
                scale = torch.ones(())
            else:
                if x.sum() > 0:
                    scale = x.abs().max()
                    scale = scale + 1
                else:
                    scale = x.abs().min()
            return x / scale


    def xport_example():
        return Head(), (torch.randn(4),)


    def xport_inputs():
        return [(torch.ones(4),), (-torch.ones(4),)]
''')


def test_a_name_each_arm_assigns_before_reading_is_no_cond_operand() -> None:
    (branch,) = [f for f in check_source(ASSIGNED_IN_EACH_ARM, "head.py", Config()) if f.code == "XPT101"]
    assert branch.fix is not None
    rewritten = branch.fix.edits[0].content
    assert "def true_fn(x):" in rewritten and ", (x,))" in rewritten
    assert prove_snippet(ASSIGNED_IN_EACH_ARM)[0] == "proven"
