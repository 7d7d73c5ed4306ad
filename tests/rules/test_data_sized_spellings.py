"""Facts of batch 8 (issue 25), each in several spellings, torch 2.13's outcome checked in both modes:
`bincount`'s length is data (a loop over it, its length tested: XPT201/XPT105; its sum exports),
`tensor_split` into a number of sections read from data is a number of pieces (XPT205; a list of
indices read from data and a static count export), and torch's generator state read or restored is
skipped by strict export (XPT414, strict only), and a number read from data as one of several indices
(`x[:, j]`) fails strict export with an IndexError while `x[j]` alone and a slice bound export (XPT203); `F.one_hot` without a class count reads it from the data (XPT203, both modes)."""

from __future__ import annotations

import pytest

from tests.truth.batches import CaseBatch, Cases

pytest.importorskip("torch")
pytestmark = pytest.mark.torch

CASES = Cases("from torch import get_rng_state\nfrom torch.nn.functional import one_hot")

_MODEL = """
def counts_of(labels):
    return torch.bincount(labels)


def sections_of(k):
    return int(k)


def encoded(labels):
    return F.one_hot(labels, num_classes=-1)


def column_of(k):
    return k[1].item()


class Model(nn.Module):
    def __init__(self):
        super().__init__()
        self.minlength = 2
        self.column = 0
        self.classes = 4

    def forward(self, x, k):
{body}


def xport_example():
    return Model(), (torch.randn(2, 6), torch.tensor([0, 2, 2]))


def xport_inputs():
    return [(torch.randn(2, 6), torch.tensor([1, 0, 3]))]
"""

_FAILS = ("GuardOnDataDependentSymNode", "UserError")
#: (name, the body of forward, torch 2.13's exception type non-strict, strict)
_SPELLINGS = [
    ("loop-over-bincount-in-place", "total = x.sum()\nfor c in torch.bincount(k):\n    total = total + c\nreturn total",
     *_FAILS),
    ("loop-over-bincount-bound-first", "counts = k.bincount(minlength=self.minlength)\nreturn sum(c * x for c in counts)",
     *_FAILS),
    ("loop-over-bincount-from-a-helper", "return torch.stack([c * x for c in counts_of(k)]).sum(0)", *_FAILS),
    ("bincount-length-tested", "if len(torch.bincount(k)) > 3:\n    return x * 2\nreturn x", *_FAILS),
    ("bincount-length-negated-test", "counts = torch.bincount(k)\nif not counts.shape[0] > 3:\n    return x\nreturn x * 2",
     *_FAILS),
    ("bincount-summed", "return x * torch.bincount(k).sum()", None, None),
    ("tensor-split-by-int-of-a-read", "return x.tensor_split(int(k[1]), dim=1)[0]", *_FAILS),
    ("tensor-split-by-a-keyword-section-count", "n = k[1].item()\nreturn torch.tensor_split(x, sections=n, dim=1)[0]",
     *_FAILS),
    ("tensor-split-by-a-helper-count", "return x.tensor_split(sections_of(k[1]), dim=1)[-1]", *_FAILS),
    ("tensor-split-by-shape-arithmetic", "pieces = x.shape[1] // k[1].item()\nreturn x.tensor_split(pieces, dim=1)[0]",
     *_FAILS),
    ("tensor-split-at-read-indices", "return x.tensor_split([k[1].item()], dim=1)[0].sum() * x", None, None),
    ("tensor-split-into-static-sections", "return x.tensor_split(3, dim=1)[0] * k[1]", None, None),
    ("column-read-in-place", "return x[:, k[1].item()]", None, "IndexError"),
    ("column-read-bound-first", "j = k[0].item()\nreturn x[:, j] * 2", None, "IndexError"),
    ("column-read-unpacked", "i, j, _ = k.tolist()\nreturn x[i, j] + x", None, "IndexError"),
    ("column-read-from-a-helper", "return x[..., column_of(k)]", None, "IndexError"),
    ("column-read-kept-on-self", "self.column = k[1].item()\nreturn x[0, self.column]", None, "IndexError"),
    ("column-int-of-an-argmax", "j = int(x.sum(0).argmax())\nreturn x[:, j]", "GuardOnDataDependentSymNode",
     "IndexError"),
    ("row-read-alone", "return x[k[0].item()] * 2", None, None),
    ("columns-up-to-a-read", "return x[:, :k[1].item()].sum(1)", None, None),
    ("column-selected-by-a-read", "return x.select(1, k[1].item())", None, None),
    ("one-hot-in-place", "return F.one_hot(k).float().sum(0) * x[:, :1]", "GuardOnDataDependentSymNode", "Unsupported"),
    ("one-hot-imported-bound-first", "codes = one_hot(k.argsort())\nreturn codes.sum() * x", "GuardOnDataDependentSymNode",
     "Unsupported"),
    ("one-hot-minus-one-in-a-helper", "return encoded(k).sum() * x", *_FAILS),
    ("one-hot-with-a-count-on-self", "return F.one_hot(k, self.classes).float().sum(0) * x[:, :1]", None, None),
    ("one-hot-with-a-keyword-count", "return one_hot(k, num_classes=4).sum() * x", None, None),
    ("one-hot-of-python-constants", "return F.one_hot(torch.tensor([0, 2])).sum() * x", "GuardOnDataDependentSymNode",
     "Unsupported"),
    ("rng-state-read", "return x + get_rng_state().float().mean()", None, "Unsupported"),
    ("rng-state-restored", "state = torch.random.get_rng_state()\nnoise = torch.rand_like(x)\n"
     "torch.random.set_rng_state(state)\nreturn x + noise", None, "Unsupported"),
]
for name, body, non_strict, strict in _SPELLINGS:
    CASES.case(name, non_strict, strict, _MODEL.format(body="\n".join(" " * 8 + line for line in body.splitlines())))

BATCH = CaseBatch(CASES, {})
test_torch_says_what_is_recorded = BATCH.torch_says_what_is_recorded()
test_an_error_exactly_where_export_fails = BATCH.an_error_exactly_where_export_fails()
