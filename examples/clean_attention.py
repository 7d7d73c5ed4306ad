"""Export-friendly attention: no findings."""

from typing import Optional

import torch
from torch import nn


class Attention(nn.Module):
    def __init__(self, dim: int = 8, heads: int = 2):
        super().__init__()
        self.heads = heads
        self.qkv = nn.Linear(dim, 3 * dim)
        self.out = nn.Linear(dim, dim)

    def forward(self, x, mask: Optional[torch.Tensor] = None):
        b, t, d = x.shape
        q, k, v = self.qkv(x).view(b, t, 3, self.heads, d // self.heads).unbind(2)
        scores = torch.einsum("bqhd,bkhd->bhqk", q, k) / (d // self.heads) ** 0.5
        if mask is not None:
            scores = scores.masked_fill(~mask[:, None, None, :], float("-inf"))
        attn = scores.softmax(-1)
        return self.out(torch.einsum("bhqk,bkhd->bqhd", attn, v).reshape(b, t, d))


def xport_example():
    return Attention(), (torch.randn(2, 5, 8), torch.ones(2, 5, dtype=torch.bool))
