// End-to-end tests of the extension in a real VS Code: code-server 4.100.3 (VS Code 1.100.3,
// the newest on Node 20) driven by Debian's chromium through playwright-core.
//   (a) extension-host tests (test/host/index.js) through code-server's extensionTestsPath
//       payload, once in a trusted and once in an untrusted workspace;
//   (b) a UI test: the packaged .vsix installed into code-server, the sample model opened in the
//       browser, the diagnostic read from the Problems panel, Ctrl+. applying the fix.
// Installs what it needs: Debian's chromium and ripgrep (with apt-get, as root) and code-server
// into .code-server/ (see ../shared/clients.md for the offline workarounds). Never downloads a
// browser. Usage: npm run e2e [-- host [MODE,...] | ui]   (XPORT_PYTHON: interpreter with xport-lint; default ../.venv)
import { execFileSync, spawn } from "node:child_process";
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { chromium } from "playwright-core";

const EXTENSION = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const REPO = resolve(EXTENSION, "..");
const PYTHON = process.env.XPORT_PYTHON ?? join(REPO, ".venv", "bin", "python");
const CODE_SERVER_DIR = join(EXTENSION, ".code-server");
const CODE_SERVER = join(CODE_SERVER_DIR, "node_modules", ".bin", "code-server");
const RESULTS = join(EXTENSION, "test-results");
const CHROMIUM = "/usr/bin/chromium";
const CHROMIUM_FLAGS = [
  "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
  "--disable-component-update", "--disable-sync",
];

function log(message) {
  console.log(`[e2e] ${message}`);
}

function run(command, args, options = {}) {
  log(`$ ${command} ${args.join(" ")}`);
  execFileSync(command, args, { stdio: "inherit", ...options });
}

function ensureDebianPackages() {
  const missing = [[CHROMIUM, "chromium"], ["/usr/bin/rg", "ripgrep"]].filter(([path]) => !existsSync(path));
  if (missing.length === 0) return;
  if (process.getuid?.() !== 0) {
    throw new Error(`missing ${missing.map(([, p]) => p).join(", ")}: install them with apt-get (needs root)`);
  }
  run("apt-get", ["update", "-qq"]);
  run("apt-get", ["install", "-y", "-qq", ...missing.map(([, p]) => p), "libkrb5-dev"], {
    env: { ...process.env, DEBIAN_FRONTEND: "noninteractive" },
  });
}

function ensureCodeServer() {
  if (existsSync(CODE_SERVER)) return;
  // @vscode/ripgrep's postinstall downloads from GitHub: seed its cache with Debian's rg instead
  const cache = join(tmpdir(), "vscode-ripgrep-cache-1.15.11");
  mkdirSync(cache, { recursive: true });
  const staging = mkdtempSync(join(tmpdir(), "rg-"));
  cpSync("/usr/bin/rg", join(staging, "rg"));
  run("tar", ["-czf", join(cache, "ripgrep-v13.0.0-10-x86_64-unknown-linux-musl.tar.gz"), "-C", staging, "rg"]);
  mkdirSync(CODE_SERVER_DIR, { recursive: true });
  writeFileSync(join(CODE_SERVER_DIR, "package.json"), '{"name": "code-server-for-tests", "private": true}\n');
  run("npm", ["install", "--no-audit", "--no-fund", "code-server@4.100.3"], {
    cwd: CODE_SERVER_DIR,
    // node-pty's postinstall runs `npx node-gyp`; code-server refuses root without unsafe-perm
    env: { ...process.env, npm_config_yes: "true", npm_config_unsafe_perm: "true" },
  });
}

function freePort() {
  return new Promise((done) => {
    const server = createServer();
    server.listen(0, "127.0.0.1", () => {
      const { port } = server.address();
      server.close(() => done(port));
    });
  });
}

async function waitForHttp(url, timeoutMs = 60000) {
  const started = Date.now();
  while (Date.now() - started < timeoutMs) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`${url} did not answer`);
}

