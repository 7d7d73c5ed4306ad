// The language client: starts `python -m xport_lint.server` in the chosen interpreter, answers
// the server's `workspace/configuration` with the mapped settings, and restarts a crashed
// server a bounded number of times, saying so.

import * as vscode from "vscode";
import {
  CloseAction,
  type CloseHandlerResult,
  ErrorAction,
  type ErrorHandlerResult,
  LanguageClient,
  type LanguageClientOptions,
  type ServerOptions,
} from "vscode-languageclient/node";
import type { ServerSettings } from "./settings";
import { quiet } from "./logs";

export const MAX_RESTARTS = 4;
const RESTART_WINDOW_MS = 3 * 60 * 1000;

export function createClient(
  python: string,
  settings: () => ServerSettings,
  output: vscode.LogOutputChannel,
  onRestart: (count: number) => void = () => undefined,
  lenses: (found: vscode.CodeLens[]) => vscode.CodeLens[] = (found) => found,
): LanguageClient {
  const serverOptions: ServerOptions = {
    command: python,
    args: ["-m", "xport_lint.server"],
    options: { env: { ...process.env, PYTHONUNBUFFERED: "1" } },
  };
  const crashes: number[] = [];
  const clientOptions: LanguageClientOptions = {
    // notebook cells: synced by the notebook document sync the server declares; listed here so
    // diagnostics, hovers and quick fixes are asked for them too
    documentSelector: [
      { scheme: "file", language: "python" },
      { scheme: "untitled", language: "python" },
      { scheme: "vscode-notebook-cell", language: "python" },
    ],
    outputChannel: quiet(output),
    traceOutputChannel: output,
    initializationOptions: settings(),
    synchronize: { fileEvents: vscode.workspace.createFileSystemWatcher("**/pyproject.toml") },
    middleware: {
      provideCodeLenses: async (document, token, next) => lenses((await next(document, token)) ?? []),
      workspace: {
        configuration: (params) => params.items.map((item) => (item.section === "xport-lint" ? settings() : null)),
      },
    },
    errorHandler: {
      error: (): ErrorHandlerResult => ({ action: ErrorAction.Continue }),
      closed: (): CloseHandlerResult => {
        const now = Date.now();
        crashes.push(now);
        while (crashes.length > 0 && now - crashes[0] > RESTART_WINDOW_MS) crashes.shift();
        if (crashes.length > MAX_RESTARTS) {
          return {
            action: CloseAction.DoNotRestart,
            message: `The xport-lint server crashed ${crashes.length} times in 3 minutes and was stopped. Run "xport-lint: Restart server" after fixing the cause (see "xport-lint: Show logs").`,
          };
        }
        const message = `The xport-lint server stopped unexpectedly; restarting it (${crashes.length}/${MAX_RESTARTS}).`;
        output.warn(message);
        void vscode.window.showWarningMessage(message);
        onRestart(crashes.length);
        return { action: CloseAction.Restart, handled: true };
      },
    },
  };
  return new LanguageClient("xport-lint", "xport-lint", serverOptions, clientOptions);
}
