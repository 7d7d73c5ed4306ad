// Extension-host tests: run inside a real VS Code (code-server) with the `vscode` API, loaded
// through code-server's `extensionTestsPath` payload by test/e2e/run.mjs.
// XPORT_E2E_MODE=trusted|untrusted chooses the suite; results go to XPORT_E2E_RESULTS.
const assert = require("node:assert/strict");
const fs = require("node:fs");
const vscode = require("vscode");

const EXTENSION = "xport-lint.xport-lint";

async function waitFor(check, what, timeoutMs = 60000) {
  const started = Date.now();
  for (;;) {
    const value = await check();
    if (value) return value;
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

function xport(uri, code) {
  return vscode.languages.getDiagnostics(uri).filter((d) => d.source === "xport-lint" && (!code || String(d.code?.value ?? d.code) === code));
}

async function openModel() {
  const [file] = await vscode.workspace.findFiles("gate.py");
  const document = await vscode.workspace.openTextDocument(file);
  await vscode.window.showTextDocument(document);
  return document;
}

async function setting(key, value) {
  await vscode.workspace.getConfiguration("xport-lint").update(key, value, vscode.ConfigurationTarget.Workspace);
}

/** The language servers this extension host runs: its child processes running `-m xport_lint.server`. */
function serverProcesses() {
  const servers = [];
  for (const pid of fs.readdirSync("/proc").filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
      const parent = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0");
      if (parent === process.pid && command.includes("xport_lint.server")) servers.push(Number(pid));
    } catch {
      // the process ended while we looked
    }
  }
  return servers;
}

/** The tree's model nodes, walked from its roots as VS Code would. */
function treeModels(tree) {
  const found = [];
  const walk = (node) => {
    for (const child of tree.getChildren(node)) {
      if (child.kind === "model") found.push(child);
      else if (child.kind === "package" || child.kind === "file") walk(child);
    }
  };
  walk(undefined);
  return found;
}

async function gateInTree(api) {
  try {
    // the first answer waits for the server's project check in a process of its own (slow on a loaded machine)
    return await waitFor(async () => {
      await api.tree().refresh();
      return treeModels(api.tree()).find((node) => node.model.name === "Gate");
    }, "the Gate model in the tree", 120000);
  } catch (error) {
    throw new Error(`${error.message}; the view says: ${api.tree().view.message}`);
  }
}

function iconOf(api, node) {
  return api.tree().getTreeItem(node).iconPath.id;
}

/** A finding marked as confirmed: by relatedInformation or data (the server's protocol), or its message (older servers). */
function confirmedByDraftExport(diagnostic) {
  return (diagnostic.relatedInformation ?? []).some((info) => /confirmed by draft_export/i.test(info.message)) ||
    /confirmed by draft_export/i.test(diagnostic.message);
}

async function lintsTheModel() {
  const document = await openModel();
  await waitFor(() => xport(document.uri, "XPT101").length === 1, "XPT101 on the sample model");
}

const trusted = {
  async "the extension starts the server with the configured interpreter"() {
    const extension = vscode.extensions.getExtension(EXTENSION);
    const api = await extension.activate();
    await waitFor(() => api.client()?.isRunning(), "the server to run");
    assert.equal(api.interpreter().source, "setting");
  },
  async "a diagnostic appears on a sample model"() {
    const document = await openModel();
    const [found] = await waitFor(() => xport(document.uri, "XPT101").length && xport(document.uri, "XPT101"), "XPT101");
    assert.equal(found.range.start.line, 5);
    assert.equal(found.severity, vscode.DiagnosticSeverity.Error);
    assert.match(found.message, /x\.sum\(\) > 0/);
  },
  async "a settings change reaches the server"() {
    const document = await openModel();
    await setting("ignore", ["XPT101"]);
    await waitFor(() => xport(document.uri, "XPT101").length === 0, "XPT101 to be ignored");
    await setting("ignore", undefined);
    await waitFor(() => xport(document.uri, "XPT101").length === 1, "XPT101 to come back");
  },
  async "the quick fix applies and clears the diagnostic"() {
    const document = await openModel();
    const [diagnostic] = await waitFor(() => xport(document.uri, "XPT101").length && xport(document.uri, "XPT101"), "XPT101");
    const actions = await vscode.commands.executeCommand("vscode.executeCodeActionProvider", document.uri, diagnostic.range);
    const rewrite = actions.find((action) => /torch\.cond/.test(action.title));
    assert.ok(rewrite, `no torch.cond fix among ${actions.map((a) => a.title)}`);
    assert.ok(await vscode.workspace.applyEdit(rewrite.edit));
    assert.match(document.getText(), /return torch\.cond\(x\.sum\(\) > 0, true_fn, false_fn, \(x,\)\)/);
    await waitFor(() => xport(document.uri, "XPT101").length === 0, "XPT101 to vanish after the fix");
    await vscode.commands.executeCommand("workbench.action.files.revert");
  },
  async "the Export readiness tree lists the model with its verdict, and a finding opens its line"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    await vscode.commands.executeCommand("xport-lint.readiness.focus");
    const gate = await gateInTree(api);
    assert.equal(iconOf(api, gate), "error");
    assert.match(api.tree().getTreeItem(gate).description, /export fails/);
    assert.ok(api.tree().view.badge.value >= 1, JSON.stringify(api.tree().view.badge));
    const [finding] = api.tree().getChildren(gate);
    assert.equal(finding.finding.code, "XPT101");
    // what a click runs: the item's command
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    const { command } = api.tree().getTreeItem(finding);
    await vscode.commands.executeCommand(command.command, ...command.arguments);
    const editor = await waitFor(() => vscode.window.activeTextEditor, "the finding's file to open");
    assert.match(editor.document.fileName, /gate\.py$/);
    assert.equal(editor.selection.start.line, 5);
  },
  async "on a model: Open export script goes to its xport_example(), Fix all in this model applies its fixes"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const document = await openModel();
    await waitFor(() => xport(document.uri, "XPT101").length === 1, "XPT101 on gate.py");
    const gate = await gateInTree(api);
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await vscode.commands.executeCommand("xport-lint.openExportScript", gate);
    const editor = await waitFor(() => vscode.window.activeTextEditor, "the export script to open");
    assert.match(editor.document.lineAt(editor.selection.start.line).text, /^def xport_example\(/);
    // its one fix is unsafe (torch.cond assumes side-effect-free branches): the user agreed
    const fixed = await vscode.commands.executeCommand("xport-lint.fixModel", gate, { unsafe: true });
    if (fixed !== 1) {
      const [diagnostic] = xport(editor.document.uri, "XPT101");
      const actions = await vscode.commands.executeCommand("vscode.executeCodeActionProvider", editor.document.uri, diagnostic.range);
      const why = { findings: gate.model.findings.map((f) => [f.code, f.start]), model: gate.model.path, uri: editor.document.uri.toString(),
        diagnostic: [diagnostic.code, diagnostic.range.start.line], actions: actions.map((a) => [a.title, Boolean(a.edit), a.isPreferred, a.diagnostics?.length]) };
      assert.fail(`Fix all in this model fixed ${fixed}: ${JSON.stringify(why)}`);
    }
    assert.match(editor.document.getText(), /torch\.cond\(x\.sum\(\) > 0/);
    await vscode.commands.executeCommand("workbench.action.files.revert");
  },
  async "Confirm from the lens gives that file's status and marks its findings"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const document = await openModel();
    await waitFor(() => xport(document.uri, "XPT101").length === 1, "XPT101 after the revert");
    const lenses = await waitFor(async () => {
      const found = await vscode.commands.executeCommand("vscode.executeCodeLensProvider", document.uri);
      return found.some((lens) => lens.command?.command === "xport-lint.confirmWithDraftExport") && found;
    }, "the Confirm lens");
    const lens = lenses.find((found) => found.command?.command === "xport-lint.confirmWithDraftExport");
    const result = await vscode.commands.executeCommand(lens.command.command, ...lens.command.arguments);
    assert.equal(result.status, "ran", JSON.stringify(result));
    assert.equal(result.exportOk, false);
    assert.equal(api.statusText(), "$(error) xport-lint: export fails");
    await waitFor(() => xport(document.uri, "XPT101").some(confirmedByDraftExport), "the finding to be marked as confirmed");
  },
  async "the status bar follows the active file and forgets a result once the file changes"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const [clean] = await vscode.workspace.findFiles("clean.py");
    await vscode.window.showTextDocument(await vscode.workspace.openTextDocument(clean));
    await waitFor(() => api.statusText() === "$(check) xport-lint", `the server's state on clean.py (${api.statusText()})`);
    const document = await openModel();
    await waitFor(() => api.statusText() === "$(error) xport-lint: export fails", "gate.py's result again");
    const editor = vscode.window.activeTextEditor;
    await editor.edit((edit) => edit.insert(new vscode.Position(document.lineCount, 0), "\n"));
    await waitFor(() => api.statusText() === "$(check) xport-lint", `no stale result after an edit (${api.statusText()})`);
    await vscode.commands.executeCommand("workbench.action.files.revert");
  },
  async "Confirm from the tree changes the model's icon"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const document = await openModel();
    // a saved edit: the lens's confirmation is stale, the model shows its static verdict again
    await vscode.window.activeTextEditor.edit((edit) => edit.insert(new vscode.Position(document.lineCount, 0), "\n# edited\n"));
    await document.save();
    const gate = await waitFor(async () => {
      await api.tree().refresh();
      const node = treeModels(api.tree()).find((n) => n.model.name === "Gate");
      return node && iconOf(api, node) === "error" && node;
    }, "the stale confirmation to show the static verdict");
    // each icon the tree shows while the confirmation runs: a warm one takes a tenth of a second,
    // less than a poll, so the spinner is seen on the tree's change events rather than polled for
    const icons = [];
    const gateIcon = () => iconOf(api, treeModels(api.tree()).find((n) => n.model.name === "Gate"));
    const watching = api.tree().onDidChangeTreeData(() => icons.push(gateIcon()));
    const running = vscode.commands.executeCommand("xport-lint.confirmWithDraftExport", gate);
    await waitFor(() => icons.includes("sync~spin") || gateIcon() === "sync~spin", "the spinning icon");
    const result = await running;
    watching.dispose();
    assert.equal(result.exportOk, false, JSON.stringify(result));
    await waitFor(() => iconOf(api, treeModels(api.tree()).find((n) => n.model.name === "Gate")) === "verified-filled", "the confirmed icon");
    assert.match(api.tree().getTreeItem(treeModels(api.tree()).find((n) => n.model.name === "Gate")).description, /confirmed by draft_export/);
  },
  async "a notebook's third cell shows its diagnostic, and the quick fix applies in that cell"() {
    const [file] = await vscode.workspace.findFiles("notebook.ipynb");
    const notebook = await vscode.workspace.openNotebookDocument(file);
    await vscode.window.showNotebookDocument(notebook);
    const cell = notebook.cellAt(2).document;
    const [diagnostic] = await waitFor(() => xport(cell.uri, "XPT101").length && xport(cell.uri, "XPT101"), "XPT101 in the third cell");
    assert.equal(diagnostic.range.start.line, 2);
    assert.equal(xport(notebook.cellAt(0).document.uri).length, 0);
    const actions = await vscode.commands.executeCommand("vscode.executeCodeActionProvider", cell.uri, diagnostic.range);
    const rewrite = actions.find((action) => /torch\.cond/.test(action.title));
    assert.ok(rewrite, `no torch.cond fix among ${actions.map((a) => a.title)}`);
    assert.ok(await vscode.workspace.applyEdit(rewrite.edit));
    assert.match(cell.getText(), /return torch\.cond\(x\.sum\(\) > 0, true_fn, false_fn, \(x,\)\)/);
    assert.equal(notebook.cellAt(0).document.getText(), "import torch\n");
    await waitFor(() => xport(cell.uri, "XPT101").length === 0, "XPT101 to vanish after the fix");
    await vscode.commands.executeCommand("workbench.action.revertAndCloseActiveEditor");
  },
  async "Show rule documentation opens the finding's rule; Disable for this file silences the file"() {
    const document = await openModel();
    const [diagnostic] = await waitFor(() => xport(document.uri, "XPT101").length && xport(document.uri, "XPT101"), "XPT101");
    vscode.window.activeTextEditor.selection = new vscode.Selection(diagnostic.range.start, diagnostic.range.start);
    const url = await vscode.commands.executeCommand("xport-lint.showRuleDocumentation");
    assert.match(url, /docs\/rules\.md#xpt101$/);
    assert.ok(await vscode.commands.executeCommand("xport-lint.disableForFile"));
    assert.equal(document.lineAt(0).text, "# xport-lint: noqa");
    await waitFor(() => xport(document.uri).length === 0, "the file's findings to be silenced");
    await vscode.commands.executeCommand("workbench.action.files.revert");
  },
  async "the export readiness report opens in a webview"() {
    const html = await vscode.commands.executeCommand("xport-lint.openReport");
    assert.match(html, /<title>Export readiness/);
    assert.match(html, /Gate/);
    await vscode.commands.executeCommand("workbench.action.closeActiveEditor");
  },
  async "a crashed server is restarted, and the user is told"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const before = api.client();
    // `exit` without `shutdown`: the server process ends as if it had crashed
    await before.sendNotification("exit");
    await waitFor(() => api.restarts() >= 1, "the restart to be counted", 30000);
    await waitFor(() => api.client()?.isRunning(), "the server to run again", 30000);
    const document = await openModel();
    await vscode.commands.executeCommand("workbench.action.files.revert");
    await waitFor(() => xport(document.uri, "XPT101").length === 1, "diagnostics from the restarted server");
  },
  async "the restart command starts a fresh server"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const before = api.client();
    await vscode.commands.executeCommand("xport-lint.restart");
    await waitFor(() => api.client() && api.client() !== before && api.client().isRunning(), "a new client", 30000);
  },
  async "settings changed twice quickly, with restarts between, leave one server on the last settings"() {
    // what granting trust does: a restart and a settings change at once (issue: the second start
    // took a stale interpreter, the crash restarts were spent in half a second, nothing linted)
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const crashes = api.restarts();
    const python = process.env.XPORT_E2E_PYTHON;
    await setting("interpreter", "/nonexistent/python");
    void vscode.commands.executeCommand("xport-lint.restart");
    await setting("interpreter", python);
    await setting("ignore", ["XPT999"]);
    void vscode.commands.executeCommand("xport-lint.restart");
    await api.settled();
    await waitFor(() => api.client()?.isRunning(), `the server to run (${api.status()})`, 30000);
    assert.equal(api.interpreter().path, python);
    await waitFor(() => serverProcesses().length === 1, "the earlier servers to be gone", 30000);
    assert.equal(api.restarts(), crashes, "no crash restarts were spent");
    await lintsTheModel();
    await setting("ignore", undefined);
  },
};

