// xport-lint for VS Code: a thin client of the xport-lint language server (all analysis runs
// in the server, in the workspace's Python interpreter).

import * as vscode from "vscode";
import { DidChangeConfigurationNotification, type LanguageClient, State } from "vscode-languageclient/node";
import {
  hasXportLint,
  installCommand,
  type Interpreter,
  type InterpreterSources,
  isExecutable,
  listInterpreters,
  resolveInterpreter,
  serverStatus,
  which,
} from "./common/python";
import { SerialQueue } from "./common/queue";
import { createClient } from "./common/server";
import {
  type ExtensionSettings,
  interpreterSetting,
  needsRestart,
  readSettings,
  toServerSettings,
} from "./common/settings";

const SECTION = "xport-lint";
const PYTHON_EXTENSION = "ms-python.python";
const SELECT_INTERPRETER = "Select interpreter";

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
  /** Resolves once every start, stop and settings change requested so far has been applied. */
  settled(): Promise<void>;
}

/**
 * One server's life: the settings and interpreter it was started with, and its client. Replaced
 * whole by each (serialised) start, never shared between two starts.
 */
interface Session {
  settings: ExtensionSettings;
  interpreter?: Interpreter;
  client?: LanguageClient;
}

let session: Session | undefined;
let lastConfirmation: unknown;
let restarts = 0;
let deactivating = false;
let output: vscode.LogOutputChannel;
let status: vscode.StatusBarItem;
const queue = new SerialQueue(apply);

/** The settings now; untrusted, `interpreter` is the user's own value only (and the workspace's is noted). */
function currentSettings(): { settings: ExtensionSettings; ignoredInterpreter?: string } {
  const config = vscode.workspace.getConfiguration(SECTION);
  const settings = readSettings((key, fallback) => config.get(key, fallback));
  const interpreter = interpreterSetting(config.inspect<string>("interpreter"), vscode.workspace.isTrusted);
  return { settings: { ...settings, interpreter: interpreter.value }, ignoredInterpreter: interpreter.ignored };
}

