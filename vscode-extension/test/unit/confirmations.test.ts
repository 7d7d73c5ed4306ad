import assert from "node:assert/strict";
import { test } from "node:test";
import { Confirmations, confirmationStatus } from "../../src/common/confirmations";
import { withoutNoise } from "../../src/common/logs";

test("a confirmation's result belongs to its file: another file has none", () => {
  const store = new Confirmations();
  store.started("file:///w/gate.py", "Gate");
  assert.equal(confirmationStatus(store.get("file:///w/gate.py"), "gate.py")?.text, "$(sync~spin) xport-lint: confirming");
  store.finished("file:///w/gate.py", { status: "ran", exportOk: false, summary: "XPT101 confirmed" }, "Gate");
  assert.deepEqual(confirmationStatus(store.get("file:///w/gate.py"), "gate.py"), {
    text: "$(error) xport-lint: export fails",
    tooltip: "Gate in gate.py: XPT101 confirmed",
    error: true,
  });
  assert.equal(confirmationStatus(store.get("file:///w/other.py"), "other.py"), undefined);
});

test("editing a file drops its result, so the status is never stale; a running confirmation stays", () => {
  const store = new Confirmations();
  const changes: string[] = [];
  const stop = store.onDidChange((file) => changes.push(file));
  store.finished("file:///w/a.py", { status: "ran", exportOk: true });
  store.started("file:///w/b.py");
  store.edited("file:///w/a.py");
  store.edited("file:///w/b.py");
  assert.equal(store.get("file:///w/a.py"), undefined);
  assert.equal(store.get("file:///w/b.py")?.state, "running");
  assert.deepEqual(changes, ["file:///w/a.py", "file:///w/b.py", "file:///w/a.py"]);
  stop();
  store.clear();
  assert.equal(changes.length, 3);
});

test("the server's confirmationChanged keeps the file's state, whichever way the confirmation started", () => {
  const store = new Confirmations();
  const uri = "file:///w/gate.py";
  store.started(uri, "Gate"); // from the tree, for one model
  store.fromServer({ uri, state: "running" });
  assert.deepEqual(store.get(uri), { state: "running", model: "Gate" });
  store.fromServer({ uri, state: "failed", status: "ran", exportOk: false, summary: "Gate: export failed" });
  assert.equal(confirmationStatus(store.get(uri), "gate.py")?.text, "$(error) xport-lint: export fails");
  store.fromServer({ uri, state: "stale" });
  assert.equal(store.get(uri), undefined);
  store.fromServer({ uri: "file:///w/other.py", state: "passed", status: "ran", exportOk: true });
  assert.equal(confirmationStatus(store.get("file:///w/other.py"), "other.py")?.text, "$(pass) xport-lint: exports");
});

test("a confirmation that did not run says so, without claiming a verdict", () => {
  const view = confirmationStatus({ state: "done", result: { status: "unsaved", summary: "save the file first" } }, "a.py");
  assert.deepEqual(view, { text: "$(warning) xport-lint: not confirmed", tooltip: "save the file first", error: false });
});

test("the JSON-RPC library's routine noise is dropped from the logs, other lines kept", () => {
  const text = 'WARNING:pygls.protocol.json_rpc:Cancel notification for unknown message id "12"\nxport_lint: checked 3 files\n';
  assert.equal(withoutNoise(text), "xport_lint: checked 3 files\n");
  assert.equal(withoutNoise("Ignoring notification for unknown method '$/setTrace'"), "");
});
