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
  async "confirmation runs draft_export and reports the result"() {
    const document = await openModel();
    await waitFor(() => xport(document.uri, "XPT101").length === 1, "XPT101 after the revert");
    const result = await vscode.commands.executeCommand("xport-lint.confirmWithDraftExport", document.uri);
    assert.equal(result.status, "ran", JSON.stringify(result));
    assert.equal(result.exportOk, false);
    await waitFor(
      () => xport(document.uri, "XPT101").some((d) => /confirmed by draft_export/i.test(d.message)),
      "the diagnostic to say draft_export confirmed it",
    );
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
  async "Restricted Mode without a user setting lints with the activated venv, not the workspace's interpreter"() {
    assert.equal(vscode.workspace.isTrusted, false);
    const api = await vscode.extensions.getExtension(EXTENSION).activate();
    await waitFor(() => api.client()?.isRunning(), `the server to run (${api.status()})`, 30000);
    // the workspace names /nonexistent/python; Restricted Mode does not run it, VIRTUAL_ENV is the user's
    assert.equal(api.interpreter().source, "virtual-env");
    assert.equal(api.interpreter().path, `${process.env.VIRTUAL_ENV}/bin/python`);
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
