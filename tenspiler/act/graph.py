"""Tensor dataflow graphs: the input of the ACT-style backend (ACT §3.1–§3.2).

A :class:`Graph` is a DAG of :class:`Node` s in topological order (a node's operands have
smaller ids), with one root: the output tensor. Its operators are exactly the XLA-HLO subset
the released ACT backend accepts, so every graph can be exported as HLO text
(:mod:`tenspiler.act.hlo`):

=================  ========================================================================
``parameter``      attrs ``(index, name)``; an input tensor, placed in HBM
``constant``       attrs ``(values,)``: the flattened values (row-major), a tuple
``broadcast``      attrs ``(dims,)``: operand dimension ``i`` becomes output dimension
                   ``dims[i]`` (HLO ``dimensions={...}``)
``slice``          attrs ``(starts, limits)``: stride 1
``add``            elementwise, same shapes and dtype
``dot``            2-D × 2-D: ``[m, k] · [k, n] → [m, n]`` (HLO ``lhs_contracting_dims={1},
                   rhs_contracting_dims={0}``)
``divide``         elementwise, same shapes and dtype
``concatenate``    attrs ``(dim,)``
``reshape``        row-major reshape to the node's shape
``transpose``      attrs ``(perm,)``: output dimension ``i`` is operand dimension ``perm[i]``
``convert``        to the node's dtype
``reduce_add``     attrs ``(dims,)``: sums over ``dims`` (HLO ``reduce`` with an ``add``
                   computation and init 0)
``exponential``    elementwise ``exp``
=================  ========================================================================

Element types (HLO names): ``s8``, ``s32``, ``f32``. **Arithmetic** (the one definition every
consumer uses: :func:`evaluate`, the rewrite rules' soundness tests, the oracles): integer
``add``/``dot``/``reduce_add`` wrap modulo 2^bits (two's complement, as XLA); integer
``divide`` truncates toward zero and is refused on a zero divisor; ``convert`` between
integer types wraps (XLA), integer → ``f32`` rounds to nearest even, ``f32`` → integer is not
part of the subset (refused: XLA's saturation rules differ from C's); ``f32`` arithmetic is
IEEE single precision (``dot`` sums in an unspecified order, so ``f32`` results are compared
within a tolerance, integers bit-exactly).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from tenspiler.ir.semantics import c_div, np_wrap

__all__ = ["DTYPES", "OPS", "Graph", "GraphBuilder", "GraphError", "Node", "evaluate"]

DTYPES: dict[str, np.dtype] = {"s8": np.dtype(np.int8), "s32": np.dtype(np.int32), "f32": np.dtype(np.float32)}
OPS = ("parameter", "constant", "broadcast", "slice", "add", "dot", "divide", "concatenate", "reshape", "transpose",
       "convert", "reduce_add", "exponential")


class GraphError(ValueError):
    """An ill-formed graph (unknown op or dtype, shape mismatch, bad attributes) or a value
    outside the subset's defined arithmetic (integer division by zero)."""


@dataclass(frozen=True)
class Node:
    """One operator application.

    Attributes:
        op: one of :data:`OPS`.
        dtype: one of :data:`DTYPES`.
        shape: the result shape (elements per dimension).
        operands: ids of the operand nodes (smaller than this node's id).
        attrs: op-specific attributes (see the module docstring); hashable.
    """

    op: str
    dtype: str
    shape: tuple[int, ...]
    operands: tuple[int, ...] = ()
    attrs: tuple[Any, ...] = ()

    @property
    def size(self) -> int:
        return int(np.prod(self.shape, dtype=np.int64))

    @property
    def nbytes(self) -> int:
        """Bytes of the tensor, row-major (``bflat``, ACT Def. 7)."""
        return self.size * DTYPES[self.dtype].itemsize


@dataclass(frozen=True)
class Graph:
    """A tensor dataflow graph: ``nodes`` in topological order and the ``root`` id (the output).

    Parameters are the ``parameter`` nodes, ordered by their index."""

    nodes: tuple[Node, ...]
    root: int

    @property
    def parameters(self) -> list[int]:
        ps = [i for i, n in enumerate(self.nodes) if n.op == "parameter"]
        return sorted(ps, key=lambda i: self.nodes[i].attrs[0])

    def users(self) -> dict[int, list[int]]:
        out: dict[int, list[int]] = {i: [] for i in range(len(self.nodes))}
        for i, n in enumerate(self.nodes):
            for o in n.operands:
                out[o].append(i)
        return out

    def live(self) -> list[int]:
        """Ids of the nodes the root depends on (including the root), in order."""
        seen = {self.root}
        for i in range(self.root, -1, -1):
            if i in seen:
                seen.update(self.nodes[i].operands)
        return sorted(seen)

    def __str__(self) -> str:
        lines = []
        for i, n in enumerate(self.nodes):
            args = ", ".join(f"%{o}" for o in n.operands)
            attrs = f" {n.attrs}" if n.attrs and n.op != "constant" else (" <const>" if n.op == "constant" else "")
            mark = "ROOT " if i == self.root else ""
            lines.append(f"{mark}%{i} = {n.dtype}{list(n.shape)} {n.op}({args}){attrs}")
        return "\n".join(lines)


