"""The engine as a library: bad input never raises, suppressions, config, purity."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import all_cases
from xport_lint.analyzers import Config, Mode, check_source
from xport_lint.analyzers.config import ConfigError

EXAMPLES = sorted((Path(__file__).parents[2] / "examples").glob("*.py"))
GATE = """\
import torch
class Gate(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:{comment}
            return x
        return -x
"""


def test_static_path_never_imports_torch_or_lsp() -> None:
    code = (
        "import sys; from xport_lint.analyzers import check_source; "
        f"check_source({GATE.format(comment='')!r}, 'm.py'); "
        "bad = [m for m in ('torch', 'pygls', 'lsprotocol') if m in sys.modules]; "
        "assert not bad, bad"
    )
    subprocess.run([sys.executable, "-c", code], check=True)


@pytest.mark.parametrize("path", EXAMPLES + [None], ids=[p.name for p in EXAMPLES] + ["rule-examples"])
def test_every_prefix_of_a_model_file_is_handled(path: Path | None) -> None:
    """Half-typed code: each prefix (by line, and mid-line) gives findings or XPT000, never an exception."""
    sources = [path.read_text()] if path else [c.source for _, c, _ in all_cases()[:12]]
    for source in sources:
        for cut in range(0, len(source), 7):
            for finding in check_source(source[:cut], "half.py"):
                assert finding.span.start.line >= 1


def test_syntax_error_is_one_xpt000_at_the_error() -> None:
    findings = check_source("import torch\nclass M(torch.nn.Module):\n    def forward(self, x\n", "m.py")
    assert [f.code for f in findings] == ["XPT000"]
    assert findings[0].span.start.line >= 3


@pytest.mark.parametrize(
    "source",
    ["def forward(x):\n" + "    " * 0 + "return " + "(" * 5000 + ")" * 5000 + "\n", "forward\x00", "\ufeffdef forward(x): pass\n"],
    ids=["deep-nesting", "nul", "bom"],
)
def test_hostile_text_does_not_raise(source: str) -> None:
    check_source(source, "weird.py")


@pytest.mark.parametrize("comment", ["  # noqa: XPT101", "  # noqa", "  # xport: ignore[XPT101]", "  # xport: ignore"])
def test_suppression_comments(comment: str) -> None:
    assert not check_source(GATE.format(comment=comment), "m.py")


def test_suppression_of_another_code_does_not_hide() -> None:
    findings = check_source(GATE.format(comment="  # noqa: XPT301"), "m.py")
    assert [f.code for f in findings] == ["XPT101"]


def test_unused_suppression_is_opt_in() -> None:
    source = GATE.format(comment="") + "# trailing\nx = 1  # noqa: XPT104\n"
    assert [f.code for f in check_source(source, "m.py")] == ["XPT101"]
    codes = [f.code for f in check_source(source, "m.py", Config(extend_select=("XPT001",)))]
    assert codes == ["XPT101", "XPT001"]


def test_code_outside_traced_scope_is_not_flagged() -> None:
    source = """\
import torch
def train(model, loader):
    for x in loader:
        loss = model(x).sum()
        if loss.item() > 10:
            print("diverging")
class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.fast = torch.rand(()) > 0.5
        if self.fast:
            print("fast")
    def forward(self, x):
        return x * 2
"""
    assert check_source(source, "m.py") == []


def test_module_subclasses_however_imported() -> None:
    body = "    def forward(self, x):\n        if x.any():\n            return x\n        return -x\n"
    for header in (
        "from torch import nn\nclass M(nn.Module):\n",
        "import torch.nn as tnn\nclass M(tnn.Module):\n",
        "from torch.nn import Module as Base\nclass M(Base):\n",
        "import torch\nclass Base(torch.nn.Module):\n    pass\nclass M(Base):\n",
        "from .modeling_utils import PreTrainedModel\nclass M(PreTrainedModel):\n",
    ):
        assert [f.code for f in check_source(header + body, "m.py")] == ["XPT101"], header


def test_helpers_reached_from_forward_are_traced_with_call_site_values() -> None:
    source = """\
import torch
def pick(x, n: int):
    if n > 2:
        return x
    return x.sum() > 0
class M(torch.nn.Module):
    def forward(self, x):
        return self._helper(x, 3)
    def _helper(self, x, k):
        if k > 1:
            return pick(x, k)
        if pick(x, 1):
            return x
        return -x
    def unused(self, x):
        if x.sum() > 0:
            return x
"""
    findings = check_source(source, "m.py")
    assert [(f.code, f.span.start.line) for f in findings] == [("XPT101", 12)]


def test_related_information_points_at_the_item_call() -> None:
    source = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        n = x.sum().item()\n        if n > 0:\n            return x\n        return -x\n"
    (finding,) = check_source(source, "m.py")
    assert finding.code == "XPT104"
    assert finding.related[0].span.start.line == 4


def test_positions_count_code_points_on_non_ascii_lines() -> None:
    source = 'import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        s = "ü"; print(s)\n        return x\n'
    (finding,) = check_source(source, "m.py")
    assert (finding.span.start.line, finding.span.start.column) == (4, 17)


def test_strict_mode_from_config_and_from_strict_export_call() -> None:
    source = "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n        return torch.from_numpy(x.numpy())\n"
    assert [f.code for f in check_source(source, "m.py")] == ["XPT401"]
    assert check_source(source, "m.py", Config(strict=True)) == []
    assert Config(strict=True).mode is Mode.STRICT
    in_file = source + "ep = torch.export.export(M(), (torch.ones(1),), strict=True)\n"
    assert check_source(in_file, "m.py") == []


def test_severity_override_and_per_file_ignores(tmp_path: Path) -> None:
    config = Config.from_table({"severity": {"XPT101": "warning"}, "per-file-ignores": {"legacy_*.py": ["XPT1"]}})
    (finding,) = check_source(GATE.format(comment=""), "m.py", config)
    assert finding.severity.value == "warning"
    assert check_source(GATE.format(comment=""), "legacy_model.py", config) == []


@pytest.mark.parametrize("table", [{"selekt": ["XPT1"]}, {"severity": {"XPT101": "fatal"}}, {"strict": "yes"}])
def test_bad_config_is_a_clear_error(table: dict[str, object]) -> None:
    with pytest.raises(ConfigError):
        Config.from_table(table)


@pytest.mark.parametrize(
    ("text", "mentions"),
    [
        ("ep = torch.export.export(m, args)", True),
        ("ep = export(m, args)", True),
        ("torch.export.draft_export(m, args)", True),
        ("torch._export.aot_compile(f, args)", True),
        ("torch._dynamo.export(f)(x)", True),
        ("@torch.compile(fullgraph=True)", True),
        ("torch.compile(m, fullgraph = True)", True),
        ("_can_compile_fullgraph = True", False),
        ("@lru_cache_unless_export()", False),
        ("from torch.export import Dim", False),
    ],
)
def test_export_call_sites_are_looked_for_only_where_the_text_has_one(text: str, mentions: bool) -> None:
    from xport_lint.analyzers.runner import _mentions_export_call

    assert _mentions_export_call(text) is mentions


_TRICKY_LAYOUT = '''"""Example in the module docstring, at column 0:

class Gate(nn.Module):
    pass
"""
import torch
from torch import nn


def helper(x):
    return x


THRESHOLD = 0.5


@torch.no_grad()
class Gate(nn.Module):
    def forward(self, x):
        if x.sum() > 0:  # data-dependent
            return x
        return -x


class Gate2(nn.Module):
    def forward(self, x):
        y = x * 2
        if y.max() > THRESHOLD: y = y + 1
        return y


if __name__ == "__main__":
    print(Gate()(torch.ones(2)))


def helper(x):  # redefined: the second def wins
    return x + 1


class Later(nn.Module):
    def forward(self, x):
        return x if x.sum() > 0 else -x
'''


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_positions_from_one_region_match_the_whole_file(newline: str) -> None:
    """`ast` parses only the def/class holding findings; its positions must be those of a
    whole-file parse, whatever sits between (docstring look-alikes, decorators, redefinitions)."""
    import ast

    import libcst as cst

    from xport_lint.analyzers.positions import Locator
    from xport_lint.analyzers.walk import with_statements

    source = _TRICKY_LAYOUT.replace("\n", newline)
    module = cst.parse_module(source)
    statements = [s for n, s in with_statements(module, None, in_function=False) if n is s]
    whole = Locator(source, module, ast.parse(source))
    for statement in statements:  # a fresh locator each: the first request decides what is parsed
        assert Locator(source, module).statement_span(statement) == whole.statement_span(statement)
    findings = [(f.code, f.span.start.line, f.span.start.column) for f in check_source(source)]
    assert findings == [("XPT101", 20, 11), ("XPT101", 28, 11), ("XPT101", 42, 20)]


@pytest.mark.parametrize(
    ("check", "bounds"),
    [
        ("assert x.shape[1] <= 512", {("x", 1): [None, 512]}),
        ("assert 2 <= x.size(0) < 65", {("x", 0): [2, 64]}),
        ("torch._check(x.size()[1] >= 4)", {("x", 1): [4, None]}),
        ("if x.shape[1] > 128:\n        raise ValueError('too long')", {("x", 1): [None, 128]}),
        ("assert x.shape[0] > 1 and 100 >= x.shape[1]", {("x", 0): [2, None], ("x", 1): [None, 100]}),
        ("if x.shape[0] > 1 and x.shape[1] > 2:\n        raise ValueError", {}),  # not a conjunction of bounds
        ("assert x.sum() > 0", {}),
    ],
)
def test_size_ranges_forward_asserts(check: str, bounds: dict[tuple[str, int], list[int | None]]) -> None:
    """The ranges XPT503's fix writes into named Dims come from the code's own checks."""
    import libcst as cst

    from xport_lint.analyzers.names import dotted
    from xport_lint.analyzers.rules.xpt503_static_export import _asserted_bounds

    forward = cst.parse_statement(f"def forward(self, x):\n    {check}\n    return x\n")
    assert isinstance(forward, cst.FunctionDef)
    assert _asserted_bounds(forward, dotted) == bounds


def test_a_note_points_where_data_enters_never_at_the_flagged_line() -> None:
    source = (
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x):\n"
        "        print(x.nonzero())\n        idx = x.nonzero()\n"
        "        if idx.shape[0] > 2:\n            return x\n"
        "        if x.nonzero().shape[0] > 3:\n            return x\n"
        "        if x.shape[0] > 3:\n            return x + 1\n        return x\n"
    )
    # `shapes = "dynamic"`: every input dimension Dim.AUTO, so the size test on line 10 is reported
    config = Config(extend_select=("XPT301",), shapes="dynamic")
    findings = {f.span.start.line: f for f in check_source(source, "m.py", config)}
    (note,) = findings[6].related
    assert note.span.start.line == 5 and "x.nonzero()" in note.message  # not the print on line 4
    assert findings[8].related == ()  # on its own line: says nothing new
    assert findings[10].code == "XPT301" and findings[10].related == ()  # `.shape` is not data


@pytest.mark.parametrize(
    ("checks", "test", "flagged"),
    [
        ("torch._check(a >= 0)\n        torch._check(a <= 5)", "a < 6", False),
        ("torch._check(a <= 5)", "a > 9", False),
        ("torch._check_is_size(a)", "a >= 0", False),
        ("torch._check(a >= 0)", "a < 6", True),
        ("torch._check(a <= 5)", "a < 3", True),
    ],
)
def test_torch_check_bounds_that_decide_a_branch_leave_no_guard(checks: str, test: str, flagged: bool) -> None:
    source = (
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x, y):\n        a = x.item()\n"
        f"        {checks}\n        if {test}:\n            return y.sin()\n        return y.cos()\n"
    )
    codes = [f.code for f in check_source(source, "m.py", Config())]
    assert ("XPT104" in codes) is flagged


def test_a_model_class_under_a_forwardless_base_of_the_file_is_traced() -> None:
    """transformers' layout: `FooModel(FooPreTrainedModel)`, `FooPreTrainedModel(PreTrainedModel)`
    with no `forward`: the main model class of most architectures was skipped."""
    source = (
        "import torch\nfrom transformers import PreTrainedModel\n"
        "class FooPreTrainedModel(PreTrainedModel):\n    config_class = None\n"
        "class FooModel(FooPreTrainedModel):\n    def forward(self, x):\n        if x.sum() > 0:\n"
        "            return x\n        return -x\n"
        "class Helper:\n    def forward(self, x):\n        if x.sum() > 0:\n            return x\n        return x\n"
        "class Child(Helper):\n    def forward(self, x):\n        if x.sum() > 0:\n            return x\n        return x\n"
    )
    findings = check_source(source, "modeling_foo.py", Config())
    assert [(f.code, f.span.start.line) for f in findings] == [("XPT101", 7)]


@pytest.mark.parametrize(
    ("signature", "body", "flagged"),
    [
        ("x, return_dict=None, dim=None", "if return_dict:\n            x = x + 1\n        if dim:\n            x = x.sum(dim)", False),
        ("x, logits_to_keep: Union[int, torch.Tensor] = 0", "if logits_to_keep > 1:\n            x = x[-1:]", False),
        ("x, use_cache: Optional[bool] = None", "if use_cache:\n            x = x + 1", False),
        ("x, mask=None", "if mask.sum() > 0:\n            x = x * mask", True),
        ("x, mask: Optional[torch.Tensor] = None", "if mask.any():\n            x = x * mask", True),
        ("x", "for i, part in enumerate(x.chunk(2)):\n            if i == 1:\n                x = x + part", False),
        ("x, **kwargs", "options = {k: v for k, v in kwargs.items() if not k.startswith('decoder_')}\n        x = x + len(options)", False),
    ],
    ids=["none-default-flags", "union-int-tensor", "optional-bool", "none-default-used-as-tensor",
         "optional-tensor", "enumerate-index", "kwargs-items-comprehension"],
)
def test_only_what_is_known_to_be_tensor_data_raises_an_error(signature: str, body: str, flagged: bool) -> None:
    source = (
        "from typing import Optional, Union\nimport torch\nclass M(torch.nn.Module):\n"
        f"    def forward(self, {signature}):\n        {body}\n        return x\n"
    )
    errors = [f for f in check_source(source, "m.py", Config()) if f.severity.value == "error"]
    assert bool(errors) is flagged, errors


@pytest.mark.parametrize(
    ("body", "flagged"),
    [
        ("embeddings, frames, width = self.patches(x)\n        if frames != 4:\n            x = x + 1", False),
        ("out, mask = self.patches(x)\n        if mask.any():\n            x = x + 1", True),
        ("if sys.getrefcount(x) == 2:\n            x = x + 1", False),
        ("seed = int(torch.seed() % 7)\n        x = x + seed", False),
    ],
    ids=["unpacked-submodule-output-not-used-as-tensor", "unpacked-and-used-as-tensor", "sys-call", "torch-seed"],
)
def test_values_only_python_computes_are_not_tensor_data(body: str, flagged: bool) -> None:
    source = (
        "import sys\nimport torch\nclass M(torch.nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.patches = torch.nn.Identity()\n"
        f"    def forward(self, x):\n        {body}\n        return x\n"
    )
    errors = [f for f in check_source(source, "m.py", Config()) if f.severity.value == "error"]
    assert bool(errors) is flagged, errors


def test_a_required_argument_used_only_as_a_dict_is_not_tensor_data() -> None:
    source = (
        "import torch\nclass M(torch.nn.Module):\n    def forward(self, x, outputs, frame: int):\n"
        "        later = min((t for t in outputs if t >= frame), default=None)\n"
        "        for key, value in outputs.items():\n            x = x + value\n        return x\n"
    )
    assert [f for f in check_source(source, "m.py", Config()) if f.severity.value == "error"] == []
