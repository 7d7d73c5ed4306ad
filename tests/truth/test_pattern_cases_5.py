"""A fifth batch of held-out-style programs for issue 25, written as model authors write them:
values read from data (`.item()`, `.tolist()`, `int()`/`float()`/`bool()` of tensors, `nonzero`,
`unique(return_counts=True)`, `argmax`, `bincount`, `topk`, `sort`, `searchsorted`) reaching
branches, loops, sizes, containers and module choice through names, tuple unpacking, helpers and
methods, `self.` attributes set in `forward`, `not`, early returns, ternaries, the walrus, filtered
comprehensions, lambdas, `min`/`max`/`abs`/`math.ceil`/`math.floor`: MoE routing (sparse, switch,
module-dict dispatch), a beam step, greedy NMS, variable-length pooling, padding masks, token
pruning. The programs that export (16 of 46) are the dense or tensor-valued ways of writing the
same models, and two that read data yet export in both modes on torch 2.13 (a slice of each row to
its own `.tolist()` length in a comprehension; `topk` to a counted `k`, which strict exports).

Each program was exported with real torch 2.13.0 in both modes and the outcome is written beside
it (the exception type, or None where it exports). The tests check that torch still says so, that
xport-lint reports an error exactly on the failing ones (but for `KNOWN_MISSES`, each with why),
and that every fix offered on a program failing non-strict export proves out.

The batch was written, and measured, before any change it prompted. Before (the engine of
bdeaa09), 46 programs, 16 exporting in both modes:
    non-strict: 28/30 failing programs with an error, 0/16 exporting programs with one
    strict:     25/29 failing programs with an error, 0/17 exporting programs with one
    misses (both modes): a branch read through a method testing an attribute `forward` set from
    `.item()` (`self.level = ...item()`, `if self._hot():`); `s = scores.tolist()`,
    `best = s.index(max(s))`, `x[best]`; (strict only) a `ModuleDict` keyed by `str(int(flag))`,
    `x.repeat(1, math.floor(float(s)))`
    fixes (non-strict, `prove_snippet`): 14 proven, 13 no fix, 1 failed (`math.floor(float(s))`
    rewritten to `math.floor(s.item())`: math.floor of a traced float is a TypeError in
    non-strict export), 2 missed: 14/30 (47 %)
After the changes it prompted (the tests below keep these):
    non-strict: 30/30 with an error, 0/16 exporting programs with one
    strict:     29/29 with an error, 0/17 exporting programs with one
    fixes (non-strict): 17 proven, 13 no fix (`NO_FIX`, each with why), 0 failed: 17/30 (57 %)
    what changed: `math.floor` of a number read from data used as a size fails both modes on
    torch 2.13 (`math.ceil`, `math.trunc` and a slice bound export): an error, fixed as
    `s.floor().int().item()`, the conversion inside it left without a fix of its own;
    `.index()`/`.count()` of a list read from data is an error in both modes; a `ModuleDict` key
    spelt by `str()` of a number read (through names and one-line helpers) is XPT204's; a one-line
    method testing a number `forward` kept on `self` reads that number; the rewrites read
    `math.ceil`/`floor`/`trunc`, `min`/`max` against a literal and `sum()` of `.tolist()` as the
    tensor ops they equal (`torch.while_loop` fixes for `range(math.ceil(t.max().item()))` and
    `range(sum(c for c in t.tolist()))`); an entry of a list of number literals picked by a number
    read, as an operand of tensor arithmetic, is selected from a tensor of them; the findings
    without a fix say why (a `while` on a data-dependent size, a comprehension filter, `.tolist()`
    of a data-dependent length).
Batch 6's changes (test_pattern_cases_6.py), tuned on that batch, proved one more program here:
    fixes (non-strict): 19 proven, 11 no fix, 0 failed: 19/30 (63 %; 18/30 on 3b52a57, whose
    `NO_FIX` held 12): `s.index(max(s))` of a `.tolist()` as `scores.argmax().item()`
Batch 26's changes (test_pattern_cases_26.py): 20 proven, 10 no fix, 0 failed: 20/30 (67 %). The
guard `if idx.numel() == 0: continue` before `out[idx] = expert(x[idx])` is dropped (the rest of
the step writes only through `idx`). Its other input had 5 rows where the example has 6: no
program exported with static shapes runs it, so it is 6 zero rows now (every token to one expert).
"""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases, large_with_near_misses
from xport_lint.analyzers.model import Mode

