"""The VS Code extension, built and tested as its users and CI get it: `npm ci`, ESLint and
`tsc --noEmit` (inside `npm run package`), the unit tests, the `.vsix`, and the end-to-end run
in a real VS Code (code-server + Debian's chromium; test/e2e/run.mjs installs what it needs)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

EXTENSION = Path(__file__).parents[2] / "vscode-extension"
pytestmark = pytest.mark.skipif(shutil.which("npm") is None, reason="npm is not installed: the extension cannot be built")


def npm(*args: str, timeout: float = 600) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        ["npm", *args], cwd=EXTENSION, capture_output=True, text=True, timeout=timeout, check=False
    )


def test_extension_builds_passes_its_tests_and_works_in_vs_code() -> None:
    """One test, not several sharing a fixture: two xdist workers running `npm ci` in the same
    folder at once delete each other's node_modules."""
    for step in (("ci", "--no-audit", "--no-fund"), ("run", "package"), ("test",)):
        result = npm(*step)
        assert result.returncode == 0, f"npm {' '.join(step)}:\n{result.stdout[-3000:]}\n{result.stderr[-3000:]}"
    assert "# fail 0" in result.stdout  # the unit tests: interpreter discovery, serialised restarts, settings
    vsix = EXTENSION / "xport-lint.vsix"
    listing = subprocess.run(
        [sys.executable, "-m", "zipfile", "-l", str(vsix)], capture_output=True, text=True, check=True
    ).stdout
    assert "extension/dist/extension.js" in listing and "extension/package.json" in listing
    assert "node_modules" not in listing and "/src/" not in listing  # bundled, no dev dependencies
    if not Path("/usr/bin/chromium").exists() and os.geteuid() != 0:
        pytest.skip("Debian's chromium is missing and installing it needs root")
    result = subprocess.run(
        ["node", "test/e2e/run.mjs"],
        cwd=EXTENSION,
        capture_output=True,
        text=True,
        timeout=1200,
        env={**os.environ, "XPORT_PYTHON": sys.executable},
        check=False,
    )
    report = "\n".join(line for line in result.stdout.splitlines() if line.startswith("[e2e]"))
    assert result.returncode == 0, f"{report}\n{result.stderr[-4000:]}"
    modes = ("trusted", "untrusted", "venv", "restricted", "missing")
    for needed in (*(f"{mode}: ok" for mode in modes), "the quick fix applied", "all end-to-end tests passed"):
        assert needed in report
    scenarios = (  # the extension-host tests each line reports (name prefixes)
        ("trusted", "the Export readiness tree lists the model with its verdict, and a finding opens its line"),
        ("trusted", "on a model: Open export script goes to its xport_example(), Fix all in this model applies its fixes"),
        ("trusted", "Confirm from the lens gives that file's status and marks its findings"),
        ("trusted", "the status bar follows the active file"),
        ("trusted", "Confirm from the tree changes the model's icon"),
        ("trusted", "a notebook's third cell shows its diagnostic, and the quick fix applies in that cell"),
        ("trusted", "Show rule documentation opens the finding's rule; Disable for this file silences the file"),
        ("trusted", "the export readiness report opens in a webview"),
        ("restricted", "Restricted Mode without a user setting lints with the activated venv"),
        ("restricted", "the tree works untrusted, with Confirm refused"),
        ("restricted", "granting trust keeps one working server, on the activated venv without settings"),
    )
    for mode, name in scenarios:
        assert f"{mode}: ok   {name}" in report, f"{mode}: {name}"
    assert "the Export readiness view shows the failing model and its finding" in report
    assert "a click on the finding in the Export readiness view opens its line" in report
