"""Notebooks in the language server, as VS Code opens them (LSP 3.17 notebook documents): the
code cells are checked as one module, and each cell gets its own diagnostics, in its own lines."""

from __future__ import annotations

from pathlib import Path

from lsprotocol import types
from pytest_lsp import LanguageClient

from tests.server.conftest import capabilities, pull, wait_for

HELPER = "%matplotlib inline\nimport torch\n\ndef keep_positive(x):\n    if x.sum() > 0:\n        return x\n    return -x\n"
MODEL = "class Model(torch.nn.Module):\n    def forward(self, x):\n        return keep_positive(x)\n"
UNCALLED = "class Model(torch.nn.Module):\n    def forward(self, x):\n        return x\n"


async def start(client: LanguageClient, folder: Path, *, pull: bool) -> types.InitializeResult:
    """As VS Code starts a server: it declares that it syncs notebook documents."""
    caps = capabilities(pull)
    caps.notebook_document = types.NotebookDocumentClientCapabilities(
        synchronization=types.NotebookDocumentSyncClientCapabilities()
    )
    uri = folder.as_uri()
    return await client.initialize_session(types.InitializeParams(
        capabilities=caps, root_uri=uri, workspace_folders=[types.WorkspaceFolder(uri=uri, name=folder.name)],
        initialization_options={"debounceMs": 20},
    ))


def open_notebook(client: LanguageClient, path: Path) -> tuple[str, str, str]:
    """Cell 1 the helper, cell 2 markdown, cell 3 the model. Returns the three cells' uris."""
    uri = path.as_uri()
    # as VS Code spells them: the fragment is quoted (`=` as %3D)
    cells = [f"vscode-notebook-cell:{path}#W{n}sZmlsZQ%3D%3D" for n in range(3)]
    texts = [(HELPER, "python"), ("The model uses the helper above.", "markdown"), (MODEL, "python")]
    kinds = [types.NotebookCellKind.Code, types.NotebookCellKind.Markup, types.NotebookCellKind.Code]
    client.notebook_document_did_open(types.DidOpenNotebookDocumentParams(
        notebook_document=types.NotebookDocument(
            uri=uri, notebook_type="jupyter-notebook", version=1,
            cells=[types.NotebookCell(kind=k, document=c) for k, c in zip(kinds, cells, strict=True)],
        ),
        cell_text_documents=[types.TextDocumentItem(uri=c, language_id=language, version=1, text=text)
                             for c, (text, language) in zip(cells, texts, strict=True)],
    ))
    return cells[0], cells[1], cells[2]


def edit_cell(client: LanguageClient, notebook: Path, cell: str, text: str, version: int) -> None:
    client.notebook_document_did_change(types.DidChangeNotebookDocumentParams(
        notebook_document=types.VersionedNotebookDocumentIdentifier(version=version, uri=notebook.as_uri()),
        change=types.NotebookDocumentChangeEvent(cells=types.NotebookDocumentCellChanges(text_content=[
            types.NotebookDocumentCellContentChanges(
                document=types.VersionedTextDocumentIdentifier(uri=cell, version=version),
                changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
            )
        ])),
    ))


async def test_a_helper_cell_gets_the_finding_its_caller_in_another_cell_makes(
    client: LanguageClient, tmp_path: Path
) -> None:
    result = await start(client, tmp_path, pull=False)
    assert result.capabilities.notebook_document_sync is not None
    notebook = tmp_path / "model.ipynb"
    helper, _, model = open_notebook(client, notebook)
    await wait_for(lambda: bool(client.diagnostics.get(helper)), timeout=60)
    (diagnostic,) = client.diagnostics[helper]
    # the cell's own lines: `if x.sum() > 0:` is the helper cell's 5th line (0-based 4)
    assert diagnostic.code == "XPT101" and diagnostic.range.start == types.Position(line=4, character=7)
    assert not client.diagnostics.get(model)
    # the model no longer calls the helper: nothing traces it, its cell is clean again
    edit_cell(client, notebook, model, UNCALLED, 2)
    await wait_for(lambda: client.diagnostics.get(helper) is not None and len(client.diagnostics[helper]) == 0,
                   timeout=60)


async def test_a_cell_pulled_gets_its_own_diagnostics(client: LanguageClient, tmp_path: Path) -> None:
    await start(client, tmp_path, pull=True)
    helper, _, model = open_notebook(client, tmp_path / "model.ipynb")
    (diagnostic,) = await pull(client, helper)
    assert diagnostic.code == "XPT101" and diagnostic.range.start.line == 4
    assert await pull(client, model) == []
