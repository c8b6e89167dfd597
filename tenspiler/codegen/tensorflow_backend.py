"""The TensorFlow backend (``--to tensorflow``): the spelling table of :mod:`array_backend`
for ``tf``. C's integer division and remainder are ``tf.truncatediv`` / ``tf.truncatemod``;
tensors are immutable, so an output is assembled with ``tf.concat``; ``<f>_jit`` uses
``tf.function``. TensorFlow converts Python numbers to int32/float32 by default, so every
constant is typed (``tf.constant(x, dtype)``, ``_as``)."""

from __future__ import annotations

from typing import Any

import numpy as np

from tenspiler.codegen.array_backend import ArrayBackend
from tenspiler.codegen.registry import register_backend
from tenspiler.codegen.spelling import Spelling

AS_HELPER = '''\
def _as(x, dtype):
    """x (tensor, NumPy array, list or number) as a tensor of `dtype`; Python numbers go
    through NumPy (int64 / float64), not TensorFlow's int32 / float32 defaults."""
    if isinstance(x, tf.Tensor):
        return tf.cast(x, dtype)
    return tf.cast(tf.constant(np.asarray(x)), dtype)'''

SPELLING = Spelling(
    label="TensorFlow",
    package="tensorflow-cpu",
    extra="tf",
    imports=("import tensorflow as tf",),
    xp="tf",
    array_type="tf.Tensor",
    asarray="_as({x}, {dtype})",
    cast="tf.cast({x}, {dtype})",
    const="tf.constant({x}, {dtype})",
    sum="tf.reduce_sum({x})",
    max="tf.reduce_max({x})",
    prod="tf.reduce_prod({x})",
    sum_rows="tf.reduce_sum({x}, axis=1)",
    sum_axis="tf.reduce_sum({x}, axis={axis})",
    swap_last="tf.linalg.matrix_transpose({x})",
    max_rows="tf.reduce_max({x}, axis=1)",
    arange="tf.range({n})",
    iota="tf.range({lo}, {hi}, dtype={dtype})",
    full="tf.fill([{n}], tf.cast({x}, {dtype}))",
    logical="tf.math.logical_",
    math="tf.math.{}",
    reshape="tf.reshape({x}, ({shape},))",
    transpose="tf.transpose({x})",
    gather="tf.gather({x}, {i})",
    fmod="tf.truncatemod({x}, {y})",
    pow="tf.pow({x}, {y})",  # the library's pow of reals (C's pow within the check's tolerance, as its exp)
    c_div="return tf.truncatediv(x, _nz(y))",
    c_mod="return tf.truncatemod(x, _nz(y))",
    copy="tf.cast({x}, {dtype})",
    update="{out} = tf.concat([{out}[:{lo}], {v}, {out}[{hi}:]], 0)",
    strided_update=None,  # no rule for a strided output (TensorFlow tensors have no slice assignment)
    scatter=None,  # no rule for a block output (no slice assignment)
    zeros="tf.zeros({n}, {dtype})",
    jit="tf.function(f, autograph=False)",
    weak_scalars=False,
    notes=(
        "Subnormal floats: TensorFlow's CPU kernels flush them to zero, where C keeps them "
        "(|x| < 1.2e-38 for float, < 2.2e-308 for double); results differ only there.",
    ),
    helpers={"_as": AS_HELPER},
    device="TensorFlow's default placement (no explicit device).",
    jit_doc="the computation is traced by `tf.function` on the first call "
    "(integer arguments are Python constants: new values and shapes retrace).",
)


class TensorflowBackend(ArrayBackend):
    """Generates TensorFlow code. Registered as ``"tensorflow"``."""

    name = "tensorflow"
    #: The library flushes subnormal floats to zero (see the module notes): ``--check``
    #: compares on the inputs without subnormal floats.
    flushes_subnormals = True
    #: TensorFlow's CPU kernels for truncatemod / floormod / truncatediv take int32 and int64
    #: only: narrower integers are widened to int32 (range analysis as for the others)
    int_dtypes = ("int32", "int64")
    sp = SPELLING

    def to_native(self, value: np.ndarray) -> Any:
        import tensorflow as tf

        return tf.constant(value)


TENSORFLOW = TensorflowBackend()
register_backend(TENSORFLOW)
