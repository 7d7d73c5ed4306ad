// Settings: what the user set under `xport-lint.*`, and the camelCase object the server reads
// (server/xport_lint/server/settings.py mirrors it key for key). Pure: no `vscode` import, so
// the mapping is unit-tested in plain Node.

export interface ExtensionSettings {
  enable: boolean;
  select: string[];
  ignore: string[];
  strict: boolean | null;
  confirmTimeout: number;
  interpreter: string;
  traceServer: "off" | "messages" | "verbose";
}

export interface ServerSettings {
  enable: boolean;
  select?: string[];
  ignore?: string[];
  strict?: boolean;
  confirmTimeout: number;
  python?: string;
  trusted: boolean;
}

/** Reads one `xport-lint.<key>` value, with its default: `WorkspaceConfiguration.get` fits. */
export type ConfigGetter = <T>(key: string, fallback: T) => T;

const TRACE = new Set(["off", "messages", "verbose"]);

function codes(value: unknown): string[] {
  return Array.isArray(value) ? value.filter((v): v is string => typeof v === "string" && v.trim() !== "") : [];
}

export function readSettings(get: ConfigGetter): ExtensionSettings {
  const strict = get<boolean | null>("strict", null);
  const timeout = get<number>("confirm.timeout", 120);
  const trace = get<string>("trace.server", "off");
  return {
    enable: get<boolean>("enable", true) !== false,
    select: codes(get<unknown>("select", [])),
    ignore: codes(get<unknown>("ignore", [])),
    strict: typeof strict === "boolean" ? strict : null,
    confirmTimeout: typeof timeout === "number" && timeout > 0 ? timeout : 120,
    interpreter: (get<string>("interpreter", "") ?? "").trim(),
    traceServer: (TRACE.has(trace) ? trace : "off") as ExtensionSettings["traceServer"],
  };
}

/**
 * What the server is told. Empty lists and a null `strict` are left out, so the project's
 * `[tool.xport-lint]` decides; `python` is the interpreter confirmation runs in.
 */
export function toServerSettings(settings: ExtensionSettings, trusted: boolean, python?: string): ServerSettings {
  const out: ServerSettings = { enable: settings.enable, confirmTimeout: settings.confirmTimeout, trusted };
  if (settings.select.length > 0) out.select = settings.select;
  if (settings.ignore.length > 0) out.ignore = settings.ignore;
  if (settings.strict !== null) out.strict = settings.strict;
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
