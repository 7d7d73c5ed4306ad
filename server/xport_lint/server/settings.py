"""Client settings (`initializationOptions` and `workspace/configuration`, section
`xport-lint`), camelCase on the wire, mirrored key for key by the VS Code extension.
Bad values fall back to the default with a message, never a failed request."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from xport_lint.analyzers.versions import parse

_SEVERITIES = ("error", "warning", "info")
_CODE_LENSES = ("all", "failing", "off")


@dataclass(frozen=True)
class Settings:
    enable: bool = True
    select: tuple[str, ...] | None = None
    extend_select: tuple[str, ...] | None = None
    ignore: tuple[str, ...] | None = None
    strict: bool | None = None
    severity: dict[str, str] = field(default_factory=dict)
    #: the client says the workspace is trusted: only then may user code run (confirmation).
    #: Untrusted unless said: a client that does not know about trust never runs user code.
    trusted: bool = False
    #: interpreter with the user's torch, for confirmation (default: the server's own)
    python: str | None = None
    confirm_timeout: float = 120.0
    #: address-space cap of the confirmation worker, GiB (None: half the machine's memory; 0: none)
    confirm_memory_gb: float | None = None
    #: the torch version findings speak for, "2.14" (None: the torch of the server's interpreter,
    #: the workspace's, else the newest measured)
    target_torch: str | None = None
    #: code lenses: "all" (every model class), "failing" (at most one a file), "off"
    code_lens: str = "failing"

    @classmethod
    def from_json(cls, raw: object) -> tuple[Settings, list[str]]:
        """Settings and the problems found in `raw` (each problem's key falls back)."""
        problems: list[str] = []
        if not isinstance(raw, dict):
            if raw is not None:
                problems.append(f"settings must be an object, not {type(raw).__name__}")
            return cls(), problems
        if isinstance(raw.get("xport-lint"), dict):
            raw = raw["xport-lint"]
        values: dict[str, Any] = {}
        for key, name in (("enable", "enable"), ("strict", "strict"), ("trusted", "trusted")):
            if key in raw and raw[key] is not None:
                if isinstance(raw[key], bool):
                    values[name] = raw[key]
                else:
                    problems.append(f"{key}: expected true or false")
        for key, name in (("select", "select"), ("extendSelect", "extend_select"), ("ignore", "ignore")):
            value = raw.get(key)
            if value is None:
                continue
            if isinstance(value, list) and all(isinstance(v, str) for v in value):
                values[name] = tuple(value)
            else:
                problems.append(f"{key}: expected a list of rule codes")
        python = raw.get("python")
        if isinstance(python, str) and python:
            values["python"] = python
        elif python is not None:
            problems.append("python: expected a path to an interpreter")
        timeout = raw.get("confirmTimeout")
        if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
            values["confirm_timeout"] = float(timeout)
        elif timeout is not None:
            problems.append("confirmTimeout: expected a positive number of seconds")
        memory = raw.get("confirmMemoryGb")
        if isinstance(memory, (int, float)) and not isinstance(memory, bool) and memory >= 0:
            values["confirm_memory_gb"] = float(memory)
        elif memory is not None:
            problems.append("confirmMemoryGb: expected a number of GiB (0: no cap)")
        lens = raw.get("codeLens")
        if lens in _CODE_LENSES:
            values["code_lens"] = lens
        elif lens is not None:
            problems.append(f"codeLens: expected one of {', '.join(_CODE_LENSES)}")
        target = raw.get("targetTorch")
        if isinstance(target, str) and parse(target) is not None:
            values["target_torch"] = target.strip()
        elif target not in (None, ""):
            problems.append("targetTorch: expected a torch version such as \"2.14\" (empty: the installed torch)")
        severity = raw.get("severity")
        if isinstance(severity, dict):
            good = {k.upper(): v for k, v in severity.items() if isinstance(v, str) and v in _SEVERITIES}
            if len(good) != len(severity):
                problems.append("severity: values must be error, warning or info")
            values["severity"] = good
        elif severity is not None:
            problems.append("severity: expected an object mapping codes to severities")
        return cls(**values), problems
