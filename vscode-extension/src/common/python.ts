// Which interpreter runs the server: an explicit `xport-lint.interpreter`, else the Python
// extension's active environment, else `python3` on PATH. Pure: the sources are injected so
// the order is unit-tested without VS Code.

import { execFile } from "node:child_process";
import { access, constants } from "node:fs/promises";
import { delimiter, join } from "node:path";

export type InterpreterSource = "setting" | "python-extension" | "path";

export interface Interpreter {
  path: string;
  source: InterpreterSource;
}

export interface InterpreterSources {
  /** The `xport-lint.interpreter` setting ("" when unset; ignored in untrusted workspaces). */
  setting: string;
  /** The Python extension's active interpreter, or undefined when it is absent or has none. */
  fromPythonExtension: () => Promise<string | undefined>;
  /** Looks a command up on PATH. */
  onPath: (command: string) => Promise<string | undefined>;
}

export async function resolveInterpreter(sources: InterpreterSources): Promise<Interpreter | undefined> {
  if (sources.setting) {
    return { path: sources.setting, source: "setting" };
  }
  let fromExtension: string | undefined;
  try {
    fromExtension = await sources.fromPythonExtension();
  } catch {
    fromExtension = undefined; // a broken Python extension must not stop the linter
  }
  if (fromExtension) {
    return { path: fromExtension, source: "python-extension" };
  }
  const found = await sources.onPath("python3");
  return found ? { path: found, source: "path" } : undefined;
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

/** `which`: the first executable `command` on PATH. */
export async function which(command: string, path = process.env.PATH ?? ""): Promise<string | undefined> {
  for (const folder of path.split(delimiter).filter(Boolean)) {
    const candidate = join(folder, command);
    try {
      await access(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here: try the next folder
    }
  }
  return undefined;
}

/** The requirements of the server extra, installed into the interpreter that already has xport-lint. */
export const SERVER_REQUIREMENTS = ["pygls>=2.0,<3", "lsprotocol>=2025.0.0"];

export function installCommand(python: string): string {
  const quoted = /\s/.test(python) ? `"${python}"` : python;
  return `${quoted} -m pip install ${SERVER_REQUIREMENTS.map((r) => `"${r}"`).join(" ")}`;
}
