// Confirmation results per file, wherever the confirmation started (code lens, command, tree):
// the status bar shows the active file's, and a file's result is dropped when the file
// changes, so no result outlives the text it was about. Pure: no `vscode` import.

export interface ConfirmationResult {
  status?: string;
  summary?: string;
  exportOk?: boolean | null;
}

/** The params of `xport-lint/confirmationChanged` (docs/server-protocol.md). */
export interface ServerConfirmation {
  uri: string;
  state: "running" | "passed" | "failed" | "error" | "stale" | "none";
  status?: string;
  summary?: string;
  exportOk?: boolean | null;
}

export type FileConfirmation =
  | { state: "running"; model?: string }
  | { state: "done"; model?: string; result: ConfirmationResult };

export interface StatusView {
  text: string;
  tooltip: string;
  error: boolean;
}

export class Confirmations {
  private readonly byFile = new Map<string, FileConfirmation>();
  private readonly listeners: ((file: string) => void)[] = [];

  /** `listener(file)` after each change of a file's state; returns the way to stop listening. */
  onDidChange(listener: (file: string) => void): () => void {
    this.listeners.push(listener);
    return () => {
      const at = this.listeners.indexOf(listener);
      if (at >= 0) this.listeners.splice(at, 1);
    };
  }

  private changed(file: string): void {
    for (const listener of this.listeners) listener(file);
  }

  get(file: string): FileConfirmation | undefined {
    return this.byFile.get(file);
  }

  started(file: string, model?: string): void {
    this.byFile.set(file, { state: "running", model });
    this.changed(file);
  }

  finished(file: string, result: ConfirmationResult, model?: string): void {
    this.byFile.set(file, { state: "done", model, result });
    this.changed(file);
  }

  /** The file's text changed: its result no longer describes it. A running one stays. */
  edited(file: string): void {
    if (this.byFile.get(file)?.state !== "done") return;
    this.byFile.delete(file);
    this.changed(file);
  }

  /** No result for the file any more (the server says none, or stale). */
  forget(file: string): void {
    if (this.byFile.delete(file)) this.changed(file);
  }

  /**
   * A `xport-lint/confirmationChanged` from the server (however the confirmation started):
   * running, a result (passed, failed, error), or none (stale, forgotten).
   */
  fromServer(change: ServerConfirmation): void {
    const model = this.byFile.get(change.uri)?.model;
    if (change.state === "running") this.started(change.uri, model);
    else if (change.state === "passed" || change.state === "failed" || change.state === "error") {
      this.finished(change.uri, { status: change.status, summary: change.summary, exportOk: change.exportOk }, model);
    } else this.forget(change.uri);
  }

  clear(): void {
    const files = [...this.byFile.keys()];
    this.byFile.clear();
    for (const file of files) this.changed(file);
  }
}

/** What the status bar says about `state` of the file `name`; undefined: nothing confirmed here. */
export function confirmationStatus(state: FileConfirmation | undefined, name: string): StatusView | undefined {
  if (!state) return undefined;
  const what = state.model ? `${state.model} in ${name}` : name;
  if (state.state === "running") {
    return { text: "$(sync~spin) xport-lint: confirming", tooltip: `draft_export is running on ${what}`, error: false };
  }
  const { result } = state;
  if (result.status !== "ran") {
    return {
      text: "$(warning) xport-lint: not confirmed",
      tooltip: result.summary ?? `the confirmation of ${what} did not run`,
      error: false,
    };
  }
  const ok = result.exportOk === true;
  return {
    text: ok ? "$(pass) xport-lint: exports" : "$(error) xport-lint: export fails",
    tooltip: `${what}: ${result.summary ?? (ok ? "draft_export exported it" : "draft_export failed")}`,
    error: !ok,
  };
}
