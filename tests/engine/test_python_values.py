"""Python values the dataflow took for tensor data (issue 23, held-out precision: kornia, open_clip,
x-transformers, denoising-diffusion-pytorch). Each fact in several spellings; each case exports
on torch 2.13 non-strict (measured where it says so), so none may be an error."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

from xport_lint.analyzers import Config, check_source
from xport_lint.analyzers.files import discover
from xport_lint.analyzers.project import check_project

HEAD = "import torch\nfrom torch import nn\n"


def errors(source: str, **parts: str) -> list[tuple[str, int]]:
    """The errors on `source`, lines counted in `source` itself; each `{name}` of `parts` written
    in at its placeholder's indentation."""
    text = textwrap.dedent(source).lstrip("\n")
    for name, part in parts.items():
        indent = text.split("{" + name + "}")[0].rpartition("\n")[2]
        text = text.replace("{" + name + "}", textwrap.indent(part, indent).lstrip())
    text = HEAD + text
    offset = HEAD.count("\n")
    return [(f.code, f.span.start.line - offset) for f in check_source(text, "m.py", Config())
            if f.severity.value == "error"]


def project_errors(root: Path, files: dict[str, str]) -> list[tuple[str, str, int]]:
    for name, text in files.items():
        (root / name).write_text(textwrap.dedent(text).lstrip("\n"))
    checked = check_project(discover([str(root)], ()), Config(), None, jobs=1)
    return [(Path(r.path).name, f.code, f.span.start.line) for r in checked.results for f in r.findings
            if f.severity.value == "error"]


# -- a torch predicate is a Python bool (kornia's distance transform: `is_fake(image)`) ----------

@pytest.mark.parametrize("test", [
    "if is_fake(x):\n    return x + 1",
    "if not is_fake(x):\n    return x + 1",
    "fake = is_fake(x)\nif fake:\n    return x + 1",
    "if x.device.type not in ('cpu', 'cuda') or is_fake(x):\n    return x + 1",
    "if fake_or_int(x):\n    return x + 1",
    "fake, scale = fake_or_int(x), 2\nif fake:\n    return x * scale",
])
def test_a_torch_predicate_returns_a_python_bool(test: str) -> None:
    """Measured: `x + 1 if is_fake(x) else x - 1` exports non-strict (strict refuses the skipped
    function, another rule's matter)."""
    assert errors("""
        from torch._subclasses.fake_tensor import is_fake


        def fake_or_int(t):
            return is_fake(t) or isinstance(t, int)


        class M(nn.Module):
            def forward(self, x):
                {test}
                return x
    """, test=test) == []


def test_is_nonzero_still_reads_the_data() -> None:
    """Named as a predicate, but measured: `torch.is_nonzero(x.sum() > 0)` is a guard on data in
    both modes."""
    assert errors("""
        class M(nn.Module):
            def forward(self, x):
                if torch.is_nonzero(x.sum() > 0):
                    return x + 1
                return x
    """) == [("XPT104", 3), ("XPT202", 3)]


@pytest.mark.parametrize("helper", [
    "return isinstance(t, torch.Tensor) and not isinstance(t, nn.Parameter)",
    "return t.device.type == 'cpu'",
    "return t.dtype == torch.float16 or t.dtype == torch.bfloat16",
    "ok = isinstance(t, tuple)\nreturn not ok",
])
def test_a_helper_returning_a_test_of_python_facts_returns_a_python_bool(helper: str) -> None:
    assert errors("""
        def check(t):
            {helper}


        class M(nn.Module):
            def forward(self, x):
                if check(x):
                    x = x + 1
                flag = check(x)
                while not flag:
                    flag = True
                return x
    """, helper=helper) == []


# -- dtypes are Python values (kornia's laf.py: `_promoted_grid_dtype(img.dtype, laf.dtype)`) ----

@pytest.mark.parametrize("dtype", [
    "torch.promote_types(a.dtype, b.dtype)",
    "torch.result_type(a, b)",
    "promoted(a.dtype, b.dtype)",
    "annotated(a, b)",
    "grid_dtype(torch.promote_types(a.dtype, b.dtype))",
])
def test_a_dtype_compared_is_no_tensor_data(dtype: str) -> None:
    """Measured: a branch on `torch.promote_types(...)` or `torch.result_type(a, b)` exports
    non-strict (result_type fails strict as a torch op returning no tensor: not this test's claim)."""
    assert errors(f"""
        def promoted(first, second):
            return torch.promote_types(first, second)


        def annotated(first, second) -> torch.dtype:
            return first.sum().dtype if first.numel() else second.dtype


        def grid_dtype(dtype: torch.dtype):
            return torch.float32 if dtype in (torch.float16, torch.bfloat16) else dtype


        class M(nn.Module):
            def forward(self, a, b):
                wanted = {dtype}
                b = b.to(wanted) if b.dtype != wanted else b
                if a.dtype == wanted:
                    return a + b
                ok = torch.can_cast(a.dtype, wanted)
                return a if ok else b
    """) == []


