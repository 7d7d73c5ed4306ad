import assert from "node:assert/strict";
import { test } from "node:test";
import { answerMode, badge, describeModel, groupModels, readModels, verdictIcon, modelTooltip } from "../../src/common/models";

// the shape of docs/report.md (JSON version 1), trimmed
const answer = {
  version: 1,
  mode: "non-strict",
  models: [
    {
      id: "shop.vision.Detector",
      name: "Detector",
      package: "shop",
      path: "shop/vision.py",
      line: 12,
      verdicts: {
        "non-strict": { verdict: "fails", conditions: [], errors: 1, warnings: 0, basis: "checked" },
        strict: { verdict: "fails", conditions: [], errors: 1, warnings: 0, basis: "derived" },
      },
      export_config: [{ kind: "export-call", description: "export call in scripts/export.py:4", path: "scripts/export.py", line: 4 }],
      findings: [
        {
          code: "XPT105",
          message: "boolean mask indexing `boxes[keep]` has a data-dependent shape",
          severity: { "non-strict": "error", strict: "error" },
          path: "shop/vision.py",
          line: 30,
          column: 16,
          end_line: 30,
          end_column: 27,
          chain: [
            { function: "Detector.forward", path: "shop/vision.py", line: 20 },
            { function: "filter_boxes", path: "shop/vision.py", line: 30 },
          ],
          confirmation: null,
        },
      ],
      confirmation: { state: "never-run", export_ok: null, summary: "" },
    },
    {
      id: "shop.text.Tagger",
      name: "Tagger",
      package: "shop",
      path: "shop/text.py",
      line: 3,
      verdicts: { "non-strict": { verdict: "exports" }, strict: { verdict: "fails-when", conditions: ["in training mode"] } },
      confirmation: { state: "stale" },
    },
    { name: "Gate", path: "gate.py", line: 4, verdict: "fails", confirmation: { state: "confirmed", summary: "Gate: export failed" } },
    { name: "no file, so not a model the tree can show" },
  ],
};

test("the server's answer is read into models, with findings, chains and the export script", () => {
  const models = readModels(answer);
  assert.deepEqual(models.map((m) => m.id), ["shop.vision.Detector", "shop.text.Tagger", "gate.py:Gate"]);
  const [detector] = models;
  assert.deepEqual(detector.verdicts, { "non-strict": "fails", strict: "fails" });
  assert.deepEqual(detector.findings[0].start, { path: "shop/vision.py", line: 30, column: 16 });
  assert.deepEqual(detector.findings[0].end, { path: "shop/vision.py", line: 30, column: 27 });
  assert.deepEqual(detector.findings[0].severity, { "non-strict": "error", strict: "error" });
  assert.deepEqual(detector.findings[0].chain.map((step) => [step.label, step.place?.line]), [
    ["Detector.forward", 20],
    ["filter_boxes", 30],
  ]);
  assert.deepEqual(detector.exportScript, { path: "scripts/export.py", line: 4, column: 1 });
  assert.equal(models[1].confirmation, "stale");
  assert.deepEqual(models[1].conditions, { strict: "in training mode" });
  assert.equal(models[2].confirmation, "confirmed");
  assert.equal(answerMode(answer), "non-strict");
  assert.deepEqual(readModels([answer.models[1]]).map((m) => m.name), ["Tagger"]); // a bare list reads too
  assert.deepEqual(readModels({ error: "nothing" }), []);
});

test("models are grouped by package, then file, in source order", () => {
  const groups = groupModels(readModels(answer));
  assert.deepEqual(
    groups.map((g) => [g.name, g.files.map((f) => [f.path, f.models.map((m) => m.name)])]),
    [
      ["", [["gate.py", ["Gate"]]]],
      ["shop", [["shop/text.py", ["Tagger"]], ["shop/vision.py", ["Detector"]]]],
    ],
  );
});

test("each verdict has its icon, and a confirmation by draft_export changes it", () => {
  const [detector, tagger, gate] = readModels(answer);
  assert.deepEqual(verdictIcon(detector, "non-strict"), { icon: "error", color: "testing.iconFailed" });
  assert.equal(verdictIcon(tagger, "non-strict").icon, "pass");
  assert.equal(verdictIcon(tagger, "strict").icon, "warning");
  assert.deepEqual(verdictIcon(gate, "non-strict"), { icon: "verified-filled", color: "testing.iconFailed" });
  assert.equal(verdictIcon({ ...detector, confirmation: "running" }, "non-strict").icon, "sync~spin");
  assert.equal(verdictIcon({ ...detector, confirmation: "refuted" }, "non-strict").icon, "circle-slash");
  // a model judged in one mode only shows that verdict in the other
  assert.equal(verdictIcon(gate, "strict").icon, "verified-filled");
});

test("the description says the verdict and the confirmation state in words", () => {
  const [detector, , gate] = readModels(answer);
  assert.equal(describeModel(detector, "non-strict"), "export fails");
  assert.equal(describeModel(gate, "non-strict"), "export fails · confirmed by draft_export");
  assert.match(modelTooltip(gate), /confirmed by draft_export: Gate: export failed/);
  assert.equal(describeModel({ ...detector, confirmation: "stale" }, "strict"), "export fails · confirmation stale: the file changed");
  const conditional = { ...detector, verdicts: { "non-strict": "conditional" as const }, conditions: { "non-strict": "in training mode" } };
  assert.equal(describeModel(conditional, "non-strict"), "fails when in training mode");
});

test("the badge counts the failing models and says every count", () => {
  const models = readModels(answer);
  assert.deepEqual(badge(models, "non-strict"), {
    value: 2,
    tooltip: "2 of 3 models fail to export (non-strict), 0 fail under a condition, 1 export, 0 unknown",
  });
  assert.equal(badge(models.filter((m) => m.name === "Tagger"), "non-strict"), undefined); // nothing fails: no badge
  assert.equal(badge([], "strict"), undefined);
});
