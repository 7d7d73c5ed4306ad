'''A batch of held-out-style programs for issue 25's strict-mode Python, context managers and custom
ops, in spellings neither the context-manager catalogue nor the earlier batches
(tests/truth/test_pattern_cases.py, test_pattern_cases_2.py) use.

The batch was written, and measured, before any change it prompted. Before (the engine of
173488b, with other helpers' work in progress in the checkout):
    non-strict: 4/6 failing programs with an error, 0/47 exporting programs with one
    strict:     16/29 failing programs with an error, 0/24 exporting programs with one
    context managers (strict): 7/17 failing with an error (torch 2/5, standard library 3/9,
    user 2/3), 0/15 exporting with one
    misses (strict): `inference_mode(mode=False)`, `backends.mkldnn.flags`, `emit_nvtx` (both
    modes), `redirect_stderr`, `mock.patch.dict`, a `threading.Condition` built in `__init__`, a
    `threading.Semaphore`, `tempfile.NamedTemporaryFile`, `io.StringIO`, a user
    `ContextDecorator` decorating `forward`, a `torch.Generator` made and seeded in `forward`,
    parameters in a dict comprehension attribute, a scripted submodule called (both modes)
After the changes it prompted (the tests below keep these):
    non-strict: 5/6 with an error (the miss in `KNOWN_MISSES`, with why), 0/47 exporting
    programs with one
    strict:     29/29 with an error, 0/24 exporting programs with one
    context managers (strict): 17/17 failing with an error, 0/15 exporting with one
    by fact, not by name: a context manager not measured is judged by its measured family (two
    or more members of its nearest package, all failing strict) or, from the standard library,
    by its module (the catalogue's new entries measure each spelling here as well); grad modes
    given their flag by keyword; a `ContextDecorator` class decorating `forward`; a submodule
    made by `torch.jit.script` called (both modes); a `torch.Generator` made in `forward`; a
    dict comprehension of parameters
One program was left out: `with torch._C._DisableTorchDispatch():` around `x + 1` crashes the
process (a segmentation fault) in export on torch 2.13.

The autocast failure issue 25 reports (outputs mixing bfloat16 and float32) was not reproduced on
torch 2.13: under `torch.autocast("cpu", dtype=torch.bfloat16)`, `(x @ w) + fp32_buffer`,
`torch.where(x > 0, x @ w, x)`, a Linear then LayerNorm, `torch.cat`/`torch.stack` of a
bfloat16 and a float32 tensor, `addmm`/`baddbmm` with a float32 bias, an in-place `add_` of
either dtype into the other, `einsum`, and `scaled_dot_product_attention` with mixed inputs all
export in both modes; the mixes that fail export (`masked_scatter`, `scatter_add` of a bfloat16
source into a float32 tensor) fail eager as well. Two of them are kept below as exporting programs.

Each program was exported with real torch 2.13.0 in both modes and the outcome is written beside
it (the exception type, or None where it exports). The tests check that torch still says so and
that xport-lint reports an error exactly on the failing ones (but for `KNOWN_MISSES`, each with
why).
'''

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, large_with_near_misses
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


CASES = Cases("""import contextlib
import io
import math
import os
import tempfile
import threading
import warnings
from unittest import mock""")
case = CASES.case


# -- torch context managers ---------------------------------------------------------------------

