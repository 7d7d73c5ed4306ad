"""`python -m xport_lint.server [--tcp HOST:PORT]`; `--check` exits 0 when the server can start
here, else 3 with what is missing (what the VS Code extension asks before it starts one)."""

import sys

from . import missing_requirements

problem = missing_requirements()
if problem is not None:
    print(f"xport-lint: {problem}", file=sys.stderr)
    sys.exit(3)
if sys.argv[1:] == ["--check"]:
    sys.exit(0)

from .app import main  # noqa: E402 - only once the requirements are known to be there

main()
