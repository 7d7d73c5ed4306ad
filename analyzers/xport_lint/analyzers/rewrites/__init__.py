"""Rewrites shared by the branch and loop rules: a data-dependent `if` becomes `torch.cond`, a
`while` on a tensor becomes `torch.while_loop`, a validation branch (`if bad: raise`) becomes
`torch._check` / `torch._assert_async`. Each returns a fix, or the reason no faithful rewrite
exists, which the rule puts in its diagnostic.

Facts of torch 2.13 these rewrites are built on (checked by tests/truth/test_fixes.py):
- `torch.cond`/`torch.while_loop` branches must be pure: no attribute or in-place mutation, no
  `break`/`continue`/`raise`, and they return tensors of one structure in both branches;
- a branch may not return one of its operands unchanged ("Higher order ops do not support
  aliasing"): such a result is returned as `.clone()`;
- the predicate may be a one-element bool tensor or a symbolic bool (`n > 0` for `n = t.item()`,
  `boxes.shape[0] == 0` after a mask), and the branches may return different sizes, but not
  different ranks;
- a branch may not close over a number read from tensor data ("Attempted to wrap unbacked
  SymInt"), so a branch that reads one gets no fix;
- `torch._check(cond, lambda: msg)` fails in strict export: the check is written without a message.
"""

from .checks import check_rewrite, raised_by
from .common import Names, Rewrite, dropped_effect, guard_rewrite, module_names, scope_names
from .cond import cond_rewrite, dense_select_rewrite, where_rewrite
from .empty_guards import empty_guard_rewrite
from .export_calls import non_strict_rewrite, sized_dim
from .loops import (
    class_loop_rewrite,
    counted_loop_rewrite,
    masked_write_rewrite,
    range_loop_rewrite,
    sliced_layers_rewrite,
    stacked_rows_rewrite,
    while_loop_rewrite,
)
from .outputs import registered_output_rewrite

__all__ = [
    "Names",
    "Rewrite",
    "check_rewrite",
    "cond_rewrite",
    "class_loop_rewrite",
    "counted_loop_rewrite",
    "dense_select_rewrite",
    "dropped_effect",
    "empty_guard_rewrite",
    "guard_rewrite",
    "masked_write_rewrite",
    "module_names",
    "non_strict_rewrite",
    "range_loop_rewrite",
    "registered_output_rewrite",
    "raised_by",
    "scope_names",
    "sliced_layers_rewrite",
    "stacked_rows_rewrite",
    "sized_dim",
    "where_rewrite",
    "while_loop_rewrite",
]
