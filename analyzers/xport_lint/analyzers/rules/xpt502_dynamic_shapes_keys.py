from __future__ import annotations

import libcst as cst

from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rule import Invalid, Rule, Scope, TorchError, Valid


class DynamicShapesKeys(Rule):
    """`dynamic_shapes` names an argument that `forward` does not have.

    ## What it does
    For `torch.export.export(Model(...), args, dynamic_shapes={...})` (or an `xport_example()`
    returning `{"model": ..., "args": ..., "dynamic_shapes": ...}`) with `Model` defined in the
    same file, checks that every key of the `dynamic_shapes` dict is a parameter of
    `Model.forward` (or of the exported function). The dict, its keys and the model are read
    through names bound once (`shapes = {...}`, `key, _ = "x", 0`) and one-line helpers of the
    project (`dynamic_shapes=_h(shapes)`).

    ## Why it fails torch.export
    Export matches `dynamic_shapes` to inputs by name and refuses a mismatch:
    `UserError: When dynamic_shapes is specified as a dict, its top-level keys must be the arg
    names ['x'] of inputs, but here they are ['y']`.

    ## Example
    ```python
    torch.export.export(Net(), (x,), dynamic_shapes={"input": {0: batch}})  # forward(self, x)
    ```

    ## Use instead
    ```python
    torch.export.export(Net(), (x,), dynamic_shapes={"x": {0: batch}})
    ```

    ## Fix safety
    Unsafe: when there are as many unknown keys as parameters without a key, each unknown key
    is renamed to the next such parameter, in order (assumes that is the argument meant). A key
    bound to a name is renamed where it is written, when that name is read nowhere else.

    ## Modes
    Error in both modes.
    """

    CODE = "XPT502"
    NAME = "dynamic-shapes-keys"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    SCOPE = Scope.MODULE
    TRIGGERS = ("dynamic_shapes",)
    PYTORCH_NAME = "UserError (dynamic_shapes)"
    FAILS_WITH = {
        Mode.NON_STRICT: (TorchError("UserError", "its top-level keys must be the arg names"),),
        Mode.STRICT: (TorchError("UserError", "its top-level keys must be the arg names"),),
    }

    def visit_Module(self, node: cst.Module) -> None:
        program = self.ctx.program
        for site in program.export_sites:
            if not isinstance(site.dynamic_shapes, cst.Dict) or site.forward is None:
                continue
            params = [p.name.value for p in site.parameters]
            keyed = [(written, string, string.evaluated_value) for written, string in site.keys if string is not None]
            unknown = [(w, s, key) for w, s, key in keyed if isinstance(key, str) and key not in params]
            unused = [p for p in params if p not in {key for _, _, key in keyed}]
            for position, (written, string, key) in enumerate(unknown):
                names = ", ".join(params) or "none"
                fix = None
                # the string is edited where it is written: only where no other reader sees it
                editable = program.statement_of(string) is not None and program.read_once(
                    program.follow_names(written)[1]
                )
                if len(unknown) == len(unused) and editable:
                    # as many unknown keys as unused parameters: pair them in order
                    meant = unused[position]
                    fix = FixProposal(
                        f"Rename the key to {meant!r} (assumes {key!r} meant forward's `{meant}`)",
                        Applicability.UNSAFE,
                        ((string, string.with_changes(value=string.prefix + string.quote + meant + string.quote)),),
                    )
                where = written if program.statement_of(written) is not None else site.node
                self.report(where, f"dynamic_shapes key {key!r} is not an argument of forward ({names})", fix=fix,
                            statement=program.statement_of(where))

    VALID = [
        Valid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, tokens):
                    return tokens.cumsum(-1)
            def xport_example():
                return Net(), (torch.randn(2, 8),)
            def export():
                batch = Dim("batch", min=1, max=64)
                return torch.export.export(Net(), (torch.randn(2, 8),), dynamic_shapes={"tokens": {0: batch}})
            """
        )
    ]
    INVALID = [
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, tokens):
                    return tokens.cumsum(-1)
            def xport_example():
                return Net(), (torch.randn(2, 8),)
            def export():
                batch = Dim("batch", min=1, max=64)
                return torch.export.export(Net(), (torch.randn(2, 8),), dynamic_shapes={"input_ids": {0: batch}})  # expect: XPT502
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Net(torch.nn.Module):
                def forward(self, tokens):
                    return tokens.cumsum(-1)
            def xport_example():
                return Net(), (torch.randn(2, 8),)
            def export():
                batch = Dim("batch", min=1, max=64)
                return torch.export.export(Net(), (torch.randn(2, 8),), dynamic_shapes={"tokens": {0: batch}})  # expect: XPT502
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class CrossAttention(torch.nn.Module):
                def forward(self, query, memory):
                    scores = query @ memory.transpose(-2, -1)
                    return scores.softmax(-1) @ memory
            def xport_example():
                return CrossAttention(), (torch.randn(2, 5, 8), torch.randn(2, 7, 8))
            def export():
                batch = Dim("batch", min=1, max=32)
                return torch.export.export(
                    CrossAttention(),
                    (torch.randn(2, 5, 8), torch.randn(2, 7, 8)),
                    dynamic_shapes={
                        "q": {0: batch, 1: Dim("q_len", min=2, max=64)},  # expect: XPT502
                        "kv": {0: batch, 1: Dim("kv_len", min=2, max=64)},  # expect: XPT502
                    },
                )
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class CrossAttention(torch.nn.Module):
                def forward(self, query, memory):
                    scores = query @ memory.transpose(-2, -1)
                    return scores.softmax(-1) @ memory
            def xport_example():
                return CrossAttention(), (torch.randn(2, 5, 8), torch.randn(2, 7, 8))
            def export():
                batch = Dim("batch", min=1, max=32)
                return torch.export.export(
                    CrossAttention(),
                    (torch.randn(2, 5, 8), torch.randn(2, 7, 8)),
                    dynamic_shapes={
                        "query": {0: batch, 1: Dim("q_len", min=2, max=64)},  # expect: XPT502
                        "memory": {0: batch, 1: Dim("kv_len", min=2, max=64)},  # expect: XPT502
                    },
                )
            """,
        ),
    ]
