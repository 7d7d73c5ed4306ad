// The "Export readiness" view: the workspace's models from the server's `xport-lint/models`,
// grouped by package and file, an icon per verdict, the failing count in the view's badge,
// findings as children (a click opens the line). Refreshed when the server says verdicts
// changed and while a confirmation runs, so its progress and result show live.

import * as path from "node:path";
import * as vscode from "vscode";
import type { LanguageClient } from "vscode-languageclient/node";
import type { Confirmations } from "./common/confirmations";
import {
  answerMode,
  badge,
  type ConfirmationState,
  describeModel,
  groupModels,
  type Mode,
  type Model,
  type ModelFinding,
  modelTooltip,
  readModels,
  verdictIcon,
} from "./common/models";

export const MODELS_REQUEST = "xport-lint/models";
export const MODELS_CHANGED = "xport-lint/modelsChanged";

export type Node =
  | { kind: "package"; name: string; models: Model[] }
  | { kind: "file"; uri: vscode.Uri; models: Model[] }
  | { kind: "model"; model: Model; uri: vscode.Uri }
  | { kind: "finding"; finding: ModelFinding; uri: vscode.Uri }
  | { kind: "step"; label: string; uri?: vscode.Uri; line?: number };

/** A path from the server: absolute, or relative to the answer's root or the first workspace folder. */
export function resolvePath(file: string, root?: string): vscode.Uri {
  if (path.isAbsolute(file)) return vscode.Uri.file(file);
  const base = root ?? vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? "";
  return vscode.Uri.file(path.join(base, file));
}

function openAt(uri: vscode.Uri, line: number, column = 1, endLine = line, endColumn = column): vscode.Command {
  const selection = new vscode.Range(line - 1, Math.max(column - 1, 0), endLine - 1, Math.max(endColumn - 1, 0));
  return { title: "Open", command: "vscode.open", arguments: [uri, { selection, preview: true }] };
}

export class ReadinessTree implements vscode.TreeDataProvider<Node>, vscode.Disposable {
  private models: Model[] = [];
  private root: string | undefined;
  /** the mode the server checked in, shown when the strict setting leaves it to the project */
  private checkedMode: Mode | undefined;
  private readonly changed = new vscode.EventEmitter<Node | undefined>();
  readonly onDidChangeTreeData = this.changed.event;
  readonly view: vscode.TreeView<Node>;
  private loading: Promise<void> | undefined;
  private readonly stopListening: () => void;

  constructor(
    private readonly client: () => LanguageClient | undefined,
    private readonly chosenMode: () => Mode | undefined,
    private readonly confirmations: Confirmations,
    private readonly output: vscode.LogOutputChannel,
  ) {
    this.view = vscode.window.createTreeView("xport-lint.readiness", { treeDataProvider: this, showCollapseAll: true });
    this.stopListening = confirmations.onDidChange(() => this.update());
  }

  /** The mode verdicts are shown for: the setting's, else the one the server checked in. */
  mode(): Mode {
    return this.chosenMode() ?? this.checkedMode ?? "non-strict";
  }

  dispose(): void {
    this.stopListening();
    this.view.dispose();
    this.changed.dispose();
  }

  /** Every model as last reported, with the confirmation state this session adds. */
  current(): Model[] {
    return this.models.map((model) => ({ ...model, confirmation: this.confirmationOf(model) }));
  }

  /** Asks the server again; concurrent calls share one request. */
  refresh(): Promise<void> {
    this.loading ??= this.load().finally(() => (this.loading = undefined));
    return this.loading;
  }

  private async load(): Promise<void> {
    const client = this.client();
    if (!client?.isRunning()) {
      this.models = [];
      this.view.message = "The xport-lint server is not running.";
      this.update();
      return;
    }
    try {
      const answer = await client.sendRequest<unknown>(MODELS_REQUEST, {});
      this.root = typeof (answer as { root?: unknown })?.root === "string" ? (answer as { root: string }).root : undefined;
      this.models = readModels(answer);
      this.checkedMode = answerMode(answer);
      this.view.message = this.models.length ? undefined : "No models found: no nn.Module class is exported or traced here.";
    } catch (error) {
      this.models = [];
      this.view.message = `The server did not list the models (${(error as Error).message ?? error}); it may be older than this extension.`;
      this.output.warn(`${MODELS_REQUEST}: ${error}`);
    }
    this.update();
  }

  private update(): void {
    this.view.badge = badge(this.current(), this.mode());
    this.changed.fire(undefined);
  }

  uriOf(model: Model): vscode.Uri {
    return resolvePath(model.path, this.root);
  }

