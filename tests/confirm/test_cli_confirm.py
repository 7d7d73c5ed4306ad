"""`xport-lint check --confirm`: the real command, real torch."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cli import BAD, run

pytest.importorskip("torch")
pytestmark = pytest.mark.torch
EXAMPLE = "def xport_example():\n    return Gate(), (torch.randn(4),)\n"


def test_confirm_marks_findings_and_fails_on_a_failing_example(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "gate.py").write_text(BAD + EXAMPLE)
    result = run("check", "--no-cache", "--confirm", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    (item,) = json.loads(result.stdout)
    assert item["code"] == "XPT101" and item["confirmation"] == "confirmed"
    sarif = json.loads(run("check", "--no-cache", "--confirm", "--format", "sarif", ".", cwd=tmp_path).stdout)
    assert sarif["runs"][0]["results"][0]["properties"]["confirmation"] == "confirmed"


def test_confirm_fails_on_an_example_that_does_not_export_even_without_findings(tmp_path: Path) -> None:
    source = (
        "import torch\nclass Gate(torch.nn.Module):\n    def forward(self, x):\n"
        "        return x + getattr(x, 'data_ptr')() % 2\n" + EXAMPLE
    )
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "gate.py").write_text(source)
    assert run("check", "--no-cache", ".", cwd=tmp_path).returncode == 0
    result = run("check", "--no-cache", "--confirm", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    (item,) = json.loads(result.stdout)
    assert item["code"] == "XPT905" and item["confirmation"] == "new" and item["location"]["row"] == 4


@pytest.mark.parametrize("folder", ["pkg", "src/pkg/sub"])
def test_a_file_of_a_package_is_confirmed_with_its_relative_imports(tmp_path: Path, folder: str) -> None:
    """`from .blocks import ...` resolves (the file is imported by its dotted name, not as a loose
    file), and a failure in the other file is reported at this file's call, naming the failing line."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    package = tmp_path / folder
    package.mkdir(parents=True)
    for part in [package, *package.relative_to(tmp_path).parents][:-1]:
        if part.name != "src":
            (tmp_path / part / "__init__.py").write_text("")
    (package / "blocks.py").write_text("def keep_positive(x):\n    if x.sum() > 0:\n        return x\n    return -x\n")
    (package / "model.py").write_text(
        "import torch\n\nfrom .blocks import keep_positive\n\n\nclass Gate(torch.nn.Module):\n"
        "    def forward(self, x):\n        return keep_positive(x) * 2\n\n\n" + EXAMPLE
    )
    result = run("check", "--no-cache", "--confirm", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    items = json.loads(result.stdout)
    assert not [i for i in items if i["code"] == "XPT906"], items  # not "could not confirm"
    (run_line,) = [i for i in items if i["code"] == "XPT901"]
    assert run_line["filename"].endswith("model.py") and run_line["location"]["row"] == 8
    assert "(at blocks.py:2)" in run_line["message"]
    assert run_line["related"][0]["filename"].endswith("blocks.py") and run_line["related"][0]["location"]["row"] == 2


def test_examples_from_pyproject(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.xport-lint]\n[tool.xport-lint.examples]\n"models.gate.Gate" = "examples_for_tests:gate"\n'
    )
    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "__init__.py").write_text("")
    (tmp_path / "models" / "gate.py").write_text(BAD)
    (tmp_path / "examples_for_tests.py").write_text(
        "import torch\nfrom models.gate import Gate\ndef gate():\n    return Gate(), (torch.randn(4),)\n"
    )
    result = run("check", "--no-cache", "--confirm", "--format", "json", "models", cwd=tmp_path)
    (item,) = json.loads(result.stdout)
    assert item["confirmation"] == "confirmed", result.stderr[-2000:]


