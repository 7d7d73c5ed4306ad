"""How often an error on library code is right: a seeded random sample of the corpus's errors,
each judged by reading its code, with the verdict and the reason recorded in
bench/precision_verdicts.json (judged by hand; this script only samples and counts).

Usage: .venv/bin/python bench/precision.py sample SEED WARNING_SEED   # writes bench/precision_sample.json
       (judge every drawn error that has no verdict yet, in bench/precision_verdicts.json)
       .venv/bin/python bench/precision.py score    # writes bench/results/precision.json

Held out: `--held-out` before the command does the same on model code of libraries the engine was
never tuned on (bench/heldout_wheels.txt, pinned; `precision.py fetch` downloads and unpacks them
into bench/heldout/src), with its own sample, verdicts and history files (`*_heldout.json`) and
bench/results/precision_heldout.json. Every file of those packages is checked, as a user who lints
a library's whole tree would.

A second held-out set: `--held-out-2` does the same on other libraries (bench/heldout2_wheels.txt:
speech, graph, protein, tabular, geospatial, self-supervised and forecasting model code), unpacked
into bench/heldout2/src, with `*_heldout2.json` files and bench/results/precision_heldout2.json;
its first sample was drawn once, on a committed engine, and judged before any fix.

A third held-out set: `--held-out-3` does the same on libraries of yet other domains
(bench/heldout3_wheels.txt: promptable segmentation, LLM fine-tuning, music source separation,
medical segmentation, equivariant networks, neural forecasting, speaker diarization and
latent-array attention), unpacked into bench/heldout3/src, with `*_heldout3.json` files and
bench/results/precision_heldout3.json; drawn once, on a committed engine, and judged before any fix.

Each sample takes fresh seeds (recorded in the sample), so a figure is not tuned to the draw the
engine was last fixed against. `score` keeps every scored sample in bench/precision_history.json
(its commit, seeds and counts), so a sample drawn before fixes stays on record beside the one
drawn after them.

In-sample: the engine's wrong verdicts were fixed against this same corpus. A sample drawn on
an engine other than the committed one (fixes landed after the draw) is scored as the figures of
the commit it was drawn on, stamped with that commit, so the rendered block says they are not
verified against the current code: the figure before fixing stays honest, and an after figure
needs a sample drawn on the fixed engine.

Warnings are sampled the same way (WARNING_SIZE of them, their own seed) and judged, under the
key `warning <id>`, "useful" or "noise": useful means the graph a default export builds differs
from eager as the warning says, or the export fails under the condition it names, in a way a
user deploying the model would want to know (a log of Python values, per-call scratch state
or code only training runs is not).

Right means: the test reads tensor data (not a Python value or a static size) on a path a
default export takes (an `.eval()` module, non-strict, fp32, only the example's arguments).

The files checked are the corpus's (bench/corpus/files.txt, the speed benchmark's list) and,
beside them, transformers' `configuration_*.py`: a user checks a model's whole package, and the
defaults of its configuration switches live there (the speed list leaves them out, as the
conventions pin it; they hold no traced code, so they add no findings of their own).
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from figures import BENCHMARKS, begin, git, write_results

HERE = Path(__file__).parent
SIZE = 60
WARNING_SIZE = 40


@dataclass(frozen=True)
class Corpus:
    """Where a precision sample is drawn from, and the files its draws and verdicts are kept in."""

    #: the benchmark's name (bench/results/<name>.json)
    name: str
    src: Path
    sample: Path
    verdicts: Path
    history: Path
    #: the pinned wheels `fetch` unpacks into `src` (None: the corpus of bench/fetch_corpus.sh)
    wheels: Path | None = None

    def files(self) -> list[str]:
        """The files checked, relative to `src`."""
        if self.name == "precision":
            files = (HERE / "corpus" / "files.txt").read_text().split()
            return files + sorted(str(path) for path in Path().glob("transformers/models/*/configuration_*.py"))
        return sorted(str(path) for path in Path().rglob("*.py"))


CORPUS = Corpus("precision", HERE / "corpus" / "src", HERE / "precision_sample.json",
                HERE / "precision_verdicts.json", HERE / "precision_history.json")
HELD_OUT = Corpus("precision_heldout", HERE / "heldout" / "src", HERE / "precision_sample_heldout.json",
                  HERE / "precision_verdicts_heldout.json", HERE / "precision_history_heldout.json",
                  HERE / "heldout_wheels.txt")
HELD_OUT_2 = Corpus("precision_heldout2", HERE / "heldout2" / "src", HERE / "precision_sample_heldout2.json",
                    HERE / "precision_verdicts_heldout2.json", HERE / "precision_history_heldout2.json",
                    HERE / "heldout2_wheels.txt")
HELD_OUT_3 = Corpus("precision_heldout3", HERE / "heldout3" / "src", HERE / "precision_sample_heldout3.json",
                    HERE / "precision_verdicts_heldout3.json", HERE / "precision_history_heldout3.json",
                    HERE / "heldout3_wheels.txt")
#: the option before the command that picks a held-out set
HELD_OUT_SETS = {"--held-out": HELD_OUT, "--held-out-2": HELD_OUT_2, "--held-out-3": HELD_OUT_3}


def fetch(corpus: Corpus) -> None:
    """Download a held-out set's wheels (its pinned list, no dependencies) and unpack their
    Python files into its `src`."""
    wheels = corpus.src.parent / "wheels"
    subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--quiet", "--dest", str(wheels),
                    "-r", str(corpus.wheels)], check=True)
    for wheel in sorted(wheels.glob("*.whl")):
        with zipfile.ZipFile(wheel) as unpacked:
            for member in unpacked.namelist():
                if member.endswith(".py") and ".dist-info/" not in member:
                    unpacked.extract(member, corpus.src)
    print(f"{sum(1 for _ in corpus.src.rglob('*.py'))} files in {corpus.src}")


def sample(corpus: Corpus, seed: int, warning_seed: int) -> None:
    import os

    stamp = begin(corpus.name)

    sys.path.insert(0, str(HERE.parent / "analyzers"))
    from xport_lint.analyzers.cache import Cache
    from xport_lint.analyzers.config import Config
    from xport_lint.analyzers.project import check_project

    os.chdir(corpus.src)
    checked = check_project(corpus.files(), Config(), Cache(HERE / ".cache" / corpus.name), None)
    errors = [
        (r.path, f) for r in checked.results for f in r.findings
        if f.severity.value == "error" and f.code != "XPT000" and not f.internal
    ]
    warnings = [(r.path, f) for r in checked.results for f in r.findings if f.severity.value == "warning"]
    out = _drawn(random.Random(seed).sample(errors, min(SIZE, len(errors))))
    warned = _drawn(random.Random(warning_seed).sample(warnings, min(WARNING_SIZE, len(warnings))))
    every = sorted(f"{path}:{f.span.start.line}:{f.code}" for path, f in errors)
    drawn = {
        "stamp": stamp, "seed": seed, "warning_seed": warning_seed, "errors_in_corpus": len(errors),
        "errors": every, "sample": out, "warnings_in_corpus": len(warnings), "warnings": warned,
    }
    corpus.sample.write_text(json.dumps(drawn, indent=2) + "\n")
    print(f"{len(errors)} errors, {len(warnings)} warnings; sampled {len(out)} and {len(warned)} into "
          f"{corpus.sample.name}")


def _drawn(chosen: list) -> list[dict[str, str]]:
    """Each drawn finding with its message and the lines around it, in file order."""
    out = []
    for path, finding in sorted(chosen, key=lambda pf: (pf[0], pf[1].span.start)):
        lines = Path(path).read_text(encoding="utf-8").splitlines()
        line = finding.span.start.line
        out.append(
            {
                "id": f"{path}:{line}:{finding.code}",
                "message": finding.message,
                "code": "\n".join(
                    f"{n}: {lines[n - 1]}" for n in range(max(1, line - 4), min(len(lines), line + 2) + 1)
                ),
            }
        )
    return out


def warning_key(finding: str) -> str:
    """A warning's key in the verdicts file (the same line may have been judged as an error)."""
    return f"warning {finding}"


