"""Shape findings follow the export configuration, checked against real torch 2.13: every shape
rule example that declares dynamic_shapes is run again with each dimension declared static,
`Dim.AUTO` and a named `Dim`:

- static: no finding, and export succeeds;
- Dim.AUTO: export succeeds (it narrows silently), so no error, at most a warning;
- named Dim: an error exactly when export fails (the test splits the declared range, or the
  loop fixes the size), else at most a warning.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from tests.truth.harness import example, load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Mode, Severity
from xport_lint.analyzers.rules.xpt301_shape_branch import ShapeBranch
from xport_lint.analyzers.rules.xpt302_shape_loop import ShapeLoop

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

_DECLARED = re.compile(r'Dim\.AUTO|Dim\.DYNAMIC|Dim\(\s*"[^"]*"[^)]*\)')
VARIANTS = ("static", "auto", "named")


def variant(source: str, kind: str) -> str:
    counter = iter(range(100))

    def replace(_: re.Match[str]) -> str:
        if kind == "static":
            return "None"
        if kind == "auto":
            return "Dim.AUTO"
        return f'Dim("d{next(counter)}")'

    return _DECLARED.sub(replace, source)


def cases() -> list[object]:
    out = []
    for rule in (ShapeBranch, ShapeLoop):
        for index, case in enumerate([*rule.VALID, *rule.INVALID]):
            if "dynamic_shapes" not in case.source or not _DECLARED.search(case.source):
                continue
            for kind in VARIANTS:
                for mode in (Mode.NON_STRICT, Mode.STRICT):
                    out.append(pytest.param(rule.CODE, case.source, kind, mode, id=f"{rule.CODE}-{index}-{kind}-{mode.value}"))
    return out


@pytest.mark.parametrize(("code", "source", "kind", "mode"), cases())
def test_shape_severity_agrees_with_torch(code: str, source: str, kind: str, mode: Mode, tmp_path: Path) -> None:
    text = variant(source, kind)
    config = Config(select=("ALL",), strict=mode is Mode.STRICT)
    severities = {f.severity for f in check_source(text, "example.py", config) if f.code == code}
    model, args, options = example(load(text, tmp_path))
    try:
        torch.export.export(model, args, **options, strict=mode is Mode.STRICT)
        failed = ""
    except Exception as error:  # noqa: BLE001 - any failure is the fact under test
        failed = f"{type(error).__name__}: {error}"[:300]
    if kind == "static":
        assert not severities, "a size test on static shapes is reported"
        assert not failed, failed
    elif kind == "auto":
        assert Severity.ERROR not in severities
        assert not failed, failed
    else:
        assert (Severity.ERROR in severities) == bool(failed), failed or "reported as an error, but it exports"


DECODER = """
import torch
from torch.export import Dim
class Decoder(torch.nn.Module):
    def forward(self, hidden):
        if hidden.shape[1] > 4:
            return hidden * 0.5
        return hidden.cumsum(1)
def xport_example():
    return {{"model": Decoder(), "args": (torch.randn(2, {size}, 8),), "dynamic_shapes": {{"hidden": {{1: {dim}}}}}}}
"""


@pytest.mark.parametrize("mode", [Mode.NON_STRICT, Mode.STRICT])
def test_the_declarations_an_error_suggests_export_and_silence_it(mode: Mode, tmp_path: Path) -> None:
    """`Dim("seq")` splits at 4: the message names `Dim("seq", max=4)` and `Dim("seq", min=5)`;
    each, with an example on its side, exports and leaves nothing to report."""
    config = Config(select=("ALL",), strict=mode is Mode.STRICT)
    (finding,) = [f for f in check_source(DECODER.format(size=3, dim='Dim("seq")'), "m.py", config) if f.code == "XPT301"]
    assert 'declare `Dim("seq", max=4)` or `Dim("seq", min=5)`' in finding.message
    for size, dim in ((3, 'Dim("seq", max=4)'), (6, 'Dim("seq", min=5)')):
        text = DECODER.format(size=size, dim=dim)
        assert [f for f in check_source(text, "m.py", config) if f.code == "XPT301"] == []
        model, args, options = example(load(text, tmp_path))
        torch.export.export(model, args, **options, strict=mode is Mode.STRICT)
