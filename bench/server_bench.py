"""Language-server figures for bench/RESULTS.md: start-up against a bare pygls server,
edit-to-diagnostics latency on real model files, and memory with 50 large files open.

The server runs with its default settings (no initializationOptions), so the latencies include
its debounce, as a user sees them.

Usage: .venv/bin/python bench/server_bench.py [--edits N] [--open N] [--startups N]
(after bash bench/fetch_corpus.sh; writes bench/results/server.json)
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

from figures import begin, write_results
from lsprotocol import types
from pygls.lsp.client import LanguageClient

HERE = Path(__file__).parent
SRC = HERE / "corpus" / "src"
SERVER = [sys.executable, "-m", "xport_lint.server"]
MINIMAL = [sys.executable, str(HERE / "minimal_server.py")]
CAPABILITIES = types.ClientCapabilities(
    text_document=types.TextDocumentClientCapabilities(
        publish_diagnostics=types.PublishDiagnosticsClientCapabilities(version_support=True)
    )
)


class Client(LanguageClient):
    def __init__(self) -> None:
        super().__init__("bench", "0")
        self.published: dict[str, tuple[int | None, float]] = {}
        self.arrived = asyncio.Event()

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def on_publish(client: Client, params: types.PublishDiagnosticsParams) -> None:
            client.published[params.uri] = (params.version, time.perf_counter())
            client.arrived.set()

        @self.feature(types.WINDOW_LOG_MESSAGE)
        def on_log(client: Client, params: types.LogMessageParams) -> None:
            pass


async def start(command: list[str]) -> tuple[Client, float]:
    client = Client()
    began = time.perf_counter()
    await client.start_io(*command)
    await client.initialize_async(
        types.InitializeParams(
            capabilities=CAPABILITIES, root_uri=SRC.as_uri()
        )
    )
    elapsed = time.perf_counter() - began
    client.initialized(types.InitializedParams())
    return client, elapsed


async def stop(client: Client) -> None:
    await client.shutdown_async(None)
    client.exit(None)
    await client.stop()


async def startup(command: list[str], runs: int) -> float:
    times = []
    for _ in range(runs):
        client, elapsed = await start(command)
        times.append(elapsed)
        await stop(client)
    return statistics.median(times)


async def wait_version(client: Client, uri: str, version: int) -> float:
    while client.published.get(uri, (None, 0.0))[0] != version:
        client.arrived.clear()
        await asyncio.wait_for(client.arrived.wait(), 60)
    return client.published[uri][1]


async def edit_latency(path: Path, edits: int) -> dict[str, object]:
    client, _ = await start(SERVER)
    text = path.read_text(encoding="utf-8")
    uri = path.as_uri()
    client.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(uri=uri, language_id="python", version=1, text=text)
        )
    )
    await wait_version(client, uri, 1)
    lines = text.splitlines(keepends=True)
    target = next(i for i in range(len(lines) // 2, len(lines)) if lines[i].startswith("        ") and lines[i].strip())
    latencies = []
    for n in range(edits):
        version = n + 2
        # a keystroke inside a method body: append a character to a comment on that line
        lines[target] = lines[target].rstrip("\n") + ("  #" if n == 0 else "x") + "\n"
        began = time.perf_counter()
        client.text_document_did_change(
            types.DidChangeTextDocumentParams(
                text_document=types.VersionedTextDocumentIdentifier(uri=uri, version=version),
                content_changes=[types.TextDocumentContentChangeWholeDocument(text="".join(lines))],
            )
        )
        latencies.append(await wait_version(client, uri, version) - began)
    await stop(client)
    return {
        "file": str(path.relative_to(SRC)),
        "lines": len(lines),
        "median_ms": 1000 * statistics.median(latencies),
        "first_edit_ms": 1000 * latencies[0],
        "max_ms": 1000 * max(latencies),
        "edits": edits,
    }


async def memory(paths: list[Path]) -> float:
    client, _ = await start(SERVER)
    for path in paths:
        client.text_document_did_open(
            types.DidOpenTextDocumentParams(
                text_document=types.TextDocumentItem(
                    uri=path.as_uri(), language_id="python", version=1, text=path.read_text(encoding="utf-8")
                )
            )
        )
    for path in paths:
        await wait_version(client, path.as_uri(), 1)
    pid = client._server.pid  # type: ignore[union-attr]
    # the server lints in a child process, which holds the parsed trees: count the whole tree
    rss_kb = sum(_rss_kb(p) for p in _process_tree(pid))
    await stop(client)
    return rss_kb / 1024


def _process_tree(pid: int) -> list[int]:
    # children are listed per thread: the lint child is started from a worker thread
    kids = [int(c) for task in Path(f"/proc/{pid}/task").iterdir() for c in (task / "children").read_text().split()]
    return [pid, *(p for kid in kids for p in _process_tree(kid))]


def _rss_kb(pid: int) -> int:
    status = Path(f"/proc/{pid}/status").read_text().splitlines()
    return next(int(line.split()[1]) for line in status if line.startswith("VmRSS"))


def default_debounce_ms() -> float:
    """The debounce a client gets when it sets none, read from the server itself."""
    from xport_lint.server.app import XportLanguageServer

    return XportLanguageServer().debounce * 1000


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--edits", type=int, default=15, help="keystrokes per file")
    parser.add_argument("--open", type=int, default=50, help="largest files opened for the memory figure")
    parser.add_argument("--startups", type=int, default=7)
    args = parser.parse_args()
    stamp = begin("server")
    files = [SRC / p for p in (HERE / "corpus" / "files.txt").read_text().split()]
    sizes = {p: p.read_text(encoding="utf-8").count("\n") for p in files}
    around_500 = min(files, key=lambda p: abs(sizes[p] - 500))
    largest = max(files, key=lambda p: sizes[p])
    results = {
        "debounce_ms": default_debounce_ms(),
        "default_settings": True,
        "startups": args.startups,
        "startup_minimal_pygls_s": await startup(MINIMAL, args.startups),
        "startup_xport_lint_s": await startup(SERVER, args.startups),
        "edit_500_lines": await edit_latency(around_500, args.edits),
        "edit_largest": await edit_latency(largest, args.edits),
        "opened": args.open,
        "rss_mb": await memory(sorted(files, key=lambda p: -sizes[p])[: args.open]),
    }
    full = args.edits >= 15 and args.open >= 50 and args.startups >= 7
    reduced = None if full else f"{args.edits} edits, {args.open} files open, {args.startups} start-ups"
    print(write_results("server", stamp, results, reduced))
    print(json.dumps(results, indent=2))


if __name__ == "__main__":
    asyncio.run(main())
