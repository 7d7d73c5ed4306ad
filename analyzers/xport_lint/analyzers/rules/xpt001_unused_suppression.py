from __future__ import annotations

from ..model import Severity
from ..rule import Invalid, Rule, Valid


class UnusedSuppression(Rule):
    """A `# noqa: XPT...` or `# xport: ignore[XPT...]` comment that silences nothing.

    ## What it does
    Opt-in (`--extend-select XPT001`): reports suppression comments naming xport-lint codes
    that no finding on that line raises, so stale suppressions do not pile up; and a file-level
    `# xport-lint: noqa: XPT...` naming codes that nothing in the file raises.

    ## Why it fails torch.export
    It does not; it keeps suppressions honest after the code they excused was fixed.

    ## Example
    ```python
    return x * 2  # noqa: XPT101
    ```

    ## Use instead
    Delete the comment (or the stale code from it).
    """

    CODE = "XPT001"
    NAME = "unused-suppression"
    SEVERITY = Severity.INFO
    STRICT_SEVERITY = Severity.INFO
    DEFAULT_ENABLED = False
    VALID = [
        Valid(
            """
            import torch
            class Gate(torch.nn.Module):
                def forward(self, x):
                    if x.sum() > 0:  # noqa: XPT101
                        return x
                    return -x
            """,
            modes=(),
        ),
        Valid(
            """
            import torch
            # xport-lint: noqa: XPT101
            class Gate(torch.nn.Module):
                def forward(self, x):
                    if x.sum() > 0:
                        return x
                    return -x
            """,
            modes=(),
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * 2  # noqa: XPT101  # expect: XPT001
            def xport_example():
                return Scale(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            # xport-lint: noqa: XPT101  # expect: XPT001
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return Scale(), (torch.randn(3),)
            """
        ),
    ]
