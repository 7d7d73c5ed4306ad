"""Findings do not depend on the order of call sites, of definitions or of files.

A helper's parameters hold the join of what every traced call site passes it: `helper(3)` and
`helper(x.sum())` make `n` a tensor whichever call comes first, whether the helper is a function
or a method, called positionally or by keyword, with the value inline or bound to a name first,
inside a tuple or behind another helper. Each spelling below is checked under every order of its
calls and of its definitions (the engine, fast), and a project of three files under every order
of the files on the command line (the real CLI's JSON output).

A finding is identified by its code, its line (by the function it is in and the line's text, so
that moving a definition does not count as a change), message and severity; a finding reached
from another file keeps the same `traced: reached from ...` note too.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

import pytest

from xport_lint.analyzers.config import Config
from xport_lint.analyzers.model import Finding
from xport_lint.analyzers.project import check_project
from xport_lint.analyzers.runner import check_source

HEADER = "import torch\nfrom torch import nn\n"
_DEF = re.compile(r"^(\s*)(?:def|class)\s+(\w+)")

#: (code, enclosing definition, text of the line, message, severity, reach notes)
Key = tuple[str, str, str, str, str, tuple[str, ...]]


@dataclass(frozen=True)
class Spelling:
    """A model whose `forward` calls helpers in `calls` (each one or more lines, kept together);
    `layout`, when set, puts the calls in one statement (`a, b = {}, {}`) instead of one a line.
    `functions` are module-level definitions and `methods` the model's other methods: both
    permuted, `forward` among the methods. `expected`: codes of the findings, in any order."""

    name: str
    calls: tuple[str, ...]
    functions: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    layout: str | None = None
    expected: tuple[str, ...] = ("XPT101",)

    def source(self, calls: tuple[str, ...], functions: tuple[str, ...], methods: tuple[str, ...]) -> str:
        body = self.layout.format(*calls) if self.layout is not None else "\n".join(calls)
        forward = "def forward(self, x):\n" + textwrap.indent(body, "    ") + "\n    return x\n"
        members = [forward if m == "forward" else m for m in methods]
        model = "class Model(nn.Module):\n" + "\n".join(textwrap.indent(m, "    ") for m in members)
        blocks = [model if f == "Model" else f for f in functions]
        return HEADER + "\n\n" + "\n\n".join(blocks)

    def variants(self) -> list[tuple[str, str]]:
        """(what was permuted, source) for every order of the calls, then of the definitions."""
        functions = (*self.functions, "Model")
        methods = (*self.methods, "forward")
        out = [(f"calls {n}", self.source(c, functions, methods)) for n, c in enumerate(itertools.permutations(self.calls))]
        out += [
            (f"definitions {n}", self.source(self.calls, f, methods))
            for n, f in enumerate(itertools.permutations(functions))
        ]
        out += [
            (f"methods {n}", self.source(self.calls, functions, m)) for n, m in enumerate(itertools.permutations(methods))
        ]
        return out


HELPER = "def helper(n):\n    if n > 0:\n        return n\n    return -n\n"

SPELLINGS = [
    Spelling("function", ("a = helper(3)", "b = helper(x.sum())"), functions=(HELPER,)),
    Spelling(
        "method",
        ("a = self.helper(3)", "b = self.helper(x.sum())"),
        methods=("def helper(self, n):\n    if n > 0:\n        return n\n    return -n\n",),
    ),
    Spelling(
        "static-method",
        ("a = self.helper(3)", "b = self.helper(x.sum())"),
        methods=("@staticmethod\ndef helper(n):\n    if n > 0:\n        return n\n    return -n\n",),
    ),
    Spelling(
        "nested-two-levels",
        ("a = outer(3)", "b = outer(x.sum())"),
        functions=(
            "def outer(m):\n    return inner(m + 1)\n",
            "def inner(n):\n    if n > 0:\n        return n\n    return -n\n",
        ),
    ),
    Spelling(
        "method-calls-method",
        ("a = self.outer(3)", "b = self.outer(x.sum())"),
        methods=(
            "def outer(self, m):\n    return self.inner(m * 2)\n",
            "def inner(self, n):\n    if n > 0:\n        return n\n    return -n\n",
        ),
    ),
    Spelling(
        "keyword-and-positional",
        ("a = helper(3, scale=2)", "b = helper(scale=2, n=x.sum())", "c = helper(n=1)"),
        functions=("def helper(n, scale=1):\n    if n > 0:\n        return n * scale\n    return -n\n",),
    ),
    Spelling(
        "bound-to-a-name",
        ("a = helper(3)", "total = x.sum()\nb = helper(total)"),
        functions=(HELPER,),
    ),
    Spelling(
        "tuple-of-two-results",
        ("helper(3)", "helper(x.sum())"),
        functions=(HELPER,),
        layout="a, b = {}, {}",
    ),
    Spelling(
        "unpacked-result",
        ("a, b = pair(3)", "c, d = pair(x.sum())"),
        functions=("def pair(n):\n    if n > 0:\n        return n, n\n    return n, -n\n",),
    ),
    Spelling("bare-call", ("helper(3)", "helper(x.sum())"), functions=(HELPER,)),
    Spelling(
        "dict-value",
        ("a = helper(3)", "out = {'b': helper(x.sum())}"),
        functions=(HELPER,),
    ),
    Spelling(
        "number-read-from-data",
        ("a = helper(3)", "b = helper(x.sum().item())"),
        functions=(HELPER,),
        expected=("XPT104",),
    ),
    Spelling(
        "size-depends-on-data",
        ("a = helper(x)", "b = helper(x[x > 0])"),
        functions=("def helper(t):\n    if t.shape[0] == 0:\n        return t\n    return t + 1\n",),
        expected=("XPT105",),
    ),
    Spelling(
        "flag-and-tensor",
        ("a = helper(x, False)", "b = helper(x, x.any())"),
        functions=("def helper(t, flag):\n    if flag:\n        return t\n    return -t\n",),
    ),
]


def key(finding: Finding, source: str) -> Key:
    """The finding, its line named by the definition it is in and its text."""
    lines = source.splitlines()
    line = finding.span.start.line
    text = lines[line - 1]
    indent = len(text) - len(text.lstrip())
    owner = ""
    for above in reversed(lines[: line - 1]):
        match = _DEF.match(above)
        if match and len(match.group(1)) < indent:
            owner = match.group(2)
            break
    reach = tuple(r.message for r in finding.related if r.message.startswith("traced:"))
    # the earlier failure it comes after, by its text: its line number moves with the order
    message = finding.own_message if finding.after is None else (
        f"{finding.own_message} (after `{lines[finding.after - 1].strip()}`)"
    )
    return finding.code, owner, text.strip(), message, finding.severity.value, reach


def findings_of(source: str) -> list[Key]:
    return sorted(key(f, source) for f in check_source(source, "model.py"))


@pytest.mark.parametrize("spelling", SPELLINGS, ids=lambda s: s.name)
def test_findings_are_the_same_in_every_order(spelling: Spelling) -> None:
    variants = spelling.variants()
    first_label, first_source = variants[0]
    first = findings_of(first_source)
    assert sorted(code for code, *_ in first) == sorted(spelling.expected), first_source
    for label, source in variants[1:]:
        assert findings_of(source) == first, f"{label} differs from {first_label}:\n{source}"


# -- a project: the helper in one file, its callers in two others -------------------------------

PROJECT = {
    "ops.py": """
        def helper(n):
            if n > 0:
                return n
            return -n


        def twice(n):
            return helper(n * 2)
    """,
    "model_a.py": """
        from torch import nn

        from ops import helper, twice


        class ModelA(nn.Module):
            def forward(self, x):
                a = helper(3)
                b = twice(1)
                return x
    """,
    "model_b.py": """
        from torch import nn

        from ops import helper, twice


        class ModelB(nn.Module):
            def forward(self, x):
                a = twice(x.sum().item())
                b = helper(2)
                return x
    """,
}


def write_project(root: Path) -> list[str]:
    for name, text in PROJECT.items():
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))
    return sorted(PROJECT)


def project_keys(results: dict[str, list[Finding]], root: Path) -> list[tuple[str, Key]]:
    return sorted(
        (name, key(finding, (root / name).read_text())) for name, found in results.items() for finding in found
    )


def test_project_findings_do_not_depend_on_the_order_of_files(tmp_path: Path) -> None:
    names = write_project(tmp_path)
    seen = []
    for order in itertools.permutations(names):
        checked = check_project([str(tmp_path / n) for n in order], Config(), None, jobs=1)
        seen.append(project_keys({Path(r.path).name: r.findings for r in checked.results}, tmp_path))
    # the number read from data reaches `helper` through `twice` from ModelB; the note names the
    # entry point first in sorted order among the shortest chains, whichever file came first
    assert [(name, code, owner, reach) for name, (code, owner, _, _, _, reach) in seen[0]] == [
        ("ops.py", "XPT104", "helper", ("traced: reached from `ModelA.forward`",))
    ]
    assert all(found == seen[0] for found in seen), seen


def xport_lint(*args: str, cwd: Path) -> list[tuple[object, ...]]:
    """The findings of a real `xport-lint check --format json`, with their notes."""
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    result = subprocess.run(
        [exe, "check", "--no-cache", "--format", "json", *args], cwd=cwd, capture_output=True, text=True, timeout=120
    )
    assert result.returncode in (0, 1), result.stderr
    return sorted(
        (
            f["filename"], f["code"], f["location"]["row"], f["message"], f["severity"],
            tuple((r["message"], r["filename"], r["location"]["row"]) for r in f["related"]),
        )
        for f in json.loads(result.stdout)
    )


def test_cli_json_does_not_depend_on_the_order_of_files(tmp_path: Path) -> None:
    names = write_project(tmp_path)
    outputs = [xport_lint(*order, cwd=tmp_path) for order in itertools.permutations(names)]
    assert [(name, code) for name, code, *_ in outputs[0]] == [("ops.py", "XPT104")]
    assert all(found == outputs[0] for found in outputs), outputs


def test_cli_json_does_not_depend_on_the_order_of_calls(tmp_path: Path) -> None:
    spelling = SPELLINGS[0]
    outputs = []
    for calls in itertools.permutations(spelling.calls):
        (tmp_path / "model.py").write_text(spelling.source(calls, (*spelling.functions, "Model"), ("forward",)))
        outputs.append(xport_lint("model.py", cwd=tmp_path))
    assert [(code, row) for _, code, row, *_ in outputs[0]] == [("XPT101", 6)]
    assert outputs[1] == outputs[0]
