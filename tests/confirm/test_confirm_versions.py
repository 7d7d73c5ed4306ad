"""Confirmation speaks for the torch of the interpreter it runs in: torch's messages are mapped to
lines for each measured version, and where torch names no line of the model (strict export on
2.14+ fails on `random.random()` with an `AssertionError` raised in its own frames) the static
finding whose rule says that error, for that torch, gives the line."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.confirm import Confirmer, WorkerOptions, merge
from xport_lint.analyzers.versions import installed

JITTER = """\
import random
import torch
class Jitter(torch.nn.Module):
    def forward(self, x):
        return x * (1 + 0.1 * random.random())
def xport_example():
    return {"model": Jitter(), "args": (torch.randn(4),), "strict": True}
"""
RANDOM_LINE = 5

#: what the worker returns for JITTER on torch 2.14.1 (recorded): the error names no line
ON_2_14 = {
    "status": "ran", "model": "Jitter", "strict": True, "torch": "2.14.1+cu130", "export_ok": False,
    "export_error": "AssertionError: Dynamo attempts to add additional input during export: value=0.49, "
                    "source=RandomValueSource(random_call_index=0)",
    "export_line": None, "suggested_fixes": None, "draft_error": None, "failures": [],
}


def strict_findings(source: str, path: str, target: str | None = None) -> list:
    return check_source(source, path, Config(strict=True, target_torch=target))


def test_an_error_that_names_no_line_lands_on_the_static_finding_that_says_it(tmp_path: Path) -> None:
    path = str(tmp_path / "jitter.py")
    static = strict_findings(JITTER, path, "2.14")
    result = merge(path, JITTER, static, ON_2_14)
    (finding,) = result.findings
    assert (finding.code, finding.span.start.line, finding.confirmation) == ("XPT402", RANDOM_LINE, "confirmed")


def test_the_fallback_reads_the_words_of_the_torch_that_spoke(tmp_path: Path) -> None:
    """torch 2.13 never says this: a 2.13 worker's report of it is not put on XPT402's line."""
    path = str(tmp_path / "jitter.py")
    static = strict_findings(JITTER, path, "2.13")
    result = merge(path, JITTER, static, {**ON_2_14, "torch": "2.13.0"})
    assert [(f.code, f.confirmation) for f in result.findings if f.span.start.line == RANDOM_LINE] == [("XPT402", None)]
    assert any(f.code == "XPT905" and f.span.start.line == 3 for f in result.findings), "at the class"



@pytest.fixture(scope="module")
def confirmer() -> Iterator[Confirmer]:
    pytest.importorskip("torch")
    confirmer = Confirmer(WorkerOptions(timeout=120))
    yield confirmer
    confirmer.close()


@pytest.mark.torch
def test_the_installed_torch_confirms_the_static_error_at_its_line(confirmer: Confirmer, tmp_path: Path) -> None:
    path = tmp_path / "jitter.py"
    path.write_text(JITTER)
    result = confirmer.confirm(str(path), JITTER, strict_findings(JITTER, str(path)), strict=True)
    assert result.status == "ran" and result.export_ok is False
    confirmed = [(f.code, f.span.start.line) for f in result.findings if f.confirmation == "confirmed"]
    assert confirmed == [("XPT402", RANDOM_LINE)], (installed(), [(f.code, f.message) for f in result.findings])
    assert not [f for f in result.findings if f.code.startswith("XPT9")]
