"""A check of a fresh parse leaves no node of its tree alive: the facts the layers keep by node
identity (a function's uses and definitions, an annotation's names, an `__init__`'s assignments
to self, the locals that may be None, a one-line helper's substitution, a file's names for the
rewrites) live in the check's own store (fact_store.FactStore). Module-level caches of them
kept up to 4,096 functions each, and every function keeps its whole tree: the language server's
lint child held about 57 MB of trees it had let go (50 largest corpus files open)."""

from __future__ import annotations

import gc

import libcst as cst

from xport_lint.analyzers import check_source
from xport_lint.analyzers.incremental import ChunkedParser
from xport_lint.analyzers.runner import check_file

# asks for a function's definitions (an in-place change), annotations' names, `__init__`'s
# assignments to self, a helper's substitution (a size it returns) and, for a fix, the file's names
MODEL = """import torch
from typing import Optional


def scaled_released(x_released: torch.Tensor, factor_released: float) -> torch.Tensor:
    return x_released * factor_released


def summed_released(y_released):
    return y_released.sum()


def height_released(t_released):
    h_released = t_released.shape[-2]
    return h_released


class Model_released(torch.nn.Module):
    def __init__(self, size_released: int) -> None:
        super().__init__()
        self.linear_released = torch.nn.Linear(size_released, size_released)

    def forward(self, x_released: torch.Tensor, mask_released: Optional[torch.Tensor] = None) -> torch.Tensor:
        total_released = x_released.sum()
        total_released += summed_released(x_released)
        if height_released(x_released) > 2:
            x_released = x_released[:2]
        bias_released = self.bias_released if self.training else None
        if bias_released is not None:
            x_released = x_released + bias_released
        if mask_released is not None:
            x_released = x_released * mask_released
        assert x_released.sum() > 0
        return self.linear_released(scaled_released(x_released, 2.0))


torch.export.export(Model_released(4), (torch.ones(2, 4),))
"""


def alive() -> list[str]:
    """The names of MODEL (all end in `_released`) that some node still alive holds."""
    gc.collect()
    return sorted({node.value for node in gc.get_objects() if type(node) is cst.Name and node.value.endswith("_released")})


def test_a_checked_file_keeps_no_node_of_its_tree() -> None:
    findings = check_source(MODEL, "model.py")
    assert any(finding.fix is not None for finding in findings)  # the rewrites ran too
    assert alive() == []


def test_an_editor_parser_keeps_its_trees_until_it_goes() -> None:
    parser = ChunkedParser()
    check_file(MODEL, "model.py", parser=parser)
    assert alive()  # its statements, and their facts, for the next edit
    del parser
    assert alive() == []



def test_a_checked_file_is_freed_by_reference_counting() -> None:
    """Nothing of a check holds its tree in a cycle (FileFacts.release, RuleContext.release):
    the worker's collection after each file then walks a few objects, not the whole tree (0.3 s
    for a large file). A closure may keep an expression in a cycle, never a statement."""
    gc.collect()
    gc.disable()
    try:
        check_source(MODEL, "model.py")
        held = sorted({
            type(node).__name__ for node in gc.get_objects()
            if isinstance(node, (cst.Module, cst.BaseSmallStatement, cst.BaseCompoundStatement))
            and "_released" in cst.Module(body=[]).code_for_node(node)
        })
    finally:
        gc.enable()
    assert held == []