torch = pytest.importorskip("torch")
pytestmark = pytest.mark.torch


CASES = Cases("""import math""")
case = CASES.case


# -- MoE routing, beam search, NMS-like filtering: values read from data reaching branches ----------

case("expert-skipped-when-no-token-routed", 'GuardOnDataDependentSymNode', 'UserError', """
class SparseMoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 4)
        self.experts = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))

    def forward(self, x):
        route = self.gate(x).argmax(-1)
        out = torch.zeros_like(x)
        for i, expert in enumerate(self.experts):
            idx = (route == i).nonzero(as_tuple=True)[0]
            if idx.numel() == 0:
                continue
            out[idx] = expert(x[idx])
        return out

def xport_example():
    return SparseMoE(), (torch.randn(6, 8),)

def xport_inputs():
    return [(torch.zeros(6, 8),)]  # every token to one expert: the others get none
""")

case("expert-picked-by-argmax-of-mean-gate", 'GuardOnDataDependentSymNode', 'UserError', """
class Switch(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 3)
        self.experts = nn.ModuleList(nn.Linear(8, 8) for _ in range(3))

    def forward(self, x):
        choice = int(self.gate(x).mean(0).argmax())
        return self.experts[choice](x)

def xport_example():
    return Switch(), (torch.randn(4, 8),)

def xport_inputs():
    return [(torch.randn(4, 8) * 3,)]
""")

case("beam-stops-when-every-beam-ended", 'GuardOnDataDependentSymNode', 'Unsupported', """
class BeamStep(nn.Module):
    def __init__(self, eos=2):
        super().__init__()
        self.eos = eos

    def forward(self, logits, finished):
        tokens = logits.argmax(-1)
        finished = finished | (tokens == self.eos)
        if finished.all():
            return tokens, finished
        return tokens + 0, finished

def xport_example():
    return BeamStep(), (torch.randn(3, 5), torch.tensor([False, True, False]))

def xport_inputs():
    return [(torch.randn(3, 5), torch.tensor([True, True, True]))]
""")

case("nms-while-candidates-left", 'GuardOnDataDependentSymNode', 'UserError', """
class GreedyNMS(nn.Module):
    def forward(self, boxes, scores):
        order = scores.argsort(descending=True)
        keep = []
        while order.numel() > 0:
            i = order[0]
            keep.append(i)
            iou = (boxes[order[1:]] - boxes[i]).abs().sum(-1)
            order = order[1:][iou > 0.5]
        return torch.stack(keep)

def xport_example():
    return GreedyNMS(), (torch.rand(5, 4), torch.rand(5))

def xport_inputs():
    return [(torch.rand(4, 4), torch.rand(4))]
""")

case("pooled-by-lengths-in-a-comprehension", None, None, """
class MeanPool(nn.Module):
    def forward(self, h, mask):
        lengths = mask.sum(1).tolist()
        return torch.stack([h[i, :n].mean(0) for i, n in enumerate(lengths)])

def xport_example():
    return MeanPool(), (torch.randn(2, 5, 3), torch.tensor([[1, 1, 1, 0, 0], [1, 1, 1, 1, 1]]))

def xport_inputs():
    return [(torch.randn(2, 5, 3), torch.tensor([[1, 0, 0, 0, 0], [1, 1, 0, 0, 0]]))]
""")

