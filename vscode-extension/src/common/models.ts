// The workspace's models as the server reports them (`xport-lint/models`, schema in
// docs/report.md): read defensively into one shape, grouped by package and file for the
// "Export readiness" tree, with the verdict each shows and the counts for the view's badge.
// Pure: no `vscode` import, so it is unit-tested in plain Node.

export type Verdict = "exports" | "fails" | "conditional" | "unknown";
export type ConfirmationState = "never" | "running" | "confirmed" | "refuted" | "stale" | "error";
export type Mode = "non-strict" | "strict";

export interface Place {
  path: string;
  /** 1-based */
  line: number;
  /** 1-based */
  column: number;
}

export interface ModelFinding {
  code: string;
  message: string;
  /** per mode: "error", "warning", "info"; absent where the rule says nothing in that mode */
  severity: Partial<Record<Mode, string>>;
  start: Place;
  end: Place;
  /** entry -> helper -> line: how traced code reaches the finding */
  chain: { label: string; place?: Place }[];
  confirmation?: string;
}

export interface Model {
  /** stable key: the dotted path, else path:name */
  id: string;
  name: string;
  package: string;
  path: string;
  line: number;
  verdicts: Partial<Record<Mode, Verdict>>;
  /** what a verdict depends on ("fails only when ..."), per mode */
  conditions: Partial<Record<Mode, string>>;
  findings: ModelFinding[];
  confirmation: ConfirmationState;
  /** the last confirmation's one-line summary */
  confirmationSummary?: string;
  exportScript?: Place;
}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** The first of `keys` that `raw` has (camelCase and snake_case spellings alike). */
function pick(raw: Json, ...keys: string[]): unknown {
  for (const key of keys) if (raw[key] !== undefined && raw[key] !== null) return raw[key];
  return undefined;
}

function text(value: unknown, fallback = ""): string {
  return typeof value === "string" ? value : typeof value === "number" ? String(value) : fallback;
}

function number(value: unknown, fallback: number): number {
  return typeof value === "number" && Number.isFinite(value) ? value : fallback;
}

const VERDICTS: Record<string, Verdict> = {
  exports: "exports",
  ok: "exports",
  pass: "exports",
  fails: "fails",
  fail: "fails",
  error: "fails",
  conditional: "conditional",
  "fails-when": "conditional",
  fails_when: "conditional",
  "fails-if": "conditional",
  unknown: "unknown",
};

function verdict(raw: unknown): { verdict: Verdict; condition?: string } {
  if (isObject(raw)) {
    const conditions = pick(raw, "conditions", "condition", "reason");
    const condition = Array.isArray(conditions) ? conditions.map((c) => text(c)).filter(Boolean).join("; ") : text(conditions);
    return { verdict: verdict(pick(raw, "verdict", "status", "state")).verdict, condition: condition || undefined };
  }
  return { verdict: VERDICTS[text(raw).toLowerCase()] ?? "unknown" };
}

function mode(key: string): Mode | undefined {
  const normal = key.toLowerCase().replace(/[_ ]/g, "-");
  if (normal === "strict") return "strict";
  if (normal === "non-strict" || normal === "nonstrict") return "non-strict";
  return undefined;
}

const CONFIRMATIONS: Record<string, ConfirmationState> = {
  never: "never",
  "never-run": "never",
  none: "never",
  running: "running",
  confirmed: "confirmed",
  refuted: "refuted",
  stale: "stale",
  error: "error",
};

function confirmation(raw: unknown): ConfirmationState {
  const value = isObject(raw) ? pick(raw, "state", "status") : raw;
  return CONFIRMATIONS[text(value).toLowerCase()] ?? "never";
}

function place(raw: unknown, path: string, prefix = ""): Place | undefined {
  if (!isObject(raw)) return undefined;
  const at = isObject(raw.location) && !prefix ? raw.location : raw;
  const line = number(pick(at, `${prefix}row`, `${prefix}line`), 0);
  if (line < 1) return undefined;
  return {
    path: text(pick(raw, "filename", "path", "file"), path),
    line,
    column: number(pick(at, `${prefix}column`, `${prefix}col`), 1),
  };
}