# -- the truth of a Python list is its length (kornia's rt_detr encoder: `while fmaps:`) ---------

@pytest.mark.parametrize("source", [
    # a parameter declared a list, copied with list(), emptied by pop()
    """
    def forward(self, fmaps: list[torch.Tensor]):
        fmaps = list(fmaps)
        out = [fmaps.pop()]
        while fmaps:
            out.append(out[-1] + fmaps.pop())
        return out
    """,
    # negated, on a comprehension's result
    """
    def forward(self, x):
        parts = [x * k for k in range(3)]
        if not parts:
            return x
        return torch.cat(parts)
    """,
    # a tuple display, then a list() of it
    """
    def forward(self, x):
        pair = (x, x + 1)
        kept = list(pair)
        while kept:
            x = x + kept.pop()
        return x
    """,
])
def test_the_truth_of_a_python_list_of_tensors_is_its_length(source: str) -> None:
    body = textwrap.indent(textwrap.dedent(source).lstrip("\n"), "    ")
    assert errors("class M(nn.Module):\n" + body) == []


def test_a_list_of_a_data_dependent_count_keeps_its_error() -> None:
    """`list(x.nonzero())` is as long as the data says: its truth is a guard on data."""
    found = errors("""
        class M(nn.Module):
            def forward(self, x):
                rows = list(x.nonzero())
                if rows:
                    return x + 1
                return x
    """)
    assert any(line == 4 for _, line in found)


def test_an_undeclared_argument_tested_for_truth_keeps_its_error() -> None:
    assert errors("""
        class M(nn.Module):
            def forward(self, x):
                if x:
                    return x + 1
                return x
    """) == [("XPT101", 3)]


# -- a helper hands back this call's argument, not every call site's ------------------------

DEFAULTS = {
    "two": "def default(val, d):\n    return val if val is not None else d\n",
    "callable": "def default(val, d):\n    if val is not None:\n        return val\n    return d() if callable(d) else d\n",
    "packed": "def default(*args):\n    for arg in args:\n        if arg is not None:\n            return arg\n",
    "bound": "def default(val, d):\n    out = val\n    if out is None:\n        return d\n    return out\n",
}


@pytest.mark.parametrize("default", DEFAULTS)
def test_a_default_helper_returns_what_this_call_passes(default: str) -> None:
    """denoising-diffusion's `cond_drop_prob = default(cond_drop_prob, self.cond_drop_prob)`,
    x-transformers' `default(active_latent_index, randrange(self.num_latents))`: another call
    site passing a tensor does not make these tensors."""
    source = DEFAULTS[default] + textwrap.dedent("""
        class M(nn.Module):
            def __init__(self, rate=0.5):
                super().__init__()
                self.rate = rate
                self.count = 4

            def forward(self, x, mask=None, rate=None, index: int | None = None):
                mask = default(mask, torch.ones_like(x))
                rate = default(rate, self.rate)
                if rate > 0:
                    x = x * (1 - rate)
                index = default(index, self.count - 1)
                assert 0 <= index < self.count
                scale, shift = default(None, 2.0), default(None, 1)
                if scale > shift:
                    x = x * scale
                return x * mask
    """)
    assert errors(source) == []


@pytest.mark.parametrize("default", DEFAULTS)
def test_a_default_helper_still_hands_back_data(default: str) -> None:
    found = errors(DEFAULTS[default] + textwrap.dedent("""
        class M(nn.Module):
            def forward(self, x, limit=None):
                limit = default(limit, x.sum())
                if limit > 0:
                    return x + 1
                return x
    """))
    assert [line for _, line in found] == [DEFAULTS[default].count("\n") + 5]


def test_a_default_helper_in_another_file_returns_what_this_call_passes(tmp_path: Path) -> None:
    assert project_errors(tmp_path, {
        "helpers.py": DEFAULTS["packed"],
        "model.py": """
            import torch
            from torch import nn
            from helpers import default


            class M(nn.Module):
                def __init__(self):
                    super().__init__()
                    self.rate = 0.5

                def forward(self, x, rate=None, limit=None):
                    rate = default(rate, self.rate)
                    if rate > 0:
                        x = x * rate
                    limit = default(limit, x.sum())
                    if limit > 0:  # line 16: data
                        return x
                    return x + 1
        """,
    }) == [("model.py", "XPT101", 16)]


# -- sizes handed back by a library function (open_clip: `F.get_dimensions(img)`) --------------

@pytest.mark.parametrize("call", [
    "F.get_dimensions(img)",
    "get_dimensions(img)",
    "torchvision.transforms.functional.get_dimensions(img)",
])
def test_the_unpacked_parts_of_a_library_call_are_not_guessed_tensors(call: str) -> None:
    """Which parts of a library function's tuple are tensors the call does not say, however its
    module is spelled: a part counts as one where it is used as one."""
    assert errors(f"""
        import torchvision
        import torchvision.transforms.functional as F
        from torchvision.transforms.functional import get_dimensions


        class M(nn.Module):
            def forward(self, img):
                _, height, width = {call}
                if height > 4 or width < 2:
                    return img[..., :4, :]
                return img
    """) == []