def test_fix_with_confirm_writes_only_fixes_whose_model_re_exports(tmp_path: Path) -> None:
    """`--fix --unsafe-fixes --confirm`: the fixed file is re-exported before it is written."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "gate.py").write_text(BAD + EXAMPLE)
    # eager accepts branches of different ranks; torch.cond does not, so this fix cannot export
    ranks = BAD.replace("return x\n", "return x.unsqueeze(0)\n", 1)
    (tmp_path / "ranks.py").write_text(ranks + EXAMPLE)
    result = run("check", "--no-cache", "--fix", "--unsafe-fixes", "--confirm", ".", cwd=tmp_path)
    fixed = (tmp_path / "gate.py").read_text()
    assert "torch.cond(x.sum() > 0, true_fn, false_fn, (x,))" in fixed
    assert "gate.py proven: the fixed model exports" in result.stderr
    assert (tmp_path / "ranks.py").read_text() == ranks + EXAMPLE  # untouched
    assert "ranks.py: not applied: the fixed model does not export" in result.stderr
    assert not list(tmp_path.glob(".*xport-fix*"))  # the proof's copies are gone
    assert result.returncode == 1  # ranks.py still fails, and says where


def test_fix_with_confirm_keeps_each_fix_proven_on_its_own(tmp_path: Path) -> None:
    """A file whose other finding has no fix still gets the fix that removes its own export
    failure (the file as a whole does not export either way)."""
    source = (
        "import torch\n"
        "class Two(torch.nn.Module):\n"
        "    def forward(self, x, scores):\n"
        "        if x.sum() > 0:\n"
        "            y = x * 2\n"
        "        else:\n"
        "            y = x - 1\n"
        "        total = torch.zeros(())\n"
        "        for s in scores[scores > 0.5]:\n"
        "            total = total + s\n"
        "        return y, total\n"
        "def xport_example():\n"
        "    return Two(), (torch.ones(3), torch.rand(4))\n"
    )
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "mixed.py").write_text(source)
    result = run("check", "--no-cache", "--fix", "--unsafe-fixes", "--confirm", "--format", "json", ".", cwd=tmp_path)
    fixed = (tmp_path / "mixed.py").read_text()
    assert "y = torch.cond(x.sum() > 0, true_fn, false_fn, (x,))" in fixed
    assert "for s in scores[scores > 0.5]:" in fixed
    assert "1 of 1 fix(es) applied, each proven on its own" in result.stderr
    (left,) = json.loads(result.stdout)
    assert left["code"] == "XPT201" and left["confirmation"] == "confirmed"
    assert result.returncode == 1


def test_confirm_prints_suggested_dynamic_shapes_applied_until_export_passes(tmp_path: Path) -> None:
    from tests.server.test_confirm_lsp import GUARDED

    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "window.py").write_text(GUARDED)
    result = run("check", "--no-cache", "--confirm", ".", cwd=tmp_path)
    assert result.returncode == 1  # the example as written does not export
    assert "with them applied (1 round(s)), export passes" in result.stderr
    assert "dynamic_shapes={'x': {0: torch.export.Dim('n', min=0, max=4)}" in result.stderr


def test_a_terminal_sees_which_file_is_being_confirmed_and_a_pipe_sees_no_bar(tmp_path: Path) -> None:
    """Each confirmation takes seconds: on a terminal a progress bar names the file; piped (or
    JSON) output stays free of it."""
    import os
    import pty
    import shutil
    import subprocess
    import sys

    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "gate.py").write_text(BAD + EXAMPLE)
    exe = shutil.which("xport-lint", path=str(Path(sys.executable).parent)) or "xport-lint"
    controller, terminal = pty.openpty()
    process = subprocess.Popen([exe, "check", "--no-cache", "--confirm", "gate.py"], cwd=tmp_path,
                               stdout=subprocess.PIPE, stderr=terminal, env={**os.environ, "NO_COLOR": "1"})
    os.close(terminal)
    seen = b""
    while True:
        try:
            chunk = os.read(controller, 4096)
        except OSError:  # the terminal closed: the command is done
            break
        if not chunk:
            break
        seen += chunk
    process.wait(timeout=300)
    os.close(controller)
    text = seen.decode(errors="replace")
    assert "confirming" in text and "gate.py" in text and "confirmation of gate.py" in text
    piped = run("check", "--no-cache", "--confirm", "gate.py", cwd=tmp_path)
    assert "confirming" not in piped.stderr and "confirmation of gate.py" in piped.stderr


def test_strict_confirmation_pins_a_rejected_context_manager_to_its_with_line(tmp_path: Path) -> None:
    """draft_export is non-strict, so it passes a lock; strict export (Dynamo) rejects it and
    names the user's line only in its message ("from user code:"): that line is the `with`."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "cached.py").write_text(
        "import threading\nimport torch\n\n\nclass Cached(torch.nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.lock = threading.Lock()\n\n    def forward(self, x):\n"
        "        with self.lock:\n            return x * 2\n\n\n"
        "def xport_example():\n    return Cached(), (torch.randn(2, 4),)\n"
    )
    result = run("check", "--no-cache", "--strict", "--confirm", "--format", "json", ".", cwd=tmp_path)
    assert result.returncode == 1
    (item,) = json.loads(result.stdout)
    assert item["code"] == "XPT410" and item["location"]["row"] == 11 and item["confirmation"] == "confirmed"
    assert "confirmed by strict export" in item["message"]


