'''Failing model code, written the way models are written, for the proof of the quick fixes.

Each snippet fails `torch.export` (2.13) in at least one mode as written (tests/truth/
test_fix_corpus.py checks it). `xport_example()` is how it is exported; `xport_inputs()` gives
inputs that drive every branch and size, on which the fixed, exported program must compute what
the original eager module computes. Families: input validation, detector heads and
post-processing, decoders and iterative refinement, MoE routing, samplers, debug prints and
logging, recurrent loops over dynamic sizes.
'''

from __future__ import annotations

SNIPPETS: dict[str, str] = {}


def snippet(name: str, source: str) -> None:
    SNIPPETS[name] = source.strip() + "\n"


# -- validation of inputs ---------------------------------------------------------------------

snippet("validate_negative_raise", """
import torch
class Embed(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.table = torch.nn.Embedding(10, 4)
    def forward(self, ids):
        if (ids < 0).any():
            raise ValueError("negative token id")
        return self.table(ids)
def xport_example():
    return Embed(), (torch.tensor([1, 2, 3]),)
def xport_inputs():
    return [(torch.tensor([0, 9, 4]),)]
""")

snippet("validate_nan_raise", """
import torch
class Head(torch.nn.Module):
    def forward(self, logits):
        if torch.isnan(logits).any():
            raise RuntimeError("NaN in logits")
        return logits.softmax(-1)
def xport_example():
    return Head(), (torch.randn(2, 5),)
def xport_inputs():
    return [(torch.zeros(2, 5),)]
""")

snippet("validate_assert_mask", """
import torch
class Pool(torch.nn.Module):
    def forward(self, x, mask):
        assert mask.sum() > 0, "empty mask"
        return (x * mask.unsqueeze(-1)).sum(1)
def xport_example():
    return Pool(), (torch.randn(2, 3, 4), torch.ones(2, 3))
def xport_inputs():
    return [(torch.randn(2, 3, 4), torch.tensor([[1.0, 0.0, 0.0], [0.0, 0.0, 1.0]]))]
""")

snippet("validate_assert_range", """
import torch
class Probs(torch.nn.Module):
    def forward(self, p):
        assert p.max() <= 1.0
        return torch.log1p(-p)
def xport_example():
    return Probs(), (torch.rand(4),)
def xport_inputs():
    return [(torch.zeros(4),)]
""")

snippet("validate_vocab_int", """
import torch
class Lookup(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.vocab = 16
        self.emb = torch.nn.Embedding(16, 8)
    def forward(self, ids):
        if int(ids.max()) >= self.vocab:
            raise IndexError("token id out of range")
        return self.emb(ids)
def xport_example():
    return Lookup(), (torch.tensor([[1, 5, 7]]),)
def xport_inputs():
    return [(torch.tensor([[15, 0, 3]]),)]
""")

snippet("validate_lengths_item", """
import torch
class Packed(torch.nn.Module):
    def forward(self, x, lengths):
        longest = lengths.max().item()
        if longest > x.shape[1]:
            raise ValueError("a length exceeds the padded size")
        return x.sum(1) / lengths.unsqueeze(-1)
def xport_example():
    return Packed(), (torch.randn(2, 6, 3), torch.tensor([4.0, 6.0]))
def xport_inputs():
    return [(torch.randn(2, 6, 3), torch.tensor([1.0, 2.0]))]
""")

snippet("validate_shapes_match", """
import torch
from torch.export import Dim
class Fuse(torch.nn.Module):
    def forward(self, image_tokens, text_tokens):
        if image_tokens.shape[0] != text_tokens.shape[0]:
            raise ValueError("batch sizes differ")
        return torch.cat([image_tokens, text_tokens], dim=1)
def xport_example():
    return {
        "model": Fuse(),
        "args": (torch.randn(3, 4, 8), torch.randn(3, 5, 8)),
        "dynamic_shapes": ({0: Dim("images")}, {0: Dim("texts")}),
    }
def xport_inputs():
    return [(torch.randn(5, 4, 8), torch.randn(5, 5, 8))]
""")