def _check(cond: bool, msg: str) -> None:
    if not cond:
        raise GraphError(msg)


@dataclass
class GraphBuilder:
    """Builds a :class:`Graph` node by node; every method checks shapes and dtypes and returns
    the new node's id.

    Raises:
        GraphError: on an ill-formed application.
    """

    nodes: list[Node] = field(default_factory=list)

    def _add(self, node: Node) -> int:
        _check(node.dtype in DTYPES, f"unknown dtype {node.dtype!r}")
        _check(all(isinstance(d, int) and d >= 1 for d in node.shape), f"{node.op}: bad shape {node.shape}")
        self.nodes.append(node)
        return len(self.nodes) - 1

    def node(self, i: int) -> Node:
        return self.nodes[i]

    def parameter(self, name: str, dtype: str, shape: Sequence[int]) -> int:
        index = sum(1 for n in self.nodes if n.op == "parameter")
        return self._add(Node("parameter", dtype, tuple(shape), (), (index, name)))

    def constant(self, values: Any, dtype: str, shape: Sequence[int] | None = None) -> int:
        arr = np.asarray(values)
        shape = tuple(arr.shape) if shape is None else tuple(shape)
        flat = tuple(float(v) if dtype == "f32" else int(v) for v in np.ravel(arr))
        _check(len(flat) == int(np.prod(shape, dtype=np.int64)), f"constant: {len(flat)} values for shape {shape}")
        return self._add(Node("constant", dtype, shape, (), (flat,)))

    def broadcast(self, x: int, shape: Sequence[int], dims: Sequence[int]) -> int:
        n = self.nodes[x]
        _check(len(dims) == len(n.shape) and all(n.shape[i] == shape[d] for i, d in enumerate(dims)),
               f"broadcast: operand {n.shape} does not map to {tuple(shape)} by {tuple(dims)}")
        return self._add(Node("broadcast", n.dtype, tuple(shape), (x,), (tuple(dims),)))

    def slice(self, x: int, starts: Sequence[int], limits: Sequence[int]) -> int:
        n = self.nodes[x]
        _check(len(starts) == len(limits) == len(n.shape), "slice: rank mismatch")
        _check(all(0 <= s < e <= d for s, e, d in zip(starts, limits, n.shape, strict=True)),
               f"slice: [{starts}, {limits}) outside {n.shape}")
        shape = tuple(e - s for s, e in zip(starts, limits, strict=True))
        return self._add(Node("slice", n.dtype, shape, (x,), (tuple(starts), tuple(limits))))

    def _elementwise(self, op: str, x: int, y: int) -> int:
        a, b = self.nodes[x], self.nodes[y]
        _check(a.shape == b.shape and a.dtype == b.dtype, f"{op}: {a.dtype}{list(a.shape)} vs {b.dtype}{list(b.shape)}")
        return self._add(Node(op, a.dtype, a.shape, (x, y)))

    def add(self, x: int, y: int) -> int:
        return self._elementwise("add", x, y)

    def divide(self, x: int, y: int) -> int:
        return self._elementwise("divide", x, y)

    def dot(self, x: int, y: int) -> int:
        a, b = self.nodes[x], self.nodes[y]
        _check(len(a.shape) == 2 and len(b.shape) == 2 and a.shape[1] == b.shape[0] and a.dtype == b.dtype,
               f"dot: {a.dtype}{list(a.shape)} · {b.dtype}{list(b.shape)}")
        return self._add(Node("dot", a.dtype, (a.shape[0], b.shape[1]), (x, y)))

    def concatenate(self, xs: Sequence[int], dim: int) -> int:
        ns = [self.nodes[x] for x in xs]
        _check(len(ns) >= 1, "concatenate: no operands")
        r = ns[0]
        _check(all(len(n.shape) == len(r.shape) and n.dtype == r.dtype and
                   all(n.shape[d] == r.shape[d] for d in range(len(r.shape)) if d != dim) for n in ns),
               "concatenate: operand shapes or dtypes differ")
        shape = list(r.shape)
        shape[dim] = sum(n.shape[dim] for n in ns)
        return self._add(Node("concatenate", r.dtype, tuple(shape), tuple(xs), (dim,)))

    def reshape(self, x: int, shape: Sequence[int]) -> int:
        n = self.nodes[x]
        _check(int(np.prod(shape, dtype=np.int64)) == n.size, f"reshape: {n.shape} to {tuple(shape)}")
        return self._add(Node("reshape", n.dtype, tuple(shape), (x,)))

    def transpose(self, x: int, perm: Sequence[int]) -> int:
        n = self.nodes[x]
        _check(sorted(perm) == list(range(len(n.shape))), f"transpose: bad permutation {perm}")
        return self._add(Node("transpose", n.dtype, tuple(n.shape[p] for p in perm), (x,), (tuple(perm),)))

    def convert(self, x: int, dtype: str) -> int:
        n = self.nodes[x]
        _check(not (n.dtype == "f32" and dtype != "f32"), "convert: f32 to an integer type is outside the subset")
        return self._add(Node("convert", dtype, n.shape, (x,)))

    def reduce_add(self, x: int, dims: Sequence[int]) -> int:
        n = self.nodes[x]
        _check(all(0 <= d < len(n.shape) for d in dims) and len(set(dims)) == len(dims), f"reduce_add: bad dims {dims}")
        shape = tuple(s for d, s in enumerate(n.shape) if d not in dims) or (1,)
        return self._add(Node("reduce_add", n.dtype, shape, (x,), (tuple(sorted(dims)),)))

    def exponential(self, x: int) -> int:
        n = self.nodes[x]
        _check(n.dtype == "f32", "exponential: f32 only")
        return self._add(Node("exponential", n.dtype, n.shape, (x,)))

    def build(self, root: int | None = None) -> Graph:
        _check(bool(self.nodes), "empty graph")
        return Graph(tuple(self.nodes), len(self.nodes) - 1 if root is None else root)


