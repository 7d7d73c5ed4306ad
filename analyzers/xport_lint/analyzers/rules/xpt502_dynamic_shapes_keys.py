from __future__ import annotations

import libcst as cst

from ..export_site import ExportSite
from ..model import Applicability, Mode, Severity
from ..report import FixProposal
from ..rule import Invalid, Rule, Scope, TorchError, Valid


class DynamicShapesKeys(Rule):
    """`dynamic_shapes` keys that are not the inputs the export passes to `forward`.

    ## What it does
    For `torch.export.export(Model(...), args, dynamic_shapes={...})` (or an `xport_example()`
    returning `{"model": ..., "args": ..., "dynamic_shapes": ...}`) with `Model` defined in the
    same file, checks that every key of the `dynamic_shapes` dict is a parameter of
    `Model.forward` (or of the exported function), and, where the example arguments and keyword
    inputs are written out, that the keys are exactly the parameters they fill: a key for a
    parameter left to its default (`"mask": None` where only `x` is passed) and a passed input
    with no key are errors too. The dict, its keys and the model are read through names bound
    once (`shapes = {...}`, `key, _ = "x", 0`) and one-line helpers of the project
    (`dynamic_shapes=_h(shapes)`).

    ## Why it fails torch.export
    Export matches `dynamic_shapes` to the inputs it is given by name and refuses a mismatch:
    `UserError: When dynamic_shapes is specified as a dict, its top-level keys must be the arg
    names ['x'] of inputs, but here they are ['y']` (or `['x', 'mask']` for a parameter the call
    leaves to its default; measured on torch 2.13, both modes).

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
    Safe: a key for a parameter the export does not pass is removed from the dict written in
    place (no declaration of an input that is not given can hold; the dict read nowhere else).
    A passed input with no key gets no fix: whether its sizes are meant to be dynamic is not
    in the code.

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
            if not unknown:
                self._passed_inputs(site, keyed)

    def _passed_inputs(self, site: ExportSite, keyed: list[tuple[cst.BaseExpression, cst.SimpleString, object]]) -> None:
        """The keys must be the inputs the export passes, no more, no fewer (measured on torch 2.13,
        both modes): a key for a parameter left to its default (`"mask": None` where only `x` is
        given) fails, as does a passed input with no key."""
        program = self.ctx.program
        passed = site.passed_parameters
        if passed is None or len(keyed) != len(site.keys) or len(keyed) != len(site.dynamic_shapes.elements):  # type: ignore[union-attr]
            return  # a key not read (`**others`, a computed name): what the dict holds is not known
        wanted = ", ".join(repr(name) for name in passed) or "none"
        for written, _, key in keyed:
            if key not in passed:
                where = written if program.statement_of(written) is not None else site.node
                self.report(where, f"dynamic_shapes key {key!r} names an argument the export does not pass "
                                   f"(forward's `{key}` takes its default): export wants the keys {wanted}",
                            fix=self._without_key(site, written, str(key)), statement=program.statement_of(where))
        missing = [name for name in passed if name not in {key for _, _, key in keyed}]
        if missing:
            shapes = site.written_shapes if site.written_shapes is not None else site.node
            where = shapes if program.statement_of(shapes) is not None else site.node
            names = ", ".join(f"`{name}`" for name in missing)
            self.report(where, f"dynamic_shapes has no key for {names}, which the export passes: export wants the "
                               f"keys {wanted} (`None` for an input with no dynamic size)",
                        statement=program.statement_of(where))

    def _without_key(self, site: ExportSite, written: cst.BaseExpression, key: str) -> FixProposal | None:
        """The dict written in place without the entry whose key is `written` (it names `key`: the
        export passes no such input, so no declaration of it can hold), where no other reader sees
        the dict."""
        program, shapes = self.ctx.program, site.dynamic_shapes
        assert isinstance(shapes, cst.Dict)
        entry = next((e for e in shapes.elements if isinstance(e, cst.DictElement) and e.key is written), None)
        if entry is None or program.statement_of(shapes) is None or site.written_shapes is None or not program.read_once(
            program.follow_names(site.written_shapes)[1]
        ):
            return None
        kept = [e for e in shapes.elements if e is not entry]
        if kept and entry is shapes.elements[-1]:
            kept[-1] = kept[-1].with_changes(comma=entry.comma)  # the last entry keeps the dict's trailing comma
        return FixProposal(f"Remove the key {key!r}", Applicability.SAFE, ((shapes, shapes.with_changes(elements=kept)),))

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
            class Masked(torch.nn.Module):
                def forward(self, x, mask=None):
                    return x * 2 if mask is None else x * mask
            def xport_example():
                return Masked(), (torch.randn(2, 8),)
            def export():
                shapes = {"x": {0: Dim("batch")}, "mask": None}  # expect: XPT502
                return torch.export.export(Masked(), (torch.randn(2, 8),), dynamic_shapes=shapes)
            """,
            expected_replacement="""
            import torch
            from torch.export import Dim
            class Masked(torch.nn.Module):
                def forward(self, x, mask=None):
                    return x * 2 if mask is None else x * mask
            def xport_example():
                return Masked(), (torch.randn(2, 8),)
            def export():
                shapes = {"x": {0: Dim("batch")}}  # expect: XPT502
                return torch.export.export(Masked(), (torch.randn(2, 8),), dynamic_shapes=shapes)
            """,
        ),
        Invalid(
            """
            import torch
            from torch.export import Dim
            class Masked(torch.nn.Module):
                def forward(self, x, mask=None):
                    return x * 2 if mask is None else x * mask
            def xport_example():
                return Masked(), (torch.randn(2, 8), torch.ones(2, 8))
            def export():
                args = (torch.randn(2, 8), torch.ones(2, 8))
                return torch.export.export(Masked(), args, dynamic_shapes={"x": {0: Dim("batch")}})  # expect: XPT502
            """
        ),
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