const untrusted = {
  async "the workspace is untrusted and linting still works"() {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    await waitFor(() => api.client()?.isRunning(), `the server to run (${JSON.stringify(api.interpreter())})`, 20000);
    // the workspace's xport-lint.interpreter (a bogus path) is not honoured here; the user's is
    assert.equal(api.interpreter().source, "setting");
    assert.equal(api.interpreter().path, process.env.XPORT_E2E_PYTHON);
    const document = await openModel();
    await waitFor(() => xport(document.uri, "XPT101").length === 1, "XPT101 in restricted mode");
  },
  async "confirmation is refused by the extension and by the server"() {
    const document = await openModel();
    const fromExtension = await vscode.commands.executeCommand("xport-lint.confirmWithDraftExport", document.uri);
    assert.equal(fromExtension.status, "untrusted");
    // the server's own command, registered by the language client: the server was told too
    const fromServer = await vscode.commands.executeCommand("xport-lint.confirm", document.uri.toString());
    assert.equal(fromServer.status, "untrusted");
  },
};

const venv = {
  async "without a setting, the workspace's .venv that has xport-lint runs the server"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    await waitFor(() => api.client()?.isRunning(), `the server to run (${api.status()})`, 30000);
    assert.equal(api.interpreter().source, "workspace-venv");
    assert.match(api.interpreter().path, /[/\\]\.venv[/\\]bin[/\\]python$/);
    await lintsTheModel();
  },
  async "Select interpreter writes the picked interpreter to xport-lint.interpreter"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const before = api.client();
    let picked;
    const selecting = vscode.commands.executeCommand("xport-lint.selectInterpreter").then((path) => (picked = path ?? null));
    // the quick pick opens once the candidates are probed: accept its first item (the .venv) when it does
    await waitFor(async () => {
      await vscode.commands.executeCommand("workbench.action.acceptSelectedQuickOpenItem");
      return picked !== undefined;
    }, "the interpreter quick pick", 30000);
    await selecting;
    assert.match(picked, /[/\\]\.venv[/\\]bin[/\\]python$/);
    assert.equal(vscode.workspace.getConfiguration("xport-lint").get("interpreter"), picked);
    await waitFor(() => api.client() && api.client() !== before && api.client().isRunning(), "a server on the picked interpreter", 30000);
    assert.deepEqual([api.interpreter().source, api.interpreter().path], ["setting", picked]);
    await lintsTheModel();
  },
};

