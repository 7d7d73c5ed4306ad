"""Hover on a size in a block defined in another file of the project: the `Dim` the model's
file declares (at its top, passed on by the model's `forward`) with its range, placed by the
example's rank where the block counts from the end (`inputs_embeds.shape[-2]`); the same facts
the findings use, through the real server."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import open_document, start, wait_for

BLOCK = """\
import torch


class Embeddings(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.position_embedding = torch.nn.Embedding(64, 4)
        self.register_buffer("position_ids", torch.arange(64).expand((1, -1)), persistent=False)

    def forward(self, inputs_embeds):
        seq_length = inputs_embeds.shape[-2]
        position_ids = self.position_ids[:, :seq_length]
        return inputs_embeds + self.position_embedding(position_ids)
"""
MODEL = """\
import torch
from torch.export import Dim

from .blocks import Embeddings

SEQ = Dim("seq", max=128)


class Text(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.embeddings = Embeddings()

    def forward(self, x):
        return self.embeddings(x)


def xport_example():
    return {"model": Text(), "args": (torch.randn(2, 10, 4),), "dynamic_shapes": {"x": {1: SEQ}}}
"""


async def test_a_size_in_a_block_of_another_file_shows_the_declared_dim(client: LanguageClient, tmp_path: Path) -> None:
    package = tmp_path / "text"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "model.py").write_text(MODEL)
    (package / "blocks.py").write_text(BLOCK)
    await start(client, tmp_path, pull=False)
    uri = open_document(client, package / "blocks.py", BLOCK)
    # the 64-long buffer sliced by a size whose Dim allows 128: the error the finding gives
    await wait_for(lambda: bool(client.diagnostics.get(uri)), timeout=30)
    assert [d.code for d in client.diagnostics[uri]] == ["XPT306"]
    line = BLOCK.splitlines().index("        seq_length = inputs_embeds.shape[-2]")
    column = BLOCK.splitlines()[line].index("inputs_embeds.shape") + 3
    hover = await client.text_document_hover_async(
        types.HoverParams(text_document=types.TextDocumentIdentifier(uri=uri), position=types.Position(line=line, character=column))
    )
    assert hover is not None and isinstance(hover.contents, types.MarkupContent)
    assert hover.contents.value.startswith('`inputs_embeds.shape[1]` is dynamic, `Dim("seq", max=128)`: `seq ∈ [2, 128]`')
