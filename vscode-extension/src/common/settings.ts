// Settings: what the user set under `xport-lint.*`, and the camelCase object the server reads
// (server/xport_lint/server/settings.py mirrors it key for key). Pure: no `vscode` import, so
// the mapping is unit-tested in plain Node.

/** `xport-lint.strict`: the project's `[tool.xport-lint]` decides, or the user picks a mode. */
export type StrictSetting = "project" | "non-strict" | "strict";
/** `xport-lint.codeLens`: a lens above every model class, at most one per file (the model to confirm), or none. */
export type CodeLensSetting = "all" | "failing" | "off";

export interface ExtensionSettings {
  enable: boolean;
  select: string[];
  extendSelect: string[];
  ignore: string[];
  strict: StrictSetting;
  severity: Record<string, string>;
  codeLens: CodeLensSetting;
  /** "2.14": the torch version findings speak for; "": the project's, else the installed torch */
  targetTorch: string;
  confirmTimeout: number;
  /** GiB; null: the server's default (half the machine's memory), 0: no cap */
  confirmMemoryGb: number | null;
  interpreter: string;
  traceServer: "off" | "messages" | "verbose";
}

export interface ServerSettings {
  enable: boolean;
  select?: string[];
  extendSelect?: string[];
  ignore?: string[];
  strict?: boolean;
  severity?: Record<string, string>;
  codeLens: CodeLensSetting;
  targetTorch?: string;
  confirmTimeout: number;
  confirmMemoryGb?: number;
  python?: string;
  trusted: boolean;
}

/** Reads one `xport-lint.<key>` value, with its default: `WorkspaceConfiguration.get` fits. */
export type ConfigGetter = <T>(key: string, fallback: T) => T;

const TRACE = new Set(["off", "messages", "verbose"]);

function codes(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v.trim() !== "") : [];
}

const SEVERITIES = new Set(["error", "warning", "info"]);
const LENSES = new Set(["all", "failing", "off"]);

/** The strict setting; `true`/`false`/`null` are what earlier versions stored. */
function strictSetting(value: unknown): StrictSetting {
  if (value === true || value === "strict") return "strict";
  if (value === false || value === "non-strict") return "non-strict";
  return "project";
}

function severities(value: unknown): Record<string, string> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return {};
  return Object.fromEntries(
    Object.entries(value).filter((entry): entry is [string, string] => typeof entry[1] === "string" && SEVERITIES.has(entry[1])),
  );
}

export function readSettings(get: ConfigGetter): ExtensionSettings {
  const timeout = get<number>("confirm.timeout", 120);
  const memory = get<number | null>("confirm.memoryGb", null);
  const trace = get<string>("trace.server", "off");
  const lens = get<string>("codeLens", "failing");
  return {
    enable: get<boolean>("enable", true) !== false,
    select: codes(get<unknown>("select", [])),
    extendSelect: codes(get<unknown>("extendSelect", [])),
    ignore: codes(get<unknown>("ignore", [])),
    strict: strictSetting(get<unknown>("strict", "project")),
    severity: severities(get<unknown>("severity", {})),
    codeLens: (LENSES.has(lens) ? lens : "failing") as CodeLensSetting,
    targetTorch: /^\d+\.\d+(\.\d+)?$/.test((get<string>("targetTorch", "") ?? "").trim()) ? get<string>("targetTorch", "").trim() : "",
    confirmTimeout: typeof timeout === "number" && timeout > 0 ? timeout : 120,
    confirmMemoryGb: typeof memory === "number" && memory >= 0 ? memory : null,
    interpreter: (get<string>("interpreter", "") ?? "").trim(),
    traceServer: (TRACE.has(trace) ? trace : "off") as ExtensionSettings["traceServer"],
  };
}

/**
 * What the server is told. Empty lists and `strict: "project"` are left out, so the project's
 * `[tool.xport-lint]` decides; `python` is the interpreter confirmation runs in.
 */
export function toServerSettings(settings: ExtensionSettings, trusted: boolean, python?: string): ServerSettings {
  const out: ServerSettings = {
    enable: settings.enable,
    codeLens: settings.codeLens,
    confirmTimeout: settings.confirmTimeout,
    trusted,
  };
  if (settings.select.length > 0) out.select = settings.select;
  if (settings.extendSelect.length > 0) out.extendSelect = settings.extendSelect;
  if (settings.ignore.length > 0) out.ignore = settings.ignore;
  if (settings.strict !== "project") out.strict = settings.strict === "strict";
  if (Object.keys(settings.severity).length > 0) out.severity = settings.severity;
  if (settings.confirmMemoryGb !== null) out.confirmMemoryGb = settings.confirmMemoryGb;
  if (settings.targetTorch) out.targetTorch = settings.targetTorch;
  if (python) out.python = python;
  return out;
}

/** Changing these needs a new server process; the rest applies live. */
export function needsRestart(before: ExtensionSettings, after: ExtensionSettings): boolean {
  return before.interpreter !== after.interpreter;
}

/** The scopes of one setting, as `WorkspaceConfiguration.inspect` reports them. */
export interface SettingScopes<T> {
  globalValue?: T;
  workspaceValue?: T;
  workspaceFolderValue?: T;
}

export interface InterpreterSetting {
  /** The path to use ("" when none). */
  value: string;
  /** A workspace's value that Restricted Mode keeps from running, to say so in the log. */
  ignored?: string;
}

/**
 * `xport-lint.interpreter` in effect. Trusted: the most specific scope. Untrusted: only the
 * user's own (global) value, since a workspace may not choose what runs on the user's machine.
 */
export function interpreterSetting(scopes: SettingScopes<string> | undefined, trusted: boolean): InterpreterSetting {
  const clean = (value: unknown) => (typeof value === "string" ? value.trim() : "");
  const user = clean(scopes?.globalValue);
  const workspace = clean(scopes?.workspaceFolderValue) || clean(scopes?.workspaceValue);
  if (trusted) return { value: workspace || user };
  return workspace && workspace !== user ? { value: user, ignored: workspace } : { value: user };
}
