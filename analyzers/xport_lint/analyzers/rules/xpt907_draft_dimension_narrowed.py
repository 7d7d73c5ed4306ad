from __future__ import annotations

from ..model import Severity
from ..rule import Invalid, Rule, Valid


class DraftDimensionNarrowed(Rule):
    """A dimension the example marks `Dim.AUTO` came out static or narrowed, silently.

    ## What it does
    A confirmation run exports the example and compares each `Dim.AUTO` dimension with the
    exported program: static (torch specialised it to the example's size) or a range narrower
    than every size from 2 up (a guard in the code bounded it).

    ## Why it fails torch.export
    It does not fail: `Dim.AUTO` lets export decide, and torch specialises an example size of
    0 or 1 to a constant (the "0/1 specialisation") and narrows a range to what the code's
    guards allow, with only a log line to say so. The exported program then rejects the sizes
    the example was meant to stand for: a batch of 1 in the example means batch 1 forever.

    ## Example
    ```python
    import torch
    from torch.export import Dim
    class Scale(torch.nn.Module):
        def forward(self, x):
            return x * 2
    def xport_example():
        return {"model": Scale(), "args": (torch.randn(1, 8),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}
    ```

    ## Use instead
    An example size of at least 2 for every dynamic dimension (`torch.randn(2, 8)`), and a
    named `Dim("batch", min=..., max=...)` where the range matters: a named `Dim` makes export
    fail loudly instead of narrowing in silence.

    ## Fix safety
    No automatic fix.

    ## Modes
    Where XPT504 already flagged the same dimension (a literal example size of 1), the
    confirmation marks that finding confirmed instead of adding this one; a narrowed range also
    confirms the XPT301 shape branches that test that dimension (`frames.shape[1]`).
    Reported by `xport-lint check --confirm` and the editor's "Confirm with draft_export", in the
    mode the example asks for (non-strict unless `strict` is set).
    """

    CODE = "XPT907"
    NAME = "draft-dimension-narrowed"
    SEVERITY = Severity.WARNING
    STRICT_SEVERITY = Severity.WARNING
    CONFIRMATION_ONLY = True
    PYTORCH_NAME = "0/1 specialisation; Dim.AUTO range refinement"
    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                return {"model": Scale(), "args": (torch.randn(2, 8),), "dynamic_shapes": {"x": {0: Dim.AUTO}}}
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import os
            import torch
            from torch.export import Dim
            class Scale(torch.nn.Module):
                def forward(self, x):
                    return x * 2
            def xport_example():
                batch = int(os.environ.get("BATCH", "1"))  # known only when it runs: XPT504 cannot see it
                args = (torch.randn(batch, 8),)
                return {"model": Scale(), "args": args, "dynamic_shapes": {"x": {0: Dim.AUTO}}}  # expect: XPT907
            """,
            other_args="(torch.randn(3, 8),)",
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Windows(torch.nn.Module):
                def forward(self, frames):
                    # at most four frames fit one window
                    if frames.shape[1] <= 4:
                        return frames.mean(1)
                    return frames[:, :4].mean(1)
            def xport_example():
                seq = {1: Dim.AUTO}
                return {"model": Windows(), "args": (torch.randn(2, 3, 8),), "dynamic_shapes": {"frames": seq}}  # expect: XPT907
            """,
            other_args="(torch.randn(2, 6, 8),)",
        ),
    ]
