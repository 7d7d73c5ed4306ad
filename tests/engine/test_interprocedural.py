"""Facts cross functions and files the way values do.

- What a function returns is in its file's summary (a tensor, a number read from data, a size
  that depends on data, a tuple of those, a Python constant, a parameter handed back as it is
  passed), so a call from another file gets the finding, the severity and the fix the same code
  gets written inline; what the engine cannot show to be tensor data stays unknown.
- A submodule's `forward` sees what its parents' calls pass (`self.attention(x, flag)`, `layer(x,
  flag)` for a `layer` of `self.layers`), joined over every call site: a parameter defaulting to
  None or a literal does not hide the `.item()` value a parent passes (longformer's
  `is_global_attn`, where every default `LongformerModel` export fails; real torch says so below).
"""

from __future__ import annotations

import importlib
import itertools
import json
import sys
import textwrap
from pathlib import Path

import pytest

from tests.cli.test_cli import run
from xport_lint.analyzers.config import Config
from xport_lint.analyzers.index import ModuleSummary, Returned
from xport_lint.analyzers.model import Finding
from xport_lint.analyzers.project import check_project
from xport_lint.analyzers.runner import check_source

EVERYTHING = Config(select=("ALL",))

HELPERS = """
def _h(v):
    return v


def count(t):
    return int(t.sum().item())


def pick(x):
    kept = x[x > 0]
    return kept.shape[0], kept


def scale(t):
    return 2
"""
MODEL = """
import torch

from . import helpers
from .helpers import _h


class Model(torch.nn.Module):
    def forward(self, x, steps):
        {body}
        return x
"""
#: the same model written inline, and through the helpers of the other file (a finding on the
#: helper's own line, `int()` of a number read from data, stays in the helper's file)
SPELLINGS = {
    "a count read from data": (
        "n = int(steps.sum().item())\n        for _ in range(n):\n            x = x + 1",
        "n = helpers.count(steps)\n        for _ in range(n):\n            x = x + 1",
    ),
    "a test handed back as passed": (
        "if x.sum() > 0:\n            x = x * 2",
        "if _h(x.sum() > 0):\n            x = x * 2",
    ),
    "a size that depends on data, from a tuple": (
        "kept = x[x > 0]\n        k = kept.shape[0]\n        if k == 0:\n            x = x * 2",
        "k, kept = helpers.pick(x)\n        if k == 0:\n            x = x * 2",
    ),
    "a Python constant": (
        "if 2 > 1:\n            x = x * 2",
        "if helpers.scale(x) > 1:\n            x = x * 2",
    ),
}


def project(root: Path, body: str) -> Path:
    package = root / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "helpers.py").write_text(HELPERS.lstrip())
    (package / "model.py").write_text(MODEL.lstrip().format(body=body))
    return package


def verdicts(paths: list[str]) -> list[tuple[str, str, bool]]:
    """(code, severity, whether a fix is offered) of each finding of model.py's control flow
    (XPT1xx, XPT2xx but XPT203), checked as a project."""
    checked = check_project(paths, EVERYTHING, None, jobs=1)
    return sorted(
        (f.code, _severity(f), f.fix is not None)
        for result in checked.results if Path(result.path).name == "model.py" for f in result.findings
        if _control_flow(f.code)
    )


def _control_flow(code: str) -> bool:
    return code.startswith(("XPT1", "XPT2")) and code != "XPT203"


def _severity(finding: Finding) -> str:
    """An error said to come after an earlier line's failure counts as the error it is: inline,
    `int(...)` on the line before fails first; through the helper, that line is in helpers.py."""
    return "error" if finding.after is not None else finding.severity.value


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_a_helper_of_another_file_gives_the_verdict_of_the_inline_code(spelling: str, tmp_path: Path) -> None:
    inline, through = SPELLINGS[spelling]
    expected = sorted(
        (f.code, _severity(f), f.fix is not None)
        for f in check_source(MODEL.lstrip().format(body=inline), "model.py", EVERYTHING) if _control_flow(f.code)
    )
    package = project(tmp_path, through)
    files = sorted(str(p) for p in package.glob("*.py"))
    assert verdicts(files) == expected
    if spelling == "a Python constant":
        assert expected == []  # no finding: a constant is not tensor data, whatever it is given
    else:
        assert expected and all(severity == "error" for _, severity, _ in expected)