case("early-return-when-no-padding", 'GuardOnDataDependentSymNode', 'Unsupported', """
class MaskedFill(nn.Module):
    def forward(self, x, pad):
        if not pad.any():
            return x
        return x.masked_fill(pad[..., None], 0.0)

def xport_example():
    return MaskedFill(), (torch.randn(2, 4, 3), torch.tensor([[False, False, True, True], [False] * 4]))

def xport_inputs():
    return [(torch.randn(2, 4, 3), torch.zeros(2, 4, dtype=torch.bool))]
""")

case("tokens-pruned-to-a-counted-k", 'GuardOnDataDependentSymNode', None, """
class Pruner(nn.Module):
    def forward(self, x, scores):
        k = max(1, int((scores > 0.5).sum()))
        idx = scores.topk(k, dim=-1).indices
        return x[idx]

def xport_example():
    return Pruner(), (torch.randn(6, 4), torch.tensor([0.9, 0.1, 0.7, 0.2, 0.6, 0.3]))

def xport_inputs():
    return [(torch.randn(6, 4), torch.tensor([0.1, 0.1, 0.1, 0.2, 0.2, 0.3]))]
""")

case("walrus-count-then-normalise", 'GuardOnDataDependentSymNode', 'UserError', """
class Norm(nn.Module):
    def forward(self, x, mask):
        if (n := int(mask.sum())) > 0:
            return (x * mask).sum() / n
        return x.sum() * 0

def xport_example():
    return Norm(), (torch.randn(4), torch.tensor([1.0, 0.0, 1.0, 1.0]))

def xport_inputs():
    return [(torch.randn(4), torch.zeros(4))]
""")

case("lambda-reads-the-peak", 'GuardOnDataDependentSymNode', 'UserError', """
class Clip(nn.Module):
    def forward(self, x):
        peak = lambda t: t.abs().max().item()
        if peak(x) > 3.0:
            return x / 3.0
        return x

def xport_example():
    return Clip(), (torch.randn(4) * 10,)

def xport_inputs():
    return [(torch.randn(4) * 0.1,)]
""")

case("steps-by-math-ceil-of-a-read", 'GuardOnDataDependentSymNode', 'UserError', """
class Smooth(nn.Module):
    def forward(self, x, t):
        steps = math.ceil(t.max().item())
        for _ in range(steps):
            x = (x + x.roll(1)) / 2
        return x

def xport_example():
    return Smooth(), (torch.randn(5), torch.tensor([1.5, 0.5]))

def xport_inputs():
    return [(torch.randn(5), torch.tensor([3.2, 0.1]))]
""")

case("abs-of-a-read-mean-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Center(nn.Module):
    def forward(self, x):
        if abs(x.mean().item()) > 1.0:
            x = x - x.mean()
        return x

def xport_example():
    return Center(), (torch.randn(4) + 5,)

def xport_inputs():
    return [(torch.randn(4) * 0.01,)]
""")

case("loop-capped-by-min-of-a-read", 'GuardOnDataDependentSymNode', 'UserError', """
class Refine(nn.Module):
    def forward(self, x, n):
        for _ in range(min(int(n), 4)):
            x = torch.tanh(x) + x
        return x

def xport_example():
    return Refine(), (torch.randn(3), torch.tensor(2))

def xport_inputs():
    return [(torch.randn(3), torch.tensor(7))]
""")

case("emptiness-from-a-bool-method", 'GuardOnDataDependentSymNode', 'UserError', """
class Guarded(nn.Module):
    def _is_blank(self, t):
        return bool((t == 0).all())

    def forward(self, x):
        if self._is_blank(x):
            return x + 1
        return x * 2

def xport_example():
    return Guarded(), (torch.randn(3),)

def xport_inputs():
    return [(torch.zeros(3),)]
""")

case("returned-ternary-on-float-of-std", 'GuardOnDataDependentSymNode', 'UserError', """
class Whiten(nn.Module):
    def forward(self, x):
        return x if float(x.std()) < 1.0 else x / x.std()

def xport_example():
    return Whiten(), (torch.randn(6) * 5,)

def xport_inputs():
    return [(torch.randn(6) * 0.1,)]
""")

case("positive-rows-kept-by-a-filtered-comprehension", 'GuardOnDataDependentSymNode', 'Unsupported', """
class KeepPositive(nn.Module):
    def forward(self, x):
        sums = x.sum(1).tolist()
        rows = [i for i, s in enumerate(sums) if s > 0]
        return x[rows]

def xport_example():
    return KeepPositive(), (torch.randn(4, 3),)

def xport_inputs():
    return [(torch.ones(4, 3),)]
""")

case("head-chosen-through-a-module-dict", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Dispatch(nn.Module):
    def __init__(self):
        super().__init__()
        self.heads = nn.ModuleDict({"0": nn.Linear(4, 2), "1": nn.Linear(4, 2)})

    def forward(self, x, flag):
        return self.heads[str(int(flag))](x)

def xport_example():
    return Dispatch(), (torch.randn(3, 4), torch.tensor(1))

def xport_inputs():
    return [(torch.randn(3, 4), torch.tensor(0))]
""")

