"""The repository keeps its promises: README in sync with the registry, CI runs the README's
test command, the code is ruff-clean."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from xport_lint.analyzers import registry
from xport_lint.analyzers.cli import rules_page, rules_table

REPO = Path(__file__).parents[1]
README = (REPO / "README.md").read_text()


def test_readme_rule_table_is_generated_from_the_registry() -> None:
    assert rules_table() in README


def test_rule_links_point_into_the_generated_rules_page() -> None:
    page = (REPO / "docs" / "rules.md").read_text()
    assert page == rules_page(), "regenerate with: xport-lint rules --format page > docs/rules.md"
    for code, rule in registry.RULES.items():
        anchor = rule.url().rpartition("#")[2]
        assert rule.url().split("/blob/main/")[1].startswith("docs/rules.md") and f'<a id="{anchor}"></a>' in page, code


def test_ci_runs_the_readme_test_command_verbatim() -> None:
    ci = (REPO / ".ci" / "run").read_text()
    command = next(line for line in ci.splitlines() if "pytest" in line and "pip install" in line)
    assert f"```bash\n{command}\n```" in README


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    result = subprocess.run([ruff, "check", "analyzers", "tests", "bench"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout
