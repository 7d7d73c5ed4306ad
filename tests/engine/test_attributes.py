"""What an attribute read gives. A plain `torch.Tensor` has a known set of attributes (`shape`,
`dtype`, `T`, `grad`, ...); any other attribute read from a value known to be a plain tensor
belongs to a tensor subclass (torchvision's `BoundingBoxes.format`, an enum) and is not shown to
be tensor data. A value that may be a structure (what a submodule or an unknown function
returns, a `ModelOutput`) keeps "an attribute of it may be a tensor" (`outputs.last_hidden_state`)."""

from __future__ import annotations

import pytest

from xport_lint.analyzers import Config, check_source

HEAD = "import enum\nimport torch\nfrom torch import nn\n"
FORMAT = "class Format(enum.Enum):\n    XYXY = 0\n    XYWH = 1\n    CXCYWH = 2\n"
#: torchvision's `_convert_bounding_box_format`: branches on two enum arguments
CONVERT = (
    "def convert(boxes: torch.Tensor, old_format: Format, new_format: Format) -> torch.Tensor:\n"
    "    if new_format == old_format:\n        return boxes\n"
    "    if old_format == Format.XYWH and new_format == Format.CXCYWH:\n        return boxes * 2\n"
    "    if old_format == Format.XYWH:\n        return boxes + 1\n"
    "    elif old_format == Format.CXCYWH:\n        return boxes - 1\n"
    "    return boxes\n"
)


def errors(source: str) -> list[tuple[str, int]]:
    """(code, line) of each error, lines counted in `source` (the imports above it left out)."""
    offset = HEAD.count("\n")
    return [
        (f.code, f.span.start.line - offset)
        for f in check_source(HEAD + source, "m.py", Config())
        if f.severity.value == "error"
    ]


SUBCLASS_METADATA = {
    "keyword, as torchvision writes it": (
        "class M(nn.Module):\n    def forward(self, boxes, plain):\n"
        "        a = convert(boxes.as_subclass(torch.Tensor), old_format=boxes.format, new_format=Format.XYXY)\n"
        "        b = convert(plain, old_format=Format.XYWH, new_format=Format.CXCYWH)\n"
        "        return a + b\n"
    ),
    "positional": (
        "class M(nn.Module):\n    def forward(self, boxes):\n"
        "        return convert(boxes, boxes.format, Format.XYXY)\n"
    ),
    "read into a name first": (
        "class M(nn.Module):\n    def forward(self, boxes):\n"
        "        fmt = boxes.format\n        return convert(boxes, fmt, Format.XYXY)\n"
    ),
    "read in a helper from its tensor-annotated argument": (
        "def convert_any(inpt: torch.Tensor, new_format: Format) -> torch.Tensor:\n"
        "    return convert(inpt.as_subclass(torch.Tensor), old_format=inpt.format, new_format=new_format)\n"
        "class M(nn.Module):\n    def forward(self, boxes):\n"
        "        out = convert_any(boxes, new_format=Format.XYXY)\n"
        "        return convert_any(out, new_format=Format.XYWH)\n"
    ),
    "given back to the helper from a function declared to return a tensor": (
        "from somewhere import wrap\n"
        "def convert_any(inpt, new_format: Format) -> torch.Tensor:\n"
        "    out = convert(inpt.as_subclass(torch.Tensor), old_format=inpt.format, new_format=new_format)\n"
        "    return wrap(out, like=inpt, format=new_format)\n"
        "class M(nn.Module):\n    def forward(self, boxes):\n"
        "        out = convert_any(boxes, new_format=Format.XYXY)\n"
        "        return convert_any(out, new_format=Format.XYWH)\n"
    ),
    "given to a parameter declared a tensor what an unknown function returns": (
        "from somewhere import wrap\n"
        "def convert_any(inpt: torch.Tensor, new_format: Format):\n"
        "    out = convert(inpt.as_subclass(torch.Tensor), old_format=inpt.format, new_format=new_format)\n"
        "    return wrap(out, like=inpt, format=new_format)\n"
        "class M(nn.Module):\n    def forward(self, boxes):\n"
        "        out = convert_any(boxes, new_format=Format.XYXY)\n"
        "        return convert_any(out, new_format=Format.XYWH)\n"
    ),
    "read from a torch op's result": (
        "class M(nn.Module):\n    def forward(self, boxes):\n"
        "        moved = boxes.clone()\n        return convert(moved, moved.format, Format.XYXY)\n"
    ),
    "branched on where it is read": (
        "class M(nn.Module):\n    def forward(self, boxes):\n"
        "        if boxes.format == Format.XYWH:\n            return boxes + 1\n        return boxes\n"
    ),
}