case("scale-looked-up-by-searchsorted", 'GuardOnDataDependentSymNode', 'UserError', """
class Binned(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("edges", torch.tensor([0.0, 1.0, 2.0]))
        self.scales = [0.5, 1.0, 2.0, 4.0]

    def forward(self, x):
        i = int(torch.searchsorted(self.edges, x.abs().mean()))
        return x * self.scales[i]

def xport_example():
    return Binned(), (torch.randn(4),)

def xport_inputs():
    return [(torch.randn(4) * 10,)]
""")

case("largest-sorted-value-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Top(nn.Module):
    def forward(self, x):
        vals, _ = x.sort()
        top = vals[-1].item()
        if top > 0:
            return x / top
        return x

def xport_example():
    return Top(), (torch.randn(5).abs() + 0.1,)

def xport_inputs():
    return [(-torch.rand(5) - 0.1,)]
""")

case("classes-counted-by-bincount-max", 'GuardOnDataDependentSymNode', 'UserError', """
class PerClass(nn.Module):
    def forward(self, x, labels):
        outs = []
        for c in range(int(torch.bincount(labels).max())):
            outs.append(x * c)
        return torch.stack(outs)

def xport_example():
    return PerClass(), (torch.randn(3), torch.tensor([0, 1, 1, 2]))

def xport_inputs():
    return [(torch.randn(3), torch.tensor([1, 1, 1, 1]))]
""")

case("flag-kept-on-self-then-negated", 'GuardOnDataDependentSymNode', 'UserError', """
class Tracker(nn.Module):
    def forward(self, x, mask):
        self.seen_any = bool(mask.any())
        if not self.seen_any:
            return x
        return x * mask

def xport_example():
    return Tracker(), (torch.randn(3), torch.tensor([0.0, 1.0, 0.0]))

def xport_inputs():
    return [(torch.randn(3), torch.zeros(3))]
""")

case("nan-repaired-in-place", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Sanitize(nn.Module):
    def forward(self, x):
        if torch.isnan(x).any():
            x = torch.nan_to_num(x, nan=0.0)
        return x * 2

def xport_example():
    return Sanitize(), (torch.tensor([1.0, float("nan"), 2.0]),)

def xport_inputs():
    return [(torch.tensor([1.0, 3.0, 2.0]),)]
""")

case("range-unpacked-from-a-helper-then-tested", 'GuardOnDataDependentSymNode', 'UserError', """
class Rescale(nn.Module):
    def _range(self, x):
        return x.min().item(), x.max().item()

    def forward(self, x):
        lo, hi = self._range(x)
        if hi - lo < 1e-6:
            return x - lo
        return (x - lo) / (hi - lo)

def xport_example():
    return Rescale(), (torch.randn(4),)

def xport_inputs():
    return [(torch.ones(4),)]
""")

case("decode-until-a-read-length", 'GuardOnDataDependentSymNode', 'UserError', """
class Decoder(nn.Module):
    def __init__(self):
        super().__init__()
        self.cell = nn.Linear(4, 4)

    def forward(self, h, max_len):
        step = 0
        while step < int(max_len):
            h = torch.tanh(self.cell(h))
            step += 1
        return h

def xport_example():
    return Decoder(), (torch.randn(2, 4), torch.tensor(3))

def xport_inputs():
    return [(torch.randn(2, 4), torch.tensor(1))]
""")