function severities(raw: unknown): Partial<Record<Mode, string>> {
  if (typeof raw === "string") return { "non-strict": raw, strict: raw };
  const out: Partial<Record<Mode, string>> = {};
  if (isObject(raw)) {
    for (const [key, value] of Object.entries(raw)) {
      const which = mode(key);
      if (which && typeof value === "string") out[which] = value;
    }
  }
  return out;
}

function finding(raw: unknown, path: string): ModelFinding | undefined {
  if (!isObject(raw)) return undefined;
  const file = text(pick(raw, "filename", "path", "file"), path);
  const start = place({ ...raw, filename: file }, file);
  if (!start) return undefined;
  const end =
    place({ filename: file, location: pick(raw, "end_location", "endLocation") }, file) ??
    place({ ...raw, filename: file }, file, "end_") ??
    start;
  const chain = Array.isArray(raw.chain)
    ? raw.chain.map((step) =>
        isObject(step)
          ? { label: text(pick(step, "label", "name", "function", "text"), "?"), place: place(step, file) }
          : { label: text(step, "?") },
      )
    : [];
  return {
    code: text(raw.code),
    message: text(raw.message),
    severity: severities(raw.severity),
    start,
    end,
    chain,
    confirmation: text(isObject(raw.confirmation) ? raw.confirmation.state : raw.confirmation) || undefined,
  };
}

/** One model from the server's JSON, or undefined when it names no file. */
export function readModel(raw: unknown): Model | undefined {
  if (!isObject(raw)) return undefined;
  const path = text(pick(raw, "path", "filename", "file"));
  if (!path) return undefined;
  const name = text(pick(raw, "name", "class"), "?");
  const verdicts: Model["verdicts"] = {};
  const conditions: Model["conditions"] = {};
  const perMode = pick(raw, "verdicts", "modes");
  if (isObject(perMode)) {
    for (const [key, value] of Object.entries(perMode)) {
      const which = mode(key);
      if (!which) continue;
      const read = verdict(value);
      verdicts[which] = read.verdict;
      if (read.condition) conditions[which] = read.condition;
    }
  } else if (raw.verdict !== undefined) {
    const read = verdict(raw.verdict);
    verdicts["non-strict"] = read.verdict;
    if (read.condition) conditions["non-strict"] = read.condition;
  }
  const configs = pick(raw, "export_config", "exportConfig");
  const declared = Array.isArray(configs) ? configs.find((c) => isObject(c) && typeof c.path === "string") : undefined;
  const script = declared ?? pick(raw, "exportScript", "export_script", "example");
  return {
    id: text(pick(raw, "id", "qualname", "qualifiedName", "qualified_name", "dotted")) || `${path}:${name}`,
    name,
    package: text(pick(raw, "package"), ""),
    path,
    line: number(pick(raw, "line", "row"), number(isObject(raw.location) ? pick(raw.location, "row", "line") : undefined, 1)),
    verdicts,
    conditions,
    findings: (Array.isArray(raw.findings) ? raw.findings : [])
      .map((f) => finding(f, path))
      .filter((f): f is ModelFinding => f !== undefined),
    confirmation: confirmation(raw.confirmation),
    confirmationSummary: isObject(raw.confirmation) ? text(raw.confirmation.summary) || undefined : undefined,
    exportScript: typeof script === "string" ? place({ path: script, line: 1 }, script) : place(script, path),
  };
}

/** The mode an answer was checked in (its `mode`), if it says. */
export function answerMode(raw: unknown): Mode | undefined {
  return isObject(raw) && typeof raw.mode === "string" ? mode(raw.mode) : undefined;
}

/** The models of a `xport-lint/models` answer: a list, or an object with a `models` list. */
export function readModels(raw: unknown): Model[] {
  const list = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw.models) ? raw.models : [];
  return list.map(readModel).filter((m): m is Model => m !== undefined);
}

/** The verdict shown for `mode`; a model judged in the other mode only shows that one. */
export function shownVerdict(model: Model, shown: Mode): Verdict {
  return model.verdicts[shown] ?? model.verdicts[shown === "strict" ? "non-strict" : "strict"] ?? "unknown";
}