def score(corpus: Corpus) -> None:
    stamp = begin(corpus.name)
    drawn = json.loads(corpus.sample.read_text())
    verdicts_path = f"bench/{corpus.verdicts.name}"
    engine = [p for p in BENCHMARKS[corpus.name].paths if p != verdicts_path]
    drawn_on = drawn.get("stamp")
    if drawn_on is None:
        sys.exit("the sample has no stamp (drawn by an older script): run `sample` again")
    uncommitted = [path for path in drawn_on["dirty"] if path != verdicts_path]
    if uncommitted:
        sys.exit(f"the sample was drawn with uncommitted changes to {', '.join(uncommitted[:3])}: run `sample` again")
    earlier = bool(git("diff", "--name-only", drawn_on["commit"], "HEAD", "--", *engine))
    if earlier:
        print(f"the sample was drawn on {drawn_on['commit'][:7]}, before the committed engine: scored as "
              f"{drawn_on['commit'][:7]}'s figures", file=sys.stderr)
    verdicts = json.loads(corpus.verdicts.read_text()) if corpus.verdicts.exists() else {}
    judged = [verdicts[item["id"]] for item in drawn["sample"] if item["id"] in verdicts]
    every = [verdicts[error] for error in drawn["errors"] if error in verdicts]
    figures = {
        "commit": drawn_on["commit"],
        "errors_in_corpus": drawn["errors_in_corpus"],
        "seed": drawn["seed"],
        "sampled": len(drawn["sample"]),
        "judged": len(judged),
        "right": sum(v["verdict"] == "right" for v in judged),
        "all_judged": len(every),
        "all_right": sum(v["verdict"] == "right" for v in every),
    }
    warned = [verdicts[key] for item in drawn.get("warnings", []) if (key := warning_key(item["id"])) in verdicts]
    if "warnings" in drawn:
        figures |= {
            "warnings_in_corpus": drawn["warnings_in_corpus"],
            "warning_seed": drawn["warning_seed"],
            "warnings_sampled": len(drawn["warnings"]),
            "warnings_judged": len(warned),
            "warnings_useful": sum(v["verdict"] == "useful" for v in warned),
        }
    warning_keys = [warning_key(item["id"]) for item in drawn.get("warnings", [])]
    for key in [*(item["id"] for item in drawn["sample"]), *warning_keys]:
        if key not in verdicts:
            print(f"no verdict yet: {key}", file=sys.stderr)
    history = [old for old in _history(corpus) if (old["commit"], old["seed"]) != (figures["commit"], figures["seed"])]
    history.append(figures)
    corpus.history.write_text(json.dumps(history, indent=2) + "\n")
    if earlier:
        # the figures of the engine the sample was drawn on: its stamp (the rendered block says
        # the measured paths changed since)
        target = HERE / "results" / f"{corpus.name}.json"
        result = {"stamp": {**drawn_on, "reduced": None}, "figures": figures | {"samples": history}}
        target.write_text(json.dumps(result, indent=2) + "\n")
        print(target)
    else:
        print(write_results(corpus.name, stamp, figures | {"samples": history}))
    print(json.dumps(figures, indent=2))


def _history(corpus: Corpus) -> list[dict]:
    """Every sample scored so far, oldest first."""
    return json.loads(corpus.history.read_text()) if corpus.history.exists() else []


if __name__ == "__main__":
    arguments = sys.argv[1:]
    chosen = HELD_OUT_SETS.get(arguments[0], CORPUS)
    arguments = arguments[1:] if chosen is not CORPUS else arguments
    if arguments[0] == "fetch":
        # a bare `fetch` is the first held-out set's, as before the second existed
        fetch(HELD_OUT if chosen is CORPUS else chosen)
    elif arguments[0] == "sample":
        sample(chosen, int(arguments[1]), int(arguments[2]))
    else:
        score(chosen)