case("adjacency-size-by-len-of-nonzero-rows", 'GuardOnDataDependentSymNode', 'UserError', """
class Sparse(nn.Module):
    def forward(self, adj, x):
        rows, cols = torch.nonzero(adj, as_tuple=True)
        if len(rows) > 4:
            return x * 2
        return x

def xport_example():
    return Sparse(), (torch.eye(3), torch.randn(3))

def xport_inputs():
    return [(torch.ones(3, 3), torch.randn(3))]
""")

case("best-index-from-a-python-list", 'GuardOnDataDependentSymNode', 'Unsupported', """
class Pick(nn.Module):
    def forward(self, x, scores):
        s = scores.tolist()
        best = s.index(max(s))
        return x[best]

def xport_example():
    return Pick(), (torch.randn(3, 2), torch.tensor([0.1, 0.9, 0.3]))

def xport_inputs():
    return [(torch.randn(3, 2), torch.tensor([0.8, 0.1, 0.3]))]
""")

case("normalised-in-a-helper-with-an-early-return", 'GuardOnDataDependentSymNode', 'Unsupported', """
def normalise(x):
    total = x.sum()
    if total == 0:
        return x
    return x / total

class Weights(nn.Module):
    def forward(self, x):
        return normalise(x.relu())

def xport_example():
    return Weights(), (torch.rand(4),)

def xport_inputs():
    return [(-torch.rand(4),)]
""")

case("repeat-by-floor-of-a-read-scale", 'GuardOnDataDependentSymNode', 'TypeError', """
class Tile(nn.Module):
    def forward(self, x, s):
        reps = math.floor(float(s))
        return x.repeat(1, reps)

def xport_example():
    return Tile(), (torch.randn(2, 3), torch.tensor(2.7))

def xport_inputs():
    return [(torch.randn(2, 3), torch.tensor(1.2))]
""")

case("split-by-unique-counts", 'GuardOnDataDependentSymNode', 'UserError', """
class Groups(nn.Module):
    def forward(self, x, ids):
        _, counts = torch.unique(ids, return_counts=True)
        parts = x.split(counts.tolist())
        return torch.stack([p.sum(0) for p in parts])

def xport_example():
    return Groups(), (torch.randn(5, 2), torch.tensor([0, 0, 1, 1, 1]))

def xport_inputs():
    return [(torch.randn(5, 2), torch.tensor([0, 1, 1, 2, 2]))]
""")

case("or-of-a-read-and-a-switch", 'GuardOnDataDependentSymNode', 'UserError', """
class Gate(nn.Module):
    def __init__(self, force=False):
        super().__init__()
        self.force = force

    def forward(self, x, mask):
        if bool(mask.all()) or self.force:
            return x
        return x * mask

def xport_example():
    return Gate(), (torch.randn(3), torch.tensor([1.0, 0.0, 1.0]))

def xport_inputs():
    return [(torch.randn(3), torch.ones(3))]
""")

case("threshold-attribute-read-in-forward-tested-in-a-method", 'GuardOnDataDependentSymNode', 'UserError', """
class Calib(nn.Module):
    def _hot(self):
        return self.level > 0.5

    def forward(self, x):
        self.level = x.sigmoid().mean().item()
        if self._hot():
            return x - 1
        return x

def xport_example():
    return Calib(), (torch.randn(4) + 3,)

def xport_inputs():
    return [(torch.randn(4) - 3,)]
""")

case("sum-of-a-tolist-comprehension-as-a-loop-bound", 'GuardOnDataDependentSymNode', 'UserError', """
class Expand(nn.Module):
    def forward(self, x, counts):
        total = sum(c for c in counts.tolist())
        out = x
        for _ in range(total):
            out = out + 1
        return out

def xport_example():
    return Expand(), (torch.randn(3), torch.tensor([1, 2]))

def xport_inputs():
    return [(torch.randn(3), torch.tensor([0, 1]))]
""")