  /** The server's state, or what a confirmation this session ran says when the server has none. */
  private confirmationOf(model: Model): ConfirmationState {
    const state = this.confirmations.get(this.uriOf(model).toString());
    if (!state || (state.model && state.model !== model.name)) return model.confirmation;
    if (state.state === "running") return "running";
    if (state.result.status !== "ran") return model.confirmation;
    // the server's state, when it has caught up with this result; until then, this result's
    if (model.confirmation === "confirmed" || model.confirmation === "refuted") return model.confirmation;
    const staticFails = Object.values(model.verdicts).some((v) => v === "fails" || v === "conditional");
    return (state.result.exportOk === false) === staticFails ? "confirmed" : "refuted";
  }

  getChildren(node?: Node): Node[] {
    if (!node) {
      const groups = groupModels(this.current());
      // one package (or none): its files at the top, as a flat project reads best
      if (groups.length === 1) return this.getChildren({ kind: "package", name: groups[0].name, models: this.current() });
      return groups.map((group) => ({ kind: "package", name: group.name, models: group.files.flatMap((f) => f.models) }));
    }
    switch (node.kind) {
      case "package":
        return groupModels(node.models)[0]?.files.map((file) => ({
          kind: "file",
          uri: this.uriOf(file.models[0]),
          models: file.models,
        })) ?? [];
      case "file":
        return node.models.map((model) => ({ kind: "model", model, uri: node.uri }));
      case "model":
        return node.model.findings.map((finding) => ({
          kind: "finding",
          finding,
          uri: finding.start.path === node.model.path ? node.uri : resolvePath(finding.start.path, this.root),
        }));
      case "finding":
        return node.finding.chain.length > 1
          ? node.finding.chain.map((step) => ({
              kind: "step",
              label: step.label,
              uri: step.place ? resolvePath(step.place.path, this.root) : undefined,
              line: step.place?.line,
            }))
          : [];
      case "step":
        return [];
    }
  }

  getTreeItem(node: Node): vscode.TreeItem {
    const collapsed = vscode.TreeItemCollapsibleState.Collapsed;
    const none = vscode.TreeItemCollapsibleState.None;
    const shown = this.mode();
    switch (node.kind) {
      case "package": {
        const item = new vscode.TreeItem(node.name || "(no package)", vscode.TreeItemCollapsibleState.Expanded);
        item.iconPath = new vscode.ThemeIcon("package");
        item.description = describeCounts(node.models, shown);
        return item;
      }
      case "file": {
        const item = new vscode.TreeItem(node.uri, vscode.TreeItemCollapsibleState.Expanded);
        item.description = describeCounts(node.models, shown);
        return item;
      }
      case "model": {
        const { model } = node;
        const item = new vscode.TreeItem(model.name, model.findings.length ? collapsed : none);
        const { icon, color } = verdictIcon(model, shown);
        item.id = `model:${model.id}`;
        item.iconPath = new vscode.ThemeIcon(icon, color ? new vscode.ThemeColor(color) : undefined);
        item.description = describeModel(model, shown);
        item.tooltip = modelTooltip(model);
        item.contextValue = model.findings.length ? "model.findings" : "model";
        item.command = openAt(node.uri, model.line);
        return item;
      }
      case "finding": {
        const { finding } = node;
        const item = new vscode.TreeItem(`${finding.code} ${finding.message}`, finding.chain.length > 1 ? collapsed : none);
        const severity = finding.severity[shown] ?? finding.severity["non-strict"] ?? finding.severity.strict;
        const icon = severity === "error" ? "error" : severity === "warning" ? "warning" : "info";
        item.iconPath = new vscode.ThemeIcon(icon);
        item.description = `${path.basename(node.uri.fsPath)}:${finding.start.line}`;
        item.tooltip = finding.confirmation ? `${finding.message}\n(${finding.confirmation} by draft_export)` : finding.message;
        item.contextValue = "finding";
        item.command = openAt(node.uri, finding.start.line, finding.start.column, finding.end.line, finding.end.column);
        return item;
      }
      case "step": {
        const item = new vscode.TreeItem(node.label, none);
        item.iconPath = new vscode.ThemeIcon("arrow-small-right");
        if (node.uri && node.line) {
          item.description = `${path.basename(node.uri.fsPath)}:${node.line}`;
          item.command = openAt(node.uri, node.line);
        }
        return item;
      }
    }
  }
}

function describeCounts(models: Model[], shown: Mode): string {
  const fails = models.filter((m) => (m.verdicts[shown] ?? m.verdicts["non-strict"]) === "fails").length;
  return fails ? `${fails} of ${models.length} fail` : `${models.length} model${models.length === 1 ? "" : "s"}`;
}
