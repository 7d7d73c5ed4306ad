from __future__ import annotations

import libcst as cst

from ..model import Mode, Severity
from ..rule import Invalid, Rule, Scope, TorchError, Valid
from ..walk import iter_nodes

#: why no fix is offered, said with each finding
_NO_FIX = " (no automatic fix: the output's shape and dtype are the op author's knowledge)"


class CustomOpWithoutFake(Rule):
    """A `torch.library.custom_op` with no fake (meta) implementation in the file.

    ## What it does
    Flags functions decorated with `@torch.library.custom_op(...)` (at module level, in a
    function or inside a `with torch.library._scoped_library(...)` block) or made by calling it
    on a function (`op = custom_op("ns::op", fn, mutates_args=())`), operators declared with
    `torch.library.define("ns::op", schema)` (given kernels with `torch.library.impl`) and
    operators a `torch.library.Library("ns", ...)` object declares (`lib.define(schema)`, kernels
    by `lib.impl(name, fn, "CPU")`), when the file registers no fake implementation for them
    (`@op.register_fake`, `torch.library.register_fake("ns::op")`, `lib._register_fake`, or a
    `Meta` or composite kernel by `lib.impl`).

    ## Why it fails torch.export
    Export runs every op on fake tensors to learn output shapes; without a fake kernel it raises
    `RuntimeError: There was no fake impl registered for <CustomOpDef(ns::op)>`; for a
    `torch.library.define`d operator whose only kernel is `impl(..., "cpu")`, non-strict export
    raises `UnsupportedOperatorException: ns.op.default` and strict export `Unsupported: Operator
    does not support running with fake tensors` (the same for a `Library` object's operator
    with a `"CPU"` kernel only, measured on torch 2.13). draft_export reports `MISSING_FAKE_KERNEL`.

    ## Example
    ```python
    @torch.library.custom_op("mylib::rotate", mutates_args=())
    def rotate(x: torch.Tensor) -> torch.Tensor: ...
    ```

    ## Use instead
    ```python
    @rotate.register_fake
    def _(x):
        return torch.empty_like(x)
    ```

    ## Fix safety
    No automatic fix: the output shape is the op author's knowledge.

    ## Modes
    Error in both modes (torch 2.13).
    """

    CODE = "XPT409"
    NAME = "custom-op-without-fake"
    SEVERITY = Severity.ERROR
    STRICT_SEVERITY = Severity.ERROR
    SCOPE = Scope.MODULE
    TRIGGERS = ("custom_op", "library.define", "Library(", "_scoped_library")
    PYTORCH_NAME = "draft_export MISSING_FAKE_KERNEL"
    FAILS_WITH = {
        Mode.NON_STRICT: (
            TorchError("RuntimeError", "There was no fake impl registered"),
            TorchError("UnsupportedOperatorException", "."),
        ),
        Mode.STRICT: (
            TorchError("TorchRuntimeError", "RuntimeError when making fake tensor call"),
            TorchError("Unsupported", "Operator does not support running with fake tensors"),
        ),
    }

    def visit_Module(self, node: cst.Module) -> None:
        source = self.ctx.source
        # anywhere in the file: ops are often declared inside a `with torch.library._scoped_library(...)`
        # block or a test function, and `custom_op` registers them globally all the same
        libraries = self._libraries(node)
        bound: dict[int, list[str]] = {}  # id(call) -> the names the statement holding it binds
        for stmt in iter_nodes(node):
            if isinstance(stmt, cst.Assign):
                names = [n.value for t in stmt.targets for n in iter_nodes(t.target) if isinstance(n, cst.Name)]
                for call in iter_nodes(stmt.value):
                    bound.setdefault(id(call), names)
            if isinstance(stmt, cst.FunctionDef):
                self._custom_op(stmt, source)
            elif isinstance(stmt, cst.Call) and self._custom_op_called(stmt, bound.get(id(stmt), []), source):
                continue
            elif isinstance(stmt, cst.Call) and self.ctx.resolve(stmt.func) == "torch.library.define":
                op_name = _string_arg(stmt)
                if op_name is not None and not _fake_registered(source, op_name):
                    self.report(stmt, f"operator `{op_name}` is defined with no fake implementation" + _NO_FIX)
            elif isinstance(stmt, cst.Call) and _method_of(stmt, libraries, "define"):
                self._library_define(stmt, libraries, node, source)

    def _libraries(self, module: cst.Module) -> dict[str, str]:
        """Names bound to a `torch.library.Library("ns", ...)` (or a `_scoped_library` entered
        `as` one) -> the namespace its `define`s declare operators in."""
        found: dict[str, str] = {}
        makers = ("torch.library.Library", "torch.library._scoped_library")
        for node in iter_nodes(module):
            if isinstance(node, cst.Assign) and len(node.targets) == 1 and isinstance(node.targets[0].target, cst.Name):
                target, value = node.targets[0].target, node.value
            elif isinstance(node, cst.WithItem) and node.asname is not None and isinstance(node.asname.name, cst.Name):
                target, value = node.asname.name, node.item
            else:
                continue
            if isinstance(value, cst.Call) and self.ctx.resolve(value.func) in makers:
                namespace = _string_arg(value)
                if namespace is not None:
                    found[target.value] = namespace
        return found

    def _library_define(self, call: cst.Call, libraries: dict[str, str], module: cst.Module, source: str) -> None:
        """`lib.define("halve(Tensor x) -> Tensor")`: a fake kernel is `lib.impl("halve", fn,
        "Meta")` (or a composite kernel, which fake tensors run through), `lib._register_fake`,
        or `register_fake("ns::halve")`."""
        schema = _string_arg(call)
        if schema is None or "(" not in schema:
            return
        assert isinstance(call.func, cst.Attribute) and isinstance(call.func.value, cst.Name)
        lib = call.func.value.value
        op = schema.split("(", 1)[0].strip()
        op_name = f"{libraries[lib]}::{op}"
        for node in iter_nodes(module):
            if not (isinstance(node, cst.Call) and _string_arg(node) == op):
                continue
            if _method_of(node, libraries, "_register_fake"):
                return
            if _method_of(node, libraries, "impl"):
                keys = [a.value.evaluated_value for a in node.args[2:3] if isinstance(a.value, cst.SimpleString)]
                keys += [a.value.evaluated_value for a in node.args
                         if a.keyword is not None and a.keyword.value == "dispatch_key" and isinstance(a.value, cst.SimpleString)]
                if any(isinstance(k, str) and (k == "Meta" or k.startswith("Composite")) for k in keys):
                    return
        if not _fake_registered(source, op_name):
            self.report(call, f"operator `{op_name}` is defined with no fake implementation" + _NO_FIX)

    def _custom_op_called(self, call: cst.Call, names: list[str], source: str) -> bool:
        """`double = torch.library.custom_op("ns::double", _double, mutates_args=())`: the
        decorator called on a function (`names`: what the statement holding it binds, which a
        `register_fake` may be called on)."""
        if self.ctx.resolve(call.func) != "torch.library.custom_op":
            return False
        positional = [a for a in call.args if a.keyword is None]
        if len(positional) < 2 and not any(a.keyword is not None and a.keyword.value == "fn" for a in call.args):
            return False
        op_name = _string_arg(call)
        registered = any(f"{name}.register_fake" in source for name in names) or (
            op_name is not None and _fake_registered(source, op_name)
        )
        if not registered:
            shown = op_name or (names[0] if names else "custom_op")
            self.report(call, f"custom op `{shown}` has no fake implementation" + _NO_FIX)
        return True

    def _custom_op(self, stmt: cst.FunctionDef, source: str) -> None:
        for decorator in stmt.decorators:
            target = decorator.decorator
            call = target if isinstance(target, cst.Call) else None
            if call is None or self.ctx.resolve(call.func) != "torch.library.custom_op":
                continue
            name = stmt.name.value
            op_name = _string_arg(call)
            registered = f"{name}.register_fake" in source or (
                op_name is not None and _fake_registered(source, op_name)
            )
            if not registered:
                self.report(
                    stmt.name,
                    f"custom op `{op_name or name}` has no fake implementation" + _NO_FIX,
                )

    VALID = [
        Valid(
            """
            import torch
            @torch.library.custom_op("xlint_valid::double", mutates_args=())
            def double(x: torch.Tensor) -> torch.Tensor:
                return x * 2
            @double.register_fake
            def _(x):
                return torch.empty_like(x)
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return double(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Valid(
            """
            import torch
            if not hasattr(torch.ops.xlint_defined_ok, "triple"):  # a second import defines nothing
                torch.library.define("xlint_defined_ok::triple", "(Tensor x) -> Tensor")
                @torch.library.impl("xlint_defined_ok::triple", "cpu")
                def triple(x):
                    return x * 3
                @torch.library.register_fake("xlint_defined_ok::triple")
                def _(x):
                    return torch.empty_like(x)
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return torch.ops.xlint_defined_ok.triple(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Valid(
            """
            import torch
            LIB = torch.library.Library("xlint_library_ok", "FRAGMENT")
            if not hasattr(torch.ops.xlint_library_ok, "halve"):  # a second import defines nothing
                LIB.define("halve(Tensor x) -> Tensor")
                LIB.impl("halve", lambda x: x / 2, "CPU")
                LIB.impl("halve", lambda x: torch.empty_like(x), "Meta")
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return torch.ops.xlint_library_ok.halve(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
    ]
    INVALID = [
        Invalid(
            """
            import torch
            @torch.library.custom_op("xlint_invalid::double", mutates_args=())
            def double(x: torch.Tensor) -> torch.Tensor:  # expect: XPT409
                return x * 2
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return double(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            with torch.library._scoped_library("xlint_scoped", "FRAGMENT") as lib:
                @torch.library.custom_op("xlint_scoped::double", mutates_args=())
                def double(x: torch.Tensor) -> torch.Tensor:  # expect: XPT409
                    return x * 2
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return double(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            if not hasattr(torch.ops.xlint_defined, "triple"):  # a second import defines nothing
                torch.library.define("xlint_defined::triple", "(Tensor x) -> Tensor")  # expect: XPT409
                @torch.library.impl("xlint_defined::triple", "cpu")
                def triple(x):
                    return x * 3
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return torch.ops.xlint_defined.triple(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            LIB = torch.library.Library("xlint_library", "FRAGMENT")
            if not hasattr(torch.ops.xlint_library, "halve"):  # a second import defines nothing
                LIB.define("halve(Tensor x) -> Tensor")  # expect: XPT409
                LIB.impl("halve", lambda x: x / 2, "CPU")
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return torch.ops.xlint_library.halve(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
        Invalid(
            """
            import torch
            def _double(x: torch.Tensor) -> torch.Tensor:
                return x * 2
            with torch.library._scoped_library("xlint_called", "FRAGMENT"):
                double = torch.library.custom_op("xlint_called::double", _double, mutates_args=())  # expect: XPT409
            class UsesOp(torch.nn.Module):
                def forward(self, x):
                    return double(x)
            def xport_example():
                return UsesOp(), (torch.randn(3),)
            """
        ),
    ]


def _fake_registered(source: str, op_name: str) -> bool:
    """A fake kernel for `op_name` registered by name (`register_fake`, or `impl_abstract`, its
    older spelling) anywhere in the file."""
    return any(f'{api}("{op_name}"' in source or f"{api}('{op_name}'" in source
               for api in ("register_fake", "impl_abstract"))


def _string_arg(call: cst.Call) -> str | None:
    if call.args and isinstance(call.args[0].value, cst.SimpleString):
        value = call.args[0].value.evaluated_value
        return value if isinstance(value, str) else None
    return None


def _method_of(call: cst.Call, libraries: dict[str, str], method: str) -> bool:
    """`call` is `lib.<method>(...)` on a name bound to a `torch.library.Library`."""
    func = call.func
    return (
        isinstance(func, cst.Attribute) and func.attr.value == method
        and isinstance(func.value, cst.Name) and func.value.value in libraries
    )
