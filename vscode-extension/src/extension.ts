// xport-lint for VS Code: a thin client of the xport-lint language server (all analysis runs
// in the server, in the workspace's Python interpreter).

import * as vscode from "vscode";
import { DidChangeConfigurationNotification, type LanguageClient, State } from "vscode-languageclient/node";
import { installCommand, type Interpreter, resolveInterpreter, serverStatus, which } from "./common/python";
import { createClient } from "./common/server";
import { type ExtensionSettings, needsRestart, readSettings, toServerSettings } from "./common/settings";

const SECTION = "xport-lint";
const PYTHON_EXTENSION = "ms-python.python";

interface PythonExtensionApi {
  environments?: {
    getActiveEnvironmentPath(resource?: vscode.Uri): { path: string };
    resolveEnvironment(path: string): Promise<{ executable: { uri?: vscode.Uri } } | undefined>;
    onDidChangeActiveEnvironmentPath: vscode.Event<unknown>;
  };
}

/** What the extension exposes to its own end-to-end tests (and to other extensions). */
export interface XportLintApi {
  client(): LanguageClient | undefined;
  interpreter(): Interpreter | undefined;
  lastConfirmation(): unknown;
  /** The status bar item's tooltip: what the user is told about the server's state. */
  status(): string;
  /** How many times a crashed server was restarted in this session. */
  restarts(): number;
}

let client: LanguageClient | undefined;
let interpreter: Interpreter | undefined;
let settings: ExtensionSettings;
let lastConfirmation: unknown;
let restarts = 0;
let output: vscode.LogOutputChannel;
let status: vscode.StatusBarItem;

function currentSettings(): ExtensionSettings {
  const config = vscode.workspace.getConfiguration(SECTION);
  return readSettings((key, fallback) => config.get(key, fallback));
}

function serverSettings() {
  return toServerSettings(settings, vscode.workspace.isTrusted, interpreter?.path);
}

function showStatus(text: string, tooltip: string, error = false): void {
  status.text = text;
  status.tooltip = tooltip;
  status.backgroundColor = error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  status.show();
}

async function pythonExtensionInterpreter(): Promise<string | undefined> {
  const extension = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (!extension) return undefined;
  const api = extension.isActive ? extension.exports : await extension.activate();
  const environments = api?.environments;
  if (!environments) return undefined;
  const resource = vscode.workspace.workspaceFolders?.[0]?.uri;
  const resolved = await environments.resolveEnvironment(environments.getActiveEnvironmentPath(resource).path);
  return resolved?.executable.uri?.fsPath;
}

async function start(): Promise<void> {
  settings = currentSettings();
  if (!settings.enable) {
    showStatus("$(circle-slash) xport-lint", "xport-lint is disabled (xport-lint.enable)");
    return;
  }
  showStatus("$(sync~spin) xport-lint", "Starting the xport-lint server");
  interpreter = await resolveInterpreter({
    // xport-lint.interpreter is a restricted setting: in an untrusted workspace VS Code reads
    // only the user's value, so the workspace cannot choose what runs
    setting: settings.interpreter,
    fromPythonExtension: pythonExtensionInterpreter,
    onPath: (command) => which(command),
  });
  if (!interpreter) {
    showStatus("$(error) xport-lint", "No Python interpreter found", true);
    void vscode.window.showErrorMessage(
      "xport-lint found no Python interpreter: select one with the Python extension or set xport-lint.interpreter.",
    );
    return;
  }
  output.info(`interpreter: ${interpreter.path} (from ${interpreter.source})`);
  const status = await serverStatus(interpreter.path);
  if (status === "not-installed") {
    const python = interpreter.path;
    showStatus("$(warning) xport-lint", `xport-lint is not installed in ${python}`, true);
    output.warn(`xport-lint is not installed in ${python}: install it from its checkout or wheel, e.g. ` +
      `${python} -m pip install -e "/path/to/xport-lint[server]" (it is not on a package index)`);
    void vscode.window
      .showWarningMessage(`xport-lint is not installed in ${python}; see the logs for how to install it.`, "Show logs")
      .then((choice) => choice === "Show logs" && output.show());
    return;
  }
  if (status === "missing-extra") {
    const python = interpreter.path;
    showStatus("$(warning) xport-lint", `xport-lint's server needs pygls and lsprotocol in ${python}`, true);
    output.warn(`xport-lint is installed in ${python} without its server extra (pygls, lsprotocol)`);
    void vscode.window
      .showWarningMessage(`xport-lint's language server needs pygls and lsprotocol in ${python}.`, "Install", "Show logs")
      .then((choice) => {
        if (choice === "Install") {
          const terminal = vscode.window.createTerminal("xport-lint install");
          terminal.show();
          terminal.sendText(installCommand(python));
        } else if (choice === "Show logs") {
          output.show();
        }
      });
    return;
  }
  client = createClient(interpreter.path, serverSettings, output, () => restarts++);
  client.onDidChangeState((event) => {
    if (event.newState === State.Running) showStatus("$(check) xport-lint", `xport-lint server running (${interpreter?.path})`);
    else if (event.newState === State.Stopped) showStatus("$(debug-stop) xport-lint", "xport-lint server stopped", true);
  });
  await client.setTrace(traceLevel(settings.traceServer));
  try {
    await client.start();
  } catch (error) {
    output.error(`the server did not start: ${error}`);
    showStatus("$(error) xport-lint", "The xport-lint server did not start; see the logs", true);
  }
}

