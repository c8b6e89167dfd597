"""The JAX backend (``--to jax``): the spelling table of :mod:`array_backend` for
``jax.numpy``. JAX disables 64-bit types by default; C ``int`` (int64 here), ``long`` and
``double`` need them, so every generated entry runs under ``jax.enable_x64(True)`` (a
context, not a process-wide setting). ``<f>_jit`` uses ``jax.jit`` with the integer
arguments static. Outputs are assembled with ``x.at[lo:hi].set(v)``."""

from __future__ import annotations

from typing import Any

import numpy as np

from tenspiler.codegen.array_backend import ArrayBackend
from tenspiler.codegen.registry import register_backend
from tenspiler.codegen.spelling import Spelling, real_to_u8_helper

X64_HELPER = '''\
def _x64(f):
    """Runs `f` with JAX's 64-bit types enabled (`jax.enable_x64(True)`): C int / long /
    double need int64 / float64, which JAX disables by default."""
    @functools.wraps(f)
    def run(*args):
        with jax.enable_x64(True):
            return f(*args)
    return run'''

SPELLING = Spelling(
    label="JAX",
    package="jax",
    extra="jax",
    imports=("import functools", "import jax", "import jax.numpy as jnp"),
    xp="jnp",
    array_type="jax.Array",
    bool_dtype="jnp.bool_",
    asarray="jnp.asarray({x}, dtype={dtype})",
    const="jnp.asarray({x}, dtype={dtype})",
    fmod="jnp.fmod({x}, {y})",
    pow="jnp.power({x}, {y})",  # the library's pow of reals (C's pow within the check's tolerance, as its exp)
    argmax="jnp.argmax({x})",  # first occurrence on ties (documented)
    c_mod="return jnp.fmod(x, _nz(y))",
    copy="{x}.astype({dtype})",
    update="{out} = {out}.at[{lo}:{hi}].set({v})",
    strided_update="{out} = {out}.at[{lo}:{hi}:{step}].set({v})",
    scatter="{out} = {out}.at[{i}].set({v})",
    jit="jax.jit(f, static_argnames=static)",
    jit_vectors=True,
    decorator="@_x64",
    helpers={"_x64": X64_HELPER, "_real_to_u8": real_to_u8_helper("jnp", "{x}.astype({dtype})")},
    real_to_uint8="_real_to_u8({x})",
    device="JAX's default device (`jax.devices()[0]`).",
    jit_doc="the computation is compiled by `jax.jit` on the first call, with "
    "the integer arguments static (new values and shapes recompile).",
    notes=(
        "For a C++ or Python kernel, `<f>_jit` (the real signature) compiles the conversion of its "
        "arrays to the flat C view too, since JAX copies an array it reshapes eagerly; the shape "
        "checks then run while `jax.jit` traces (once per shape and integer arguments).",
        "Conversion: a `<f>_jit` of the C++ or Python signature takes NumPy arrays without a "
        "copy when their data is 64-byte aligned (`jax.jit`'s dispatch shares the buffer; it "
        "copies any other, and NumPy's allocator aligns to 16 bytes). The other entries copy "
        "NumPy arrays into JAX arrays (`jnp.asarray`); `jnp.from_dlpack` shares an aligned "
        "buffer instead, at some tens of µs per array. The result converts back without a copy "
        "(`np.asarray`).",
        "Subnormal floats: XLA's CPU code (like TensorFlow's) flushes them to zero, where C keeps "
        "them (|x| < 1.2e-38 for float, < 2.2e-308 for double); results differ only there.",
        "64-bit: every entry runs under `jax.enable_x64(True)`, so results are int64 / float64 "
        "where C says so. JAX keeps their dtype, but JAX arithmetic on them outside that "
        "context (without `jax_enable_x64`) computes in 32 bits: use them inside "
        "`with jax.enable_x64(True):`, set JAX_ENABLE_X64=1, or convert with `np.asarray`.",
    ),
)


class JaxBackend(ArrayBackend):
    """Generates JAX code. Registered as ``"jax"``."""

    name = "jax"
    #: The library flushes subnormal floats to zero (see the module notes): ``--check``
    #: compares on the inputs without subnormal floats.
    flushes_subnormals = True
    sp = SPELLING

    def to_native(self, value: np.ndarray) -> Any:
        import jax
        import jax.numpy as jnp

        with jax.enable_x64(True):
            return jnp.asarray(value)


JAX = JaxBackend()
register_backend(JAX)
