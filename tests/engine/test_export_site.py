"""An export site is one fact, whatever its spelling: the model, the example arguments,
`dynamic_shapes`, its keys and its `Dim`s are read through names bound once, tuple unpacking and
one-line helpers (of the file, and of another file of the project by its index summary), and the
rules on export sites (XPT502, XPT504, XPT506) read that fact only. Static: no torch."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import libcst as cst
import pytest

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.export_site import ExportSites
from xport_lint.analyzers.model import Finding
from xport_lint.analyzers.rules.xpt503_static_export import example_sizes
from xport_lint.analyzers.runner import fix_source

EVERYTHING = Config(select=("ALL",))

SITE = """
import torch
from torch.export import Dim, dims
{helper}
class Net(torch.nn.Module):
    def forward(self, tokens):
        return tokens * 2
def export():
    {before}
    return torch.export.export(Net(), {args}, dynamic_shapes={shapes})
"""
_H = "def _h(v):\n    return v\n"

#: one export, a batch `Dim` on an example of size 1, spelt seven ways: (helper, line before, args, shapes)
SPELLINGS = {
    "inline": ("", "pass", "(torch.randn(1, 8),)", '{"tokens": {0: Dim("batch")}}'),
    "shapes bound": ("", 'shapes = {"tokens": {0: Dim("batch")}}', "(torch.randn(1, 8),)", "shapes"),
    "key bound": ("", 'key = "tokens"', "(torch.randn(1, 8),)", '{key: {0: Dim("batch")}}'),
    "Dims unpacked": ("", 'batch, seq = Dim("batch"), Dim("seq")', "(torch.randn(1, 8),)", '{"tokens": {0: batch}}'),
    "dims()": ("", 'batch, seq = dims("batch", "seq")', "(torch.randn(1, 8),)", '{"tokens": {0: batch}}'),
    "example bound": ("", "example = torch.randn(1, 8)", "(example,)", '{"tokens": {0: Dim("batch")}}'),
    "helpers": (_H, "pass", "_h((torch.randn(1, 8),))", '_h({_h("tokens"): {0: _h(Dim("batch"))}})'),
}


def _source(spelling: str) -> str:
    helper, before, args, shapes = SPELLINGS[spelling]
    return SITE.format(helper=helper, before=before, args=args, shapes=shapes)


def _xpt506(source: str) -> list[Finding]:
    return [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT506"]


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_the_site_is_the_same_fact_through_any_spelling(spelling: str) -> None:
    """The input `tokens`, its example sizes (1, 8) and its batch `Dim`, however written."""
    sites = ExportSites(cst.parse_module(_source(spelling)), mentions_export=True)
    [site] = sites.export_sites
    [entry] = site.inputs
    assert entry.where == "tokens" and site.model_class == "Net"
    sizes = example_sizes(entry.example, sites.resolve)
    assert sizes is not None and [cst.Module([]).code_for_node(s) for s in sizes] == ["1", "8"]
    assert isinstance(entry.dims, cst.Dict)
    spec = sites.reader.spec(sites.follow(entry.dims.elements[0].value))  # type: ignore[union-attr]
    assert spec is not None and spec.name == "batch"


@pytest.mark.parametrize("spelling", list(SPELLINGS))
def test_xpt506_says_the_same_through_any_spelling(spelling: str) -> None:
    [finding] = _xpt506(_source(spelling))
    assert finding.message.startswith('`tokens.shape[0]` is `Dim("batch")` but its example size is 1')


@pytest.mark.parametrize("spelling", ["inline", "Dims unpacked", "dims()", "example bound", "helpers"])
def test_the_example_size_fix_is_offered_where_only_this_input_reads_the_dim(spelling: str) -> None:
    """A `Dim` bound to a name read once (by this input), and an example bound to a name read
    once: the fix gives the example the size 2 where it is written."""
    source = _source(spelling)
    [finding] = _xpt506(source)
    assert finding.fix is not None
    fixed = fix_source(source, "m.py", EVERYTHING, unsafe=True)
    assert "torch.randn(2, 8)" in fixed and not _xpt506(fixed)


def test_a_dim_another_input_shares_gets_no_fix_and_says_why() -> None:
    source = _source("Dims unpacked").replace(
        "def forward(self, tokens):", "def forward(self, tokens, mask):"
    ).replace("(torch.randn(1, 8),)", "(torch.randn(1, 8), torch.randn(1, 8))").replace(
        '{"tokens": {0: batch}}', '{"tokens": {0: batch}, "mask": {0: batch}}'
    )
    findings = _xpt506(source)
    assert len(findings) == 2 and all(f.fix is None for f in findings)
    notes = [note.message for f in findings for note in f.related]
    assert notes == ["no automatic fix: `batch` is read elsewhere too (another input or export may share it)"] * 2


def test_a_key_bound_to_a_name_read_twice_is_flagged_without_a_rename() -> None:
    """Renaming the string would rename it for the other reader too."""
    source = _source("key bound").replace('"tokens"', '"input_ids"').replace(
        "    return torch.export.export", "    print(key)\n    return torch.export.export"
    )
    [finding] = [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT502"]
    assert "'input_ids' is not an argument of forward (tokens)" in finding.message and finding.fix is None


def test_a_key_bound_to_a_name_read_once_is_renamed_where_it_is_written() -> None:
    source = _source("key bound").replace('"tokens"', '"input_ids"')
    [finding] = [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT502"]
    assert finding.fix is not None
    assert 'key = "tokens"' in fix_source(source, "m.py", EVERYTHING, unsafe=True)


def test_xpt504_reads_an_example_through_a_helper() -> None:
    source = SITE.format(helper=_H, before="pass", args="(_h(torch.randn(1, 8)),)", shapes='{"tokens": {0: Dim.AUTO}}')
    [finding] = [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT504"]
    assert finding.fix is not None
    assert "_h(torch.randn(2, 8))" in fix_source(source, "m.py", EVERYTHING, unsafe=True)


# -- a helper of another file, through the real CLI ----------------------------------------------

EXPORT_SCRIPT = """
import torch
from torch.export import Dim
from .shapes import batch_first
class Net(torch.nn.Module):
    def forward(self, tokens):
        return tokens * 2
