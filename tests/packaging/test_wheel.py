"""The wheel installs one namespace, `xport_lint`, and nothing generic at the top level."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
import zipfile
from pathlib import Path

REPO = Path(__file__).parents[2]


def test_wheel_holds_only_the_xport_lint_namespace(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q", "-w", str(tmp_path), str(REPO)],
        check=True,
    )
    (wheel,) = tmp_path.glob("xport_lint-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    top = {n.split("/")[0] for n in names}
    assert top == {"xport_lint", f"{wheel.name.split('-')[0]}-{wheel.name.split('-')[1]}.dist-info"}
    assert "xport_lint/analyzers/rules/xpt101_tensor_branch.py" in names
    assert "xport_lint/analyzers/data/context_managers.json" in names  # the measured catalogue XPT410 reads
    assert "xport_lint/__init__.py" not in names  # PEP 420: server/ adds its portion later
    assert not any(n.startswith(("tests/", "examples/", "bench/")) for n in names)
    # every package directory in the source tree made it into the wheel
    for init in (REPO / "analyzers").rglob("__init__.py"):
        assert init.relative_to(REPO / "analyzers").as_posix() in names


def test_no_top_level_squatting_in_the_environment() -> None:
    assert importlib.util.find_spec("analyzers") is None or "site-packages" not in str(
        importlib.util.find_spec("analyzers")
    )
    assert importlib.util.find_spec("xport_lint.analyzers") is not None
