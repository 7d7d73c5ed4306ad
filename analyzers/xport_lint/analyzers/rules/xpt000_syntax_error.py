from __future__ import annotations

from ..model import Severity
from ..rule import Invalid, Rule, Valid


class UnparsableFile(Rule):
    """The file does not parse, so nothing in it can be checked (or exported).

    ## What it does
    Reports the file's first syntax error in CPython's own words, at CPython's line and column
    (`expected ':'` at the `if` that lacks it), as `python` reports it on import. An expression
    nested deeper than CPython compiles (a chain of thousands of calls) is reported at its line
    with CPython's `RecursionError`. The other files of a run are still checked.

    ## Why it fails torch.export
    The module cannot even be imported.

    ## Example
    ```python
    def forward(self, x
        return x
    ```

    ## Use instead
    Finish the statement; the other rules run as soon as the file parses.
    """

    CODE = "XPT000"
    NAME = "syntax-error"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    VALID = [Valid("import torch\n\ndef forward(x):\n    return x\n")]
    INVALID = [
        Invalid(
            """
            import torch
            class Half(torch.nn.Module):
                def forward(self, x  # expect: XPT000
                    return x
            """
        ),
        Invalid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    if x.sum() > 0  # expect: XPT000
                        return x
                    return -x
            """
        ),
    ]