case("grad-mode-set-by-the-training-flag", None, None, """
class Tower(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        with torch.set_grad_enabled(self.training):
            y = self.proj(x)
        return y

def xport_example():
    return Tower(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("no-grad-imported-by-name", None, None, """
from torch import no_grad

class Frozen(nn.Module):
    def forward(self, x):
        with no_grad():
            y = x.softmax(-1)
        return y * 2

def xport_example():
    return Frozen(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("inference-mode-switched-off", None, 'AssertionError', """
class Plain(nn.Module):
    def forward(self, x):
        with torch.inference_mode(mode=False):
            y = x.cumsum(-1)
        return y

def xport_example():
    return Plain(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("autocast-bf16-matmul-plus-fp32-buffer", None, None, """
class Mixed(nn.Module):
    def __init__(self):
        super().__init__()
        self.weight = nn.Parameter(torch.randn(3, 3))
        self.register_buffer("offset", torch.randn(3))

    def forward(self, x):
        with torch.autocast("cpu", dtype=torch.bfloat16):
            h = x @ self.weight
            out = h + self.offset
        return out.float()

def xport_example():
    return Mixed(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("autocast-bf16-mm-into-fp32-index-put", None, None, """
class Scatter(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        out = torch.zeros(2, 3)
        with torch.autocast(device_type="cpu", dtype=torch.bfloat16):
            h = self.proj(x)
            out[0] = h[0]
            out = torch.addcmul(out, h, x)
        return out

def xport_example():
    return Scatter(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("autocast-enabled-by-an-attribute", None, None, """
class Amp(nn.Module):
    def __init__(self, use_amp=False):
        super().__init__()
        self.use_amp = use_amp
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        with torch.autocast("cpu", enabled=self.use_amp):
            y = self.proj(x)
        return y

def xport_example():
    return Amp(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("amp-autocast-keywords-without-cache", None, None, """
class Amp(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        with torch.amp.autocast(device_type="cpu", dtype=torch.bfloat16, cache_enabled=False):
            y = self.proj(x)
        return y.float()

def xport_example():
    return Amp(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("sdpa-kernel-with-a-list-of-backends", None, None, """
from torch.nn.attention import SDPBackend, sdpa_kernel

class Attend(nn.Module):
    def forward(self, q):
        with sdpa_kernel([SDPBackend.MATH, SDPBackend.EFFICIENT_ATTENTION]):
            out = F.scaled_dot_product_attention(q, q, q)
        return out

def xport_example():
    return Attend(), (torch.randn(1, 2, 4, 8),)

def xport_inputs():
    return []
""")

case("device-of-the-input-as-a-context", None, 'Unsupported', """
class Build(nn.Module):
    def forward(self, x):
        with torch.device(x.device):
            bias = torch.ones(3)
        return x + bias

def xport_example():
    return Build(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("record-function-imported-by-name", None, None, """
from torch.profiler import record_function

class Traced(nn.Module):
    def forward(self, x):
        with record_function("attention"):
            y = x.softmax(-1)
        return y

def xport_example():
    return Traced(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("emit-nvtx-around-a-block", 'AssertionError', 'Unsupported', """
class Annotated(nn.Module):
    def forward(self, x):
        with torch.autograd.profiler.emit_nvtx():
            y = x * 2
        return y

def xport_example():
    return Annotated(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("fork-rng-with-no-devices", None, 'Unsupported', """
class Jitter(nn.Module):
    def forward(self, x):
        with torch.random.fork_rng(devices=[]):
            noise = torch.zeros_like(x)
        return x + noise

def xport_example():
    return Jitter(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("mkldnn-flags-off", None, 'Unsupported', """
class Conv(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(2, 2, 3, padding=1)

    def forward(self, x):
        with torch.backends.mkldnn.flags(enabled=False):
            y = self.conv(x)
        return y

def xport_example():
    return Conv(), (torch.randn(1, 2, 5, 5),)

def xport_inputs():
    return []
""")

case("disable-torch-function-subclass-guard", None, None, """
class Raw(nn.Module):
    def forward(self, x):
        with torch._C.DisableTorchFunctionSubclass():
            y = x * 2
        return y

def xport_example():
    return Raw(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

# -- standard-library context managers ----------------------------------------------------------

case("suppress-imported-by-name", None, None, """
from contextlib import suppress

class Safe(nn.Module):
    def forward(self, x):
        y = x
        with suppress(ZeroDivisionError):
            y = x / 2
        return y

def xport_example():
    return Safe(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("exit-stack-entering-a-nullcontext", None, 'Unsupported', """
from contextlib import ExitStack

class Staged(nn.Module):
    def forward(self, x):
        with ExitStack() as stack:
            stack.enter_context(contextlib.nullcontext())
            y = x * 2
        return y

def xport_example():
    return Staged(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("redirect-stderr-to-a-buffer", None, 'Unsupported', """
class Quiet(nn.Module):
    def forward(self, x):
        with contextlib.redirect_stderr(io.StringIO()):
            y = x.exp()
        return y

def xport_example():
    return Quiet(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("catch-warnings-with-an-action", None, None, """
class Quiet(nn.Module):
    def forward(self, x):
        with warnings.catch_warnings(action="ignore"):
            y = x.sigmoid()
        return y

def xport_example():
    return Quiet(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("patch-dict-on-the-environment", None, 'Unsupported', """
class Env(nn.Module):
    def forward(self, x):
        with mock.patch.dict(os.environ, {"XLINT_CASE": "1"}):
            y = x + 1
        return y

def xport_example():
    return Env(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("condition-variable-from-init", None, 'Unsupported', """
class Shared(nn.Module):
    def __init__(self):
        super().__init__()
        self.ready = threading.Condition()

    def forward(self, x):
        with self.ready:
            y = x * 3
        return y

def xport_example():
    return Shared(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("semaphore-made-in-forward", None, 'Unsupported', """
class Limited(nn.Module):
    def forward(self, x):
        with threading.Semaphore(2):
            y = x - 1
        return y

def xport_example():
    return Limited(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("log-file-opened-for-writing", None, 'Unsupported', """
class Logged(nn.Module):
    def forward(self, x):
        with open(os.devnull, "w") as sink:
            sink.write("forward\\n")
        return x * 2

def xport_example():
    return Logged(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("decimal-localcontext-by-name", None, 'Unsupported', """
from decimal import localcontext

class Precise(nn.Module):
    def forward(self, x):
        with localcontext(prec=4):
            y = x * 2
        return y

def xport_example():
    return Precise(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("named-temporary-file", None, 'Unsupported', """
class Spill(nn.Module):
    def forward(self, x):
        with tempfile.NamedTemporaryFile() as handle:
            y = x + 1
        return y

def xport_example():
    return Spill(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("string-buffer-as-a-context", None, 'Unsupported', """
class Buffered(nn.Module):
    def forward(self, x):
        with io.StringIO() as buffer:
            y = x.abs()
        return y

def xport_example():
    return Buffered(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

# -- user context managers ----------------------------------------------------------------------

case("named-scope-object-made-in-forward", None, None, """
class Scope:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

class Block(nn.Module):
    def forward(self, x):
        with Scope("block"):
            y = x * 2
        return y

def xport_example():
    return Block(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("counting-scope-kept-at-module-level", None, 'Unsupported', """
class Counter:
    def __init__(self):
        self.calls = 0

    def __enter__(self):
        self.calls += 1
        return self

    def __exit__(self, *exc):
        return False

CALLS = Counter()

class Counted(nn.Module):
    def forward(self, x):
        with CALLS:
            y = x + 2
        return y

def xport_example():
    return Counted(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("scope-object-flagging-the-module", None, None, """
class Active:
    def __init__(self, module):
        self.module = module

    def __enter__(self):
        self.module.active = True
        return self

    def __exit__(self, *exc):
        self.module.active = False
        return False

class Flagged(nn.Module):
    def __init__(self):
        super().__init__()
        self.active = False

    def forward(self, x):
        with Active(self):
            y = x * 2
        return y

def xport_example():
    return Flagged(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("generator-toggling-module-state", None, None, """
from contextlib import contextmanager

@contextmanager
def fused(module):
    module.fused = True
    try:
        yield module
    finally:
        module.fused = False

class Fusable(nn.Module):
    def __init__(self):
        super().__init__()
        self.fused = False

    def forward(self, x):
        with fused(self):
            y = x + 1
        return y

def xport_example():
    return Fusable(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("generator-timing-with-perf-counter", None, 'Unsupported', """
from time import perf_counter

@contextlib.contextmanager
def timed(store):
    start = perf_counter()
    yield
    store.append(perf_counter() - start)

class Timed(nn.Module):
    def __init__(self):
        super().__init__()
        self.times = []

    def forward(self, x):
        with timed(self.times):
            y = x.tanh()
        return y

def xport_example():
    return Timed(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("generator-yielding-a-scaled-tensor", None, None, """
@contextlib.contextmanager
def scaled(x, factor):
    yield x * factor

class Scaled(nn.Module):
    def forward(self, x):
        with scaled(x, 3.0) as y:
            out = y + 1
        return out

def xport_example():
    return Scaled(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("context-decorator-on-forward", None, 'Unsupported', """
class tagged(contextlib.ContextDecorator):
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

class Tagged(nn.Module):
    @tagged()
    def forward(self, x):
        return x * 2

def xport_example():
    return Tagged(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

# -- strict-only Python -------------------------------------------------------------------------

case("generator-seeded-in-forward", None, 'Unsupported', """
class Noisy(nn.Module):
    def forward(self, x):
        g = torch.Generator().manual_seed(0)
        return x + 0.0 * torch.randn(x.shape, generator=g)

def xport_example():
    return Noisy(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("manual-seed-imported-by-name", None, 'Unsupported', """
from torch import manual_seed

class Seeded(nn.Module):
    def forward(self, x):
        manual_seed(1234)
        return x * 2

def xport_example():
    return Seeded(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("sqrt-of-a-read-variance", 'GuardOnDataDependentSymNode', None, """
class Whiten(nn.Module):
    def forward(self, x):
        std = math.sqrt(x.var().item())
        return x / std

def xport_example():
    return Whiten(), (torch.randn(2, 3),)

def xport_inputs():
    return [(torch.randn(2, 3) * 4,)]
""")

case("floor-of-half-the-width", None, None, """
class Half(nn.Module):
    def forward(self, x):
        half = math.floor(x.shape[-1] / 2)
        return x[..., :half]

def xport_example():
    return Half(), (torch.randn(2, 6),)

def xport_inputs():
    return []
""")

case("parameters-in-a-dict-comprehension", None, 'KeyError', """
class Gains(nn.Module):
    def __init__(self):
        super().__init__()
        self.gains = {name: nn.Parameter(torch.ones(3)) for name in ("a", "b")}

    def forward(self, x):
        return x * self.gains["a"] + self.gains["b"]

def xport_example():
    return Gains(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("parameters-in-a-tuple-attribute", None, 'KeyError', """
class Affine(nn.Module):
    def __init__(self):
        super().__init__()
        self.pair = (nn.Parameter(torch.ones(3)), nn.Parameter(torch.zeros(3)))

    def forward(self, x):
        scale, shift = self.pair
        return x * scale + shift

def xport_example():
    return Affine(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("parameters-in-a-parameter-dict", None, None, """
class Gains(nn.Module):
    def __init__(self):
        super().__init__()
        self.gains = nn.ParameterDict({"a": nn.Parameter(torch.ones(3))})

    def forward(self, x):
        return x * self.gains["a"]

def xport_example():
    return Gains(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("parameter-class-by-its-module-path", None, 'Unsupported', """
class Biased(nn.Module):
    def forward(self, x):
        bias = torch.nn.parameter.Parameter(torch.zeros(x.shape[-1]))
        return x + bias

def xport_example():
    return Biased(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("scripted-submodule-method-by-name", None, 'Unsupported', """
class Inner(nn.Module):
    def forward(self, x):
        return x * 2

class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.jit.script(Inner())

    def forward(self, x):
        run = self.inner._c._get_method("forward")
        return run(x) + 1

def xport_example():
    return Outer(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("scripted-submodule-called", 'TypeError', 'Unsupported', """
class Inner(nn.Module):
    def forward(self, x):
        return x * 2

class Outer(nn.Module):
    def __init__(self):
        super().__init__()
        self.inner = torch.jit.script(Inner())

    def forward(self, x):
        return self.inner(x) + 1

def xport_example():
    return Outer(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("try-nonzero-fallback-to-zeros", None, None, """
class Pick(nn.Module):
    def forward(self, x, mask):
        try:
            rows = x[mask.nonzero(as_tuple=True)[0]]
            total = rows.sum(0)
        except RuntimeError:
            total = torch.zeros(x.shape[1])
        return total

def xport_example():
    return Pick(), (torch.randn(4, 2), torch.tensor([1, 0, 1, 0]))

def xport_inputs():
    return [(torch.randn(4, 2), torch.tensor([1, 1, 1, 0]))]
""")

case("try-around-a-read-branch", None, 'UserError', """
class Gate(nn.Module):
    def forward(self, x):
        try:
            if x.sum().item() > 0:
                return x * 2
        except RuntimeError:
            pass
        return x

def xport_example():
    return Gate(), (torch.ones(2, 3),)

def xport_inputs():
    return [(-torch.ones(2, 3),)]
""")

case("constant-list-tensor-compared", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Versioned(nn.Module):
    def __init__(self, major=2, minor=1):
        super().__init__()
        self.major = major
        self.minor = minor

    def forward(self, x):
        if torch.tensor([self.major, self.minor])[0] >= 2:
            return x * 2
        return x

def xport_example():
    return Versioned(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("as-tensor-of-a-level-compared", None, 'Unsupported', """
class Levelled(nn.Module):
    def __init__(self, level=3):
        super().__init__()
        self.level = level

    def forward(self, x):
        level = torch.as_tensor(self.level)
        if level > 1:
            x = x + 1
        return x

def xport_example():
    return Levelled(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("constant-tensor-as-a-factor", None, None, """
class Scaled(nn.Module):
    def __init__(self, scale=0.5):
        super().__init__()
        self.scale = scale

    def forward(self, x):
        return x * torch.tensor(self.scale)

def xport_example():
    return Scaled(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

# -- custom ops ---------------------------------------------------------------------------------

case("custom-op-without-fake-in-a-scoped-library", 'RuntimeError', 'TorchRuntimeError', """
with torch.library._scoped_library("xlint_strict_a", "FRAGMENT"):
    @torch.library.custom_op("xlint_strict_a::clip", mutates_args=())
    def clip(x: torch.Tensor) -> torch.Tensor:
        return x.clamp(-1, 1)

    class UsesOp(nn.Module):
        def forward(self, x):
            return clip(x) + 1

def xport_example():
    return UsesOp(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("custom-op-fake-registered-by-name", None, None, """
@torch.library.custom_op("xlint_strict_b::clip", mutates_args=())
def clip(x: torch.Tensor) -> torch.Tensor:
    return x.clamp(-1, 1)

def _clip_fake(x):
    return torch.empty_like(x)

torch.library.register_fake("xlint_strict_b::clip", _clip_fake)

class UsesOp(nn.Module):
    def forward(self, x):
        return clip(x) + 1

def xport_example():
    return UsesOp(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("library-define-and-impl-without-fake", 'UnsupportedOperatorException', 'Unsupported', """
_LIB = torch.library.Library("xlint_strict_c", "FRAGMENT")
if not hasattr(torch.ops.xlint_strict_c, "shift"):  # a second import defines nothing
    torch.library.define("xlint_strict_c::shift", "(Tensor x) -> Tensor", lib=_LIB)

    @torch.library.impl("xlint_strict_c::shift", "cpu", lib=_LIB)
    def _shift(x):
        return x + 1

class UsesOp(nn.Module):
    def forward(self, x):
        return torch.ops.xlint_strict_c.shift(x) * 2

def xport_example():
    return UsesOp(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("library-define-and-impl-with-fake", None, None, """
_LIB = torch.library.Library("xlint_strict_d", "FRAGMENT")
if not hasattr(torch.ops.xlint_strict_d, "shift"):  # a second import defines nothing
    torch.library.define("xlint_strict_d::shift", "(Tensor x) -> Tensor", lib=_LIB)

    @torch.library.impl("xlint_strict_d::shift", "cpu", lib=_LIB)
    def _shift(x):
        return x + 1

    @torch.library.register_fake("xlint_strict_d::shift", lib=_LIB)
    def _shift_fake(x):
        return torch.empty_like(x)

class UsesOp(nn.Module):
    def forward(self, x):
        return torch.ops.xlint_strict_d.shift(x) * 2

def xport_example():
    return UsesOp(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("fragment-with-an-implicit-autograd-kernel", None, None, """
_LIB = torch.library.Library("xlint_strict_e", "FRAGMENT")
if not hasattr(torch.ops.xlint_strict_e, "double"):  # a second import defines nothing
    _LIB.define("double(Tensor x) -> Tensor")
    _LIB.impl("double", lambda x: x * 2, "CompositeImplicitAutograd")

class UsesOp(nn.Module):
    def forward(self, x):
        return torch.ops.xlint_strict_e.double(x) + 1

def xport_example():
    return UsesOp(), (torch.randn(3),)

def xport_inputs():
    return []
""")

case("fragment-with-an-explicit-kernel", None, None, """
_LIB = torch.library.Library("xlint_strict_f", "FRAGMENT")
if not hasattr(torch.ops.xlint_strict_f, "double"):  # a second import defines nothing
    _LIB.define("double(Tensor x) -> Tensor")
    _LIB.impl("double", lambda x: x * 2, "CompositeExplicitAutograd")

class UsesOp(nn.Module):
    def forward(self, x):
        return torch.ops.xlint_strict_f.double(x) + 1

def xport_example():
    return UsesOp(), (torch.randn(3),)

def xport_inputs():
    return []
""")


# -- a later set, written after the changes above and measured before linting it -----------------
# 19 context-manager programs in spellings neither the catalogue nor the cases above had (a grad
# mode through `torch.autograd`, a lock bound by `as`, a semaphore from `__init__`, `closing`,
# `simplefilter` imported by name, `fork_rng(enabled=False)`, generators printing or reading the
# process id, a class switching grad mode, `os.scandir`, two items in one `with`,
# `save_on_cpu`, `ExitStack` entering `no_grad`, decorated helpers). Before (the engine of
# dc99ff7): strict 12/13 failing programs with an error, 0/6 exporting programs with one;
# non-strict: all 19 export, none with an error. The miss: `torch.autograd.graph.save_on_cpu()`
# (its package mixes a failing `saved_tensors_hooks` and an exporting
# `disable_saved_tensors_hooks`, so no family verdict: XPT412's info). After: measured into the
# catalogue, 13/13.

case("grad-mode-through-torch-autograd", None, None, """
class Frozen(nn.Module):
    def forward(self, x):
        with torch.autograd.set_grad_enabled(False):
            y = x * 2
        return y

def xport_example():
    return Frozen(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("lock-bound-by-as", None, 'Unsupported', """
class Locked(nn.Module):
    def forward(self, x):
        with threading.Lock() as held:
            y = x + float(bool(held))
        return y

def xport_example():
    return Locked(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("bounded-semaphore-from-init", None, 'Unsupported', """
class Pooled(nn.Module):
    def __init__(self):
        super().__init__()
        self._slots = threading.BoundedSemaphore(1)

    def forward(self, x):
        with self._slots:
            y = x.relu()
        return y

def xport_example():
    return Pooled(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("closing-a-bytes-buffer", None, 'Unsupported', """
class Closed(nn.Module):
    def forward(self, x):
        with contextlib.closing(io.BytesIO()) as buffer:
            y = x * 2
        return y

def xport_example():
    return Closed(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("simplefilter-imported-by-name", None, 'Unsupported', """
from warnings import simplefilter

class Quiet(nn.Module):
    def forward(self, x):
        with warnings.catch_warnings():
            simplefilter("ignore", UserWarning)
            y = x.softmax(-1)
        return y

def xport_example():
    return Quiet(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("suppress-any-exception", None, None, """
class Tolerant(nn.Module):
    def forward(self, x):
        y = x
        with contextlib.suppress(Exception):
            y = x.sqrt()
        return y

def xport_example():
    return Tolerant(), (torch.rand(2, 3),)

def xport_inputs():
    return []
""")

case("fork-rng-switched-off", None, 'Unsupported', """
class Jitter(nn.Module):
    def forward(self, x):
        with torch.random.fork_rng(enabled=False):
            y = x * 2
        return y

def xport_example():
    return Jitter(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("generator-printing-only", None, None, """
@contextlib.contextmanager
def announced(name):
    print("enter", name)
    yield
    print("exit", name)

class Loud(nn.Module):
    def forward(self, x):
        with announced("block"):
            y = x + 1
        return y

def xport_example():
    return Loud(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("generator-reading-the-process-id", None, 'Unsupported', """
@contextlib.contextmanager
def tagged():
    pid = os.getpid()
    yield pid

class Tagged(nn.Module):
    def forward(self, x):
        with tagged():
            y = x + 1
        return y

def xport_example():
    return Tagged(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("scope-switching-grad-mode", None, None, """
class NoGrad:
    def __enter__(self):
        self.prev = torch.is_grad_enabled()
        torch.set_grad_enabled(False)

    def __exit__(self, *exc):
        torch.set_grad_enabled(self.prev)

class Frozen(nn.Module):
    def forward(self, x):
        with NoGrad():
            y = x * 3
        return y

def xport_example():
    return Frozen(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("inference-mode-by-an-attribute-keyword", None, 'AssertionError', """
class Frozen(nn.Module):
    def __init__(self, frozen=True):
        super().__init__()
        self.frozen = frozen

    def forward(self, x):
        with torch.inference_mode(mode=self.frozen):
            y = x - 1
        return y

def xport_example():
    return Frozen(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("scandir-in-forward", None, 'Unsupported', """
class Listing(nn.Module):
    def forward(self, x):
        with os.scandir(".") as entries:
            y = x * 2
        return y

def xport_example():
    return Listing(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("no-grad-and-device-in-one-with", None, 'Unsupported', """
class Placed(nn.Module):
    def forward(self, x):
        with torch.no_grad(), torch.device("cpu"):
            y = x + torch.ones(3)
        return y

def xport_example():
    return Placed(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("save-on-cpu-hooks", None, 'Unsupported', """
class Offload(nn.Module):
    def forward(self, x):
        with torch.autograd.graph.save_on_cpu():
            y = x * 2
        return y

def xport_example():
    return Offload(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("autocast-off-through-amp", None, None, """
class Plain(nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = nn.Linear(3, 3)

    def forward(self, x):
        with torch.amp.autocast("cpu", enabled=False):
            y = self.proj(x)
        return y

def xport_example():
    return Plain(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("stdout-redirected-to-devnull", None, 'Unsupported', """
class Quiet(nn.Module):
    def forward(self, x):
        with open(os.devnull, "w") as sink, contextlib.redirect_stdout(sink):
            y = x * 2
        return y

def xport_example():
    return Quiet(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("exit-stack-entering-no-grad", None, 'Unsupported', """
class Staged(nn.Module):
    def forward(self, x):
        with contextlib.ExitStack() as stack:
            stack.enter_context(torch.no_grad())
            y = x * 2
        return y

def xport_example():
    return Staged(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("context-decorator-generator-on-a-helper", None, None, """
@contextlib.contextmanager
def scope():
    yield

class Helped(nn.Module):
    @scope()
    def _inner(self, x):
        return x * 2

    def forward(self, x):
        return self._inner(x) + 1

def xport_example():
    return Helped(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")

case("set-grad-enabled-decorating-a-helper", None, 'Unsupported', """
class Helped(nn.Module):
    @torch.set_grad_enabled(False)
    def _inner(self, x):
        return x * 2

    def forward(self, x):
        return self._inner(x) + 1

def xport_example():
    return Helped(), (torch.randn(2, 3),)

def xport_inputs():
    return []
""")


#: (case, mode) where xport-lint has no error on a failing program, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {
    ("emit-nvtx-around-a-block", Mode.NON_STRICT): (
        "it fails only on a torch built without CUDA (`AssertionError: Torch not compiled with CUDA enabled`): a"
        " condition of the build, which the severity convention makes a warning naming it (XPT411), not an error"
    ),
}


test_the_batch_is_large_and_has_near_misses = large_with_near_misses(CASES, 40, 3, (Mode.STRICT,))


BATCH = CaseBatch(CASES, KNOWN_MISSES)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
