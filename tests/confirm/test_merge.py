"""How a worker report becomes findings, for the report shapes torch 2.13 produces that the
rule examples do not reach: failures without a user frame, and draft_export raising itself."""

from __future__ import annotations

from xport_lint.analyzers import check_source
from xport_lint.analyzers.confirm import merge

SOURCE = """\
import torch
class Net(torch.nn.Module):
    def forward(self, x):
        y = torch.ops.mylib.scale(x)
        return y * 2
def xport_example():
    return Net(), (torch.randn(3),)
"""


def report(**fields: object) -> dict[str, object]:
    base = {"status": "ran", "model": "Net", "strict": False, "export_ok": True, "export_error": None,
            "export_line": None, "suggested_fixes": None, "draft_error": None, "failures": []}
    return {**base, **fields}


def failure(kind: str, expr: str) -> dict[str, object]:
    # torch keeps only the last few frames of a failure: here none of them is the user's
    return {"type": kind, "expr": expr, "frame": None, "locals": None, "new_dynamic_shapes": None,
            "message": f"{kind}: {expr}"}


def test_a_failure_without_a_user_frame_lands_on_the_call_of_its_op() -> None:
    raw = report(export_ok=False, failures=[failure("MISMATCHED_FAKE_KERNEL", "mylib.scale.default")])
    result = merge("net.py", SOURCE, check_source(SOURCE, "net.py"), raw)
    (found,) = [f for f in result.findings if f.confirmation == "new"]
    assert found.span.start.line == 4  # the line calling torch.ops.mylib.scale


def test_then_on_the_exception_traceback_then_on_the_model_class() -> None:
    unknown = failure("DATA_DEPENDENT_ERROR", "Eq(u0, 1)")
    with_traceback = merge("net.py", SOURCE, [], report(export_ok=False, export_line=5, failures=[unknown]))
    assert [f.span.start.line for f in with_traceback.findings] == [5]
    without = merge("net.py", SOURCE, [], report(export_ok=False, failures=[unknown]))
    assert [f.span.start.line for f in without.findings] == [2]  # class Net


def test_draft_export_raising_is_told_apart_from_export_succeeding() -> None:
    """Export passed, but the check is incomplete: a finding that names draft_export's exception
    (it used to say only "draft_export itself raised", and exit 0)."""
    raw = report(export_ok=True, draft_error="RuntimeError: draft_export could not run the model", draft_line=4)
    result = merge("net.py", SOURCE, [], raw)
    assert result.export_ok is True and result.failed
    assert "torch.export.export succeeded" in result.summary
    assert "draft_export itself raised RuntimeError: draft_export could not run the model" in result.summary
    (found,) = result.findings
    assert (found.code, found.span.start.line) == ("XPT906", 4)
    assert found.message == "could not confirm with draft_export: it raised RuntimeError: draft_export could not run the model"


def test_draft_export_issues_where_export_passes_say_which_tool_said_what() -> None:
    raw = report(export_ok=True, failures=[failure("GUARD_ADDED", "Eq(s0, 3)")])
    result = merge("net.py", SOURCE, [], raw)
    assert "torch.export.export succeeded; draft_export reported 1 issue(s)" in result.summary
    (found,) = result.findings
    assert found.confirmation == "new" and "draft_export" in found.message


SIZE_ONE = """\
import torch
from torch.export import Dim
class Net(torch.nn.Module):
    def forward(self, x, y):
        return x.relu() + y.sum()
def xport_example():
    args = (torch.randn(1, 4), torch.randn(2, 3))
    return {"model": Net(), "args": args, "dynamic_shapes": {"x": {0: Dim.AUTO}, "y": {1: Dim.AUTO}}}
"""


def test_a_dimension_export_made_static_confirms_the_static_warning_instead_of_repeating_it() -> None:
    static = check_source(SIZE_ONE, "net.py")
    assert [(f.code, f.span.start.line) for f in static] == [("XPT504", 8)]
    raw = report(narrowed=[{"input": "x", "dim": 0, "static": 1, "range": None},
                           {"input": "y", "dim": 1, "static": None, "range": [2, 4]}])
    result = merge("net.py", SIZE_ONE, static, raw)
    found = {(f.code, f.confirmation) for f in result.findings}
    assert found == {("XPT504", "confirmed"), ("XPT907", "new")}  # y's narrowing no rule predicted
    (narrowed,) = [f for f in result.findings if f.code == "XPT907"]
    assert narrowed.span.start.line == 8 and "narrowed it to 2..4" in narrowed.message
    assert "came out static or narrowed" in result.summary


def test_a_range_export_narrowed_confirms_the_shape_branch_on_that_dimension() -> None:
    from xport_lint.analyzers.rules.xpt907_draft_dimension_narrowed import DraftDimensionNarrowed

    source = DraftDimensionNarrowed.INVALID[1].source
    static = check_source(source, "windows.py")
    assert [f.code for f in static] == ["XPT301"]
    raw = report(model="Windows", narrowed=[{"input": "frames", "dim": 1, "static": None, "range": [2, 4]}])
    result = merge("windows.py", source, static, raw)
    by_code = {f.code: f for f in result.findings}
    assert by_code["XPT301"].confirmation == "confirmed" and "range became 2..4" in by_code["XPT301"].message
    assert by_code["XPT907"].confirmation == "new"