def test_the_count_of_another_file_gets_the_while_loop_fix(tmp_path: Path) -> None:
    """The one-line helper's expression travels in the summary: the rewrite reads the tensor the
    count comes from at the call, as for a helper of the same file."""
    package = project(tmp_path, SPELLINGS["a count read from data"][1])
    checked = check_project(sorted(str(p) for p in package.glob("*.py")), EVERYTHING, None, jobs=1)
    [finding] = [f for r in checked.results if r.path.endswith("model.py") for f in r.findings if f.code == "XPT201"]
    assert finding.fix is not None and "torch.while_loop" in finding.fix.title


def test_the_fix_through_another_file_exports_and_equals_eager(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The real CLI fixes the package; real torch 2.13 exports the fixed model in both modes, where
    the original fails, and it computes what the original computes in eager."""
    torch = pytest.importorskip("torch")
    package = project(tmp_path, SPELLINGS["a count read from data"][1])
    monkeypatch.syspath_prepend(str(tmp_path))
    args = (torch.randn(2, 3), torch.tensor([1, 2]))
    original = importlib.import_module("pkg.model").Model()
    expected = original(*args)
    result = run("check", "--no-cache", "--fix", "--unsafe-fixes", "--exit-zero", "pkg", cwd=tmp_path)
    assert result.returncode == 0, result.stderr
    assert "torch.while_loop" in (package / "model.py").read_text()
    for name in ("pkg.model", "pkg.helpers", "pkg"):
        sys.modules.pop(name, None)
    fixed = importlib.import_module("pkg.model").Model()
    for strict in (False, True):
        with pytest.raises(Exception):  # noqa: B017, PT011 - the original fails export, whatever torch raises
            torch.export.export(original, args, strict=strict)
        exported = torch.export.export(fixed, args, strict=strict)
        assert torch.equal(exported.module()(*args), expected)
    for name in ("pkg.model", "pkg.helpers", "pkg"):
        sys.modules.pop(name, None)


def test_the_files_order_does_not_change_the_findings(tmp_path: Path) -> None:
    package = project(tmp_path, "\n        ".join([
        "n = helpers.count(steps)", "for _ in range(n):", "    x = x + 1",
        "k, kept = helpers.pick(x)", "if k == 0:", "    x = x * 2",
    ]))
    files = [str(p) for p in package.glob("*.py")]
    seen = {tuple(verdicts(list(order))) for order in itertools.permutations(files)}
    assert len(seen) == 1 and {code for code, _, _ in next(iter(seen))} == {"XPT105", "XPT201"}


def test_a_summary_with_returns_is_plain_json() -> None:
    returned = Returned(("DATA",), ((0, "v"),), (Returned(("SHAPE", "DD_SIZE")), Returned()))
    source = "def f(v):\n    return v\n"
    summary = check_source_summary(source)
    summary.functions["f"].returns = returned
    again = ModuleSummary.from_plain(json.loads(json.dumps(summary.to_plain())), "f.py")
    assert again.functions["f"].returns == returned
    assert again.helpers == {"f": (("v",), "v")}  # the one-line helper, once, beside what it returns
    broken = summary.to_plain()
    broken["functions"]["f"][3][0] = ["EXECUTABLE"]
    with pytest.raises(ValueError):
        ModuleSummary.from_plain(broken, "f.py")


def check_source_summary(source: str) -> ModuleSummary:
    from xport_lint.analyzers.runner import check_file

    summary = check_file(source, "f.py", EVERYTHING).summary
    assert summary is not None
    return summary


# -- a parent's value reaches its submodule's forward ------------------------------------------

LONGFORMER = """
import torch
from torch import nn


class SelfAttention(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(4, 4)

    def forward(self, hidden_states, attention_mask=None, is_global_attn={default}):
        out = self.proj(hidden_states)
        if is_global_attn:  # the first line export fails on
            out = out * 2
        return (out,)


class Layer(nn.Module):
    def __init__(self):
        super().__init__()
        self.attention = SelfAttention()

    def forward(self, hidden_states, attention_mask=None, is_global_attn=None):
        return self.attention(hidden_states, attention_mask=attention_mask, is_global_attn=is_global_attn)


class Encoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.layer = nn.ModuleList([Layer() for _ in range(2)])

    def forward(self, hidden_states, attention_mask):
        is_global_attn = {flag}
        for layer_module in self.layer:
            hidden_states = layer_module(hidden_states, attention_mask=attention_mask, is_global_attn=is_global_attn)[0]
        return hidden_states
"""
#: what the encoder passes down, and whether export fails on it
FLAGS = {"(attention_mask > 0).flatten().any().item()": True, "hidden_states.shape[0] > 1": False}


@pytest.mark.parametrize("default", ["None", "False"])
@pytest.mark.parametrize("flag", list(FLAGS))
def test_a_value_read_from_data_reaches_the_submodule_that_branches_on_it(
    flag: str, default: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The encoder reads a flag from data and hands it through two submodules whose parameter
    defaults to None (or False); the innermost branches on it. The finding is an error there,
    exactly where real torch 2.13 fails in both modes; a flag of Python (a shape test) is none."""
    torch = pytest.importorskip("torch")
    source = LONGFORMER.lstrip().format(flag=flag, default=default)
    errors = [
        (f.code, source.splitlines()[f.span.start.line - 1].strip())
        for f in check_source(source, "longformer.py") if f.severity.value == "error"
    ]
    assert errors == ([("XPT104", "if is_global_attn:  # the first line export fails on")] if FLAGS[flag] else [])
    module = tmp_path / "tiny_longformer.py"
    module.write_text(source)
    monkeypatch.syspath_prepend(str(tmp_path))
    encoder = importlib.import_module("tiny_longformer").Encoder().eval()
    sys.modules.pop("tiny_longformer", None)
    args = (torch.randn(2, 3, 4), torch.tensor([[0, 1, 0], [0, 0, 0]]))
    for strict in (False, True):
        try:
            torch.export.export(encoder, args, strict=strict)
            failed = False
        except Exception:  # noqa: BLE001 - failing is the fact checked
            failed = True
        assert failed is FLAGS[flag], strict


def test_every_call_site_of_a_submodule_is_joined() -> None:
    """Two parents call one block, one with a Python flag and one with a flag read from data:
    the block's branch is an error whichever parent comes first in the file."""
    block = textwrap.dedent("""
        class Block(nn.Module):
            def forward(self, x, gate=None):
                if gate:
                    x = x * 2
                return x
    """)
    plain = textwrap.dedent("""
        class Plain(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def forward(self, x):
                return self.block(x, gate=True)
    """)
    gated = textwrap.dedent("""
        class Gated(nn.Module):
            def __init__(self):
                super().__init__()
                self.block = Block()

            def forward(self, x):
                return self.block(x, gate=x.sum().item() > 0)
    """)
    found = set()
    for order in itertools.permutations([block, plain, gated]):
        source = "import torch\nfrom torch import nn\n" + "\n".join(order)
        lines = source.splitlines()
        found.add(tuple(sorted(
            (f.code, f.severity.value, lines[f.span.start.line - 1].strip()) for f in check_source(source, "m.py")
        )))
    assert found == {(("XPT104", "error", "if gate:"),)}


def test_a_parent_in_another_file_passes_its_value_to_the_submodule(tmp_path: Path) -> None:
    """The encoder in one file, the layers it builds in another: the flag read from data crosses
    the files through `layer(...)` for a `layer` of `self.layer`, and the branch is an error there."""
    source = LONGFORMER.lstrip().format(flag="(attention_mask > 0).flatten().any().item()", default="None")
    layers, encoder = source.split("class Encoder")
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "attention.py").write_text(layers)
    (package / "encoder.py").write_text(
        "import torch\nfrom torch import nn\n\nfrom .attention import Layer\n\n\nclass Encoder" + encoder
    )
    for files in itertools.permutations(str(p) for p in package.glob("*.py")):
        checked = check_project(list(files), Config(), None, jobs=1)
        found = [
            (Path(r.path).name, f.code, f.severity.value, layers.splitlines()[f.span.start.line - 1].strip())
            for r in checked.results for f in r.findings
        ]
        assert found == [("attention.py", "XPT104", "error", "if is_global_attn:  # the first line export fails on")]


def test_a_parent_forwarding_its_arguments_passes_no_one_value() -> None:
    """`self.decoder(*args, **kwargs)` hands on whatever the export's example holds: a flag of
    the decoder (`output_hidden_states=None`) is not made a tensor by it (trocr's wrapper)."""
    source = textwrap.dedent("""
        import torch
        from torch import nn


        class Decoder(nn.Module):
            def forward(self, input_ids, output_hidden_states=None):
                states = () if output_hidden_states else None
                return input_ids * 2, states


        class Wrapper(nn.Module):
            def __init__(self):
                super().__init__()
                self.decoder = Decoder()

            def forward(self, *args, **kwargs):
                return self.decoder(*args, **kwargs)
    """)
    assert [f.code for f in check_source(source, "m.py") if f.severity.value == "error"] == []