# -- programs that look the same but export -------------------------------------------------------

case("read-peak-only-divides", None, None, """
class Scale(nn.Module):
    def forward(self, x):
        peak = x.abs().max()
        return x / peak.clamp_min(1e-6)

def xport_example():
    return Scale(), (torch.randn(4),)

def xport_inputs():
    return []
""")

case("where-on-any-of-padding", None, None, """
class Pad(nn.Module):
    def forward(self, x, pad):
        return torch.where(pad.any(), x.masked_fill(pad, 0.0), x)

def xport_example():
    return Pad(), (torch.randn(4), torch.tensor([False, True, False, False]))

def xport_inputs():
    return []
""")

case("prune-to-a-ratio-of-the-length", None, None, """
class Prune(nn.Module):
    def __init__(self, ratio=0.5):
        super().__init__()
        self.ratio = ratio

    def forward(self, x, scores):
        k = max(1, int(self.ratio * x.shape[0]))
        return x[scores.topk(k).indices]

def xport_example():
    return Prune(), (torch.randn(6, 4), torch.rand(6))

def xport_inputs():
    return []
""")

case("experts-run-densely-and-gated", None, None, """
class DenseMoE(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = nn.Linear(8, 4)
        self.experts = nn.ModuleList(nn.Linear(8, 8) for _ in range(4))

    def forward(self, x):
        weights = self.gate(x).softmax(-1)
        outs = torch.stack([e(x) for e in self.experts], dim=-1)
        return (outs * weights[:, None, :]).sum(-1)

def xport_example():
    return DenseMoE(), (torch.randn(6, 8),)

def xport_inputs():
    return []
""")

case("loop-over-the-number-of-experts", None, None, """
class Routed(nn.Module):
    def __init__(self):
        super().__init__()
        self.experts = nn.ModuleList(nn.Linear(4, 4) for _ in range(3))

    def forward(self, x, route):
        out = torch.zeros_like(x)
        for i in range(len(self.experts)):
            sel = (route == i).unsqueeze(-1)
            out = out + sel * self.experts[i](x)
        return out

def xport_example():
    return Routed(), (torch.randn(5, 4), torch.tensor([0, 1, 2, 1, 0]))

def xport_inputs():
    return []
""")

case("length-capped-by-min-of-a-size", None, None, """
class Trunc(nn.Module):
    def __init__(self, max_len=3):
        super().__init__()
        self.max_len = max_len

    def forward(self, x):
        n = min(x.shape[1], self.max_len)
        return x[:, :n]

def xport_example():
    return Trunc(), (torch.randn(2, 5),)

def xport_inputs():
    return []
""")

case("scaled-by-math-sqrt-of-a-width", None, None, """
class Attn(nn.Module):
    def forward(self, q, k):
        return (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])

def xport_example():
    return Attn(), (torch.randn(2, 3, 4), torch.randn(2, 3, 4))

def xport_inputs():
    return []
""")

case("nan-check-only-in-training", None, None, """
class Loss(nn.Module):
    def forward(self, x):
        if self.training and torch.isnan(x).any():
            raise ValueError("nan")
        return x.mean()

def xport_example():
    return Loss(), (torch.randn(4),)

def xport_inputs():
    return []
""")

case("beam-scores-gathered-by-topk", None, None, """
class Beam(nn.Module):
    def forward(self, logits):
        scores, idx = logits.log_softmax(-1).topk(2, dim=-1)
        return torch.gather(logits, -1, idx) + scores

def xport_example():
    return Beam(), (torch.randn(3, 5),)

def xport_inputs():
    return []
""")

case("masked-mean-pool-by-a-sum", None, None, """
class Pool(nn.Module):
    def forward(self, h, mask):
        m = mask[..., None].to(h.dtype)
        return (h * m).sum(1) / m.sum(1).clamp_min(1.0)

def xport_example():
    return Pool(), (torch.randn(2, 5, 3), torch.tensor([[1, 1, 0, 0, 0], [1, 1, 1, 1, 1]]))

def xport_inputs():
    return []
""")

