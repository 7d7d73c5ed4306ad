"""Start, settings and stop: initialize, the client's configuration, pyproject.toml changes, shutdown."""

from __future__ import annotations

import asyncio

from lsprotocol import types

from .boundary import Features
from .documents import PythonLinesWorkspace
from .session import (
    VERSION,
    XportLanguageServer,
)

features = Features()


@features.feature(types.INITIALIZE)
def initialize(ls: XportLanguageServer, params: types.InitializeParams) -> None:
    ls.workspace.__class__ = PythonLinesWorkspace  # pygls builds it just before this handler
    try:
        ls.loop = asyncio.get_running_loop()
    except RuntimeError:
        ls.loop = None
    ls.apply_settings(params.initialization_options)
    if isinstance(params.initialization_options, dict):
        debounce = params.initialization_options.get("debounceMs")
        if isinstance(debounce, (int, float)) and 0 <= debounce <= 5000:
            ls.debounce = debounce / 1000


@features.feature(types.INITIALIZED)
async def initialized(ls: XportLanguageServer, params: types.InitializedParams) -> None:
    await _fetch_configuration(ls)
    ls.indexing = asyncio.ensure_future(ls.index_workspace())
    workspace = ls.client_capabilities.workspace
    watch = workspace.did_change_watched_files if workspace else None
    if watch is not None and watch.dynamic_registration:
        try:
            await ls.client_register_capability_async(
                types.RegistrationParams(
                    registrations=[
                        types.Registration(
                            id="xport-lint-pyproject",
                            method=types.WORKSPACE_DID_CHANGE_WATCHED_FILES,
                            register_options=types.DidChangeWatchedFilesRegistrationOptions(
                                watchers=[types.FileSystemWatcher(glob_pattern="**/pyproject.toml")]
                            ),
                        )
                    ]
                )
            )
        except Exception as error:  # noqa: BLE001 - without the watcher, saves still re-check
            ls.log(f"could not watch pyproject.toml: {error}", types.MessageType.Warning)
    # load the engine now, off the loop, so the first diagnostics do not pay for the import
    await asyncio.get_running_loop().run_in_executor(ls.executor, _warm_up, ls)
    ls.log(f"xport-lint {VERSION} ready")


def _warm_up(ls: XportLanguageServer) -> None:
    from xport_lint.analyzers import registry  # noqa: F401 - hover and code actions need it

    ls.linter.warm_up()


async def _fetch_configuration(ls: XportLanguageServer) -> None:
    workspace = ls.client_capabilities.workspace
    if workspace is None or not workspace.configuration:
        return
    try:
        (value,) = await ls.workspace_configuration_async(
            types.ConfigurationParams(items=[types.ConfigurationItem(section="xport-lint")])
        )
    except Exception as error:  # noqa: BLE001 - a client that fails this keeps the init settings
        ls.log(f"workspace/configuration failed: {error}", types.MessageType.Warning)
        return
    if value is not None:
        ls.apply_settings(value)


@features.feature(types.WORKSPACE_DID_CHANGE_CONFIGURATION)
async def did_change_configuration(ls: XportLanguageServer, params: types.DidChangeConfigurationParams) -> None:
    settings = params.settings
    if isinstance(settings, dict) and settings:
        ls.apply_settings(settings)
    else:
        await _fetch_configuration(ls)
    ls.relint_open_documents()


@features.feature(types.WORKSPACE_DID_CHANGE_WATCHED_FILES)
def did_change_watched_files(ls: XportLanguageServer, params: types.DidChangeWatchedFilesParams) -> None:
    if any(change.uri.endswith("pyproject.toml") for change in params.changes):
        ls.configs.clear()
        ls.relint_open_documents()


@features.feature(types.SHUTDOWN)
def shutdown(ls: XportLanguageServer, params: None) -> None:
    ls.stop_confirmer()

