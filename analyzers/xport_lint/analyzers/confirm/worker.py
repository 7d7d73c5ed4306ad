"""The confirmation worker: runs in the *user's* interpreter (the one with their torch).

Standalone on purpose: stdlib and torch only, launched by path, never imported by the engine.
Protocol: one JSON request per line on stdin, one JSON response per line on the original
stdout; the user's own prints are sent to stderr so they cannot corrupt it. torch's logging
and Python's warnings (FX graph dumps, draft_export's banner) are kept in the response's
`log`, not on stderr, which the supervisor shows when the worker dies.
"""

from __future__ import annotations

import contextlib
import importlib.util
import io
import json
import logging
import os
import re
import sys
import traceback
import warnings
from pathlib import Path
from typing import Any

# run by path in the user's interpreter: its shared helpers sit beside it (also under PYTHONSAFEPATH)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from worker_common import normalise, package_module, refine_shapes, suggested_fixes  # noqa: E402

_protocol = os.fdopen(os.dup(1), "w", encoding="utf-8")
os.dup2(2, 1)  # C-level writes to stdout (and print) now land on stderr
sys.stdout = sys.stderr
_counter = 0
_stderr = sys.stderr
#: the tail of the log kept per request, characters
_LOG_LIMIT = 64 * 1024


class _Log(io.StringIO):
    """torch's log and the warnings of one request, its tail only."""

    def write(self, text: str) -> int:
        written = super().write(text)
        if self.tell() > 2 * _LOG_LIMIT:
            tail = self.getvalue()[-_LOG_LIMIT:]
            self.seek(0)
            self.truncate()
            super().write(tail)
        return written

    def take(self) -> str:
        """The tail written since the last call; the log starts empty again."""
        text = self.getvalue()[-_LOG_LIMIT:]
        self.seek(0)
        self.truncate()
        return text


_log = _Log()


def _capture_torch_log() -> None:
    """Point every handler torch installed on stderr at the log (torch sets its loggers up at
    import and again when `torch._logging.set_logs` runs, so this is done for each request)."""
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if not name.startswith("torch") or not isinstance(logger, logging.Logger):
            continue
        for handler in logger.handlers:
            if isinstance(handler, logging.StreamHandler) and handler.stream in (_stderr, sys.__stderr__):
                handler.setStream(_log)


def _under(path: str | None, root: str) -> bool:
    if not path:
        return False
    try:
        return os.path.commonpath([os.path.abspath(path), root]) == root
    except ValueError:
        return False


def _local(path: str | None, root: str) -> bool:
    """A file of the user's project (not of an environment that happens to live inside it)."""
    if not _under(path, root) or path is None:
        return False
    return not (_under(path, sys.prefix) or "site-packages" in path or "dist-packages" in path)


