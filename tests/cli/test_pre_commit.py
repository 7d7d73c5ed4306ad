"""The published hook, installed by real pre-commit from this repository."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.cli.test_cli import BAD, GOOD

REPO = Path(__file__).parents[2]


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_pre_commit_try_repo_fails_on_bad_model_and_passes_on_good(tmp_path: Path) -> None:
    work = tmp_path / "user-repo"
    work.mkdir()
    git("init", "-q", cwd=work)
    (work / "model.py").write_text(BAD)
    git("add", ".", cwd=work)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}
    command = [sys.executable, "-m", "pre_commit", "try-repo", str(REPO), "xport-lint", "--all-files"]
    bad = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "XPT101" in bad.stdout
    (work / "model.py").write_text(GOOD)
    git("add", ".", cwd=work)
    good = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert good.returncode == 0, good.stdout + good.stderr


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_a_config_pinned_to_a_revision_installs_and_runs(tmp_path: Path) -> None:
    """What the README tells a user to write: the repository and a revision that exists (a
    commit SHA: no release tags are published), then `pre-commit run`."""
    rev = subprocess.run(["git", "rev-parse", "HEAD"], cwd=REPO, capture_output=True, text=True, check=True).stdout.strip()
    work = tmp_path / "user-repo"
    work.mkdir()
    git("init", "-q", cwd=work)
    (work / ".pre-commit-config.yaml").write_text(
        f"repos:\n  - repo: {REPO.as_uri()}\n    rev: {rev}\n    hooks:\n      - id: xport-lint\n"
    )
    (work / "model.py").write_text(BAD)
    git("add", ".", cwd=work)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1"}
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    bad = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1 and "XPT101" in bad.stdout, bad.stdout + bad.stderr


def readme_local_hook() -> str:
    """The `repo: local` block of the README's pre-commit section, as a user would paste it."""
    section = (REPO / "README.md").read_text().split("\n## pre-commit\n", 1)[1].split("\n## ", 1)[0]
    blocks = [b.split("\n```", 1)[0] for b in section.split("```yaml\n")[1:]]
    (block,) = [b for b in blocks if "repo: local" in b]
    return block + "\n"


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_readme_local_hook_works_as_pasted(tmp_path: Path) -> None:
    """`language: system` runs the xport-lint on PATH (here: this virtualenv's). The package's
    error is in ops.py, reached only from model.py's forward: one run must see both files."""
    work = tmp_path / "user-repo"
    (work / "pkg").mkdir(parents=True)
    git("init", "-q", cwd=work)
    (work / ".pre-commit-config.yaml").write_text(readme_local_hook())
    (work / "pkg" / "__init__.py").write_text("")
    (work / "pkg" / "model.py").write_text(
        "import torch\nfrom pkg.ops import keep_positive\n\n"
        "class Model(torch.nn.Module):\n    def forward(self, x):\n        return keep_positive(x)\n"
    )
    (work / "pkg" / "ops.py").write_text("def keep_positive(x):\n    if x.sum() > 0:\n        return x\n    return -x\n")
    (work / "good.py").write_text(GOOD)
    git("add", ".", cwd=work)
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "cache"), "NO_COLOR": "1",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}"}
    command = [sys.executable, "-m", "pre_commit", "run", "--all-files"]
    bad = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "pkg/ops.py:2:8: XPT101" in bad.stdout
    (work / "pkg" / "ops.py").write_text("def keep_positive(x):\n    return x.abs()\n")
    (work / "bad.py").write_text(BAD)
    git("add", ".", cwd=work)
    only_bad = subprocess.run([*command[:-1], "--files", "bad.py"], cwd=work, env=env, capture_output=True,
                              text=True, timeout=600)
    assert only_bad.returncode == 1 and "bad.py:4:12: XPT101" in only_bad.stdout
    (work / "bad.py").unlink()
    git("add", ".", cwd=work)
    good = subprocess.run(command, cwd=work, env=env, capture_output=True, text=True, timeout=600)
    assert good.returncode == 0, good.stdout + good.stderr
