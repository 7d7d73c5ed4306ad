"""Code actions: quick fixes and their noqa, torch's suggestion after a confirmation, Add
xport_example(), and fix-all (computed in the lint child). All from the diagnostics the client
sends and the last stored results: nothing waits for a lint."""

from __future__ import annotations

import asyncio

from lsprotocol import types
from pygls.exceptions import JsonRpcContentModified, JsonRpcInvalidParams
from pygls.uris import to_fs_path
from pygls.workspace import TextDocument

from xport_lint.analyzers.lines import split_lines

from . import convert
from .boundary import Features
from .session import (
    ADD_EXAMPLE_COMMAND,
    FIX_ALL_COMMAND,
    FIX_ALL_KIND,
    Result,
    XportLanguageServer,
)

features = Features()


@features.feature(
    types.TEXT_DOCUMENT_CODE_ACTION,
    types.CodeActionOptions(
        code_action_kinds=[
            types.CodeActionKind.QuickFix,
            types.CodeActionKind.Refactor,
            types.CodeActionKind.SourceFixAll,
            FIX_ALL_KIND,
        ],
        resolve_provider=True,
    ),
)
async def code_action(ls: XportLanguageServer, params: types.CodeActionParams) -> list[types.CodeAction]:
    uri = params.text_document.uri
    document = ls.document(uri)
    if document is None:
        return []
    actions: list[types.CodeAction] = []
    disable: list[types.CodeAction] = []  # after every fix: Ctrl+. then Enter must never pick it
    only = params.context.only
    wants_quickfix = not only or any(k.startswith(types.CodeActionKind.QuickFix) for k in only)
    if wants_quickfix:
        actions.extend(_suggestion_actions(ls, document, params.range))
    for diagnostic in params.context.diagnostics:
        data = diagnostic.data
        if diagnostic.source != convert.SOURCE or not isinstance(data, dict) or not wants_quickfix:
            continue
        if data.get("suggestion"):
            continue  # offered above, from the stored confirmation
        fix = data.get("fix")
        if fix:
            actions.append(
                types.CodeAction(
                    title=f"{data['code']}: {fix['title']}" + ("" if fix["safe"] else " (unsafe)"),
                    kind=types.CodeActionKind.QuickFix,
                    diagnostics=[diagnostic],
                    is_preferred=bool(fix["safe"]),
                    edit=types.WorkspaceEdit(changes={uri: convert.edits_from_data(fix)}),
                )
            )
        disable.append(
            types.CodeAction(
                title=f"{data['code']}: Disable for this line",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                edit=types.WorkspaceEdit(changes={uri: [convert.edit_from_data(data["noqa"])]}),
            )
        )
    actions.extend(disable)
    if not only or any(k.startswith(types.CodeActionKind.Refactor) for k in only):
        result = ls.results.get(uri) or await ls.analyse(uri)  # the last result; one only if none yet
        actions.extend(_add_example_actions(result, document, params.range))
    wants_fix_all = not only or any(FIX_ALL_KIND.startswith(k) or k.startswith(FIX_ALL_KIND) for k in only)
    if wants_fix_all:
        actions.append(
            types.CodeAction(
                title="xport-lint: Fix all safely fixable issues",
                kind=FIX_ALL_KIND,
                data={"uri": uri},
            )
        )
    return actions


def _suggestion_actions(ls: XportLanguageServer, document: TextDocument, where: types.Range) -> list[types.CodeAction]:
    """After a confirmation whose export failed on `dynamic_shapes`, on the example's
    `dynamic_shapes` (where its diagnostic is): torch's suggestion, preferred when export then
    passes, titled with what it changes. From the stored result of this very text only."""
    result = ls.results.get(document.uri)
    stored = ls.confirmations.get(document.uri)
    if result is None or stored is None or stored.suggestion is None or stored.digest != result.digest:
        return []
    if not ls.is_open(document.uri, result.version):
        return []
    diagnostic = next((d for d in result.diagnostics if isinstance(d.data, dict) and d.data.get("suggestion")), None)
    if diagnostic is None or not _overlaps(diagnostic.range, where):
        return []
    suggestion = stored.suggestion
    lines = list(document.lines)
    return [
        types.CodeAction(
            title=suggestion.title + ("" if suggestion.export_ok else " (export still fails after it)"),
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            is_preferred=suggestion.export_ok,
            edit=types.WorkspaceEdit(changes={document.uri: [convert.text_edit(lines, e) for e in suggestion.edits]}),
        )
    ]