const restricted = {
  async "Restricted Mode without a user setting lints with the activated venv"() {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    await waitFor(() => api.client()?.isRunning(), `the server to run (${api.status()})`, 30000);
    assert.equal(api.interpreter().source, "virtual-env");
    assert.equal(api.interpreter().path, `${process.env.VIRTUAL_ENV}/bin/python`);
    await lintsTheModel();
  },
  async "the tree works untrusted, with Confirm refused"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const gate = await gateInTree(api);
    assert.equal(iconOf(api, gate), "error");
    const result = await vscode.commands.executeCommand("xport-lint.confirmWithDraftExport", gate);
    assert.equal(result.status, "untrusted");
  },
  async "granting trust keeps one working server, on the activated venv without settings"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    const crashes = api.restarts();
    // the user opens the trust editor and clicks Trust (test/e2e/run.mjs clicks it in the page)
    await vscode.commands.executeCommand("workbench.trust.manage");
    await waitFor(() => vscode.workspace.isTrusted, "the workspace to be trusted", 60000);
    await api.settled();
    await waitFor(() => api.client()?.isRunning(), `the server to run after trust (${api.status()})`, 30000);
    await waitFor(() => serverProcesses().length === 1, "one server after trust", 30000);
    assert.equal(api.restarts(), crashes, "no crash restarts were spent");
    assert.equal(api.interpreter().source, "virtual-env");
    await vscode.commands.executeCommand("workbench.action.closeAllEditors");
    await lintsTheModel();
  },
};

const missing = {
  async "an interpreter without xport-lint is reported, not started"() {
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    await waitFor(() => /not installed/.test(api.status()), `the not-installed status (${api.status()})`, 30000);
    assert.equal(api.client(), undefined);
  },
};

async function run() {
  const suites = { trusted, untrusted, venv, restricted, missing };
  const suite = suites[process.env.XPORT_E2E_MODE] ?? trusted;
  const results = [];
  for (const [name, test] of Object.entries(suite)) {
    const started = Date.now();
    try {
      await test();
      results.push({ name, ok: true, ms: Date.now() - started });
    } catch (error) {
      results.push({ name, ok: false, ms: Date.now() - started, error: String(error && error.stack ? error.stack : error) });
    }
  }
  if (process.env.XPORT_E2E_RESULTS) fs.writeFileSync(process.env.XPORT_E2E_RESULTS, JSON.stringify(results, null, 2));
  const failed = results.filter((r) => !r.ok);
  if (failed.length) throw new Error(`${failed.length} extension-host test(s) failed`);
}

module.exports = { run };