def _wrap(values: np.ndarray, dtype: str) -> np.ndarray:
    dt = DTYPES[dtype]
    if dt.kind == "f":
        return values.astype(dt)
    return np_wrap(values, dt.itemsize * 8).astype(dt)


def apply(node: Node, args: Sequence[np.ndarray]) -> np.ndarray:
    """The value of ``node`` applied to operand values ``args`` (NumPy arrays of the operand
    dtypes and shapes): the graphs' one definition of the operators, built from
    :mod:`tenspiler.ir.semantics` (``c_div`` for ``divide``, ``np_wrap`` for the integer
    types' wrap-around).

    Raises:
        GraphError: integer division by zero.
    """
    op, dt = node.op, node.dtype
    isint = DTYPES[dt].kind == "i"
    if op == "constant":
        return np.array(node.attrs[0], dtype=DTYPES[dt]).reshape(node.shape)
    if op == "broadcast":
        (dims,) = node.attrs
        x = args[0]
        shape = [1] * len(node.shape)
        for i, d in enumerate(dims):
            shape[d] = x.shape[i]
        # operand dims must appear in increasing order for a plain reshape
        order = sorted(range(len(dims)), key=lambda i: dims[i])
        return np.broadcast_to(np.transpose(x, order).reshape(shape), node.shape).copy()
    if op == "slice":
        starts, limits = node.attrs
        return args[0][tuple(slice(s, e) for s, e in zip(starts, limits, strict=True))].copy()
    if op == "add":
        return _wrap(args[0].astype(np.int64) + args[1], dt) if isint else (args[0] + args[1]).astype(np.float32)
    if op == "dot":
        if isint:
            return _wrap(args[0].astype(np.int64) @ args[1].astype(np.int64), dt)
        return (args[0].astype(np.float32) @ args[1].astype(np.float32)).astype(np.float32)
    if op == "divide":
        if isint:
            a, b = args[0].astype(np.int64), args[1].astype(np.int64)
            if np.any(b == 0):
                raise GraphError("divide: integer division by zero")
            return _wrap(c_div(a, b), dt)
        with np.errstate(divide="ignore", invalid="ignore"):
            return (args[0] / args[1]).astype(np.float32)
    if op == "concatenate":
        return np.concatenate(args, axis=node.attrs[0])
    if op == "reshape":
        return args[0].reshape(node.shape).copy()
    if op == "transpose":
        return np.transpose(args[0], node.attrs[0]).copy()
    if op == "convert":
        x = args[0]
        if DTYPES[dt].kind == "f":
            return x.astype(np.float64).astype(np.float32) if x.dtype.kind == "i" else x.astype(np.float32)
        return _wrap(x.astype(np.int64), dt)
    if op == "reduce_add":
        (dims,) = node.attrs
        if isint:
            return _wrap(args[0].astype(np.int64).sum(axis=dims), dt).reshape(node.shape)
        return args[0].astype(np.float32).sum(axis=dims, dtype=np.float32).reshape(node.shape)
    if op == "exponential":
        return np.exp(args[0]).astype(np.float32)
    raise GraphError(f"unknown op {op!r}")


def evaluate(graph: Graph, inputs: Mapping[str, np.ndarray] | Sequence[np.ndarray]) -> np.ndarray:
    """The root's value for ``inputs`` (by parameter name, or a sequence in parameter order).

    Raises:
        GraphError: a missing input, an input of the wrong shape, or a value outside the
            defined arithmetic.
    """
    values: dict[int, np.ndarray] = {}
    params = graph.parameters
    for k, i in enumerate(params):
        n = graph.nodes[i]
        name = n.attrs[1]
        if isinstance(inputs, Mapping):
            _check(name in inputs, f"missing input {name!r}")
            x = inputs[name]
        else:
            _check(k < len(inputs), f"missing input {name!r}")
            x = inputs[k]
        x = np.asarray(x)
        _check(tuple(x.shape) == n.shape, f"input {name!r}: shape {x.shape}, expected {n.shape}")
        values[i] = x.astype(DTYPES[n.dtype])
    for i in graph.live():
        n = graph.nodes[i]
        if n.op != "parameter":
            values[i] = apply(n, [values[o] for o in n.operands])
    return values[graph.root]
