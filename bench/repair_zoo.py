"""`xport-lint repair` on real library models that fail torch.export: tiny configurations from
bench/zoo_models.py, each exported with a `dynamic_shapes` of its own (static, named `Dim`,
`Dim.AUTO`), repaired with the library allowed (`--allow PACKAGE`, a scratch copy of it).

Usage:
  python bench/repair_zoo.py --python bench/.venv-zoo/bin/python [--only NAME ...]

The zoo interpreter: torch, torchvision, transformers, timm and diffusers (bench/RESULTS.md says
which versions were measured). Recorded per case: the failure before, whether it exports after
the repair, whether its dynamic dims stayed dynamic, whether the outputs equal eager on the
example and on a second size, the steps kept and rejected, and the blocker left.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from figures import begin, write_results

HERE = Path(__file__).resolve().parent
REPO = HERE.parent


@dataclass(frozen=True)
class Case:
    model: str
    #: Python source of the `dynamic_shapes` (None: static), `Dim` in scope
    shapes: str | None
    #: the library whose code fails, repaired in a copy
    allow: str
    #: Python source of the config settings the case's own code passes (`experts_implementation="eager"`)
    switches: str = ""


CASES = {
    "fasterrcnn_mobilenet static": Case("torchvision/fasterrcnn_mobilenet", None, "torchvision"),
    "ssdlite static": Case("torchvision/ssdlite", None, "torchvision"),
    "longformer static": Case("transformers/longformer", None, "transformers"),
    "mixtral seq Dim": Case("transformers/mixtral", '({1: Dim("seq", min=2, max=64)},)', "transformers"),
    "qwen2-moe seq Dim": Case("transformers/qwen2-moe", '({1: Dim("seq", min=2, max=64)},)', "transformers"),
    "reformer seq Dim": Case("transformers/reformer", '({1: Dim("seq", min=2, max=64)},)', "transformers"),
    "big-bird seq Dim": Case("transformers/big-bird", '({1: Dim("seq", min=2, max=64)},)', "transformers"),
    "funnel seq Dim": Case("transformers/funnel", '({1: Dim("seq", min=2, max=64)},)', "transformers"),
    "jamba seq Dim": Case("transformers/jamba", '({1: Dim("seq", min=2, max=64)},)', "transformers"),
    "vit_tiny image Dim": Case(
        "timm/vit_tiny", '({2: Dim("h", min=32, max=512), 3: Dim("w", min=32, max=512)},)', "timm"
    ),
    "unet2d image Dim": Case(
        "diffusers/unet2d", '({2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}, None)', "diffusers"
    ),
    # the mixture-of-experts loop over `expert_hit`, which only the "eager" experts run
    "mixtral eager experts static": Case(
        "transformers/mixtral", None, "transformers", 'experts_implementation="eager"'
    ),
    "qwen2-moe eager experts static": Case(
        "transformers/qwen2-moe", None, "transformers", 'experts_implementation="eager"'
    ),
    "wav2vec2 audio Dim": Case("transformers/wav2vec2", '({1: Dim("samples", min=400, max=4000)},)', "transformers"),
    "vit image Dim": Case(
        "transformers/vit", '({2: Dim("h", min=16, max=128), 3: Dim("w", min=16, max=128)},)', "transformers"
    ),
    "mamba seq Dim": Case("transformers/mamba", '({1: Dim("seq", min=2, max=64)},)', "transformers"),
    "convnext_atto image Dim": Case(
        "timm/convnext_atto", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "timm"
    ),
    "efficientnet_b0 image Dim": Case(
        "timm/efficientnet_b0", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "timm"
    ),
    "resnet10t image Dim": Case(
        "timm/resnet10t", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "timm"
    ),
    "mobilenetv3_small image Dim": Case(
        "timm/mobilenetv3_small", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "timm"
    ),
    "resnet18 image Dim": Case(
        "torchvision/resnet18", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "torchvision"
    ),
    "squeezenet image Dim": Case(
        "torchvision/squeezenet", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "torchvision"
    ),
    # added after the first 20 (other families: a diffusion transformer, a VAE, a text-conditioned
    # UNet, torchvision's MobileNet), recorded on their first run before any repair code was
    # changed for them (bench/RESULTS.md)
    "dit image Dim": Case(
        "diffusers/dit", '({2: Dim("h", min=4, max=64), 3: Dim("w", min=4, max=64)}, None, None)', "diffusers"
    ),
    "autoencoder-kl image Dim": Case(
        "diffusers/autoencoder-kl", '({2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)},)', "diffusers"
    ),
    "unet2d-condition image Dim": Case(
        "diffusers/unet2d-condition", '({2: Dim("h", min=8, max=64), 3: Dim("w", min=8, max=64)}, None, None)',
        "diffusers",
    ),
    "mobilenet_v3_small image Dim": Case(
        "torchvision/mobilenet_v3_small", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)',
        "torchvision",
    ),
    # added in the next round (other families: shifted-window attention, a mobile ViT hybrid, a
    # dense CNN, channel shuffles, an inception CNN), recorded on their first run before any
    # repair code was changed for them (bench/RESULTS.md)
    "swin image Dim": Case(
        "transformers/swin", '({2: Dim("h", min=16, max=128), 3: Dim("w", min=16, max=128)},)', "transformers"
    ),
    "mobilevit image Dim": Case(
        "transformers/mobilevit", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "transformers"
    ),
    "densenet121 image Dim": Case(
        "timm/densenet121", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "timm"
    ),
    "shufflenet_v2 image Dim": Case(
        "torchvision/shufflenet_v2", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)',
        "torchvision",
    ),
    "googlenet image Dim": Case(
        "torchvision/googlenet", '({2: Dim("h", min=32, max=256), 3: Dim("w", min=32, max=256)},)', "torchvision"
    ),
}

EXAMPLE = '''\
import sys

sys.path.insert(0, {bench!r})

import torchvision  # noqa: F401 - imported first: a torchvision built for this torch needs no stand-in ops
from torch.export import Dim
from zoo_models import MODELS


def xport_example():
    model, args = MODELS[{model!r}]({switches})
    return {{"model": model, "args": args, "dynamic_shapes": {shapes}}}
'''


def run(name: str, case: Case, python: str) -> dict[str, object]:
    with tempfile.TemporaryDirectory(prefix="xport-repair-zoo-") as folder:
        project = Path(folder)
        (project / "pyproject.toml").write_text("")
        (project / "case.py").write_text(EXAMPLE.format(
            bench=str(HERE), model=case.model, shapes=case.shapes, switches=case.switches
        ))
        start = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-m", "xport_lint.analyzers.cli", "repair", "case.py", "--python", python,
             "--allow", case.allow, "--format", "json", "--timeout", "900"],
            cwd=project, capture_output=True, text=True, timeout=3600,
        )
        seconds = time.perf_counter() - start
    try:
        report = json.loads(done.stdout)
    except ValueError:
        return {"case": name, "error": done.stderr[-800:], "seconds": round(seconds, 1)}
    after = report["after"]
    return {
        "case": name,
        "model": case.model,
        "dynamic": case.shapes is not None,
        "failed_before": not report["before"]["equal"],
        "before": report["before"]["evidence"],
        "before_at": report["before"]["failure"] and
        f"{report['before']['failure']['file']}:{report['before']['failure']['line']}",
        "exported_after": after["exported"],
        "equal_after": after["equal"],
        "after": after["evidence"],
        "made_static": any("static" in s["title"] and s["kept"] for s in report["steps"]),
        "kept": [s["title"] for s in report["steps"] if s["kept"]],
        "rejected": [f"{s['title']}: {s['verdict']}" for s in report["steps"] if not s["kept"]],
        "blocker": report["blocker"],
        "advice": report["advice"],
        "seconds": round(seconds, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--python", required=True, help="the zoo interpreter")
    parser.add_argument("--only", nargs="*", default=[])
    parser.add_argument("--jobs", type=int, default=1,
                        help="cases repaired at once (each case's seconds then include the others' load)")
    options = parser.parse_args()
    stamp = begin("repair")
    names = [name for name in CASES if not options.only or name in options.only]

    def one(name: str) -> dict[str, object]:
        row = run(name, CASES[name], os.path.abspath(options.python))  # the cases run in their own folders
        print(json.dumps(row), flush=True)
        return row

    with ThreadPoolExecutor(max_workers=max(1, options.jobs)) as pool:
        rows = list(pool.map(one, names))
    version = subprocess.run(
        [options.python, "-c", "import torch, transformers; print(torch.__version__, transformers.__version__)"],
        capture_output=True, text=True,
    ).stdout.split()
    previous = HERE / "results" / "repair.json"
    if options.only and previous.exists():
        # the cases not run again keep their rows (and the run is labelled as a partial one)
        kept = [r for r in json.loads(previous.read_text())["figures"]["cases"] if r["case"] not in options.only]
        rows = sorted([*kept, *rows], key=lambda r: list(CASES).index(r["case"]) if r["case"] in CASES else 99)
    write_results("repair", stamp, {"cases": rows, "torch": version[:1], "transformers": version[1:2],
                                    "jobs": options.jobs},
                  reduced="re-ran " + ", ".join(options.only) if options.only else None)


if __name__ == "__main__":
    main()