// the virtual environment PYTHON belongs to (bin/python inside it)
const PYTHON_VENV = dirname(dirname(PYTHON));

function sandbox(name, { trusted, workspaceInterpreter = PYTHON, userInterpreter, workspaceVenv = false }) {
  const root = mkdtempSync(join(tmpdir(), `xport-e2e-${name}-`));
  const workspace = join(root, "workspace");
  cpSync(join(EXTENSION, "test", "fixtures", "workspace"), workspace, { recursive: true });
  mkdirSync(join(workspace, ".vscode"));
  writeFileSync(
    join(workspace, ".vscode", "settings.json"),
    JSON.stringify(workspaceInterpreter ? { "xport-lint.interpreter": workspaceInterpreter } : {}, null, 2),
  );
  // a workspace .venv with xport-lint: the venv PYTHON belongs to, linked in
  if (workspaceVenv) symlinkSync(PYTHON_VENV, join(workspace, ".venv"), "dir");
  const userData = join(root, "user-data");
  mkdirSync(join(userData, "User"), { recursive: true });
  const trust = trusted
    ? { "security.workspace.trust.enabled": false }
    : { "security.workspace.trust.enabled": true, "security.workspace.trust.startupPrompt": "never" };
  writeFileSync(
    join(userData, "User", "settings.json"),
    JSON.stringify(
      {
        ...trust,
        ...(userInterpreter ? { "xport-lint.interpreter": userInterpreter } : {}),
        "workbench.startupEditor": "none",
        "extensions.autoCheckUpdates": false,
      },
      null,
      2,
    ),
  );
  for (const dir of ["home", "config", "data", "extensions"]) mkdirSync(join(root, dir));
  return { root, workspace, userData, extensions: join(root, "extensions") };
}

async function startCodeServer(box, extraEnv = {}) {
  const port = await freePort();
  const inherited = { ...process.env };
  delete inherited.VIRTUAL_ENV; // only a mode that wants one has a venv activated
  const env = {
    ...inherited,
    HOME: join(box.root, "home"),
    XDG_CONFIG_HOME: join(box.root, "config"),
    XDG_DATA_HOME: join(box.root, "data"),
    ...extraEnv,
  };
  const child = spawn(
    CODE_SERVER,
    [
      "--bind-addr", `127.0.0.1:${port}`, "--auth", "none", "--disable-telemetry", "--disable-update-check",
      "--user-data-dir", box.userData, "--extensions-dir", box.extensions, box.workspace,
    ],
    { env, detached: true, stdio: ["ignore", "pipe", "pipe"] },
  );
  const lines = [];
  child.stdout.on("data", (d) => lines.push(String(d)));
  child.stderr.on("data", (d) => lines.push(String(d)));
  await waitForHttp(`http://127.0.0.1:${port}/healthz`);
  return {
    port,
    output: () => lines.join(""),
    // the extension host and the language server outlive the browser: stop the whole group
    stop: () => {
      try {
        process.kill(-child.pid, "SIGTERM");
      } catch {
        // already gone
      }
    },
  };
}

async function browser(box) {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: CHROMIUM_FLAGS, // playwright gives each launch a fresh profile
    env: { ...process.env, HOME: join(box.root, "home") },
  });
}

const HOST_MODES = {
  trusted: { trusted: true },
  // the workspace names a bogus interpreter, the user the real one: only the user's may run
  untrusted: { trusted: false, workspaceInterpreter: "/nonexistent/python", userInterpreter: PYTHON },
  // no setting, no Python extension, nothing activated: the workspace's .venv (with xport-lint) is found
  venv: { trusted: true, workspaceInterpreter: null, workspaceVenv: true },
  // untrusted, no setting: the activated venv of the user's environment; then trust is granted in
  // the page (the Trust button) and the same venv serves the trusted workspace, one server
  restricted: { trusted: false, workspaceInterpreter: null, virtualEnv: PYTHON_VENV, grantTrust: true },
  // an interpreter without xport-lint (a fresh venv): the extension says so instead of failing
  missing: { trusted: true, workspaceInterpreter: "MISSING" },
};