@pytest.mark.parametrize("forward", SUBCLASS_METADATA.values(), ids=SUBCLASS_METADATA.keys())
def test_a_tensor_subclass_metadata_attribute_is_no_tensor_data(forward: str) -> None:
    """`BoundingBoxes.format` is an enum: comparing it is Python, and export runs every line."""
    assert errors(FORMAT + CONVERT + forward) == []


ENCODER = (
    "class Encoder(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
    "        self.proj = nn.Linear(4, 4)\n"
    "    def forward(self, x):\n        return self.proj(x)\n"
)
STRUCTURE_FIELDS = {
    "a submodule's output": (
        "        outputs = self.encoder(x)\n"
        "        if outputs.last_hidden_state.mean() > 0:\n            return x\n        return -x\n"
    ),
    "a field read into a name": (
        "        hidden = self.encoder(x).last_hidden_state\n"
        "        if hidden.mean() > 0:\n            return x\n        return -x\n"
    ),
    "a tuple element of a submodule's output": (
        "        first = self.encoder(x)[0]\n"
        "        if first.pooler_output.max() > 0:\n            return x\n        return -x\n"
    ),
    "an unknown function's result": (
        "        outputs = run_encoder(self.encoder, x)\n"
        "        if outputs.logits.sum() > 0:\n            return x\n        return -x\n"
    ),
}


@pytest.mark.parametrize("body", STRUCTURE_FIELDS.values(), ids=STRUCTURE_FIELDS.keys())
def test_a_field_of_what_may_be_a_structure_may_be_a_tensor(body: str) -> None:
    """A `ModelOutput`'s fields are tensors: a branch on one is still a data-dependent branch."""
    source = (
        "from somewhere import run_encoder\n" + ENCODER
        + "class M(nn.Module):\n    def __init__(self):\n        super().__init__()\n"
        "        self.encoder = Encoder()\n"
        "    def forward(self, x):\n" + body
    )
    branch = next(n for n, text in enumerate(source.splitlines(), 1) if text.lstrip().startswith("if "))
    assert errors(source) == [("XPT101", branch)]


PLAIN_ATTRIBUTES = {
    "shape is a size": ("if x.shape[0] > 2:\n            return x", []),
    "dtype is a Python fact": ("if x.dtype == torch.float16:\n            return x.float()", []),
    "device is a Python fact": ("if x.device.type == 'cpu':\n            return x", []),
    "ndim is the rank": ("if x.ndim == 3:\n            return x", []),
    "requires_grad is a flag": ("if x.requires_grad:\n            return x.detach()", []),
    "T is the tensor transposed": ("if x.T.sum() > 0:\n            return x", [("XPT101", 3)]),
    "mT is the tensor transposed": ("if x.mT.max() > 0:\n            return x", [("XPT101", 3)]),
    "data is the tensor": ("if x.data.sum() > 0:\n            return x", [("XPT101", 3)]),
    "real is a tensor": ("if x.real.mean() > 0:\n            return x", [("XPT101", 3)]),
}


@pytest.mark.parametrize(("test", "expected"), PLAIN_ATTRIBUTES.values(), ids=PLAIN_ATTRIBUTES.keys())
def test_a_plain_tensor_attribute_keeps_its_meaning(test: str, expected: list[tuple[str, int]]) -> None:
    source = "class M(nn.Module):\n    def forward(self, x):\n        " + test + "\n        return -x\n"
    assert errors(source) == expected


def test_a_tensor_subclass_attribute_of_a_torch_result_is_not_tensor_data() -> None:
    """`torch.relu(x).canvas_size` is no attribute of a plain tensor: what it holds is unknown,
    and an unknown value never raises an error."""
    assert errors(
        "class M(nn.Module):\n    def forward(self, x):\n"
        "        y = torch.relu(x)\n"
        "        if y.canvas_size[0] > 4:\n            return y\n        return x\n"
    ) == []
