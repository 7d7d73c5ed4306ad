import assert from "node:assert/strict";
import { test } from "node:test";
import { SerialQueue } from "../../src/common/queue";

/** A promise the test resolves when it chooses: a server start that takes as long as the test says. */
function gate(): { opened: Promise<void>; open: () => void } {
  let open = () => undefined as void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { opened, open };
}

/**
 * The extension's life cycle in miniature: each run stops the running server and starts one
 * with the settings (here, an interpreter) it reads when it begins. Starting waits on a gate.
 */
function extension() {
  const state = {
    interpreter: "/usr/bin/python3", // what the settings say now
    running: [] as string[], // servers alive
    starts: [] as string[], // every start, with the interpreter it used
    inFlight: 0,
    maxInFlight: 0,
    gates: [] as Array<() => void>,
  };
  const queue = new SerialQueue(async (restart) => {
    state.inFlight++;
    state.maxInFlight = Math.max(state.maxInFlight, state.inFlight);
    try {
      const interpreter = state.interpreter; // read afresh by every run
      if (!restart && state.running.length === 1 && state.running[0] === interpreter) return;
      state.running = []; // stop
      const { opened, open } = gate();
      state.gates.push(open);
      await opened; // the new server takes a while to start
      state.starts.push(interpreter);
      state.running.push(interpreter);
    } finally {
      state.inFlight--;
    }
  });
  /** Lets every start waiting now (and those it unblocks) finish. */
  async function finishStarts(): Promise<void> {
    for (;;) {
      await new Promise((resolve) => setImmediate(resolve));
      const waiting = state.gates.splice(0);
      if (waiting.length === 0) return;
      waiting.forEach((open) => open());
    }
  }
  return { state, queue, finishStarts };
}

test("two restarts in quick succession run one after the other, and the last settings win", async () => {
  const { state, queue, finishStarts } = extension();
  // granting trust: the trust event and the settings event, the interpreter setting now visible
  const trustEvent = queue.request(true);
  await new Promise((resolve) => setImmediate(resolve)); // the first restart is under way
  state.interpreter = "/work/.venv/bin/python";
  const settingsEvent = queue.request(false);
  const done = Promise.all([trustEvent, settingsEvent]);
  await finishStarts();
  await done;
  assert.equal(state.maxInFlight, 1);
  assert.deepEqual(state.starts, ["/usr/bin/python3", "/work/.venv/bin/python"]);
  assert.deepEqual(state.running, ["/work/.venv/bin/python"]); // one server, the last settings'
});

test("requests made while a restart runs are merged into one more run", async () => {
  const { state, queue, finishStarts } = extension();
  const first = queue.request(true);
  await new Promise((resolve) => setImmediate(resolve));
  const waiting = ["/a/python", "/b/python", "/c/python"].map((interpreter) => {
    state.interpreter = interpreter;
    return queue.request(false);
  });
  await finishStarts();
  await Promise.all([first, ...waiting]);
  assert.deepEqual(state.starts, ["/usr/bin/python3", "/c/python"]);
  assert.equal(state.maxInFlight, 1);
});

test("a merged request keeps the strongest demand: a restart is not downgraded to a settings update", async () => {
  const { state, queue, finishStarts } = extension();
  const first = queue.request(true);
  await new Promise((resolve) => setImmediate(resolve));
  const restart = queue.request(true); // the restart command...
  const update = queue.request(false); // ...and a settings change that alone would not restart
  await finishStarts();
  await Promise.all([first, restart, update]);
  assert.deepEqual(state.starts, ["/usr/bin/python3", "/usr/bin/python3"]);
});

test("a run that fails rejects its requests and does not block the next", async () => {
  let calls = 0;
  const queue = new SerialQueue(async () => {
    calls++;
    if (calls === 1) throw new Error("the interpreter vanished");
  });
  await assert.rejects(queue.request(true), /the interpreter vanished/);
  await queue.request(true);
  await queue.idle();
  assert.equal(calls, 2);
});

test("idle waits for the runs already requested and requests none", async () => {
  const { state, queue, finishStarts } = extension();
  const first = queue.request(true);
  let idle = false;
  const settled = queue.idle().then(() => (idle = true));
  await new Promise((resolve) => setImmediate(resolve));
  assert.equal(idle, false);
  await finishStarts();
  await Promise.all([first, settled]);
  assert.equal(idle, true);
  assert.deepEqual(state.starts, ["/usr/bin/python3"]);
});