function bareInterpreter() {
  const folder = mkdtempSync(join(tmpdir(), "xport-bare-venv-"));
  run("python3", ["-m", "venv", "--without-pip", folder]);
  return join(folder, "bin", "python");
}

async function hostTests(mode) {
  const options = { ...HOST_MODES[mode] };
  if (options.workspaceInterpreter === "MISSING") options.workspaceInterpreter = bareInterpreter();
  const box = sandbox(mode, options);
  const results = join(box.root, "results.json");
  const server = await startCodeServer(box, {
    ...(options.virtualEnv ? { VIRTUAL_ENV: options.virtualEnv } : {}),
    XPORT_E2E_MODE: mode,
    XPORT_E2E_RESULTS: results,
    XPORT_E2E_PYTHON: PYTHON,
  });
  const chrome = await browser(box);
  try {
    const page = await chrome.newPage();
    const exit = new Promise((done) => {
      void page.exposeFunction("codeAutomationExit", (code) => done(code));
    });
    await page.exposeFunction("codeAutomationLog", (...args) => log(`host: ${args.join(" ")}`));
    const remote = (path) => `vscode-remote://127.0.0.1:${server.port}${path}`;
    const payload = JSON.stringify([
      ["extensionDevelopmentPath", remote(EXTENSION)],
      ["extensionTestsPath", remote(join(EXTENSION, "test", "host", "index.js"))],
    ]);
    await page.goto(
      `http://127.0.0.1:${server.port}/?folder=${encodeURIComponent(box.workspace)}&payload=${encodeURIComponent(payload)}`,
    );
    // the host test opens the workspace trust editor; the user's click on Trust happens here
    if (options.grantTrust) void clickTrust(page);
    let timer;
    const code = await Promise.race([exit, new Promise((done) => (timer = setTimeout(() => done("timeout"), 300000)))]);
    clearTimeout(timer);
    const report = existsSync(results) ? JSON.parse(readFileSync(results, "utf8")) : [];
    for (const r of report) {
      log(`${mode}: ${r.ok ? "ok  " : "FAIL"} ${r.name} (${r.ms} ms)`);
      if (!r.ok) for (const line of r.error.split("\n").slice(0, 8)) log(`  ${line}`); // the wrapper shows [e2e] lines only
    }
    if (code !== 0 || report.length === 0 || report.some((r) => !r.ok)) {
      log(server.output().slice(-4000));
      throw new Error(`extension-host tests (${mode}) failed: exit ${code}`);
    }
  } finally {
    await chrome.close();
    server.stop();
  }
}

async function clickTrust(page) {
  try {
    const trust = page.locator(".workspace-trust-editor .monaco-button", { hasText: /^Trust$/ }).first();
    await trust.waitFor({ timeout: 240000 });
    await trust.click();
    log("restricted: clicked Trust in the workspace trust editor");
  } catch (error) {
    log(`restricted: no Trust button to click (${error.message.split("\n")[0]})`);
  }
}