snippet("validate_probability_raise", """
import torch
class Bernoulli(torch.nn.Module):
    def forward(self, p):
        if p.min() < 0 or p.max() > 1:
            raise ValueError("p must lie in [0, 1]")
        return p * 2 - 1
def xport_example():
    return Bernoulli(), (torch.rand(5),)
def xport_inputs():
    return [(torch.ones(5),)]
""")

# -- branches on tensor values ----------------------------------------------------------------

snippet("branch_sign_scale", """
import torch
class Scale(torch.nn.Module):
    def forward(self, x):
        if x.sum() > 0:
            y = x * 2
        else:
            y = x - 1
        return y
def xport_example():
    return Scale(), (torch.ones(3),)
def xport_inputs():
    return [(-torch.ones(3),)]
""")

snippet("branch_relu_if_positive", """
import torch
class MaybeRelu(torch.nn.Module):
    def forward(self, x):
        if (x > 0).all():
            x = x.sqrt()
        return x + 1
def xport_example():
    return MaybeRelu(), (torch.rand(4) + 0.1,)
def xport_inputs():
    return [(torch.randn(4) - 3,)]
""")

snippet("branch_mask_fill", """
import torch
class MaskedScores(torch.nn.Module):
    def forward(self, scores, mask):
        if mask.any():
            scores = scores.masked_fill(mask, -1e4)
        return scores.softmax(-1)
def xport_example():
    return MaskedScores(), (torch.randn(2, 4), torch.tensor([[True, False, False, False], [False] * 4]))
def xport_inputs():
    return [(torch.randn(2, 4), torch.zeros(2, 4, dtype=torch.bool))]
""")

snippet("branch_early_return_not_any", """
import torch
class Refine(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(4, 4)
    def forward(self, x, active):
        if not active.any():
            return x
        return x + self.proj(x) * active.unsqueeze(-1)
def xport_example():
    return Refine(), (torch.randn(3, 4), torch.tensor([1.0, 0.0, 1.0]))
def xport_inputs():
    return [(torch.randn(3, 4), torch.zeros(3))]
""")

snippet("branch_elif_chain", """
import torch
class Clamp(torch.nn.Module):
    def forward(self, x):
        m = x.mean()
        if m > 1:
            out = x - m
        elif m < -1:
            out = x + 1
        else:
            out = x * 0.5
        return out
def xport_example():
    return Clamp(), (torch.randn(4),)
def xport_inputs():
    return [(torch.full((4,), 3.0),), (torch.full((4,), -3.0),)]
""")

snippet("branch_and_two_tensors", """
import torch
class Gate(torch.nn.Module):
    def forward(self, a, b):
        if a.sum() > 0 and b.sum() > 0:
            out = a + b
        else:
            out = a - b
        return out
def xport_example():
    return Gate(), (torch.ones(3), torch.ones(3))
def xport_inputs():
    return [(torch.ones(3), -torch.ones(3)), (-torch.ones(3), torch.ones(3))]
""")

snippet("branch_or_tensor_tests", """
import torch
class Outliers(torch.nn.Module):
    def forward(self, x):
        if x.max() > 10 or x.min() < -10:
            x = x.clamp(-10, 10)
        return x * 2
def xport_example():
    return Outliers(), (torch.randn(5),)
def xport_inputs():
    return [(torch.full((5,), 20.0),), (torch.full((5,), -20.0),)]
""")

snippet("branch_size_and_tensor", """
import torch
class Normalize(torch.nn.Module):
    def forward(self, x):
        if x.shape[0] > 1 and x.std() > 0:
            x = (x - x.mean()) / x.std()
        return x
def xport_example():
    return Normalize(), (torch.randn(6),)
def xport_inputs():
    return [(torch.ones(6),)]
""")

snippet("branch_bool_wrapper", """
import torch
class Shift(torch.nn.Module):
    def forward(self, x):
        if bool(x.max() > 0):
            x = x - x.max()
        return x.exp()
def xport_example():
    return Shift(), (torch.randn(4),)
def xport_inputs():
    return [(-torch.ones(4),)]
""")

