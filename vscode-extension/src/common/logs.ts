// Quiet logs: what the server's JSON-RPC library says about routine events (a cancel arriving
// after its request finished, a notification it does not handle) is not the user's concern
// and buried real messages in the output channel. Those lines are dropped; the rest passes.

import type * as vscode from "vscode";

export const NOISE = [
  /Cancel notification for unknown message id/,
  /Ignoring notification for unknown method/,
];

/** `text` without its noise lines ("" when nothing is left). */
export function withoutNoise(text: string): string {
  const lines = text.split(/(?<=\n)/);
  return lines.filter((line) => !NOISE.some((pattern) => pattern.test(line))).join("");
}

/** An output channel that drops the noise lines written to `channel` and forwards the rest. */
export function quiet(channel: vscode.LogOutputChannel): vscode.LogOutputChannel {
  const filtered = new Set(["append", "appendLine", "trace", "debug", "info", "warn", "error"]);
  return new Proxy(channel, {
    get(target, key, receiver) {
      const value = Reflect.get(target, key, receiver);
      if (typeof key !== "string" || !filtered.has(key) || typeof value !== "function") {
        return typeof value === "function" ? value.bind(target) : value;
      }
      return (message: unknown, ...rest: unknown[]) => {
        if (typeof message !== "string") return value.call(target, message, ...rest);
        const kept = withoutNoise(message);
        if (kept.trim() !== "" || message.trim() === "") value.call(target, kept, ...rest);
      };
    },
  });
}