def _overlaps(a: types.Range, b: types.Range) -> bool:
    return (a.start.line, a.start.character) <= (b.end.line, b.end.character) and (
        (b.start.line, b.start.character) <= (a.end.line, a.end.character)
    )


def _add_example_actions(result: Result, document: TextDocument, where: types.Range) -> list[types.CodeAction]:
    """Add xport_example() on a model class in the range, from the last result's model classes."""
    if result.has_example:
        return []
    return [
        types.CodeAction(
            title=f"Add xport_example() for {name} (to confirm with draft_export)",
            kind=types.CodeActionKind.Refactor,
            edit=add_example_edit(document.uri, document.source, name),
        )
        for name, line in result.models
        if where.start.line <= line <= where.end.line
    ]


@features.feature(types.CODE_ACTION_RESOLVE)
async def code_action_resolve(ls: XportLanguageServer, action: types.CodeAction) -> types.CodeAction:
    if action.kind == FIX_ALL_KIND:
        uri = action.data.get("uri") if isinstance(action.data, dict) else None
        if not isinstance(uri, str):
            raise JsonRpcInvalidParams(f"{FIX_ALL_KIND} action without the document's uri in its data")
        action.edit = await fix_all_edit(ls, uri)
    return action


async def fix_all_edit(ls: XportLanguageServer, uri: str) -> types.WorkspaceEdit:
    """Safe fixes, applied until none is left, as one whole-document edit; none for a document
    that is neither open nor on disk. The fixing (libcst, CPU-bound) runs in the lint process,
    never on the event loop."""
    document = ls.document(uri)
    if document is None:
        return types.WorkspaceEdit(changes={})
    original = document.source
    loop = asyncio.get_running_loop()
    text = await loop.run_in_executor(
        ls.executor, ls.linter.fix_all, original, to_fs_path(uri) or uri, ls.config_for(uri)
    )
    if document.version is not None and not ls.is_open(uri, document.version):
        # edited (or closed) meanwhile: a whole-document edit of the old text would undo the edit
        raise JsonRpcContentModified(f"{uri} changed while its fixes were computed")
    if text == original:
        return types.WorkspaceEdit(changes={uri: []})
    lines = split_lines(original)
    end = types.Position(line=len(lines), character=0)
    whole = types.Range(start=types.Position(line=0, character=0), end=end)
    return types.WorkspaceEdit(changes={uri: [types.TextEdit(range=whole, new_text=text)]})


@features.command(FIX_ALL_COMMAND)
async def fix_all_command(ls: XportLanguageServer, uri: str) -> None:
    edit = await fix_all_edit(ls, uri)
    if edit.changes:
        await ls.workspace_apply_edit_async(types.ApplyWorkspaceEditParams(edit=edit, label="xport-lint: Fix all"))

@features.command(ADD_EXAMPLE_COMMAND)
async def add_example_command(ls: XportLanguageServer, uri: str, name: str) -> None:
    document = ls.document(uri)
    if document is None:
        return
    await ls.workspace_apply_edit_async(
        types.ApplyWorkspaceEditParams(
            edit=add_example_edit(uri, document.source, name), label="xport-lint: Add xport_example()"
        )
    )


def add_example_edit(uri: str, source: str, name: str) -> types.WorkspaceEdit:
    from xport_lint.analyzers.confirm import example_skeleton

    lines = split_lines(source)
    end = types.Position(line=len(lines), character=0)
    if lines and not lines[-1].endswith("\n"):
        end = types.Position(line=len(lines) - 1, character=len(lines[-1]))
    insert = types.TextEdit(range=types.Range(start=end, end=end), new_text=example_skeleton(source, name))
    return types.WorkspaceEdit(changes={uri: [insert]})


