import assert from "node:assert/strict";
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { test } from "node:test";
import {
  hasXportLint,
  installCommand,
  type InterpreterSources,
  isExecutable,
  listInterpreters,
  resolveInterpreter,
  serverStatus,
  venvPython,
  which,
} from "../../src/common/python";

const none = async () => undefined;

/** A stand-in interpreter: a script that answers the xport-lint probe as a real one would. */
function fakePython(path: string, withXportLint: boolean): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\nexit ${withXportLint ? 0 : 1}\n`);
  chmodSync(path, 0o755);
  return path;
}

/**
 * A machine with every source of an interpreter: a venv activated in the environment, a workspace
 * with `.venv` (and `venv`), and `python3` on PATH. All but the workspace's `venv` have xport-lint.
 */
function machine() {
  const root = mkdtempSync(join(tmpdir(), "xport-discovery-"));
  const activated = join(root, "activated-venv");
  const workspace = join(root, "workspace");
  const bin = join(root, "usr-bin");
  return {
    activated,
    workspace,
    activatedPython: fakePython(venvPython(activated, "linux"), true),
    dotVenvPython: fakePython(join(workspace, ".venv", "bin", "python"), true),
    venvPython: fakePython(join(workspace, "venv", "bin", "python"), false),
    pathPython: fakePython(join(bin, "python3"), true),
    sources(overrides: Partial<InterpreterSources> = {}): InterpreterSources {
      return {
        trusted: true,
        setting: "",
        fromPythonExtension: none,
        virtualEnv: activated,
        workspaceFolders: [workspace],
        isExecutable,
        hasXportLint: (python) => hasXportLint(python),
        onPath: (command) => which(command, bin),
        platform: "linux",
        ...overrides,
      };
    },
  };
}

test("an explicit xport-lint.interpreter wins over every other source", async () => {
  const m = machine();
  const found = await resolveInterpreter(m.sources({ setting: "/opt/venv/bin/python", fromPythonExtension: async () => "/other/python" }));
  assert.deepEqual(found, { path: "/opt/venv/bin/python", source: "setting", reason: "the xport-lint.interpreter setting" });
});

test("without a setting, the Python extension's interpreter comes before VIRTUAL_ENV and the workspace", async () => {
  const m = machine();
  const found = await resolveInterpreter(m.sources({ fromPythonExtension: async () => "/picked/python" }));
  assert.deepEqual(found, { path: "/picked/python", source: "python-extension", reason: "the Python extension's active interpreter" });
});

test("without the Python extension, the activated virtual environment (VIRTUAL_ENV) is used", async () => {
  const m = machine();
  const found = await resolveInterpreter(m.sources());
  assert.equal(found?.source, "virtual-env");
  assert.equal(found?.path, m.activatedPython);
  assert.match(found?.reason ?? "", /VIRTUAL_ENV=/);
});

test("a failing Python extension is skipped, not fatal", async () => {
  const m = machine();
  const broken = async () => {
    throw new Error("extension host crashed");
  };
  assert.equal((await resolveInterpreter(m.sources({ fromPythonExtension: broken })))?.source, "virtual-env");
});

test("with no venv activated, the workspace's .venv that has xport-lint, before python3 on PATH", async () => {
  const m = machine();
  const found = await resolveInterpreter(m.sources({ virtualEnv: undefined }));
  assert.deepEqual(found, { path: m.dotVenvPython, source: "workspace-venv", reason: "the workspace's .venv, which has xport-lint" });
});

test("a VIRTUAL_ENV without an interpreter (a stale variable) is skipped", async () => {
  const m = machine();
  const found = await resolveInterpreter(m.sources({ virtualEnv: join(m.workspace, "deleted-venv") }));
  assert.equal(found?.path, m.dotVenvPython);
});

test("a workspace venv without xport-lint is passed over for python3 on PATH", async () => {
  const m = machine();
  const onlyVenv = mkdtempSync(join(tmpdir(), "xport-ws-")); // a `venv` without xport-lint, no `.venv`
  fakePython(join(onlyVenv, "venv", "bin", "python"), false);
  const found = await resolveInterpreter(m.sources({ virtualEnv: undefined, workspaceFolders: [onlyVenv] }));
  assert.deepEqual(found, { path: m.pathPython, source: "path", reason: "python3 on PATH" });
});

test("untrusted, nothing the workspace chose runs: not the Python extension's pick, not its .venv", async () => {
  const m = machine();
  const untrusted = { trusted: false, fromPythonExtension: async () => "/workspace/picked/python" };
  const found = await resolveInterpreter(m.sources({ ...untrusted, virtualEnv: undefined }));
  assert.deepEqual(found, { path: m.pathPython, source: "path", reason: "python3 on PATH" });
  // the user's own environment and setting still count
  assert.equal((await resolveInterpreter(m.sources(untrusted)))?.path, m.activatedPython);
  assert.deepEqual(await resolveInterpreter(m.sources({ ...untrusted, setting: "/home/me/venv/bin/python" })), {
    path: "/home/me/venv/bin/python",
    source: "setting",
    reason: "your user-level xport-lint.interpreter setting",
  });
});

test("nothing found is reported as undefined, not a bad path", async () => {
  const empty = mkdtempSync(join(tmpdir(), "xport-empty-"));
  const sources: InterpreterSources = {
    trusted: true,
    setting: "",
    fromPythonExtension: none,
    virtualEnv: undefined,
    workspaceFolders: [empty],
    isExecutable,
    hasXportLint,
    onPath: (command) => which(command, empty),
  };
  assert.equal(await resolveInterpreter(sources), undefined);
});

test("the picker lists every interpreter found, in discovery order, each once", async () => {
  const m = machine();
  const found = await listInterpreters(m.sources({ setting: m.pathPython, fromPythonExtension: async () => m.activatedPython }));
  assert.deepEqual(
    found.map((i) => [i.source, i.path]),
    [
      ["setting", m.pathPython],
      ["python-extension", m.activatedPython],
      ["workspace-venv", m.dotVenvPython],
      ["workspace-venv", m.venvPython], // listed, though it lacks xport-lint: the picker says so
    ], // VIRTUAL_ENV and PATH found the same two again

  );
});

test("a venv's interpreter is bin/python, or Scripts\\python.exe on Windows", () => {
  assert.equal(venvPython("/w/.venv", "linux"), join("/w/.venv", "bin", "python"));
  assert.equal(venvPython("/w/.venv", "win32"), join("/w/.venv", "Scripts", "python.exe"));
});

test("hasXportLint asks the interpreter itself; a missing interpreter has nothing", async () => {
  const folder = mkdtempSync(join(tmpdir(), "xport-probe-"));
  assert.equal(await hasXportLint(fakePython(join(folder, "yes"), true)), true);
  assert.equal(await hasXportLint(fakePython(join(folder, "no"), false)), false);
  assert.equal(await hasXportLint(join(folder, "absent")), false);
});

test("which finds an executable on the given PATH only", async () => {
  const folder = mkdtempSync(join(tmpdir(), "xport-which-"));
  const fake = join(folder, "python3");
  writeFileSync(fake, "#!/bin/sh\nexit 0\n");
  chmodSync(fake, 0o755);
  assert.equal(await which("python3", folder), fake);
  assert.equal(await which("python3", join(folder, "missing")), undefined);
});

test("serverStatus is not-installed for an interpreter without xport-lint, or no interpreter at all", async () => {
  const folder = mkdtempSync(join(tmpdir(), "xport-python-"));
  const broken = join(folder, "python");
  writeFileSync(broken, "#!/bin/sh\necho 'No module named xport_lint' >&2\nexit 1\n");
  chmodSync(broken, 0o755);
  assert.equal(await serverStatus(broken), "not-installed");
  assert.equal(await serverStatus(join(folder, "does-not-exist")), "not-installed");
});

test("serverStatus is missing-extra where the server's --check exits 3 (no pygls/lsprotocol)", async () => {
  const folder = mkdtempSync(join(tmpdir(), "xport-python-"));
  const partial = join(folder, "python");
  writeFileSync(partial, '#!/bin/sh\n[ "$2" = "xport_lint.server" ] && [ "$3" = "--check" ] && exit 3\nexit 1\n');
  chmodSync(partial, 0o755);
  assert.equal(await serverStatus(partial), "missing-extra");
});

test("serverStatus is ok where `python -m xport_lint.server --check` succeeds", async () => {
  const folder = mkdtempSync(join(tmpdir(), "xport-python-"));
  const good = join(folder, "python");
  writeFileSync(good, '#!/bin/sh\n[ "$2" = "xport_lint.server" ] && [ "$3" = "--check" ] && exit 0\nexit 1\n');
  chmodSync(good, 0o755);
  assert.equal(await serverStatus(good), "ok");
});

test("the install command installs the server's requirements, quoting a path with spaces", () => {
  assert.equal(installCommand("/usr/bin/python3"), '/usr/bin/python3 -m pip install "pygls>=2.0,<3" "lsprotocol>=2025.0.0"');
  assert.equal(installCommand("/My Venv/python"), '"/My Venv/python" -m pip install "pygls>=2.0,<3" "lsprotocol>=2025.0.0"');
});
