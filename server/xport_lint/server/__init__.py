"""xport-lint's language server: a thin pygls adapter over `xport_lint.analyzers`."""

from __future__ import annotations

import importlib.util

#: what the server needs beyond the engine: the `server` extra of pyproject.toml
REQUIREMENTS = {"pygls": "pygls>=2.0,<3", "lsprotocol": "lsprotocol>=2025.0.0"}


def missing_requirements() -> str | None:
    """Why the server cannot start in this interpreter (which packages, and the command that
    installs them), or None. Checked without importing them."""
    missing = [spec for module, spec in REQUIREMENTS.items() if importlib.util.find_spec(module) is None]
    if not missing:
        return None
    packages = " ".join(f'"{spec}"' for spec in missing)
    return (
        f"the xport-lint language server needs {', '.join(m.split('>')[0] for m in missing)}, "
        f"not installed in this interpreter; install them with:\n  python -m pip install {packages}\n"
        "or install xport-lint with its `server` extra (from a checkout: pip install -e \".[server]\")"
    )