snippet("branch_grad_clip_norm", """
import torch
class ClipNorm(torch.nn.Module):
    def __init__(self, max_norm=1.0):
        super().__init__()
        self.max_norm = max_norm
    def forward(self, x):
        norm = x.norm()
        if norm > self.max_norm:
            x = x * (self.max_norm / norm)
        return x
def xport_example():
    return ClipNorm(), (torch.randn(8) * 5,)
def xport_inputs():
    return [(torch.full((8,), 0.01),)]
""")

snippet("branch_residual_gate", """
import torch
class SkipBlock(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.gate = torch.nn.Linear(4, 1)
        self.block = torch.nn.Linear(4, 4)
    def forward(self, x):
        gate = torch.sigmoid(self.gate(x)).mean()
        if gate > 0.5:
            return self.block(x) + x
        return x * 1.0
def xport_example():
    torch.manual_seed(0)
    return SkipBlock(), (torch.randn(2, 4),)
def xport_inputs():
    return [(torch.randn(2, 4) * 10,), (-torch.randn(2, 4) * 10,)]
""")

snippet("branch_item_scale_used", """
import torch
class MaxNormalize(torch.nn.Module):
    def forward(self, x):
        peak = x.abs().max().item()
        if peak > 1.0:
            x = x / peak
        return x
def xport_example():
    return MaxNormalize(), (torch.randn(5) * 4,)
def xport_inputs():
    return [(torch.full((5,), 0.25),)]
""")

snippet("branch_item_direct", """
import torch
class Center(torch.nn.Module):
    def forward(self, x):
        if x.mean().item() > 0:
            x = x - 1
        return x
def xport_example():
    return Center(), (torch.ones(3),)
def xport_inputs():
    return [(-torch.ones(3),)]
""")

snippet("branch_int_count", """
import torch
class Density(torch.nn.Module):
    def forward(self, x, mask):
        count = int(mask.sum())
        if count > 0:
            x = x * mask
        return x
def xport_example():
    return Density(), (torch.randn(4), torch.tensor([1.0, 0.0, 1.0, 0.0]))
def xport_inputs():
    return [(torch.randn(4), torch.zeros(4))]
""")

snippet("ifexp_number_scale", """
import torch
class Temperature(torch.nn.Module):
    def forward(self, logits):
        scale = 2.0 if logits.mean() > 0 else 0.5
        return logits * scale
def xport_example():
    return Temperature(), (torch.ones(4),)
def xport_inputs():
    return [(-torch.ones(4),)]
""")

snippet("ifexp_pick_tensor", """
import torch
class PickLarger(torch.nn.Module):
    def forward(self, a, b):
        best = a if a.sum() > b.sum() else b
        return best * 2
def xport_example():
    return PickLarger(), (torch.ones(3), torch.zeros(3))
def xport_inputs():
    return [(torch.zeros(3), torch.ones(3))]
""")

snippet("branch_returns_in_both", """
import torch
class Route(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.small = torch.nn.Linear(4, 2)
        self.large = torch.nn.Linear(4, 2)
    def forward(self, x):
        if x.abs().mean() < 1:
            return self.small(x)
        else:
            return self.large(x)
def xport_example():
    return Route(), (torch.randn(3, 4) * 0.1,)
def xport_inputs():
    return [(torch.randn(3, 4) * 10,)]
""")

# -- debug prints and logging -----------------------------------------------------------------

snippet("print_loss_item", """
import torch
class Criterion(torch.nn.Module):
    def forward(self, pred, target):
        loss = ((pred - target) ** 2).mean()
        print(f"loss {loss.item():.3f}")
        return loss
def xport_example():
    return Criterion(), (torch.randn(4), torch.randn(4))
def xport_inputs():
    return []
""")

snippet("logging_item_fstring", """
import logging
import torch
logger = logging.getLogger(__name__)
class Stats(torch.nn.Module):
    def forward(self, x):
        logger.info(f"mean activation {x.mean().item():.4f}")
        return x * 2
def xport_example():
    return Stats(), (torch.randn(3),)
def xport_inputs():
    return []
""")

