// xport-lint for VS Code: a thin client of the xport-lint language server (all analysis runs
// in the server, in the workspace's Python interpreter).

import { execFile } from "node:child_process";
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
import {
  type ConfirmationResult,
  Confirmations,
  confirmationStatus,
  type ServerConfirmation,
  type StatusView,
} from "./common/confirmations";
import { withoutNoise } from "./common/logs";
import type { Mode } from "./common/models";
import { SerialQueue } from "./common/queue";
import { createClient } from "./common/server";
import {
  type ExtensionSettings,
  interpreterSetting,
  needsRestart,
  readSettings,
  toServerSettings,
} from "./common/settings";
import { MODELS_CHANGED, type Node, ReadinessTree } from "./tree";

const SECTION = "xport-lint";
const PYTHON_EXTENSION = "ms-python.python";
const SELECT_INTERPRETER = "Select interpreter";
const SERVER_CONFIRM = "xport-lint.confirm";
const CONFIRMATION_CHANGED = "xport-lint/confirmationChanged";

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
  /** The status bar item's text. */
  statusText(): string;
  /** The "Export readiness" tree. */
  tree(): ReadinessTree;
  /** Per-file confirmation results. */
  confirmations(): Confirmations;
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
let serverState: StatusView = { text: "$(sync~spin) xport-lint", tooltip: "Starting the xport-lint server", error: false };
let tree: ReadinessTree;
const confirmations = new Confirmations();
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

/** The server's state, shown unless the active file has a confirmation result of its own. */
function showStatus(text: string, tooltip: string, error = false): void {
  serverState = { text, tooltip, error };
  renderStatus();
}

/** The status bar follows the active file: its confirmation if it has one, else the server's state. */
function renderStatus(): void {
  const document = vscode.window.activeTextEditor?.document;
  const shown = (document && confirmationStatus(
    confirmations.get(document.uri.toString()),
    vscode.workspace.asRelativePath(document.uri),
  )) ?? serverState;
  status.text = shown.text;
  status.tooltip = shown.tooltip;
  status.backgroundColor = shown.error ? new vscode.ThemeColor("statusBarItem.errorBackground") : undefined;
  status.show();
}

/** The mode the strict setting chooses; undefined: the project's (the mode the server checked in). */
function chosenMode(): Mode | undefined {
  const strict = currentSettings().settings.strict;
  return strict === "project" ? undefined : strict;
}

