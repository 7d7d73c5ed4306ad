// Which interpreter runs the server, found the way the Python tool extensions find theirs: the
// `xport-lint.interpreter` setting, then the Python extension's active interpreter, then an
// activated virtual environment (VIRTUAL_ENV), then a workspace `.venv`/`venv` that has
// xport-lint, then `python3` on PATH. In an untrusted workspace only what the user chose counts
// (their own setting, their environment): a workspace may not pick what runs. Pure: the sources
// are injected so the order is unit-tested without VS Code.

import { execFile } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";

export type InterpreterSource = "setting" | "python-extension" | "virtual-env" | "workspace-venv" | "path";

export interface Interpreter {
  path: string;
  source: InterpreterSource;
  /** Why this one, in words for the log and the interpreter picker. */
  reason: string;
}

export interface InterpreterSources {
  /** Whether the workspace is trusted: untrusted, the Python extension and workspace venvs are skipped. */
  trusted: boolean;
  /** The `xport-lint.interpreter` setting in effect ("" when unset; untrusted: the user's own value only). */
  setting: string;
  /** The Python extension's active interpreter, or undefined when it is absent or has none. */
  fromPythonExtension: () => Promise<string | undefined>;
  /** `VIRTUAL_ENV` of the environment VS Code was started from. */
  virtualEnv: string | undefined;
  /** The workspace folders' paths, searched for `.venv` and `venv`. */
  workspaceFolders: string[];
  /** Whether a file exists and may be executed. */
  isExecutable: (path: string) => Promise<boolean>;
  /** Whether xport-lint can be imported by this interpreter. */
  hasXportLint: (python: string) => Promise<boolean>;
  /** Looks a command up on PATH. */
  onPath: (command: string) => Promise<string | undefined>;
  platform?: NodeJS.Platform;
}

/** A virtual environment's interpreter: `bin/python`, or `Scripts\python.exe` on Windows. */
export function venvPython(venv: string, platform: NodeJS.Platform = process.platform): string {
  return platform === "win32" ? join(venv, "Scripts", "python.exe") : join(venv, "bin", "python");
}

export const WORKSPACE_VENVS = [".venv", "venv"];

/** Every interpreter the sources offer, in the order discovery tries them (duplicates included). */
async function* candidates(sources: InterpreterSources): AsyncGenerator<Interpreter> {
  if (sources.setting) {
    const whose = sources.trusted ? "the xport-lint.interpreter setting" : "your user-level xport-lint.interpreter setting";
    yield { path: sources.setting, source: "setting", reason: whose };
  }
  if (sources.trusted) {
    let fromExtension: string | undefined;
    try {
      fromExtension = await sources.fromPythonExtension();
    } catch {
      fromExtension = undefined; // a broken Python extension must not stop the linter
    }
    if (fromExtension) yield { path: fromExtension, source: "python-extension", reason: "the Python extension's active interpreter" };
  }
  if (sources.virtualEnv) {
    const python = venvPython(sources.virtualEnv, sources.platform);
    if (await sources.isExecutable(python)) {
      yield { path: python, source: "virtual-env", reason: `the activated virtual environment (VIRTUAL_ENV=${sources.virtualEnv})` };
    }
  }
  if (sources.trusted) {
    for (const folder of sources.workspaceFolders) {
      for (const name of WORKSPACE_VENVS) {
        const python = venvPython(join(folder, name), sources.platform);
        if (await sources.isExecutable(python)) {
          yield { path: python, source: "workspace-venv", reason: `the workspace's ${name}` };
        }
      }
    }
  }
  const found = await sources.onPath("python3");
  if (found) yield { path: found, source: "path", reason: "python3 on PATH" };
}

/**
 * The interpreter to run the server in. A setting, the Python extension's choice and an activated
 * venv are the user's choices and are taken as they are (a missing xport-lint is then reported);
 * a workspace venv is only a guess, taken when xport-lint is importable there.
 */
export async function resolveInterpreter(sources: InterpreterSources): Promise<Interpreter | undefined> {
  for await (const candidate of candidates(sources)) {
    if (candidate.source !== "workspace-venv") return candidate;
    if (await sources.hasXportLint(candidate.path)) return { ...candidate, reason: `${candidate.reason}, which has xport-lint` };
  }
  return undefined;
}

/** Every distinct interpreter discovery finds, for the "Select interpreter" picker. */
export async function listInterpreters(sources: InterpreterSources): Promise<Interpreter[]> {
  const seen = new Set<string>();
  const found: Interpreter[] = [];
  for await (const candidate of candidates(sources)) {
    if (seen.has(candidate.path)) continue;
    seen.add(candidate.path);
    found.push(candidate);
  }
  return found;
}

export type ServerStatus = "ok" | "missing-extra" | "not-installed";

/**
 * Runs `python -m xport_lint.server --check`: "ok" when the server can start there,
 * "missing-extra" (exit 3) when xport-lint is there without pygls/lsprotocol, else "not-installed".
 * Importing `xport_lint.server` alone succeeds without them, so it cannot tell.
 */
export function serverStatus(python: string, timeoutMs = 20000): Promise<ServerStatus> {
  return new Promise((resolve) => {
    execFile(python, ["-m", "xport_lint.server", "--check"], { timeout: timeoutMs }, (error) => {
      if (!error) resolve("ok");
      else resolve(typeof error.code === "number" && error.code === 3 ? "missing-extra" : "not-installed");
    });
  });
}

/** Whether `python` can import xport-lint's server package; finds it without importing it (fast). */
export function hasXportLint(python: string, timeoutMs = 20000): Promise<boolean> {
  const script = "import importlib.util, sys; sys.exit(importlib.util.find_spec('xport_lint.server') is None)";
  return new Promise((resolve) => {
    execFile(python, ["-c", script], { timeout: timeoutMs }, (error) => resolve(!error));
  });
}

export async function isExecutable(path: string): Promise<boolean> {
  try {
    await access(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** `which`: the first executable `command` on PATH. */
export async function which(command: string, path = process.env.PATH ?? ""): Promise<string | undefined> {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    const candidate = join(folder, command);
    if (await isExecutable(candidate)) return candidate;
  }
  return undefined;
}

/** The requirements of the server extra, installed into the interpreter that already has xport-lint. */
export const SERVER_REQUIREMENTS = ["pygls>=2.0,<3", "lsprotocol>=2025.0.0"];

export function installCommand(python: string): string {
  const quoted = /\s/.test(python) ? `"${python}"` : python;
  return `${quoted} -m pip install ${SERVER_REQUIREMENTS.map((r) => `"${r}"`).join(" ")}`;
}
