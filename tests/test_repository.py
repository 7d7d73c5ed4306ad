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
    # torch's CPU build, on any Linux machine (PyPI's default there is the CUDA build)
    assert "torch==2.13.0 --index-url https://download.pytorch.org/whl/cpu" in command


def test_ruff_clean() -> None:
    ruff = shutil.which("ruff", path=str(Path(sys.executable).parent)) or "ruff"
    result = subprocess.run([ruff, "check", "analyzers", "tests", "bench"], cwd=REPO, capture_output=True, text=True)
    assert result.returncode == 0, result.stdout


def test_the_engine_has_no_import_cycles() -> None:
    """Every import between the engine's modules (type-only ones too) points one way: index ->
    program -> context -> rule -> registry -> config -> runner -> project -> cli."""
    import ast

    package = Path(__file__).parent.parent / "analyzers" / "xport_lint" / "analyzers"
    graph: dict[str, set[str]] = {}
    for path in package.rglob("*.py"):
        parts = path.relative_to(package).with_suffix("").parts
        name = ".".join(p for p in parts if p != "__init__")
        here = name.split(".") if path.name == "__init__.py" else name.split(".")[:-1]
        imported: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = here[: len(here) - (node.level - 1)] if node.level > 1 else here
                target = ".".join([*base, *([node.module] if node.module else [])])
                for alias in node.names:
                    full = f"{target}.{alias.name}" if target else alias.name
                    imported.add(full if (package / Path(*full.split("."))).with_suffix(".py").exists()
                                 or (package / Path(*full.split("."))).is_dir() else target)
        graph[name] = {i for i in imported if i and i != name}
    # the `rules` package imports its rules lazily (registry), and a package's __init__ re-exports
    cycles = []
    state: dict[str, int] = {}

    def visit(node: str, trail: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph.get(node, ())):
            if state.get(nxt) == 1:
                cycles.append(" -> ".join([*trail[trail.index(nxt):], nxt]) if nxt in trail else f"{node} -> {nxt}")
            elif nxt not in state:
                visit(nxt, [*trail, nxt])
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])
    assert cycles == []


def test_the_server_answers_initialize_before_importing_the_parser() -> None:
    """libcst's import is most of the server's start-up: the app module must not pull it in
    (it did, through the line splitter, until bench/server_bench.py showed 1.43x a bare server)."""
    import subprocess
    import sys

    probe = "import sys, xport_lint.server.app; sys.exit('libcst' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", probe], timeout=120).returncode == 0