def test_a_default_helper_calling_a_lambda_returns_what_the_lambda_computes() -> None:
    """`default(noise, lambda: torch.randn_like(x))`: the tensor the caller's lambda makes, and a
    number it reads from data, are still what the call gives back."""
    assert errors(DEFAULTS["callable"] + textwrap.dedent("""
        class M(nn.Module):
            def forward(self, x, noise=None):
                noise = default(noise, lambda: torch.randn_like(x))
                if noise.sum() > 0:
                    return x + noise
                return x
    """)) == [("XPT101", DEFAULTS["callable"].count("\n") + 5)]


def test_a_list_a_parent_passes_is_tested_by_its_length() -> None:
    """kornia's rt_detr: the parent passes the encoder a list of feature maps, the encoder's
    `while fmaps:` pops them one by one."""
    assert errors("""
        class Encoder(nn.Module):
            def forward(self, fmaps: list[torch.Tensor]) -> list[torch.Tensor]:
                fmaps = list(fmaps)
                new_fmaps = [fmaps.pop()]
                while fmaps:
                    new_fmaps.append(new_fmaps[-1] + fmaps.pop())
                fmaps = [new_fmaps.pop()]
                while new_fmaps:
                    fmaps.append(fmaps[-1] * new_fmaps.pop())
                return fmaps


        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.encoder = Encoder()

            def forward(self, x):
                return self.encoder([x, x * 2, x * 3])
    """) == []


# -- a cached function's arguments are hashed first (kornia's ransac: `_prosac_growth`) --------

@pytest.mark.parametrize("decorator", [
    "from functools import lru_cache\n\n\n@lru_cache(maxsize=32)",
    "import functools\n\n\n@functools.lru_cache",
    "from functools import cache\n\n\n@cache",
])
def test_a_cached_function_never_runs_on_a_number_read_from_data(decorator: str) -> None:
    """Measured on torch 2.13, non-strict: an `lru_cache`d call given a number read from data (or
    a dynamic size) raises `TypeError: unhashable type: non-nested SymInt` at the call, before its
    body runs; given static sizes it exports. The error is where that number is read, not in the
    cached body."""
    found = errors(decorator + textwrap.dedent("""
        def growth(sample_size: int, pop_size: int) -> tuple:
            ends = [1]
            for n in range(sample_size, pop_size):
                ends.append(ends[-1] + n)
            return tuple(ends)


        class M(nn.Module):
            def forward(self, x):
                key = (3, x.shape[0])
                ends = torch.tensor(growth(*key))
                return x + ends.sum() + self.drawn(x)

            def drawn(self, x):
                count = int(x.sum().item())
                return growth(2, count)[-1]
    """))
    read = decorator.count("\n") + 16
    assert found and all(line == read for _, line in found)


def test_positional_arguments_past_the_parameters_fill_star_args_not_a_keyword_only_one() -> None:
    """`blend(x, y, z)` passes `scale` nothing: not even a warning that it may be a tensor."""
    source = textwrap.dedent("""
        def blend(first, *rest, scale=None):
            if scale is not None and scale > 0:
                first = first * scale
            return first + sum(rest)


        class M(nn.Module):
            def forward(self, x):
                return blend(x, x * 2, x * 3)
    """)
    assert [f.code for f in check_source(HEAD + source, "m.py", Config())] == []


# -- `isinstance(x, (int, float))` says what x holds in its body (kornia's gaussian kernel) -------

NARROWED = """
import numbers


def kernel(size: int, sigma):
    if isinstance(sigma, (int, float)):
        sigma = torch.tensor([[float(sigma)]])
    return torch.exp(-torch.arange(size) / sigma)


def scale(x, factor):
    if x.dim() > 1 and isinstance(factor, numbers.Number) and factor > 1:
        x = x * int(factor)
    return x


class M(nn.Module):
    def forward(self, x, s):
        y = kernel(3, s) + kernel(3, 2.0)
        return scale(x, x.sum()) + y + scale(x, 2)
"""


def test_an_isinstance_test_of_python_numbers_says_the_name_holds_one() -> None:
    assert errors(NARROWED) == []


def test_a_number_read_from_data_stays_one_under_an_isinstance_test() -> None:
    found = errors(NARROWED.replace("kernel(3, 2.0)", "kernel(3, x.sum().item())"))
    assert ("XPT203", 6) in found


def test_after_the_isinstance_branch_the_name_holds_what_it_did() -> None:
    assert errors("""
        class M(nn.Module):
            def forward(self, x, s):
                if isinstance(s, float):
                    x = x * s
                if s > 0:
                    return x
                return -x
    """) == [("XPT101", 5)]
