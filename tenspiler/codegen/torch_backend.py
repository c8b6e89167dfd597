"""The PyTorch backend (``--to torch``): the spelling table of :mod:`array_backend` for
``torch``. C's truncating integer division and remainder are ``torch.div(...,
rounding_mode="trunc")`` and ``torch.fmod``; ``<f>_jit`` uses ``torch.compile``."""

from __future__ import annotations

from typing import Any

import numpy as np

from tenspiler.codegen.array_backend import ArrayBackend
from tenspiler.codegen.registry import register_backend
from tenspiler.codegen.spelling import Spelling, real_to_u8_helper

SPELLING = Spelling(
    label="PyTorch",
    package="torch",
    extra="torch",
    imports=("import torch",),
    xp="torch",
    array_type="torch.Tensor",
    asarray='torch.as_tensor({x}, dtype={dtype}, device="cpu")',
    cast="{x}.to({dtype})",
    const="torch.tensor({x}, dtype={dtype})",
    sum_rows="torch.sum({x}, dim=1)",
    sum_axis="torch.sum({x}, dim={axis})",
    max_rows="torch.amax({x}, dim=1)",
    argmax="torch.argmax({x})",  # first occurrence on ties (documented)
    full="torch.full(({n},), {x}, dtype={dtype})",
    fmod="torch.fmod({x}, {y})",
    pow="torch.pow({x}, {y})",  # the library's pow of reals (C's pow within the check's tolerance, as its exp)
    real_to_uint8="_real_to_u8({x})",
    helpers={"_real_to_u8": real_to_u8_helper("torch", "{x}.to({dtype})")},
    c_div='return torch.div(x, _nz(y), rounding_mode="trunc")',
    c_mod="return torch.fmod(torch.as_tensor(x), _nz(y))",
    copy="{x}.to({dtype}, copy=True)",
    to_numpy="{x}.numpy(force=True)",
    jit="torch.compile(f)",
    device="the CPU: inputs are converted to CPU tensors (a tensor on another device is "
    "copied); results are CPU tensors.",
    jit_doc="the computation is compiled by `torch.compile` (default "
    "inductor backend) on the first call, which takes seconds; it recompiles for new shapes.",
)


class TorchBackend(ArrayBackend):
    """Generates PyTorch code. Registered as ``"torch"``."""

    name = "torch"
    #: no int16: inductor (torch.compile's CPU code generator) does not vectorise int16 code,
    #: which then runs ~50x slower than the same code in int32
    int_dtypes = ("uint8", "int32", "int64")
    float_division = True
    sp = SPELLING

    def to_native(self, value: np.ndarray) -> Any:
        import torch

        return torch.as_tensor(np.asarray(value))

    def to_numpy(self, value: Any) -> Any:
        import torch

        if isinstance(value, torch.Tensor):
            return value.numpy(force=True)
        return super().to_numpy(value)


TORCH = TorchBackend()
register_backend(TORCH)
