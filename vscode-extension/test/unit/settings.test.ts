import assert from "node:assert/strict";
import { test } from "node:test";
import { type ConfigGetter, interpreterSetting, needsRestart, readSettings, toServerSettings } from "../../src/common/settings";

function getter(values: Record<string, unknown>): ConfigGetter {
  return <T>(key: string, fallback: T) => (key in values ? (values[key] as T) : fallback);
}

test("defaults map to a server object that leaves the project's configuration in charge", () => {
  const settings = readSettings(getter({}));
  assert.deepEqual(toServerSettings(settings, true), { enable: true, codeLens: "failing", confirmTimeout: 120, trusted: true });
});

test("every setting reaches the server under its camelCase key", () => {
  const settings = readSettings(
    getter({
      enable: false,
      select: ["XPT1", "XPT201"],
      extendSelect: ["XPT001"],
      ignore: ["XPT404"],
      strict: "strict",
      severity: { XPT301: "error", XPT302: "loud" },
      codeLens: "all",
      targetTorch: " 2.15 ",
      "confirm.timeout": 30,
      "confirm.memoryGb": 0,
      interpreter: " /opt/venv/bin/python ",
      "trace.server": "verbose",
    }),
  );
  assert.equal(settings.interpreter, "/opt/venv/bin/python");
  assert.equal(settings.traceServer, "verbose");
  assert.deepEqual(toServerSettings(settings, false, "/opt/venv/bin/python"), {
    enable: false,
    select: ["XPT1", "XPT201"],
    extendSelect: ["XPT001"],
    ignore: ["XPT404"],
    strict: true,
    severity: { XPT301: "error" },
    codeLens: "all",
    targetTorch: "2.15",
    confirmTimeout: 30,
    confirmMemoryGb: 0,
    python: "/opt/venv/bin/python",
    trusted: false,
  });
});

test("bad values fall back to defaults instead of reaching the server", () => {
  const settings = readSettings(
    getter({
      select: "XPT101",
      ignore: [1, "", "XPT3"],
      strict: "yes",
      codeLens: "some",
      targetTorch: "latest",
      "confirm.timeout": -5,
      "confirm.memoryGb": -1,
      "trace.server": "loud",
    }),
  );
  assert.deepEqual(settings.select, []);
  assert.deepEqual(settings.ignore, ["XPT3"]);
  assert.equal(settings.strict, "project");
  assert.equal(settings.codeLens, "failing");
  assert.equal(settings.confirmMemoryGb, null);
  assert.equal(settings.targetTorch, "");
  assert.equal(settings.confirmTimeout, 120);
  assert.equal(settings.traceServer, "off");
});

test("strict is an enum: non-strict is sent (it overrides a strict project), project is not", () => {
  assert.equal(toServerSettings(readSettings(getter({ strict: "non-strict" })), true).strict, false);
  assert.equal("strict" in toServerSettings(readSettings(getter({ strict: "project" })), true), false);
});

test("the booleans earlier versions stored for strict still mean what they meant", () => {
  assert.equal(readSettings(getter({ strict: true })).strict, "strict");
  assert.equal(readSettings(getter({ strict: false })).strict, "non-strict");
  assert.equal(readSettings(getter({ strict: null })).strict, "project");
});

test("only a new interpreter needs a new server process", () => {
  const before = readSettings(getter({}));
  assert.equal(needsRestart(before, readSettings(getter({ ignore: ["XPT404"] }))), false);
  assert.equal(needsRestart(before, readSettings(getter({ interpreter: "/usr/bin/python3" }))), true);
});

test("trusted, the workspace's xport-lint.interpreter overrides the user's", () => {
  const scopes = { globalValue: "/home/me/venv/bin/python", workspaceValue: " ./.venv/bin/python " };
  assert.deepEqual(interpreterSetting(scopes, true), { value: "./.venv/bin/python" });
  assert.deepEqual(interpreterSetting({ globalValue: "/home/me/venv/bin/python" }, true), { value: "/home/me/venv/bin/python" });
  assert.deepEqual(interpreterSetting(undefined, true), { value: "" });
});

test("untrusted, only the user's own xport-lint.interpreter counts; the workspace's is noted as ignored", () => {
  const scopes = { globalValue: "/home/me/venv/bin/python", workspaceFolderValue: "/tmp/evil/python" };
  assert.deepEqual(interpreterSetting(scopes, false), { value: "/home/me/venv/bin/python", ignored: "/tmp/evil/python" });
  assert.deepEqual(interpreterSetting({ workspaceValue: "/tmp/evil/python" }, false), { value: "", ignored: "/tmp/evil/python" });
  assert.deepEqual(interpreterSetting({ globalValue: "/usr/bin/python3", workspaceValue: "/usr/bin/python3" }, false), {
    value: "/usr/bin/python3",
  });
});