function serverSettings(of: Session) {
  return toServerSettings(of.settings, vscode.workspace.isTrusted, of.interpreter?.path);
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

function interpreterSources(setting: string): InterpreterSources {
  return {
    trusted: vscode.workspace.isTrusted,
    setting,
    fromPythonExtension: pythonExtensionInterpreter,
    virtualEnv: process.env.VIRTUAL_ENV || undefined,
    workspaceFolders: (vscode.workspace.workspaceFolders ?? [])
      .filter((folder) => folder.uri.scheme === "file")
      .map((folder) => folder.uri.fsPath),
    isExecutable,
    hasXportLint: (python) => hasXportLint(python),
    onPath: (command) => which(command),
  };
}

/** A warning that names the interpreter and the setting, and offers the picker (and more `actions`). */
function warnAboutInterpreter(message: string, ...actions: string[]): Thenable<string | undefined> {
  return vscode.window.showWarningMessage(message, SELECT_INTERPRETER, ...actions, "Show logs").then((choice) => {
    if (choice === SELECT_INTERPRETER) void vscode.commands.executeCommand("xport-lint.selectInterpreter");
    else if (choice === "Show logs") output.show();
    return choice;
  });
}

async function start(settings: ExtensionSettings, ignoredInterpreter?: string): Promise<void> {
  const next: Session = { settings };
  session = next;
  if (!settings.enable) {
    showStatus("$(circle-slash) xport-lint", "xport-lint is disabled (xport-lint.enable)");
    return;
  }
  showStatus("$(sync~spin) xport-lint", "Starting the xport-lint server");
  if (!vscode.workspace.isTrusted) {
    output.info(
      "Restricted Mode: a workspace may not choose the interpreter that runs, so xport-lint uses your user-level " +
        "xport-lint.interpreter, else your environment's (VIRTUAL_ENV, python3 on PATH); linting works, confirmation is off" +
        (ignoredInterpreter ? `; the workspace's xport-lint.interpreter (${ignoredInterpreter}) counts once you trust it` : ""),
    );
  }
  const interpreter = await resolveInterpreter(interpreterSources(settings.interpreter));
  if (!interpreter) {
    showStatus("$(error) xport-lint", "No Python interpreter found", true);
    output.error("no Python interpreter found: not in xport-lint.interpreter, the Python extension, VIRTUAL_ENV, a workspace .venv/venv or PATH");
    void warnAboutInterpreter("xport-lint found no Python interpreter: select one (it sets xport-lint.interpreter).");
    return;
  }
  next.interpreter = interpreter;
  const python = interpreter.path;
  output.info(`interpreter: ${python} (${interpreter.reason})`);
  const found = await serverStatus(python);
  if (found === "not-installed") {
    showStatus("$(warning) xport-lint", `xport-lint is not installed in ${python}`, true);
    output.warn(
      `xport-lint is not installed in ${python} (${interpreter.reason}). Set xport-lint.interpreter to an interpreter ` +
        `that has it ("xport-lint: Select interpreter"), or install it there from its checkout or wheel, e.g. ` +
        `${python} -m pip install -e "/path/to/xport-lint[server]" (it is not on a package index)`,
    );
    void warnAboutInterpreter(
      `xport-lint is not installed in ${python} (${interpreter.reason}). Choose an interpreter that has it ` +
        `(xport-lint.interpreter), or install it there.`,
    );
    return;
  }
  if (found === "missing-extra") {
    showStatus("$(warning) xport-lint", `xport-lint's server needs pygls and lsprotocol in ${python}`, true);
    output.warn(`xport-lint is installed in ${python} without its server extra (pygls, lsprotocol)`);
    void warnAboutInterpreter(`xport-lint's language server needs pygls and lsprotocol in ${python}.`, "Install").then(
      (choice) => {
        if (choice !== "Install") return;
        const terminal = vscode.window.createTerminal("xport-lint install");
        terminal.show();
        terminal.sendText(installCommand(python));
      },
    );
    return;
  }
  const client = createClient(python, () => serverSettings(next), output, () => restarts++);
  next.client = client;
  client.onDidChangeState((event) => {
    if (session !== next) return; // a stopped session's last words
    if (event.newState === State.Running) showStatus("$(check) xport-lint", `xport-lint server running (${python})`);
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
  const running = session?.client;
  session = undefined;
  if (running) {
    try {
      await running.stop();
    } catch (error) {
      output.warn(`stopping the server: ${error}`);
    }
  }
}

/**
 * The one place servers start and stop, run by the queue one request at a time. It reads the
 * settings afresh: a restart that waited behind another uses the settings as they are now.
 */
async function apply(restart: boolean): Promise<void> {
  if (deactivating) {
    await stop();
    return;
  }
  const { settings, ignoredInterpreter } = currentSettings();
  const running = session;
  if (!restart && running?.client && running.settings.enable === settings.enable && !needsRestart(running.settings, settings)) {
    running.settings = settings;
    await running.client.setTrace(traceLevel(settings.traceServer));
    if (running.client.state === State.Running) {
      await running.client.sendNotification(DidChangeConfigurationNotification.type, { settings: serverSettings(running) });
    }
    return;
  }
  await stop();
  await start(settings, ignoredInterpreter);
}

/** Queues a restart (or a settings update) and logs, rather than throws, what went wrong. */
function request(restart: boolean, why: string): Promise<void> {
  output.debug(`${restart ? "restart" : "settings update"} requested: ${why}`);
  return queue.request(restart).catch((error) => {
    output.error(`${why}: ${error}`);
    showStatus("$(error) xport-lint", "The xport-lint server did not start; see the logs", true);
  });
}

interface InterpreterPick extends vscode.QuickPickItem {
  path?: string;
}

/** "Select interpreter": the interpreters discovery finds, plus "Enter path...", written to xport-lint.interpreter. */
async function selectInterpreter(): Promise<string | undefined> {
  const trusted = vscode.workspace.isTrusted;
  const { settings } = currentSettings();
  const found = await listInterpreters(interpreterSources(settings.interpreter));
  const installed = await Promise.all(found.map((interpreter) => hasXportLint(interpreter.path)));
  const items: InterpreterPick[] = found.map((interpreter, index) => ({
    label: interpreter.path,
    description: interpreter.reason,
    detail: installed[index] ? "$(check) has xport-lint" : "$(warning) xport-lint is not installed here",
    path: interpreter.path,
  }));
  items.push({ label: "$(folder-opened) Enter path...", description: "a Python interpreter with xport-lint" });
  const target = trusted && vscode.workspace.workspaceFolders?.length
    ? vscode.ConfigurationTarget.Workspace
    : vscode.ConfigurationTarget.Global; // untrusted: only the user's own setting counts
  const picked = await vscode.window.showQuickPick(items, {
    title: `xport-lint: interpreter (sets xport-lint.interpreter in ${target === vscode.ConfigurationTarget.Global ? "your user settings" : "the workspace"})`,
    placeHolder: session?.interpreter ? `now: ${session.interpreter.path}` : "the interpreter that runs the xport-lint server",
    matchOnDescription: true,
  });
  if (!picked) return undefined;
  const path = picked.path ?? (await vscode.window.showInputBox({
    title: "xport-lint: path of a Python interpreter",
    placeHolder: "/path/to/venv/bin/python",
    validateInput: (value) => (value.trim() ? undefined : "a path to a Python executable"),
  }))?.trim();
  if (!path) return undefined;
  await vscode.workspace.getConfiguration(SECTION).update("interpreter", path, target);
  output.info(`xport-lint.interpreter set to ${path}`);
  await request(true, "a new interpreter was selected"); // also when the value did not change
  return path;
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
  const client = session?.client;
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
  const client = session?.client;
  if (!client || !document) return;
  await client.sendRequest("workspace/executeCommand", {
    command: "xport-lint.fixAll",
    arguments: [document.uri.toString()],
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<XportLintApi> {
  deactivating = false;
  output = vscode.window.createOutputChannel("xport-lint", { log: true });
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = "xport-lint.showLogs";
  context.subscriptions.push(
    output,
    status,
    vscode.commands.registerCommand("xport-lint.confirmWithDraftExport", confirm),
    vscode.commands.registerCommand("xport-lint.fixAllIssues", fixAll),
    vscode.commands.registerCommand("xport-lint.restart", () => request(true, "the restart command")),
    vscode.commands.registerCommand("xport-lint.selectInterpreter", selectInterpreter),
    vscode.commands.registerCommand("xport-lint.showLogs", () => output.show()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SECTION)) void request(false, "the settings changed");
    }),
    vscode.workspace.onDidGrantWorkspaceTrust(() => void request(true, "the workspace was trusted")),
    { dispose: () => void deactivate() },
  );
  const python = vscode.extensions.getExtension<PythonExtensionApi>(PYTHON_EXTENSION);
  if (python) {
    void Promise.resolve(python.isActive ? python.exports : python.activate()).then((api) => {
      const changed = api?.environments?.onDidChangeActiveEnvironmentPath;
      if (changed) context.subscriptions.push(changed(() => void request(true, "the Python extension's interpreter changed")));
    });
  }
  await request(true, "activation");
  return {
    client: () => session?.client,
    interpreter: () => session?.interpreter,
    lastConfirmation: () => lastConfirmation,
    status: () => String(status.tooltip ?? ""),
    restarts: () => restarts,
    settled: () => queue.idle(),
  };
}

export async function deactivate(): Promise<void> {
  deactivating = true;
  await queue.request(true).catch(() => undefined);
}