/** A codicon and its theme colour per verdict; a confirmation by draft_export changes the icon. */
export function verdictIcon(model: Model, shown: Mode): { icon: string; color?: string } {
  if (model.confirmation === "running") return { icon: "sync~spin" };
  const judged = shownVerdict(model, shown);
  const color = {
    exports: "testing.iconPassed",
    fails: "testing.iconFailed",
    conditional: "list.warningForeground",
    unknown: undefined,
  }[judged];
  if (model.confirmation === "confirmed") return { icon: "verified-filled", color };
  if (model.confirmation === "refuted") return { icon: "circle-slash", color: "list.warningForeground" };
  const icon = { exports: "pass", fails: "error", conditional: "warning", unknown: "question" }[judged];
  return { icon, color };
}

const VERDICT_WORDS: Record<Verdict, string> = {
  exports: "exports",
  fails: "export fails",
  conditional: "fails only when a condition holds",
  unknown: "unknown",
};

const CONFIRMATION_WORDS: Record<ConfirmationState, string> = {
  never: "",
  running: "confirming with draft_export…",
  confirmed: "confirmed by draft_export",
  refuted: "draft_export disagrees",
  stale: "confirmation stale: the file changed",
  error: "the confirmation did not finish",
};

/** The short text beside a model: its verdict and confirmation state. */
export function describeModel(model: Model, shown: Mode): string {
  const judged = shownVerdict(model, shown);
  const words = judged === "conditional" && model.conditions[shown] ? `fails when ${model.conditions[shown]}` : VERDICT_WORDS[judged];
  const confirmed = CONFIRMATION_WORDS[model.confirmation];
  return confirmed ? `${words} · ${confirmed}` : words;
}

/** The tooltip: every mode's verdict, in words. */
export function modelTooltip(model: Model): string {
  const lines = [`${model.name} (${model.id})`];
  for (const which of ["non-strict", "strict"] as const) {
    const judged = model.verdicts[which];
    if (!judged) continue;
    const condition = model.conditions[which];
    lines.push(`${which}: ${VERDICT_WORDS[judged]}${condition ? ` (${condition})` : ""}`);
  }
  const confirmed = CONFIRMATION_WORDS[model.confirmation];
  if (confirmed) lines.push(model.confirmationSummary ? `${confirmed}: ${model.confirmationSummary}` : confirmed);
  return lines.join("\n");
}

export interface FileGroup {
  path: string;
  models: Model[];
}

export interface PackageGroup {
  /** "" for files outside any package */
  name: string;
  files: FileGroup[];
}

/** Models grouped by package then file, each level sorted by name, models in source order. */
export function groupModels(models: Model[]): PackageGroup[] {
  const packages = new Map<string, Map<string, Model[]>>();
  for (const model of models) {
    const files = packages.get(model.package) ?? new Map<string, Model[]>();
    packages.set(model.package, files);
    files.set(model.path, [...(files.get(model.path) ?? []), model]);
  }
  return [...packages.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([name, files]) => ({
      name,
      files: [...files.entries()]
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([path, inFile]) => ({ path, models: [...inFile].sort((a, b) => a.line - b.line) })),
    }));
}

export interface Counts {
  exports: number;
  fails: number;
  conditional: number;
  unknown: number;
}

export function countVerdicts(models: Model[], shown: Mode): Counts {
  const counts: Counts = { exports: 0, fails: 0, conditional: 0, unknown: 0 };
  for (const model of models) counts[shownVerdict(model, shown)]++;
  return counts;
}

/** The view's badge: the models whose export fails (none: no badge), and every count in words. */
export function badge(models: Model[], shown: Mode): { value: number; tooltip: string } | undefined {
  const counts = countVerdicts(models, shown);
  if (models.length === 0) return undefined;
  const tooltip =
    `${counts.fails} of ${models.length} model${models.length === 1 ? "" : "s"} fail to export (${shown}), ` +
    `${counts.conditional} fail under a condition, ${counts.exports} export, ${counts.unknown} unknown`;
  return counts.fails > 0 ? { value: counts.fails, tooltip } : undefined;
}