/** The server's lenses: confirmation goes through the extension (status, result per file), per `xport-lint.codeLens`. */
function adaptLenses(found: vscode.CodeLens[]): vscode.CodeLens[] {
  // the server applies xport-lint.codeLens; "off" is kept here too, for a server older than the setting
  if (currentSettings().settings.codeLens === "off") return [];
  for (const lens of found) {
    if (lens.command?.command !== SERVER_CONFIRM) continue;
    const [uri, name] = (lens.command.arguments ?? []) as [string, string | undefined];
    lens.command = { ...lens.command, command: "xport-lint.confirmWithDraftExport", arguments: [vscode.Uri.parse(uri), name] };
  }
  return found;
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
  const client = createClient(python, () => serverSettings(next), output, () => restarts++, adaptLenses);
  next.client = client;
  client.onDidChangeState((event) => {
    if (session !== next) return; // a stopped session's last words
    if (event.newState === State.Running) {
      showStatus("$(check) xport-lint", `xport-lint server running (${python})`);
      void tree.refresh();
    } else if (event.newState === State.Stopped) showStatus("$(debug-stop) xport-lint", "xport-lint server stopped", true);
  });
  client.onNotification(MODELS_CHANGED, () => {
    if (session === next) void tree.refresh();
  });
  client.onNotification(CONFIRMATION_CHANGED, (change: ServerConfirmation) => {
    if (session === next && typeof change?.uri === "string") confirmations.fromServer(change);
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

/** What "Confirm" was invoked on: a file's URI (palette, lens), a tree node, or nothing (the active editor). */
function confirmTarget(on: unknown, name?: string): { uri?: vscode.Uri; name?: string } {
  if (on instanceof vscode.Uri) return { uri: on, name };
  if (typeof on === "string") return { uri: vscode.Uri.parse(on), name };
  const node = on as Node | undefined;
  if (node?.kind === "model") return { uri: node.uri, name: node.model.name };
  if (node?.kind === "file") return { uri: node.uri };
  const editor = vscode.window.activeTextEditor;
  if (!editor) return {};
  return { uri: editor.document.uri, name: classAt(editor.document, editor.selection.active.line) };
}

/**
 * draft_export on a file's example (the class named, or under the cursor). However it started,
 * the result is kept for that file: the status bar shows it while the file is active and
 * unchanged, the tree marks its models, the server marks the findings it confirmed.
 */
async function confirm(on?: unknown, model?: string): Promise<ConfirmationResult | undefined> {
  if (!vscode.workspace.isTrusted) {
    void vscode.window.showWarningMessage(
      "xport-lint: confirmation runs your model's code, so it is disabled in an untrusted workspace.",
    );
    return { status: "untrusted" };
  }
  const { uri: target, name } = confirmTarget(on, model);
  const client = session?.client;
  if (!client || !target) {
    void vscode.window.showWarningMessage("xport-lint: open a Python file and make sure the server is running.");
    return undefined;
  }
  const document = await vscode.workspace.openTextDocument(target);
  if (document.isDirty) await document.save();
  const file = target.toString();
  const label = name ? `${name} in ${vscode.workspace.asRelativePath(target)}` : vscode.workspace.asRelativePath(target);
  confirmations.started(file, name);
  renderStatus();
  let result: ConfirmationResult | undefined;
  try {
    result = (await client.sendRequest("workspace/executeCommand", {
      command: SERVER_CONFIRM,
      arguments: name ? [file, name] : [file],
    })) as ConfirmationResult | undefined;
  } catch (error) {
    result = { status: "error", summary: `the confirmation failed: ${error}` };
  }
  result ??= { status: "error", summary: "the server returned no result" };
  lastConfirmation = result;
  confirmations.finished(file, result, name);
  renderStatus();
  void tree.refresh();
  output.info(`confirmation of ${label}: ${result.summary ?? result.status}`);
  if (result.status === "ran") {
    const words = result.exportOk ? `${label} exports (draft_export)` : `${label}: export fails (draft_export)`;
    const show = result.exportOk ? vscode.window.showInformationMessage : vscode.window.showWarningMessage;
    void show(`xport-lint: ${words}. ${result.summary ?? ""}`.trim(), "Show logs").then((choice) => {
      if (choice) output.show();
    });
  }
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

function xportDiagnostics(uri: vscode.Uri): vscode.Diagnostic[] {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === "xport-lint");
}

/** The code of a diagnostic (a plain value or `{value, target}`) and its documentation link. */
function ruleOf(diagnostic: vscode.Diagnostic): { code: string; url?: vscode.Uri } {
  const code = diagnostic.code;
  if (typeof code === "object" && code !== null) return { code: String(code.value), url: code.target };
  return { code: String(code ?? "") };
}

/**
 * "Fix all in this model": the fix of each of its findings that has one, bottom to top so an
 * applied fix does not move the findings still to fix. Safe fixes always; unsafe ones (each holds
 * under an assumption its title states) when the user agrees, or `options.unsafe` says so.
 */
async function fixModel(node?: Node, options: { unsafe?: boolean } = {}): Promise<number> {
  if (node?.kind !== "model") return 0;
  const { model, uri } = node;
  const document = await vscode.workspace.openTextDocument(uri);
  const inFile = model.findings.filter((f) => tree.uriOf({ ...model, path: f.start.path }).toString() === uri.toString());
  const wanted = new Set(inFile.map((f) => `${f.code}@${f.start.line - 1}`));
  const targets = xportDiagnostics(uri)
    .filter((d) => wanted.has(`${ruleOf(d).code}@${d.range.start.line}`))
    .sort((a, b) => b.range.start.compareTo(a.range.start));
  const fixes: vscode.CodeAction[] = [];
  for (const diagnostic of targets) {
    const code = ruleOf(diagnostic).code;
    const actions = (await vscode.commands.executeCommand<vscode.CodeAction[]>(
      "vscode.executeCodeActionProvider", uri, diagnostic.range,
    )) ?? [];
    // the rule's own fix for this finding (the server titles it "CODE: ..."), not "Disable for this line"
    const own = actions.filter((a) => a.edit && a.title.startsWith(`${code}: `) && !/Disable for this/i.test(a.title));
    const fix = own.find((a) => a.isPreferred) ?? own[0];
    output.debug(`fix ${code} at line ${diagnostic.range.start.line + 1}: ${fix?.title ?? "none"}`);
    if (fix) fixes.push(fix);
  }
  const unsafe = fixes.filter((fix) => !fix.isPreferred).length; // the server prefers safe fixes only
  let apply = fixes.filter((fix) => fix.isPreferred);
  if (unsafe) {
    const all = options.unsafe ?? (await vscode.window.showWarningMessage(
      `xport-lint: ${unsafe} of ${fixes.length} fixes for ${model.name} are unsafe: each holds under an assumption its title states. Apply them too?`,
      "Apply all",
      "Only safe fixes",
    )) === "Apply all";
    if (all) apply = fixes;
  }
  let fixed = 0;
  for (const fix of apply) if (fix.edit && (await vscode.workspace.applyEdit(fix.edit))) fixed++;
  void vscode.window.showInformationMessage(
    fixed ? `xport-lint: ${fixed} finding${fixed === 1 ? "" : "s"} of ${model.name} fixed` : `xport-lint: nothing fixed in ${model.name}`,
  );
  if (fixed) await vscode.window.showTextDocument(document);
  return fixed;
}

/** "Open export script": where the model's export configuration comes from, else the file's xport_example(). */
async function openExportScript(node?: Node): Promise<vscode.Uri | undefined> {
  if (node?.kind !== "model") return undefined;
  const { model } = node;
  let uri = model.exportScript ? tree.uriOf({ ...model, path: model.exportScript.path }) : undefined;
  let line = model.exportScript?.line ?? 1;
  if (!uri) {
    const document = await vscode.workspace.openTextDocument(node.uri);
    const at = document.getText().split("\n").findIndex((text) => /^def xport_example\(/.test(text));
    if (at >= 0) [uri, line] = [node.uri, at + 1];
  }
  if (!uri) {
    void vscode.window.showInformationMessage(
      `xport-lint: no export script or xport_example() found for ${model.name}; the "Add xport_example()" lens adds one.`,
    );
    return undefined;
  }
  const position = new vscode.Position(line - 1, 0);
  await vscode.window.showTextDocument(uri, { selection: new vscode.Range(position, position) });
  return uri;
}

/** "Show rule documentation": the rule under the cursor (or picked among the file's) in the browser. */
async function showRuleDocumentation(code?: string): Promise<string | undefined> {
  const editor = vscode.window.activeTextEditor;
  const found = editor ? xportDiagnostics(editor.document.uri) : [];
  const here = found.filter((d) => editor && d.range.contains(editor.selection.active));
  const rules = new Map<string, vscode.Uri | undefined>();
  for (const diagnostic of [...here, ...found]) {
    const rule = ruleOf(diagnostic);
    if (!rules.has(rule.code)) rules.set(rule.code, rule.url);
  }
  const picked = code ?? (here.length ? ruleOf(here[0]).code : rules.size === 1 ? [...rules.keys()][0]
    : await vscode.window.showInputBox({
        title: "xport-lint: rule documentation",
        prompt: rules.size ? `a rule code (in this file: ${[...rules.keys()].join(", ")})` : "a rule code, e.g. XPT101",
        value: [...rules.keys()][0] ?? "",
      }));
  if (!picked) return undefined;
  const url = rules.get(picked) ?? vscode.Uri.parse(`https://github.com/xport-lint/xport-lint/blob/main/docs/rules.md#${picked.toLowerCase()}`);
  // the link is the answer; VS Code may ask before opening it (and a test's dialog is refused)
  vscode.env.openExternal(url).then(undefined, (error) => output.warn(`opening ${url}: ${error}`));
  return url.toString();
}

/** "Disable for this file": a `# xport-lint: noqa` line at the top (after a shebang and encoding line). */
async function disableForFile(): Promise<boolean> {
  const editor = vscode.window.activeTextEditor;
  if (!editor || editor.document.languageId !== "python") return false;
  const { document } = editor;
  if (/^# xport-lint: noqa\s*$/m.test(document.getText())) return true;
  let line = 0;
  while (line < Math.min(document.lineCount, 2) && /^#(!|.*coding[:=])/.test(document.lineAt(line).text)) line++;
  const edit = new vscode.WorkspaceEdit();
  edit.insert(document.uri, new vscode.Position(line, 0), "# xport-lint: noqa\n");
  return vscode.workspace.applyEdit(edit);
}

/**
 * "Open export readiness report": `xport-lint report --format html` on the workspace, run in the
 * server's interpreter and shown in a webview (one self-contained file: its own scripts sort and filter).
 */
async function openReport(): Promise<string | undefined> {
  const python = session?.interpreter?.path;
  const folders = (vscode.workspace.workspaceFolders ?? []).filter((f) => f.uri.scheme === "file").map((f) => f.uri.fsPath);
  if (!python || folders.length === 0) {
    void vscode.window.showWarningMessage("xport-lint: the report needs a workspace folder and a running server.");
    return undefined;
  }
  const strict = currentSettings().settings.strict;
  const args = ["-m", "xport_lint.analyzers.cli", "report", "--format", "html", ...(strict === "strict" ? ["--strict"] : []), ...folders];
  const html = await vscode.window.withProgress(
    { location: vscode.ProgressLocation.Notification, title: "xport-lint: building the report" },
    () => runCli(python, args, folders[0]),
  );
  if (html === undefined) return undefined;
  const panel = vscode.window.createWebviewPanel("xport-lint.report", "Export readiness report", vscode.ViewColumn.Active, {
    enableScripts: true,
    localResourceRoots: [],
  });
  panel.webview.html = html;
  return html;
}

function runCli(python: string, args: string[], cwd: string): Promise<string | undefined> {
  return new Promise((resolve) => {
    execFile(python, args, { cwd, maxBuffer: 256 * 2 ** 20 }, (error, stdout, stderr) => {
      // `report` exits 1 when a model fails (as `check` does): the HTML is still the answer
      if (stdout.trimStart().startsWith("<")) return resolve(stdout);
      const why = withoutNoise(stderr).trim() || String(error ?? "no output");
      output.error(`${python} ${args.join(" ")}: ${why}`);
      void vscode.window.showErrorMessage(`xport-lint: the report did not build: ${why.split("\n").pop()}`, "Show logs").then(
        (choice) => choice && output.show(),
      );
      resolve(undefined);
    });
  });
}

export async function activate(context: vscode.ExtensionContext): Promise<XportLintApi> {
  deactivating = false;
  output = vscode.window.createOutputChannel("xport-lint", { log: true });
  status = vscode.window.createStatusBarItem(vscode.StatusBarAlignment.Left, 50);
  status.command = "xport-lint.showLogs";
  tree = new ReadinessTree(() => session?.client, chosenMode, confirmations, output);
  context.subscriptions.push(
    output,
    status,
    tree,
    vscode.commands.registerCommand("xport-lint.confirmWithDraftExport", confirm),
    vscode.commands.registerCommand("xport-lint.fixAllIssues", fixAll),
    vscode.commands.registerCommand("xport-lint.fixModel", fixModel),
    vscode.commands.registerCommand("xport-lint.openExportScript", openExportScript),
    vscode.commands.registerCommand("xport-lint.refreshModels", () => tree.refresh()),
    vscode.commands.registerCommand("xport-lint.openReport", openReport),
    vscode.commands.registerCommand("xport-lint.showRuleDocumentation", showRuleDocumentation),
    vscode.commands.registerCommand("xport-lint.disableForFile", disableForFile),
    vscode.window.onDidChangeActiveTextEditor(renderStatus),
    vscode.workspace.onDidChangeTextDocument((event) => {
      if (event.contentChanges.length) confirmations.edited(event.document.uri.toString());
    }),
    { dispose: confirmations.onDidChange(() => renderStatus()) },
    vscode.commands.registerCommand("xport-lint.restart", () => request(true, "the restart command")),
    vscode.commands.registerCommand("xport-lint.selectInterpreter", selectInterpreter),
    vscode.commands.registerCommand("xport-lint.showLogs", () => output.show()),
    vscode.workspace.onDidChangeConfiguration((event) => {
      if (event.affectsConfiguration(SECTION)) void request(false, "the settings changed").then(() => tree.refresh());
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
    statusText: () => status.text,
    tree: () => tree,
    confirmations: () => confirmations,
    restarts: () => restarts,
    settled: () => queue.idle(),
  };
}

export async function deactivate(): Promise<void> {
  deactivating = true;
  await queue.request(true).catch(() => undefined);
}
