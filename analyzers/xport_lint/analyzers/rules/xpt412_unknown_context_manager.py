from __future__ import annotations

import libcst as cst

from ..model import Severity
from ..rule import Invalid, Rule, Valid
from ._conditions import short
from ._context_managers import with_verdicts


class UnknownContextManager(Rule):
    """A `with` in traced code whose context manager xport-lint has not measured under strict export.

    ## What it does
    Names, in strict mode, a context manager imported from elsewhere that is neither in the
    measured catalogue (XPT410's doc) nor defined in the file, so that nothing is guessed:
    most of those measured outside torch's own fail strict export, some do not.

    ## Why it fails torch.export
    It may not: strict export (Dynamo) traces only the context managers it knows or can
    inline. Whether this one is among them is unknown here; `check --strict --confirm` runs it.

    ## Example
    ```python
    with init_empty_weights():
        self.head = build_head()
    ```

    ## Use instead
    Confirm with `xport-lint check --strict --confirm`, or export non-strict.

    ## Fix safety
    No automatic fix.

    ## Modes
    Info in strict export; not reported in non-strict export, which runs any context manager.
    """

    CODE = "XPT412"
    NAME = "unknown-context-manager"
    SEVERITY = None
    STRICT_SEVERITY = Severity.INFO

    def visit_With(self, node: cst.With) -> None:
        for item, verdict in with_verdicts(self.ctx, node):
            if verdict.unknown:
                self.report(
                    item.item,
                    f"strict export may not trace entering `{short(item.item)}` (`{verdict.name}` is not in the "
                    "measured catalogue); confirm with `check --strict --confirm`",
                    statement=node,
                )

    VALID = [
        Valid(
            """
            import torch
            class Block(torch.nn.Module):
                def forward(self, x):
                    with torch.inference_mode():
                        return x * 2
            def xport_example():
                return Block(), (torch.randn(2, 4),)
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from accelerate import init_empty_weights
            class Lazy(torch.nn.Module):
                def forward(self, x):
                    with init_empty_weights():  # expect: XPT412
                        return x * 2
            program = torch.export.export(Lazy(), (torch.randn(2, 4),), strict=True)
            """
        )
    ]