def export():
    return torch.export.export(Net(), (torch.randn(4, 8),), dynamic_shapes=batch_first(Dim("batch")))
"""


def _check_package(tmp_path: Path, helper: str) -> list[dict[str, object]]:
    package = tmp_path / "pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "shapes.py").write_text(helper)
    (package / "export.py").write_text(EXPORT_SCRIPT)
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    done = subprocess.run(
        [exe, "check", "--format", "json", "--no-cache", "-j", "1", str(package)],
        capture_output=True, text=True, cwd=tmp_path, check=False,
    )
    assert done.returncode in (0, 1), done.stderr
    return [f for f in json.loads(done.stdout) if f["code"] == "XPT502"]


def test_a_one_line_helper_of_another_file_is_read_through_its_summary(tmp_path: Path) -> None:
    """`dynamic_shapes=batch_first(Dim("batch"))`, `batch_first` in another file returning
    `{"input_ids": {0: batch}}`: the key is not `forward`'s, flagged at the export call."""
    [finding] = _check_package(tmp_path, 'def batch_first(batch):\n    return {"input_ids": {0: batch}}\n')
    assert finding["filename"].endswith("export.py")  # type: ignore[union-attr]
    assert "'input_ids' is not an argument of forward (tokens)" in finding["message"]  # type: ignore[operator]
    assert finding["location"] == {"row": 9, "column": 12}  # the export call


def test_a_helper_that_does_more_than_return_is_not_seen_through(tmp_path: Path) -> None:
    helper = 'def batch_first(batch):\n    print(batch)\n    return {"input_ids": {0: batch}}\n'
    assert _check_package(tmp_path, helper) == []


# -- what the shape rules read is the same fact ---------------------------------------------------

BRANCH = """
import torch
from torch.export import Dim
def _h(v):
    return v
class Net(torch.nn.Module):
    def forward(self, tokens):
        if tokens.shape[0] > 4:
            return tokens * 2
        return tokens
def export():
    {before}
    return torch.export.export(Net(), (torch.randn(8, 8),), dynamic_shapes={shapes})
"""


@pytest.mark.parametrize(("before", "shapes"), [
    ("pass", '{"tokens": {0: Dim("batch", min=2, max=64)}}'),
    ('key, batch = "tokens", Dim("batch", min=2, max=64)', "_h({_h(key): {_h(0): batch}})"),
])
def test_the_declared_shapes_a_size_test_is_judged_by_are_read_through_any_spelling(before: str, shapes: str) -> None:
    """A branch that splits a named `Dim`'s range fails export (XPT301 error), however the
    declaration is written."""
    source = BRANCH.format(before=before, shapes=shapes)
    [finding] = [f for f in check_source(source, "m.py", EVERYTHING) if f.code == "XPT301"]
    assert finding.severity.value == "error" and "batch" in finding.message


EXAMPLE = """
import torch
from torch.export import Dim
{helper}
class Net(torch.nn.Module):
    def forward(self, tokens, *, mask):
        return tokens * mask
def xport_example():
    {body}
"""
_SHAPES = '{"tokens": {0: Dim("batch")}}'
_ARGS, _KWARGS = "(torch.randn(4, 8),)", '{"mask": torch.ones(4, 8, 2)}'

#: one `xport_example()`, its inputs and shapes written four ways: (helper, body)
EXAMPLE_FORMS = {
    "dict": ("", f'return {{"model": Net(), "args": {_ARGS}, "kwargs": {_KWARGS}, "dynamic_shapes": {_SHAPES}}}'),
    "dict-bound-to-a-name": (
        "", f'example = {{"model": Net(), "args": {_ARGS}, "kwargs": {_KWARGS}, "dynamic_shapes": {_SHAPES}}}\n'
        "    return example",
    ),
    "inputs-bound-first": (
        "", f"inputs = {_ARGS}\n    named = {_KWARGS}\n"
        f'    return {{"model": Net(), "args": inputs, "kwargs": named, "dynamic_shapes": {_SHAPES}}}',
    ),
    "dict-of-a-helper": (
        "def _example(model, inputs, named):\n"
        f'    return {{"model": model, "args": inputs, "kwargs": named, "dynamic_shapes": {_SHAPES}}}\n',
        f"return _example(Net(), {_ARGS}, {_KWARGS})",
    ),
}


@pytest.mark.parametrize("form", EXAMPLE_FORMS)
def test_the_ranks_of_an_examples_inputs_come_from_its_export_site(form: str) -> None:
    """The example inputs whose ranks the declared shapes carry are the export site's, in every
    form the site reads (not a second reading of the first `return`)."""
    helper, body = EXAMPLE_FORMS[form]
    sites = ExportSites(cst.parse_module(EXAMPLE.format(helper=helper, body=body)), True)
    assert dict(sites.declared_shapes["Net"].ranks) == {"#0": 2, "mask": 3}