snippet("warn_on_overflow", """
import warnings
import torch
class SafeExp(torch.nn.Module):
    def forward(self, x):
        if (x > 50).any():
            warnings.warn("large inputs to exp")
        return torch.exp(x.clamp(max=50))
def xport_example():
    return SafeExp(), (torch.randn(4),)
def xport_inputs():
    return [(torch.full((4,), 80.0),)]
""")

snippet("print_if_nan", """
import torch
class Debug(torch.nn.Module):
    def forward(self, x):
        y = x.log()
        if torch.isnan(y).any():
            print("nan after log")
        return y.nan_to_num()
def xport_example():
    return Debug(), (torch.rand(4) + 0.5,)
def xport_inputs():
    return [(-torch.ones(4),)]
""")

# -- loops on data ----------------------------------------------------------------------------

snippet("while_halve_until_small", """
import torch
class Rescale(torch.nn.Module):
    def forward(self, x):
        while x.abs().max() > 1:
            x = x / 2
        return x
def xport_example():
    return Rescale(), (torch.randn(4) * 10,)
def xport_inputs():
    return [(torch.full((4,), 0.5),), (torch.full((4,), 100.0),)]
""")

snippet("while_newton_sqrt", """
import torch
class NewtonSqrt(torch.nn.Module):
    def forward(self, a):
        x = a.clone()
        while ((x * x - a).abs() > 1e-3).any():
            x = 0.5 * (x + a / x)
        return x
def xport_example():
    return NewtonSqrt(), (torch.rand(4) + 1,)
def xport_inputs():
    return [(torch.full((4,), 9.0),)]
""")

snippet("for_range_item_steps", """
import torch
class Refiner(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.step = torch.nn.Linear(4, 4)
    def forward(self, h, steps):
        for _ in range(steps.item()):
            h = torch.tanh(self.step(h))
        return h
def xport_example():
    torch.manual_seed(0)
    return Refiner(), (torch.randn(2, 4), torch.tensor(3))
def xport_inputs():
    return [(torch.randn(2, 4), torch.tensor(0)), (torch.randn(2, 4), torch.tensor(6))]
""")

snippet("for_range_int_decay", """
import torch
class Decay(torch.nn.Module):
    def forward(self, x, n):
        for _ in range(int(n)):
            x = x * 0.9
        return x
def xport_example():
    return Decay(), (torch.ones(3), torch.tensor(4))
def xport_inputs():
    return [(torch.ones(3), torch.tensor(1))]
""")

snippet("while_counter_item", """
import torch
class Accumulate(torch.nn.Module):
    def forward(self, x, n):
        limit = n.item()
        i = 0
        total = torch.zeros(x.shape[1])
        while i < limit:
            total = total + x[i]
            i += 1
        return total
def xport_example():
    return Accumulate(), (torch.randn(5, 3), torch.tensor(3))
def xport_inputs():
    return [(torch.randn(5, 3), torch.tensor(0)), (torch.randn(5, 3), torch.tensor(5))]
""")

snippet("for_range_item_index", """
import torch
class PrefixSum(torch.nn.Module):
    def forward(self, x, count):
        acc = torch.zeros(x.shape[1])
        for i in range(count.item()):
            acc = acc + x[i] * 2
        return acc
def xport_example():
    return PrefixSum(), (torch.randn(6, 2), torch.tensor(4))
def xport_inputs():
    return [(torch.randn(6, 2), torch.tensor(1)), (torch.randn(6, 2), torch.tensor(6))]
""")

snippet("decoder_early_exit_break", """
import torch
class Greedy(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.out = torch.nn.Linear(4, 5)
        self.emb = torch.nn.Embedding(5, 4)
    def forward(self, h):
        tokens = []
        for _ in range(4):
            tok = self.out(h).argmax(-1)
            tokens.append(tok)
            if (tok == 0).all():
                break
            h = h + self.emb(tok)
        return torch.stack(tokens, 1)
def xport_example():
    torch.manual_seed(0)
    return Greedy(), (torch.randn(2, 4),)
def xport_inputs():
    return [(torch.randn(2, 4) * 5,)]
""")