async function uiTest() {
  const vsix = join(EXTENSION, "xport-lint.vsix");
  const box = sandbox("ui", { trusted: true });
  run(CODE_SERVER, ["--extensions-dir", box.extensions, "--user-data-dir", box.userData, "--install-extension", vsix], {
    env: { ...process.env, HOME: join(box.root, "home"), XDG_CONFIG_HOME: join(box.root, "config"), XDG_DATA_HOME: join(box.root, "data") },
  });
  const server = await startCodeServer(box);
  const chrome = await browser(box);
  const page = await chrome.newPage({ viewport: { width: 1400, height: 850 } });
  try {
    await page.goto(`http://127.0.0.1:${server.port}/?folder=${encodeURIComponent(box.workspace)}`);
    await page.locator(".monaco-workbench").waitFor({ timeout: 60000 });
    await page.waitForTimeout(1500);
    await page.keyboard.press("Control+P");
    await page.keyboard.type("gate.py");
    // under load the file index answers late: Enter before the row exists opens nothing
    await page.locator(".quick-input-list .monaco-list-row", { hasText: "gate.py" }).first().waitFor({ timeout: 60000 });
    await page.keyboard.press("Enter");
    await page.locator(".monaco-editor .view-lines").first().waitFor({ timeout: 60000 });
    await page.keyboard.press("Control+Shift+M");
    const problem = page.locator(".markers-panel .monaco-list-row", { hasText: "x.sum() > 0" }).first();
    await problem.waitFor({ timeout: 60000 });
    const text = await problem.innerText();
    log(`Problems panel: ${text.replace(/\s+/g, " ")}`);
    if (!/XPT101/.test(text)) throw new Error(`the Problems panel row lacks the rule code: ${text}`);
    // the Export readiness view, from its activity bar icon: the failing model, expanded
    // the whole item, as a user clicks it: once the readiness badge shows, it covers the icon
    await page.locator('.activitybar .action-item:has(.action-label[aria-label^="xport-lint"])').first().click();
    const model = page.locator(".part.sidebar .monaco-list-row", { hasText: /^\s*Gate/ }).first(); // not gate.py's row
    await model.waitFor({ timeout: 120000 });
    await model.locator(".monaco-tl-twistie").click(); // a click on the label opens the class instead
    await page.locator(".part.sidebar .monaco-list-row", { hasText: "XPT101" }).first().waitFor({ timeout: 30000 });
    mkdirSync(RESULTS, { recursive: true });
    await page.mouse.move(900, 450); // no hover tooltip over the view
    await page.waitForTimeout(800);
    await page.screenshot({ path: join(RESULTS, "vscode-export-readiness.png") });
    log("the Export readiness view shows the failing model and its finding");
    // the user's click on the finding's row: the editor's cursor goes to the flagged line (6)
    await page.locator(".part.sidebar .monaco-list-row", { hasText: "XPT101" }).first().click();
    await page.locator(".statusbar-item", { hasText: /Ln 6, Col/ }).first().waitFor({ timeout: 30000 });
    log("a click on the finding in the Export readiness view opens its line");
    // put the cursor on the flagged condition, then Ctrl+. and Enter: the first quick fix
    await page.locator(".monaco-editor .view-line", { hasText: "if x.sum() > 0:" }).first().click();
    await page.keyboard.press("Control+.");
    const menu = page.locator(".action-widget");
    await menu.waitFor({ timeout: 30000 });
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, "vscode-quick-fix.png") });
    const first = (await menu.locator(".action-item, .monaco-list-row").first().innerText()).trim();
    log(`first code action: ${first}`);
    await page.keyboard.press("Enter");
    await page.locator(".monaco-editor .view-line", { hasText: "torch.cond" }).first().waitFor({ timeout: 30000 });
    await page.waitForTimeout(1500);
    await page.screenshot({ path: join(RESULTS, "vscode-after-fix.png") });
    log("the quick fix applied: the editor shows torch.cond");
  } catch (error) {
    mkdirSync(RESULTS, { recursive: true });
    await page.screenshot({ path: join(RESULTS, "ui-failure.png") }).catch(() => undefined);
    throw error;
  } finally {
    await chrome.close();
    server.stop();
  }
}

async function main() {
  if (!existsSync(PYTHON)) throw new Error(`no interpreter at ${PYTHON}: set XPORT_PYTHON`);
  ensureDebianPackages();
  ensureCodeServer();
  run("npm", ["run", "package"], { cwd: EXTENSION }); // the UI test installs this .vsix
  const only = process.argv[2];
  if (!only || only === "host") {
    // `host trusted,restricted`: only those modes (while working on them)
    const modes = process.argv[3]?.split(",") ?? Object.keys(HOST_MODES);
    for (const mode of modes) await hostTests(mode);
  }
  if (!only || only === "ui") await uiTest();
  log("all end-to-end tests passed");
  process.exit(0);
}

main().catch((error) => {
  console.error(`[e2e] ${error.stack ?? error}`);
  process.exit(1);
});
