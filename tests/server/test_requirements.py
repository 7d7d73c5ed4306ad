"""Where xport-lint is installed without its `server` extra, both ways of starting the server
say what is missing and how to install it (not a raw ModuleNotFoundError), and `--check`
tells an editor before it starts one."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).parents[2]


@pytest.fixture(scope="module")
def without_server_extra(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A fresh venv that sees xport-lint and the engine's own dependencies, not pygls/lsprotocol."""
    root = tmp_path_factory.mktemp("no-server-extra")
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root / "venv")], check=True)
    python = root / "venv" / "bin" / "python"
    site = Path(subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    ours = Path(subprocess.run([sys.executable, "-c", "import libcst, os; print(os.path.dirname(os.path.dirname(libcst.__file__)))"],
                               capture_output=True, text=True, check=True).stdout.strip())
    shared = root / "shared"
    shared.mkdir()
    for name in ("libcst", "click", "pathspec", "yaml", "_yaml", "typing_extensions.py"):
        if (ours / name).exists():
            (shared / name).symlink_to(ours / name)
    (site / "xport_lint.pth").write_text(f"{REPO / 'analyzers'}\n{REPO / 'server'}\n{shared}\n")
    return python


def test_python_m_server_names_what_is_missing(without_server_extra: Path) -> None:
    result = subprocess.run([str(without_server_extra), "-m", "xport_lint.server"], capture_output=True, text=True,
                            timeout=60)
    assert result.returncode == 3
    assert "needs pygls, lsprotocol" in result.stderr and "pip install" in result.stderr
    assert "Traceback" not in result.stderr
    check = subprocess.run([str(without_server_extra), "-m", "xport_lint.server", "--check"], capture_output=True,
                           text=True, timeout=60)
    assert check.returncode == 3 and check.stderr == result.stderr


def test_the_cli_says_the_same(without_server_extra: Path) -> None:
    module = subprocess.run([str(without_server_extra), "-m", "xport_lint.server"], capture_output=True, text=True,
                            timeout=60)
    cli = subprocess.run([str(without_server_extra), "-c", "from xport_lint.analyzers.cli import main; main()",
                          "server"], capture_output=True, text=True, timeout=60)
    assert cli.returncode == 3 and cli.stderr == module.stderr


def test_check_passes_where_the_server_can_start() -> None:
    result = subprocess.run([sys.executable, "-m", "xport_lint.server", "--check"], capture_output=True, timeout=60)
    assert result.returncode == 0
