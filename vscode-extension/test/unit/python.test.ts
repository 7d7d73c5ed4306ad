import assert from "node:assert/strict";
import { chmodSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { test } from "node:test";
import { installCommand, resolveInterpreter, serverStatus, which } from "../../src/common/python";

const none = async () => undefined;

test("an explicit xport-lint.interpreter wins over the Python extension", async () => {
  const found = await resolveInterpreter({
    setting: "/opt/venv/bin/python",
    fromPythonExtension: async () => "/other/python",
    onPath: async () => "/usr/bin/python3",
  });
  assert.deepEqual(found, { path: "/opt/venv/bin/python", source: "setting" });
});

test("without a setting, the Python extension's interpreter is used", async () => {
  const found = await resolveInterpreter({
    setting: "",
    fromPythonExtension: async () => "/work/.venv/bin/python",
    onPath: async () => "/usr/bin/python3",
  });
  assert.deepEqual(found, { path: "/work/.venv/bin/python", source: "python-extension" });
});

test("without either, python3 on PATH; a failing Python extension is skipped", async () => {
  const found = await resolveInterpreter({
    setting: "",
    fromPythonExtension: async () => {
      throw new Error("extension host crashed");
    },
    onPath: async (command) => (command === "python3" ? "/usr/bin/python3" : undefined),
  });
  assert.deepEqual(found, { path: "/usr/bin/python3", source: "path" });
});

test("nothing found is reported as undefined, not a bad path", async () => {
  assert.equal(await resolveInterpreter({ setting: "", fromPythonExtension: none, onPath: none }), undefined);
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
