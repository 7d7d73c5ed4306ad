"""A helper that checks one of its parameters (`assert ok`, `if not ok: raise`, `torch._check(ok)`)
guards whatever size test each call passes there: XPT304 judges that test by the declared `Dim`
once, and reports it on the helper's check, the line torch names (draft_export confirms it there),
with no second finding (XPT301 leaves the helper's `if not ok:` alone)."""

from __future__ import annotations

from pathlib import Path

import pytest

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

_EXAMPLE = '''
def xport_example():
    return {{"model": Tokens(), "args": (torch.randn(2, 8),), "dynamic_shapes": {{"x": {dims}}}}}
'''

#: spelling -> (source of the model, the line of the helper's check)
SPELLINGS = {
    "function-raises": ('''
import torch
from torch.export import Dim
def _require(ok, message):
    if not ok:
        raise ValueError(message)
class Tokens(torch.nn.Module):
    def forward(self, x):
        _require(x.shape[1] == 8, "eight tokens")
        return x * 2
''', 5),
    "function-checks-a-name-bound-first": ('''
import torch
from torch.export import Dim
def _ensure(ok):
    torch._check(ok)
class Tokens(torch.nn.Module):
    def forward(self, x):
        fits = x.shape[1] <= 64
        _ensure(fits)
        return x * 2
''', 5),
    "method-asserts": ('''
import torch
from torch.export import Dim
class Tokens(torch.nn.Module):
    def forward(self, x):
        self._assert(x.shape[1] == 8, "eight tokens")
        return x * 2
    def _assert(self, cond, msg):
        """Raise with `msg` unless `cond`."""
        assert cond, msg
''', 10),
    "keyword-argument": ('''
import torch
from torch.export import Dim
def _require(ok, message=""):
    if not ok:
        raise ValueError(message)
class Tokens(torch.nn.Module):
    def forward(self, x):
        _require(message="at most 64 tokens", ok=x.shape[1] <= 64)
        return x * 2
''', 5),
}


def _source(spelling: str, dims: str = '{1: Dim("w")}') -> str:
    return SPELLINGS[spelling][0] + _EXAMPLE.format(dims=dims)


def _shape_findings(source: str) -> list[tuple[str, int, Severity]]:
    return [(f.code, f.span.start.line, f.severity) for f in check_source(source, "model.py", Config(select=("ALL",)))
            if f.code.startswith("XPT3")]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_one_error_on_the_helpers_check_under_a_named_dim(spelling: str) -> None:
    line = SPELLINGS[spelling][1]
    assert _shape_findings(_source(spelling)) == [("XPT304", line, Severity.ERROR)]


@pytest.mark.parametrize("spelling", SPELLINGS)
def test_nothing_where_the_declared_range_decides_it_or_the_size_is_static(spelling: str) -> None:
    # `== 8` holds on the static width of the example; `<= 64` on the whole declared range
    dims = '{0: Dim("b")}' if "== 8" in SPELLINGS[spelling][0] else '{1: Dim("w", max=64)}'
    assert _shape_findings(_source(spelling, dims)) == []


def test_the_finding_notes_the_call_that_passes_the_test() -> None:
    (finding,) = [f for f in check_source(_source("function-raises"), "model.py") if f.code == "XPT304"]
    assert "`_require` checking its `ok` on the size `x.shape[1] == 8`" in finding.message
    assert (finding.related[0].span.start.line, finding.related[0].message) == (
        9, '`_require(x.shape[1] == 8, "eight tokens")` passes the size test'
    )


@pytest.mark.torch
@pytest.mark.parametrize("spelling", SPELLINGS)
def test_draft_export_fails_on_the_line_reported(spelling: str, tmp_path: Path) -> None:
    """Real torch: export fails, and draft_export names the helper's check, the finding's line."""
    pytest.importorskip("torch")
    from xport_lint.analyzers.confirm import Confirmer, WorkerOptions

    source = _source(spelling)
    path = tmp_path / "model.py"
    path.write_text(source)
    confirmer = Confirmer(WorkerOptions(timeout=120))
    try:
        result = confirmer.confirm(str(path), source, check_source(source, str(path)))
    finally:
        confirmer.close()
    assert result.export_ok is False
    assert [(f.code, f.span.start.line, f.confirmation) for f in result.findings] == [
        ("XPT304", SPELLINGS[spelling][1], "confirmed")
    ]