def _load(path: str, root: str) -> Any:
    """Import the user's file afresh (its local imports too): a file of a package by its dotted
    name, so its relative imports resolve; a loose file as a uniquely named module."""
    global _counter
    package = package_module(path)
    top = package[1].partition(".")[0] if package else None
    for name, module in list(sys.modules.items()):
        if _local(getattr(module, "__file__", None), root) or (top and (name == top or name.startswith(top + "."))):
            del sys.modules[name]
    for entry in (root, str(Path(path).parent), *(package[:1] if package else ())):
        if entry not in sys.path:
            sys.path.insert(0, entry)
    if package:
        importlib.invalidate_caches()
        return importlib.import_module(package[1])
    _counter += 1
    name = f"xport_example_{_counter}"
    spec = importlib.util.spec_from_file_location(name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


def _provider(module: Any, provider: str | None) -> Any:
    if provider:
        module_name, _, function = provider.partition(":")
        return getattr(importlib.import_module(module_name), function)
    return getattr(module, "xport_example", None)


def _user_line(tb: Any, path: str, message: str = "") -> int | None:
    """The innermost line of `path` in the traceback; failing that, in the message: strict
    export (Dynamo) fails inside its own frames and names the user's line under "from user
    code:" (`File "model.py", line 12, in forward` for a `with self.lock:`)."""
    line = None
    for frame in traceback.extract_tb(tb):
        if os.path.abspath(frame.filename) == path:
            line = frame.lineno
    if line is None and "from user code:" in message:
        for match in _USER_CODE_FRAME.finditer(message.split("from user code:", 1)[1]):
            if os.path.abspath(match.group(1)) == path:
                line = int(match.group(2))
    return line


_USER_CODE_FRAME = re.compile(r'File "([^"]+)", line (\d+)')


def _describe(error: BaseException) -> str:
    text = f"{type(error).__name__}: {error}"
    return text if len(text) < 4000 else text[:4000] + " …"


def _refine(model: Any, example: dict[str, Any], options: dict[str, Any], fixes: str) -> dict[str, Any] | None:
    """Apply torch's suggested `dynamic_shapes` fixes until export passes (once is not always
    enough: a refined range can expose the next guard)."""
    import torch

    shapes = options["dynamic_shapes"]
    for rounds in range(1, 6):
        try:
            shapes = refine_shapes(fixes, shapes)
        except Exception:  # noqa: BLE001 - a suggestion torch cannot apply ends the search
            return None
        source = _render_shapes(shapes)
        if source is None:
            return None
        try:
            torch.export.export(model, example["args"], example["kwargs"], **{**options, "dynamic_shapes": shapes})
        except Exception as error:  # noqa: BLE001
            fixes = suggested_fixes(str(error)) or ""
            if not fixes:
                return {"source": source, "rounds": rounds, "export_ok": False, "error": _describe(error)}
            continue
        return {"source": source, "rounds": rounds, "export_ok": True, "error": None}
    return None


def _narrowed(program: Any, model: Any, example: dict[str, Any]) -> list[dict[str, Any]]:
    """Dimensions the example marks `Dim.AUTO` that export silently made static (an example
    size of 0 or 1 is specialised) or narrowed (a guard in the code): export passes, but the
    program accepts fewer sizes than the example asked for. Top-level tensor inputs only."""
    import torch
    from torch.export import Dim
    from torch.export.dynamic_shapes import _combine_args
    from torch.utils._pytree import tree_flatten

    spec = example["dynamic_shapes"]
    if not isinstance(spec, (dict, tuple, list)):
        return []
    combined = _combine_args(model, example["args"], example["kwargs"])
    specs = spec if isinstance(spec, dict) else dict(zip(combined, spec, strict=False))
    wanted = {id(v): (name, specs.get(name)) for name, v in combined.items() if isinstance(v, torch.Tensor)}
    leaves, _ = tree_flatten((tuple(example["args"]), example["kwargs"] or {}))
    user = set(program.graph_signature.user_inputs)
    placeholders = [n for n in program.graph.nodes if n.op == "placeholder" and n.name in user]
    if len(leaves) != len(placeholders) or not all(isinstance(leaf, torch.Tensor) for leaf in leaves):
        return []
    out: list[dict[str, Any]] = []
    for leaf, node in zip(leaves, placeholders, strict=True):
        name, hints = wanted.get(id(leaf), (None, None))
        if name is None or not isinstance(hints, (dict, tuple, list)):
            continue
        shape = node.meta["val"].shape
        for dim, hint in hints.items() if isinstance(hints, dict) else enumerate(hints):
            if hint is not Dim.AUTO or not isinstance(dim, int) or not 0 <= dim < len(shape):
                continue
            size = shape[dim]
            if isinstance(size, int):
                out.append({"input": name, "dim": dim, "static": size, "range": None})
                continue
            bounds = program.range_constraints.get(getattr(size.node, "expr", None))
            if bounds is None:
                continue
            upper = None if "oo" in str(bounds.upper) else int(bounds.upper)
            if int(bounds.lower) > 2 or upper is not None:
                out.append({"input": name, "dim": dim, "static": None, "range": [int(bounds.lower), upper]})
    return out


def _render_shapes(value: Any) -> str | None:
    """Python source for a `dynamic_shapes` structure, or None where it holds something that
    has no plain spelling (a derived `Dim` such as `2 * n`)."""
    from torch.export import Dim

    if value is None or isinstance(value, int):
        return repr(value)
    if isinstance(value, dict):
        items = [(_render_key(k), _render_shapes(v)) for k, v in value.items()]
        if any(k is None or v is None for k, v in items):
            return None
        return "{" + ", ".join(f"{k}: {v}" for k, v in items) + "}"
    if isinstance(value, (tuple, list)):
        parts = [_render_shapes(v) for v in value]
        if any(p is None for p in parts):
            return None
        inner = ", ".join(parts)  # type: ignore[arg-type]
        return f"({inner},)" if isinstance(value, tuple) and len(parts) == 1 else (
            f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
        )
    for hint in ("AUTO", "STATIC", "DYNAMIC"):
        if value is getattr(Dim, hint):
            return f"torch.export.Dim.{hint}"
    text = repr(value)
    if text.startswith("Dim(") and text.endswith(")"):
        return f"torch.export.{text}"
    return None


def _render_key(key: Any) -> str | None:
    return repr(key) if isinstance(key, (str, int)) else None


def _seed(torch: Any) -> None:
    """The same example inputs every time (`torch.randn` in `xport_example()`): otherwise the
    same file can get a different verdict on each confirmation (a branch taken or not)."""
    import random

    random.seed(0)
    torch.manual_seed(0)
    numpy = sys.modules.get("numpy")
    if numpy is not None:
        numpy.random.seed(0)


def _confirm(request: dict[str, Any]) -> dict[str, Any]:
    import torch

    _capture_torch_log()
    path = os.path.abspath(request["path"])
    root = os.path.abspath(request.get("root") or os.path.dirname(path))
    _seed(torch)
    module = _load(path, root)
    provider = _provider(module, request.get("provider"))
    if provider is None:
        return {"status": "no-example"}
    _seed(torch)
    example = normalise(provider())
    strict = example["strict"] if example["strict"] is not None else bool(request.get("strict"))
    # torch prints partial FX graphs straight to sys.stderr when export fails: into the log
    with contextlib.redirect_stderr(_log):
        result = _export(torch, example, strict, path, root)
    result["local_files"] = sorted(
        {os.path.abspath(m.__file__) for m in list(sys.modules.values())
         if _local(getattr(m, "__file__", None), root)}
        | {path}
    )
    return result


def _export(torch: Any, example: dict[str, Any], strict: bool, path: str, root: str) -> dict[str, Any]:
    """`torch.export.export` in the configured mode, then `draft_export`, on the example."""
    from torch._logging import structured

    model = example["model"]
    options = {"dynamic_shapes": example["dynamic_shapes"], "strict": strict}
    result: dict[str, Any] = {"status": "ran", "model": type(model).__name__, "strict": strict,
                              "torch": torch.__version__,  # whose words the errors are
                              "export_ok": True, "export_error": None, "export_line": None,
                              "suggested_fixes": None, "draft_error": None, "failures": []}
    try:
        exported = torch.export.export(model, example["args"], example["kwargs"], **options)
        result["narrowed"] = _narrowed(exported, model, example)
    except Exception as error:  # noqa: BLE001 - the user's model may raise anything
        if _out_of_memory(error):
            raise
        result.update(export_ok=False, export_error=_describe(error),
                      export_line=_user_line(error.__traceback__, path, str(error)),
                      suggested_fixes=suggested_fixes(str(error)))
        if result["suggested_fixes"] and example["dynamic_shapes"] is not None:
            result["refined"] = _refine(model, example, options, result["suggested_fixes"])
    try:
        # draft_export is the non-strict tracer by design: its report is about data-dependence
        program = torch.export.draft_export(model, example["args"], example["kwargs"], **{**options, "strict": False})
        report = program._report
        # The report names files through torch's interned string table; a second draft_export
        # in this process gets an empty `str_to_filename`, so read the global table each time.
        names = {index: name for name, index in structured.INTERN_TABLE.items()}
        names.update(report.str_to_filename or {})
        for failure in report.failures:
            result["failures"].append(_failure(failure, names, path, root))
    except Exception as error:  # noqa: BLE001
        if _out_of_memory(error):
            raise
        result["draft_error"] = _describe(error)
        result["draft_line"] = _user_line(error.__traceback__, path, str(error))
    return result


def _failure(failure: Any, names: dict[int, str], path: str, root: str) -> dict[str, Any]:
    """A draft_export failure: `frame` is its innermost line in the confirmed file (else the
    outermost of the project), `inner` its innermost line of any project file (a helper of
    another file that the confirmed file's line calls)."""
    data = failure.data
    frame = inner = None
    for candidate in data.get("user_stack") or []:
        filename = names.get(candidate.get("filename"), "")
        if not _local(filename, root):
            continue
        here = {"file": os.path.abspath(filename), "line": candidate.get("line"), "code": candidate.get("loc")}
        if here["file"] == path or frame is None:
            frame = here
        inner = here
    try:
        text = failure.print(names)
    except Exception:  # noqa: BLE001 - a report we cannot render still has its type
        text = str(failure.failure_type)
    return {
        "type": str(failure.failure_type),
        "expr": str(data.get("expr", data.get("op", ""))),
        "frame": frame,
        "inner": inner,
        "locals": (data.get("frame_locals") or {}).get("locals"),
        "new_dynamic_shapes": str(data["new_dynamic_shapes"]) if "new_dynamic_shapes" in data else None,
        "message": text[:4000],
    }


def _out_of_memory(error: BaseException) -> bool:
    """A MemoryError, or torch's allocator failing (a RuntimeError on CPU)."""
    return isinstance(error, MemoryError) or "can't allocate memory" in str(error)


def _memory_cap() -> str:
    """What bounds the worker's memory, for the message of a run that ran out of it."""
    try:
        import resource

        cap = resource.getrlimit(resource.RLIMIT_AS)[0]
    except (ImportError, ValueError, OSError):
        return ""
    if cap == getattr(resource, "RLIM_INFINITY", -1):
        return ""
    return f" (the worker's memory cap is {cap / 2**30:.1f} GiB)"


def main() -> None:
    for line in sys.stdin:
        if not line.strip():
            continue
        path = ""
        try:
            with warnings.catch_warnings(record=True) as caught:
                request = json.loads(line)
                path = os.path.abspath(request.get("path", ""))
                try:
                    response = _confirm(request)
                finally:
                    for warning in caught:
                        _log.write(f"{warning.filename}:{warning.lineno}: {warning.category.__name__}: "
                                   f"{warning.message}\n")
        except BaseException as error:  # noqa: BLE001 - SystemExit/MemoryError from user code included
            if _out_of_memory(error):
                response = {"status": "memory", "error": f"out of memory{_memory_cap()}: {_describe(error)}"}
            else:
                response = {"status": "error", "error": _describe(error)}
            response["line"] = _user_line(error.__traceback__, path)
        response["log"] = _log.take()
        _protocol.write(json.dumps(response, default=str) + "\n")
        _protocol.flush()


if __name__ == "__main__":
    main()
