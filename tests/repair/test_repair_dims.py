"""`xport-lint repair` on constraint violations torch names no line for, and on size branches
inside a conditional: the step kinds that keep a dim dynamic, each proven by real torch in the
same interpreter (the example's outputs and a second size's equal eager's)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from xport_lint.analyzers.repair import (
    Failure,
    Outcome,
    _judge,
    flag_around,
    size_without_int,
    undecided_as,
    without_switch,
)

pytest.importorskip("torch")

BLOCKS = '''\
import torch
from torch import nn


class Blocks(nn.Module):
    """Blocks of 4 positions: more than one block, at most 16 positions (its table's rows)."""

    def __init__(self):
        super().__init__()
        self.table = nn.Parameter(torch.randn(16, 8))

    def forward(self, x):
        seq = x.shape[1]
        assert int(x.shape[1]) == seq
        if seq <= 4:
            raise ValueError("needs more than one block")
        blocks = x.view(x.shape[0], seq // 4, 4, 8)
        return blocks.sum(2) + self.table[:seq].view(seq // 4, 4, 8).sum(1)


def xport_example():
    return {"model": Blocks(), "args": (torch.randn(2, 16, 8),),
            "dynamic_shapes": ({1: torch.export.Dim("seq", min=2, max=64)},)}
'''

THRESHOLD = '''\
import torch
from torch import nn


class Positive(nn.Module):
    def forward(self, x):
        kept = x[x > 0]
        if kept.numel() > (3 if kept.is_floating_point() else 5) and not torch.jit.is_tracing():
            return kept.sum() * 2
        return kept.sum() + kept.sum()


def xport_example():
    return Positive(), (torch.randn(8),)
'''


TILE = '''\
import torch
from torch import nn


class Tile(nn.Module):
    def forward(self, x):
        if x.shape[0] > 4:
            return x * 2
        return x + 1
'''
EXPORT_SCRIPT = '''\
import torch

from pkg.tile import Tile


def xport_example():
    return {"model": Tile(), "args": (torch.randn(6, 3),),
            "dynamic_shapes": ({0: torch.export.Dim("batch", min=2, max=16)},)}
'''


STRIDED = '''\
import torch
from torch import nn


class Strided(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv1d(2, 4, kernel_size=1, stride=8)

    def forward(self, x):
        return self.conv(x).squeeze(-1)


def xport_example():
    return {"model": Strided(), "args": (torch.randn(1, 2, 40),),
            "dynamic_shapes": ({2: torch.export.Dim("t", min=2, max=256)},)}
'''

POOLED = '''\
import torch
from torch import nn


class Pooled(nn.Module):
    """Strided convolutions and ceil-mode pools, as SqueezeNet and GoogLeNet stack them."""

    def __init__(self):
        super().__init__()
        self.features = nn.Sequential(
            nn.Conv2d(3, 8, 7, stride=2), nn.ReLU(), nn.MaxPool2d(3, 2, ceil_mode=True),
            nn.Conv2d(8, 8, 3, padding=1), nn.MaxPool2d(3, 2, ceil_mode=True),
        )

    def forward(self, x):
        return self.features(x).mean((2, 3))


def xport_example():
    return {"model": Pooled(), "args": (torch.randn(1, 3, 64, 64),),
            "dynamic_shapes": ({2: torch.export.Dim("h", min=32, max=256), 3: torch.export.Dim("w", min=32, max=256)},)}
'''

GRID = '''\
import math

import torch
from torch import nn


class Grid(nn.Module):
    """Patches of 4 by 4: a size that is no multiple of 4 is resized up to the next one."""

    def forward(self, x):
        h, w = x.shape[2], x.shape[3]
        new_h, new_w = math.ceil(h / 4) * 4, math.ceil(w / 4) * 4
        if new_h != h or new_w != w:
            x = nn.functional.interpolate(x, size=(new_h, new_w), mode="bilinear", align_corners=False)
        return x.reshape(x.shape[0], x.shape[1], new_h // 4, 4, new_w // 4, 4).sum((3, 5))


def xport_example():
    return {"model": Grid(), "args": (torch.randn(1, 3, 16, 16),),
            "dynamic_shapes": ({2: torch.export.Dim("h", min=8, max=64), 3: torch.export.Dim("w", min=8, max=64)},)}
'''


def _repair(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "xport_lint.analyzers.cli", "repair", *args],
        cwd=project, capture_output=True, text=True, timeout=900,
    )


def _project(tmp_path: Path, name: str, text: str) -> Path:
    (tmp_path / "pyproject.toml").write_text("")
    (tmp_path / name).write_text(text)
    return tmp_path


def test_an_int_that_pins_a_dim_is_dropped_then_the_dim_narrowed_to_what_the_code_accepts(tmp_path: Path) -> None:
    project = _project(tmp_path, "blocks.py", BLOCKS)
    done = _repair(project, "blocks.py")
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    # torch names no line (a constraint violation); its guard log does: `int()` made seq a constant
    assert lines[0].startswith("before: fails: UserError: Constraints violated (seq)!")
    assert lines[1].startswith("step 1 [kept] `int(t.shape[i])` as `t.shape[i]` at the line that pins the dim")
    assert "blocks.py:14 (guard Eq(" in done.stdout
    # then torch's own narrowing: more than 4 positions, at most 16, a multiple of 4: still dynamic
    assert any(line.startswith("step ") and "[kept] dynamic_shapes: ({1: 4*Dim(" in line and "kept dynamic" in line
               for line in lines)
    assert "after: exports, equals eager on the example, equals eager on inputs (2, 12, 8)" in lines
    assert "-        assert int(x.shape[1]) == seq\n+        assert x.shape[1] == seq\n" in done.stdout
    # the new Dim spelled as the file can evaluate it (it imports no `Dim` of its own)
    assert "4*torch.export.Dim('_seq'" in done.stdout
    assert "static" not in done.stdout


def test_a_size_test_holding_a_conditional_is_decided_as_a_whole(tmp_path: Path) -> None:
    project = _project(tmp_path, "positive.py", THRESHOLD)
    done = _repair(project, "positive.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "after: exports, equals eager on the example" in done.stdout
    # the size comparison is what export cannot decide, not the dtype test inside it
    assert "guard_or_false(kept.is_floating_point())" not in done.stdout


def test_int_is_dropped_only_around_sizes_on_the_named_line() -> None:
    source = "n = int(x.shape[0])\nk = int(y)\nm = int(x.size(1) * 2)\n"
    assert size_without_int(source, 1) == "n = x.shape[0]\nk = int(y)\nm = int(x.size(1) * 2)\n"
    assert size_without_int(source, 2) is None
    assert size_without_int(source, 3) == "n = int(x.shape[0])\nk = int(y)\nm = (x.size(1) * 2)\n"


def test_int_stays_where_it_makes_a_size_a_whole_number() -> None:
    """`int(n ** 0.5)` (a square image's side from its patch count): without `int()` the size is
    a float a later `reshape` refuses, so the int is not the line's problem to drop."""
    source = "side = int(x.shape[1] ** 0.5)\nhalf = int(x.shape[1] / 2)\nrows = int(x.shape[1] // 2)\n"
    assert size_without_int(source, 1) is None
    assert size_without_int(source, 2) is None
    assert size_without_int(source, 3) == source.replace("int(x.shape[1] // 2)", "(x.shape[1] // 2)")


def test_an_undecided_test_is_wrapped_whole_on_its_line() -> None:
    source = "import torch\nif n.numel() > (4000 if cpu else 100) and not tracing():\n    pass\n"
    fixed = undecided_as(source, 2)
    assert fixed is not None
    assert "guard_or_false(n.numel() > (4000 if cpu else 100)) and not tracing()" in fixed


def test_an_undecided_test_may_be_decided_true_and_a_negated_one_flips() -> None:
    """`if box_sum > 0: codes = codes.reshape(box_sum, -1)`: the general case is the branch to
    keep (decided True); under `not`, deciding the whole test True decides its operand False."""
    source = "import torch\nif box_sum > 0 and not (n == 0):\n    pass\n"
    fixed = undecided_as(source, 2, True)
    assert fixed is not None
    assert "guard_or_true(box_sum > 0) and not torch.fx.experimental.symbolic_shapes.guard_or_false(n == 0)" in fixed


def test_a_config_switch_is_dropped_from_every_call_that_sets_it() -> None:
    source = 'a = build(experts_implementation="eager")\nb = Config(layers=2, experts_implementation="eager", heads=4)\n'
    assert without_switch(source, "experts_implementation", "eager") == (
        "a = build()\nb = Config(layers=2, heads=4)\n"
    )
    assert without_switch(source, "experts_implementation", "grouped_mm") is None


def test_a_size_branch_whose_shapes_an_export_script_declares_gets_torch_cond_not_a_narrower_dim(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path, "export_tile.py", EXPORT_SCRIPT)
    (project / "pkg").mkdir()
    (project / "pkg/__init__.py").write_text("")
    (project / "pkg/tile.py").write_text(TILE)
    done = _repair(project, "export_tile.py")
    assert done.returncode == 0, done.stdout + done.stderr
    # the guard's line is fixed first: the declared range 2..16 stays whole
    assert "step 1 [kept] XPT301 Rewrite as torch.cond" in done.stdout and "in pkg/tile.py" in done.stdout
    assert "+        return torch.cond(x.shape[0] > 4, true_fn, false_fn, (x,))" in done.stdout
    assert "dynamic_shapes:" not in done.stdout


def test_a_guard_under_a_flag_names_the_flag_that_skips_it() -> None:
    source = (
        "def forward(self, x, interpolate=False):\n"
        "    if self.strict:\n"
        "        check(x.shape[2] == 224)\n"
        "    if interpolate:\n"
        "        x = resize(x)\n"
        "    else:\n"
        "        check(x.shape[3] == 224)\n"
        "    return x\n"
    )
    assert flag_around(source, 3) == "`self.strict` is true (line 2)"
    assert flag_around(source, 7) == "`interpolate` is false (line 4)"
    assert flag_around(source, 8) is None


def test_a_cond_whose_branch_does_not_trace_is_rejected_where_torch_names_its_caller() -> None:
    # longformer: a cond rewrite at line 10 moved the failure to line 30, the call into the op
    before = "def f(x):\n" + "    pass\n" * 40
    after = before.replace("    pass\n", "    return torch.cond(p, a, b, (x,))\n", 1)
    failing = Outcome(False, Failure("GuardOnDataDependentSymNode", "guard", "/m.py", 2))
    moved = Outcome(False, Failure("UncapturedHigherOrderOpError", "This higher order operator doesn't work",
                                   "/m.py", 30))
    verdict = _judge(failing, moved, "/m.py", before, after)
    assert verdict is not None and verdict.startswith("the torch.cond( it introduces does not trace")
    elsewhere = Outcome(False, Failure("GuardOnDataDependentSymNode", "another guard", "/m.py", 30))
    assert _judge(failing, elsewhere, "/m.py", before, after) is None  # progress: the next failure


def test_a_new_range_suggestion_after_a_narrowed_dim_is_progress() -> None:
    # torch narrows one violation at a time: h first, then w; the same suggestion again is not
    violated = "UserError: Constraints violated (h, w)!"
    first = Outcome(False, Failure("UserError", violated, None, None), refined="({2: Dim('h', min=33)},)")
    narrower = Outcome(False, Failure("UserError", violated, None, None), refined="({3: Dim('w', min=33)},)")
    assert _judge(first, narrower, "/case.py", "a\n", "b\n") is None
    assert _judge(first, first, "/case.py", "a\n", "b\n") == "the same failure at the same line"


def test_a_bound_guard_torch_suggests_nothing_for_narrows_the_dim_to_the_values_it_accepts(tmp_path: Path) -> None:
    # squeeze(-1) of a stride-8 conv's output: the guard 1 + (t - 1) // 8 != 1, i.e. t >= 9
    project = _project(tmp_path, "strided.py", STRIDED)
    done = _repair(project, "strided.py")
    assert done.returncode == 0, done.stdout + done.stderr
    # XPT307's fix at the pinning line (its Dim's min raised) comes before the probe's narrowing;
    # either way the dim stays dynamic over the lengths the code accepts
    (kept,) = [line for line in done.stdout.splitlines() if line.startswith("step ") and "[kept]" in line]
    assert "min=9, max=256" in kept
    assert '+            "dynamic_shapes": ({2: torch.export.Dim("t", min=9, max=256)},)}' in done.stdout
    assert "after: exports, equals eager on the example, equals eager on inputs (1, 2, 41)" in done.stdout


def test_a_range_torch_cannot_prove_over_a_floor_division_becomes_a_multiple_of_its_divisor() -> None:
    """Every width from 8 to 64 satisfies `1 % (16 * (w // 2)) != 0` (a VAE's downsampling), but
    torch's solver cannot prove it and rejects the range: w as 2 * Dim makes `w // 2` a plain
    symbol, and the dim stays dynamic over the even widths (labelled as narrowed)."""
    from torch.export import Dim

    from xport_lint.analyzers.confirm.probe import _narrowed, _render

    message = (
        "Constraints violated (w)!\n  - Not all values of w = L['sample'].size()[3] in the specified range "
        "8 <= w <= 64 satisfy the generated guard (1 % (16*(L['sample'].size()[3] // 2))) != 0.\n"
    )
    narrowed = _narrowed(message, ({3: Dim("w", min=8, max=64)},))
    assert narrowed is not None
    shapes, notes = narrowed
    assert _render(shapes) == "({3: 2*Dim('_w', min=4, max=32)},)"
    assert notes == ["w a multiple of 2 in [8, 64]: every declared value satisfies its guards over w // 2, "
                     "which torch cannot prove"]


def test_a_range_torch_own_solver_fails_on_becomes_the_smallest_multiple_that_exports(tmp_path: Path) -> None:
    """Ceil-mode pools give guards torch's solver cannot solve: export fails inside it with an
    AssertionError naming no line and suggesting nothing. Even sizes make the floor divisions
    exact, so h and w become multiples of 2 over the declared range, and stay dynamic."""
    project = _project(tmp_path, "pooled.py", POOLED)
    done = _repair(project, "pooled.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert done.stdout.startswith("before: fails: AssertionError: Expected op to be '=='")
    (kept,) = [line for line in done.stdout.splitlines() if line.startswith("step ") and "[kept]" in line]
    assert "2*Dim('_h', min=16, max=128), 3: 2*Dim('_w', min=16, max=128)" in kept
    assert "h a multiple of 2 in [32, 256]" in kept and "kept dynamic" in kept
    assert "after: exports, equals eager on the example, equals eager on inputs (1, 3, 66, 66)" in done.stdout
    assert "static" not in done.stdout


def test_a_patch_grid_guard_over_a_ceil_narrows_the_dims_to_the_sizes_the_grid_fills(tmp_path: Path) -> None:
    """torch's guards say `4*math.ceil(h / 4) == h` (the example's size fills the grid, so the
    resize is skipped) and it suggests nothing: evaluated value by value they hold on the
    multiples of 4, which keep both dims dynamic."""
    project = _project(tmp_path, "grid.py", GRID)
    done = _repair(project, "grid.py")
    assert done.returncode == 0, done.stdout + done.stderr
    (kept,) = [line for line in done.stdout.splitlines() if line.startswith("step ") and "[kept]" in line]
    assert "4*Dim('_h', max=16), 3: 4*Dim('_w', max=16)" in kept  # min=2 is Dim's default
    assert "h a multiple of 4 in [8, 64]" in kept
    assert "after: exports, equals eager on the example, equals eager on inputs (1, 3, 20, 20)" in done.stdout
    assert "static" not in done.stdout