def test_a_run_past_the_memory_cap_is_a_failure_that_names_the_exception(tmp_path: Path) -> None:
    """Export traces with fake tensors and passes; draft_export runs the real ops, and torch's
    allocator fails under the cap. That was "draft_export itself raised", no finding, exit 0."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "big.py").write_text(
        "import torch\nclass Big(torch.nn.Module):\n    def forward(self, x):\n"
        "        y = torch.zeros(2**31) + 1  # 8 GiB when run for real\n        return x + y[:4]\n"
        "def xport_example():\n    return Big(), (torch.randn(4),)\n"
    )
    result = run("check", "--no-cache", "--confirm", "--confirm-memory", "4", "--format", "json", ".",
                 cwd=tmp_path, timeout=600)
    assert result.returncode == 1
    (item,) = json.loads(result.stdout)
    assert item["code"] == "XPT906" and item["location"]["row"] == 4, item
    assert "out of memory (the worker's memory cap is 4.0 GiB)" in item["message"]
    assert "RuntimeError" in item["message"] and "can't allocate memory" in item["message"]


@pytest.mark.parametrize(("python", "why"), [
    ("/no/such/python", "no such interpreter"),
    ("pyproject.toml", "not executable"),
    ("/bin/true", "not a Python interpreter"),
], ids=["missing", "not-executable", "not-python"])
def test_a_bad_python_is_named_as_such_not_as_missing_torch(tmp_path: Path, python: str, why: str) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "gate.py").write_text(BAD + EXAMPLE)
    result = run("check", "--confirm", "--python", str(tmp_path / python) if "/" not in python else python,
                 "gate.py", cwd=tmp_path)
    assert result.returncode == 2
    assert why in result.stderr and "cannot import torch" not in result.stderr


def test_torch_output_stays_off_stderr_even_when_the_worker_dies(tmp_path: Path) -> None:
    """Export fails (torch prints its partial FX graph and logs warnings), then the model kills
    the worker on draft_export's run: the crash report shows the model's own last words, not
    torch's output, which the worker keeps in the confirmation's log."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "gate.py").write_text(
        BAD.replace("    def forward(self, x):\n", "    calls = 0\n    def forward(self, x):\n"
                    "        Gate.calls += 1\n        if Gate.calls == 2:\n"
                    "            print('the model gives up')\n            os._exit(3)\n")
        .replace("import torch", "import os\nimport torch") + EXAMPLE
    )
    result = run("check", "--no-cache", "--confirm", "gate.py", cwd=tmp_path, timeout=600)
    assert result.returncode == 1
    assert "the worker exited with status 3" in result.stderr and "the model gives up" in result.stderr
    assert "def forward(self" not in result.stderr and "symbolic_shapes" not in result.stderr


def test_torch_output_is_shown_when_asked(tmp_path: Path) -> None:
    """torch's own output of a confirmation (its graph dump, draft_export's report banner) is kept
    off stderr, and shown under the file's confirmation note with --torch-output."""
    (tmp_path / "pyproject.toml").write_text("[tool.xport-lint]\n")
    (tmp_path / "gate.py").write_text(BAD + EXAMPLE)
    quiet = run("check", "--no-cache", "--confirm", "gate.py", cwd=tmp_path, timeout=600)
    shown = run("check", "--no-cache", "--confirm", "--torch-output", "gate.py", cwd=tmp_path, timeout=600)
    assert quiet.returncode == shown.returncode == 1
    assert "torch's output:" not in quiet.stderr and "_draft_export.py" not in quiet.stderr
    note = shown.stderr[shown.stderr.index("confirmation of gate.py"):]
    assert "torch's output:" in note and "_draft_export.py" in note