function traceLevel(trace: ExtensionSettings["traceServer"]) {
  return ({ off: 0, messages: 1, verbose: 2 } as const)[trace];
}

async function stop(): Promise<void> {
  const running = client;
  client = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (error) {
      output.warn(`stopping the server: ${error}`);
    }
  }
}

async function restart(): Promise<void> {
  await stop();
  await start();
}

async function pushSettings(): Promise<void> {
  if (client?.state === State.Running) {
    await client.sendNotification(DidChangeConfigurationNotification.type, { settings: serverSettings() });
  }
}

/** The class whose body holds the cursor, by indentation: `class X(...)` at column 0 above it. */
function classAt(document: vscode.TextDocument, line: number): string | undefined {
  for (let index = line; index >= 0; index--) {
    const match = /^class\s+(\w+)/.exec(document.lineAt(index).text);
    if (match) return match[1];
    if (index < line && /^\S/.test(document.lineAt(index).text) && !/^[#@)]/.test(document.lineAt(index).text)) {
      return undefined;
    }
  }
  return undefined;
}

async function confirm(uri?: vscode.Uri): Promise<unknown> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(
      "xport-lint: confirmation runs your model's code, so it is disabled in an untrusted workspace.",
    );
    return { status: "untrusted" };
  }
  const editor = vscode.window.activeTextEditor;
  const target = uri ?? editor?.document.uri;
  if (!client || !target) {
    void vscode.window.showWarningMessage("xport-lint: open a Python file and make sure the server is running.");
    return undefined;
  }
  const document = await vscode.workspace.openTextDocument(target);
  if (document.isDirty) await document.save();
  const name = editor && editor.document.uri.toString() === target.toString()
    ? classAt(document, editor.selection.active.line)
    : undefined;
  showStatus("$(sync~spin) xport-lint: confirming", `draft_export on ${name ?? vscode.workspace.asRelativePath(target)}`);
  const result = (await client.sendRequest("workspace/executeCommand", {
    command: "xport-lint.confirm",
    arguments: name ? [target.toString(), name] : [target.toString()],
  })) as { status?: string; summary?: string; exportOk?: boolean } | undefined;
  lastConfirmation = result;
  const ok = result?.exportOk === true;
  showStatus(
    ok ? "$(pass) xport-lint: exports" : "$(error) xport-lint: export fails",
    result?.summary ?? "confirmation finished",
    !ok,
  );
  return result;
}

async function fixAll(): Promise<void> {
  const document = vscode.window.activeTextEditor?.document;
  if (!client || !document) return;
  await client.sendRequest("workspace/executeCommand", {
    command: "xport-lint.fixAll",
    arguments: [document.uri.toString()],
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<XportLintApi> {
  output = vscode.window.createOutputChannel("xport-lint", { log: true });
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = "xport-lint.showLogs";
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand("xport-lint.confirmWithDraftExport", confirm),
    vscode.commands.registerCommand("xport-lint.fixAllIssues", fixAll),
    vscode.commands.registerCommand("xport-lint.restart", restart),
    vscode.commands.registerCommand("xport-lint.showLogs", () => output.show()),
    vscode.workspace.onDidChangeConfiguration(async (event) => {
      if (!event.affectsConfiguration(SECTION)) return;
      const before = settings;
      const after = currentSettings();
      if (needsRestart(before, after) || before.enable !== after.enable || !client) {
        await restart();
        return;
      }
      settings = after;
      await client.setTrace(traceLevel(settings.traceServer));
      await pushSettings();
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(restart),
    { dispose: () => void stop() },
  );
  const python = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (python) {
    void Promise.resolve(python.isActive ? python.exports : python.activate()).then((api) => {
      const changed = api?.environments?.onDidChangeActiveEnvironmentPath;
      if (changed) context.subscriptions.push(changed(() => void restart()));
    });
  }
  await start();
  return {
    client: () => client,
    interpreter: () => interpreter,
    lastConfirmation: () => lastConfirmation,
    status: () => String(status.tooltip ?? ""),
    restarts: () => restarts,
  };
}

export async function deactivate(): Promise<void> {
  await stop();
}