case("bucket-index-into-a-buffer-table", None, None, """
class Embed(nn.Module):
    def __init__(self):
        super().__init__()
        self.register_buffer("edges", torch.tensor([0.0, 1.0, 2.0]))
        self.register_buffer("table", torch.tensor([0.5, 1.0, 2.0, 4.0]))

    def forward(self, x):
        idx = torch.bucketize(x.abs(), self.edges)
        return x * self.table[idx]

def xport_example():
    return Embed(), (torch.randn(4),)

def xport_inputs():
    return []
""")

case("selected-rows-summed-not-tested", None, None, """
class Sel(nn.Module):
    def forward(self, x, keep):
        return x[keep].sum(0)

def xport_example():
    return Sel(), (torch.randn(4, 3), torch.tensor([True, False, True, True]))

def xport_inputs():
    return []
""")

case("rank-by-ndim-ternary", None, None, """
class Flat(nn.Module):
    def forward(self, x):
        return x.flatten(1) if x.ndim > 2 else x

def xport_example():
    return Flat(), (torch.randn(2, 3, 4),)

def xport_inputs():
    return []
""")

case("cond-on-any-with-methods", None, None, """
class Branchy(nn.Module):
    def _on(self, x):
        return x * 2

    def _off(self, x):
        return x - 1

    def forward(self, x, mask):
        return torch.cond(mask.any(), self._on, self._off, (x,))

def xport_example():
    return Branchy(), (torch.randn(3), torch.tensor([False, True, False]))

def xport_inputs():
    return []
""")

case("count-kept-as-a-tensor-for-the-mean", None, None, """
class Avg(nn.Module):
    def forward(self, x, mask):
        n = mask.sum().clamp_min(1)
        return (x * mask).sum() / n

def xport_example():
    return Avg(), (torch.randn(4), torch.tensor([1.0, 0.0, 1.0, 0.0]))

def xport_inputs():
    return []
""")


#: (case, mode) where xport-lint's verdict differs from torch's, and why
KNOWN_MISSES: dict[tuple[str, Mode], str] = {}

#: failing programs (non-strict) whose error has no fix, and why none is offered
NO_FIX = {
    "nms-while-candidates-left": "the loop runs until a size that depends on data says stop, and that size changes"
    " from step to step (`order` shrinks): torch.while_loop carries tensors of fixed shapes",
    "tokens-pruned-to-a-counted-k": "`k` sets `topk`'s output size for the code after it: `.item()` would export,"
    " but such a size read from data fails at run time on other inputs (XPT203's doc)",
    "positive-rows-kept-by-a-filtered-comprehension": "the filter makes a Python list whose length is data; a"
    " boolean mask of the tensor (`x[x.sum(1) > 0]`) selects the same rows as a tensor",
    "head-chosen-through-a-module-dict": "the key is a string spelt from the number read: no tensor selects a"
    " `ModuleDict` entry",
    "classes-counted-by-bincount-max": "the loop appends to a list whose length is the count: the stacked output's"
    " size is data, and a torch.while_loop body must be pure",
    "split-by-unique-counts": "a list of a length read from data (`counts.tolist()`) splits into that many"
    " pieces: a graph has a fixed number of outputs",
    "threshold-attribute-read-in-forward-tested-in-a-method": "the number tested is kept on `self` and read"
    " through a method: the tensor it is read from is not at hand at the test",
}


test_the_batch_is_large_and_has_near_misses = large_with_near_misses(CASES, 40, 3, (Mode.NON_STRICT, Mode.STRICT))


BATCH = CaseBatch(CASES, KNOWN_MISSES, NO_FIX)
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
test_recall_and_false_errors = BATCH.recall_and_false_errors()
test_a_fix_offered_on_a_failing_program_proves_out = BATCH.a_fix_offered_proves_out()
