"""Code in an `except` handler runs only when its `try` body raises (torch_geometric's
`MessagePassing._index_select_safe`: an `index_select`, then checks of the index's values that
explain a failure). A body that cannot fail on the example never runs the handler, in either mode:
what the handler reads is a warning naming that condition, not an error. A handler of a lookup
miss (`except KeyError:` around a cache) runs on the default path: its failure stays an error.

Measured on torch 2.13 (each case below exports or fails as asserted). Also measured: when the
body's own data-dependent test fails, non-strict export raises GuardOnDataDependentSymNode (a
RuntimeError), a catching handler runs, and the handler's own data read fails non-strict export
there (strict fails at the body's test, Unsupported); the body's test is reported (a warning in
non-strict that says its failure is caught), the handler's read is a warning too: a known gap."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.truth.harness import load
from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.model import Severity

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch

HEAD = "import torch\n\n\nclass M(torch.nn.Module):\n    def forward(self, x, idx):\n"
#: handlers whose `try` body cannot fail on the example: the handler never runs
NEVER_RUN = {
    "index-check-after-index-select": (
        "        try:\n            return x.index_select(0, idx)\n        except (IndexError, RuntimeError) as e:\n"
        "            if idx.max() >= x.size(0):\n                raise IndexError('index out of range') from e\n"
        "            raise\n"
    ),
    "bare-except": (
        "        try:\n            out = x[idx]\n        except:\n            n = int(idx.max())\n"
        "            out = x[:n]\n        return out\n"
    ),
    "helper-of-the-handler": (
        "        try:\n            return x.index_select(0, idx)\n        except Exception:\n"
        "            return explain(x, idx)\n\n\ndef explain(x, idx):\n    if (idx < 0).any():\n"
        "        raise IndexError('negative index')\n    return x\n"
    ),
    "handler-in-a-helper": (
        "        return select(x, idx)\n\n\ndef select(x, idx):\n    try:\n        return x[idx]\n"
        "    except torch.OutOfMemoryError:\n        return x\n    except RuntimeError:\n"
        "        if idx.numel() > 0 and idx.min() < 0:\n            raise IndexError('negative index')\n"
        "        raise\n"
    ),
}
#: a handler of a cache miss runs on every first call: what it reads fails export
CACHE_MISS = HEAD + (
    "        try:\n            scale = self.cache[x.shape[0]]\n        except KeyError:\n"
    "            scale = int(idx.max())\n        return x * scale\n"
)


def exports(source: str, folder: Path, strict: bool) -> bool:
    module = load(source, folder)
    model = module.M().eval()
    model.cache = {}
    try:
        torch.export.export(model, (torch.randn(6), torch.tensor([0, 2, 5])), strict=strict)
    except Exception:  # noqa: BLE001 - failing is the fact checked
        return False
    return True


@pytest.mark.parametrize("body", NEVER_RUN.values(), ids=list(NEVER_RUN))
def test_a_handler_a_safe_body_never_runs_is_a_warning_naming_it(body: str, tmp_path: Path) -> None:
    source = HEAD + body
    for strict in (False, True):
        findings = check_source(source, "m.py", Config(strict=strict))
        # strict export keeps `int(idx.max())` as an unbacked slice bound: no finding there
        assert findings or strict
        assert all(f.severity is Severity.WARNING for f in findings)
        assert all("only if the `try` body raises" in f.message for f in findings)
        assert exports(source, tmp_path, strict)


def test_a_handler_of_a_cache_miss_runs_and_stays_an_error(tmp_path: Path) -> None:
    line = CACHE_MISS.splitlines().index("            scale = int(idx.max())") + 1
    errors = [f for f in check_source(CACHE_MISS, "m.py", Config()) if f.severity is Severity.ERROR]
    assert [f.span.start.line for f in errors] == [line]
    assert not exports(CACHE_MISS, tmp_path, strict=False)
