"""The MLX backend (``--to mlx``): the spelling table of :mod:`array_backend` for
``mlx.core``. It *declines* two ops, which the generated code then computes with NumPy host
code (``ArrayBackend.lower`` / ``render``): ``exp`` of a ``double`` (MLX computes it with
float32 accuracy, relative error ~5e-7) and ``%`` of reals (MLX has no ``fmod``). ``exp`` of a
``float`` is ``_exp``: ``mx.exp`` returns inf from 88.0 on, where C's ``expf`` is finite up to
88.72."""

from __future__ import annotations

from typing import Any

import numpy as np

from tenspiler.codegen.array_backend import ArrayBackend
from tenspiler.codegen.registry import register_backend
from tenspiler.codegen.spelling import Spelling
from tenspiler.loops.ir import DType

SUM_HELPER = '''\
def _sum(x, axis=None):
    """`mx.sum`, but an empty array gives zeros without reducing: MLX's reductions of empty
    arrays (views with an empty axis, arrays built from empty NumPy buffers) can take
    seconds or hang (mlx 0.32)."""
    if x.size == 0:
        return mx.zeros(() if axis is None else x.shape[:axis] + x.shape[axis + 1 :], dtype=x.dtype)
    return mx.sum(x, axis=axis)'''

EXP_HELPER = '''\
def _exp(x):
    """exp of float32 values: `mx.exp` overflows to inf from 88.0 on, C's `expf` only above
    88.72; there exp(x) is computed as exp(x - 1) * e."""
    return mx.where(x > 87.0, mx.exp(x - 1.0) * 2.7182817, mx.exp(x))'''

SPELLING = Spelling(
    label="MLX",
    # MLX slice indices are 32-bit: a run-time step near 2**31 gave a wrong result, a slice
    # end beyond it raised (measured with --check): strided outputs are declined
    strided_update=None,
    scatter=None,
    package="mlx",
    extra="mlx",
    imports=("import mlx.core as mx",),
    xp="mx",
    array_type="mx.array",
    bool_dtype="mx.bool_",
    asarray="mx.array({x}, dtype={dtype})",
    const="mx.array({x}, dtype={dtype})",
    sum="_sum({x})",
    # index arrays in int64: mx.arange is int32, and int32 * a Python int beyond int32 raises
    # (a row stride of a view of no rows is any int, which the source never uses)
    arange="mx.arange({n}, dtype=mx.int64)",
    sum_rows="_sum({x}, 1)",
    sum_axis="_sum({x}, {axis})",
    # mx.matmul takes floating types only: integers as a broadcast product summed over k
    int_matmul="_sum(({x})[:, :, None] * ({y})[None, :, :], 1)",
    copy="mx.array({x}, dtype={dtype})",
    jit="mx.compile(f)",
    helpers={"_exp": EXP_HELPER, "_sum": SUM_HELPER},
    device="MLX's default device (the CPU with `mlx[cpu]` on Linux). float64 (`double`) "
    "exists on the CPU only: on Apple GPUs run it under `mx.stream(mx.cpu)`.",
    jit_doc="the computation is compiled by `mx.compile` on the first call (integer "
    "arguments are constants: new values and shapes recompile).",
)


class MlxBackend(ArrayBackend):
    """Generates MLX code. Registered as ``"mlx"``."""

    name = "mlx"
    sp = SPELLING

    def math(self, func: str, dtype: DType) -> str | None:
        if func == "exp":  # float64: float32-accurate in MLX, so NumPy host code
            return "_exp" if dtype == DType.FLOAT else None
        if func in ("expm1", "cos", "sin") and dtype != DType.FLOAT:
            return None  # float64 computed with float32 accuracy, as exp: NumPy host code
        return super().math(func, dtype)

    def to_native(self, value: np.ndarray) -> Any:
        import mlx.core as mx

        dtype = getattr(mx, "bool_" if value.dtype == np.bool_ else value.dtype.name)
        return mx.array(value, dtype=dtype) if value.size else mx.zeros(value.shape, dtype=dtype)


MLX = MlxBackend()
register_backend(MLX)
