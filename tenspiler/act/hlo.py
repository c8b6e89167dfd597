"""XLA-HLO text of a tensor dataflow graph (:mod:`tenspiler.act.graph`): the input format of
the released ACT backend (ACT §3.1, the HLO examples of its appendix).

:func:`to_hlo` prints one module::

    HloModule gemv_g0

    %add_s32 (add_s32.lhs: s32[], add_s32.rhs: s32[]) -> s32[] {   // only if a reduce needs it
      ...
    }

    ENTRY %main (A: s8[64,64], x: s8[64,1]) -> s32[64] {
      %A = s8[64,64] parameter(0)
      ...
      ROOT %reshape.6 = s32[64] reshape(%dot.5)
    }

using only the operators the ACT backend accepts — ``parameter``, ``constant``, ``broadcast``,
``slice``, ``add``, ``dot``, ``divide``, ``concatenate``, ``reshape``, ``transpose``,
``convert``, ``reduce`` (with an ``add`` computation and init 0) and ``exponential`` — over
``s8``, ``s32`` and ``f32``. Layouts are omitted (XLA's default, row-major). Instruction names:
a parameter is named after the graph's parameter (made an HLO identifier, made unique), every
other node ``%<op>.<node id>``; only the nodes the root depends on are printed (and every
parameter, so the signature keeps all of them). The text depends on the graph only.

Meaning: the graph's (:func:`tenspiler.act.graph.evaluate`), which is XLA's: integer
``add``/``dot``/``reduce`` wrap, ``convert`` between integer types wraps, integer ``divide``
truncates (the graph refuses a zero divisor, XLA would give -1). ``tests/test_act_hlo.py``
parses, compiles and runs the printed modules with XLA (:func:`xla_run`) and compares with
:func:`~tenspiler.act.graph.evaluate`.

A ``.hlo`` file of the ``hlo`` backend holds several modules separated by
:data:`MODULE_SEPARATOR` lines; :func:`split_modules` cuts it into texts XLA's parser takes one
at a time (``//`` comments are HLO comments, so every piece parses as it is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from tenspiler.act.graph import DTYPES, OPS, Graph, GraphError, Node

__all__ = ["MODULE_SEPARATOR", "hlo_name", "split_modules", "to_hlo", "xla_errors", "xla_parse", "xla_run"]

#: starts every module's comment block in a multi-module ``.hlo`` file
MODULE_SEPARATOR = "// ---- module "

#: names a parameter must not take: our computations' names, HLO keywords and element type
#: names (the lexer reads ``pred``, ``s32``, ``f8e4m3`` … as types)
_RESERVED = {"main", "add_s8", "add_s32", "add_f32", "true", "false", "inf", "nan", "ROOT", "ENTRY", "HloModule",
             "maximal", "replicated", "manual", "unknown", "token", "pred", "opaque", "tuple", "bf16"}
_TYPE_LIKE = re.compile(r"[sufc][0-9]+|f[0-9]+e[0-9A-Za-z]*|opaque_type")


def hlo_name(s: str) -> str:
    """``s`` as an HLO identifier: letters, digits, ``_``, not starting with a digit, not a
    keyword or element type name (those get a trailing ``_``)."""
    out = re.sub(r"[^A-Za-z0-9_]", "_", s) or "_"
    out = "_" + out if out[0].isdigit() else out
    return out + "_" if out in _RESERVED or _TYPE_LIKE.fullmatch(out) else out


def _shape(dtype: str, shape: Sequence[int]) -> str:
    return f"{dtype}[{','.join(str(d) for d in shape)}]"


def _number(v: Any, dtype: str) -> str:
    if DTYPES[dtype].kind != "f":
        return str(int(v))
    x = np.float32(v)
    if np.isnan(x):
        return "nan"
    if np.isinf(x):
        return "inf" if x > 0 else "-inf"
    # the exact value of the float32 (a double): parsing it back gives the same float32
    return repr(float(x))


def _literal(values: Sequence[Any], shape: Sequence[int], dtype: str) -> str:
    """HLO literal text: ``5``, ``{1, 2}``, ``{ {1, 2}, {3, 4} }``."""
    if not shape:
        return _number(values[0], dtype)
    if len(shape) == 1:
        return "{" + ", ".join(_number(v, dtype) for v in values) + "}"
    step = len(values) // shape[0]
    parts = [_literal(values[i * step:(i + 1) * step], shape[1:], dtype) for i in range(shape[0])]
    return "{ " + ", ".join(parts) + " }"


def _dims(ds: Sequence[int]) -> str:
    return "{" + ",".join(str(d) for d in ds) + "}"


def _check_node(g: Graph, i: int, n: Node) -> None:
    if n.op not in OPS:
        raise GraphError(f"node {i}: unknown op {n.op!r}")
    if n.dtype not in DTYPES:
        raise GraphError(f"node {i}: unknown dtype {n.dtype!r}")
    if any(o >= i or o < 0 for o in n.operands):
        raise GraphError(f"node {i}: operands {n.operands} are not earlier nodes")


def to_hlo(graph: Graph, name: str) -> str:
    """The XLA-HLO module text of ``graph``, named ``name`` (made an identifier).

    Raises:
        GraphError: an unknown op or dtype, or operands that are not earlier nodes.
    """
    nodes = graph.nodes
    for i, n in enumerate(nodes):
        _check_node(graph, i, n)
    params = graph.parameters
    live = sorted(set(graph.live()) | set(params))

    names: dict[int, str] = {}
    taken: set[str] = set()
    for i in params:
        base = hlo_name(str(nodes[i].attrs[1]))
        cand, k = base, 1
        while cand in taken:
            cand, k = f"{base}_{k}", k + 1
        taken.add(cand)
        names[i] = cand
    for i in live:
        if i not in names:
            names[i] = f"{'reduce' if nodes[i].op == 'reduce_add' else nodes[i].op}.{i}"

    body: list[str] = []
    regions: set[str] = set()
    for i in live:
        n = nodes[i]
        ty = _shape(n.dtype, n.shape)
        args = ", ".join(f"%{names[o]}" for o in n.operands)
        root = "ROOT " if i == graph.root else ""
        lhs = f"  {root}%{names[i]} = {ty}"
        match n.op:
            case "parameter":
                body.append(f"{lhs} parameter({n.attrs[0]})")
            case "constant":
                body.append(f"{lhs} constant({_literal(n.attrs[0], n.shape, n.dtype)})")
            case "broadcast":
                body.append(f"{lhs} broadcast({args}), dimensions={_dims(n.attrs[0])}")
            case "slice":
                starts, limits = n.attrs
                ranges = ", ".join(f"[{s}:{e}]" for s, e in zip(starts, limits, strict=True))
                body.append(f"{lhs} slice({args}), slice={{{ranges}}}")
            case "add" | "divide" | "reshape" | "convert" | "exponential":
                body.append(f"{lhs} {n.op}({args})")
            case "dot":
                body.append(f"{lhs} dot({args}), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}")
            case "concatenate":
                body.append(f"{lhs} concatenate({args}), dimensions={{{n.attrs[0]}}}")
            case "transpose":
                body.append(f"{lhs} transpose({args}), dimensions={_dims(n.attrs[0])}")
            case "reduce_add":
                (dims,) = n.attrs
                region = f"add_{n.dtype}"
                regions.add(n.dtype)
                init = f"%{names[i]}.init"
                body.append(f"  {init} = {n.dtype}[] constant(0)")
                operand_rank = len(nodes[n.operands[0]].shape)
                if len(dims) == operand_rank:  # everything summed: XLA gives a scalar, the graph [1]
                    body.append(f"  %{names[i]}.all = {n.dtype}[] reduce({args}, {init}), dimensions={_dims(dims)}, to_apply=%{region}")
                    body.append(f"{lhs} reshape(%{names[i]}.all)")
                else:
                    body.append(f"{lhs} reduce({args}, {init}), dimensions={_dims(dims)}, to_apply=%{region}")
            case _:  # pragma: no cover - _check_node refused it
                raise GraphError(f"unknown op {n.op!r}")

    out = [f"HloModule {hlo_name(name)}", ""]
    for dt in sorted(regions):
        c = f"add_{dt}"
        out += [
            f"%{c} ({c}.lhs: {dt}[], {c}.rhs: {dt}[]) -> {dt}[] {{",
            f"  %{c}.lhs = {dt}[] parameter(0)",
            f"  %{c}.rhs = {dt}[] parameter(1)",
            f"  ROOT %{c}.sum = {dt}[] add(%{c}.lhs, %{c}.rhs)",
            "}",
            "",
        ]
    sig = ", ".join(f"{names[i]}: {_shape(nodes[i].dtype, nodes[i].shape)}" for i in params)
    r = nodes[graph.root]
    out.append(f"ENTRY %main ({sig}) -> {_shape(r.dtype, r.shape)} {{")
    out += body
    out.append("}")
    return "\n".join(out) + "\n"


def split_modules(text: str) -> list[str]:
    """The modules of a multi-module ``.hlo`` file, each with its comment block: the file
    is cut before every :data:`MODULE_SEPARATOR` line (the text before the first one, the
    file's header comment, is dropped)."""
    lines = text.splitlines(keepends=True)
    starts = [i for i, line in enumerate(lines) if line.startswith(MODULE_SEPARATOR)]
    return ["".join(lines[a:b]) for a, b in zip(starts, [*starts[1:], len(lines)], strict=True)]


# ---------------------------------------------------------------- XLA (optional: jax / jaxlib)


def _jaxlib() -> tuple[Any, Any]:
    try:
        from jaxlib import _hlo, _jax  # jaxlib's own bindings of XLA's HLO parser and PJRT
    except ImportError as e:  # pragma: no cover - depends on the environment
        raise RuntimeError(f"XLA is not available (install jax / jaxlib): {e}") from None
    return _hlo, _jax


def xla_parse(text: str) -> Any:
    """XLA's parse of an HLO module text (``jaxlib._hlo.hlo_module_from_text``): the
    ``HloModule``. The parser checks the syntax, not the shapes (:func:`xla_run` does).

    Raises:
        RuntimeError: jaxlib is not installed.
        Exception: XLA's parse error.
    """
    _hlo, _ = _jaxlib()
    return _hlo.hlo_module_from_text(text)


def xla_run(text: str, inputs: Sequence[np.ndarray]) -> np.ndarray:
    """Parse ``text`` with XLA, compile it for the local CPU and run it on ``inputs`` (in
    parameter order): ``hlo_module_from_text`` → ``XlaComputation`` →
    ``xla_computation_to_mlir_module`` (StableHLO, whose verifier checks every shape) →
    ``Client.compile_and_load`` → ``LoadedExecutable.execute``. Returns the root's value.

    Imports jax (which starts thread pools): run it in a process that does not fork later
    (the tests use a spawned worker).

    Raises:
        RuntimeError: jax / jaxlib is not installed.
        Exception: XLA's parse, verification or compile error.
    """
    _hlo, _jax = _jaxlib()
    import jax

    module = _hlo.hlo_module_from_text(text)
    computation = _hlo.XlaComputation(module.as_serialized_hlo_module_proto())
    mlir = _jax.mlir.xla_computation_to_mlir_module(computation)
    device = jax.devices("cpu")[0]
    exe = device.client.compile_and_load(mlir, [device], _jax.CompileOptions())
    out = exe.execute([jax.device_put(np.asarray(x), device) for x in inputs])
    return np.asarray(out[0])


def xla_errors(text: str) -> str | None:
    """``None`` when XLA parses ``text`` and compiles it for the CPU (which verifies every
    instruction's shapes and attributes), else XLA's message.

    Raises:
        RuntimeError: jax / jaxlib is not installed.
    """
    _hlo, _jax = _jaxlib()
    import jax

    try:
        module = _hlo.hlo_module_from_text(text)
        computation = _hlo.XlaComputation(module.as_serialized_hlo_module_proto())
        mlir = _jax.mlir.xla_computation_to_mlir_module(computation)
        device = jax.devices("cpu")[0]
        device.client.compile_and_load(mlir, [device], _jax.CompileOptions())
    except Exception as e:  # XLA's errors are JaxRuntimeError / ValueError, by version
        return f"{type(e).__name__}: {e}"
    return None
