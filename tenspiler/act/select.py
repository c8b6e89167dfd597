"""Phase 1: tensor instruction selection by equality saturation (ACT §5), with ``egglog``.

**Module 1 (e-graph initialiser, §5.1).** The graph becomes an egglog program: one term per
node over a 2-D tensor sort ``T`` (a rank-1 tensor of ``n`` elements is ``[1, n]``), plus
shape and dtype analyses (``rows``, ``cols``, ``dt``) kept by rules.

**Module 2 (rewrite applier, §5.2).** Three kinds of rules:

* *IR→ISA rules generated from the ISA description* (§5.2.2): for each abstract instruction θ,
  its tensor computation g_θ (a :class:`~tenspiler.act.tensor_isa.Term`) is turned into an
  egglog pattern; the operands' shapes bind the computational attributes α (through the
  slices' ``rows``/``cols``), their dtypes and α's ranges are the guards (``∃β e_θ``: any
  placement is possible when the tile fits its buffer), and the action unions the matched
  e-class with the partially instantiated instruction θ_{α,?} — an e-node
  ``(I_<name> α… x1 … xn)``. No rule is written per accelerator.
* *identity instructions* (§5.2.3): ``Slice`` and ``Cat0``/``Cat1`` e-nodes double as slice^H
  and concat^H; the extractor may use them in any buffer where the window is expressible.
* *a small set of IR→IR rules tailored to the ISA* (§5.2.1): tiling at the granularity ``T``
  the instructions accept (:attr:`TensorIsa.tile`): a ``dot`` or ``add`` larger than ``T``
  is split into its first tile and the rest (rows, columns, or the contracted dimension,
  which becomes an ``add`` of two ``dot`` s: *dot with concatenated slices*); slices are
  pushed through ``convert``/``add``/``dot``/``exponential``/``divide``, composed, dropped
  when they are the whole tensor, and resolved through concatenations; ``add`` commutes.
  Each rule is an axiom of the operators' semantics (:mod:`tenspiler.act.graph`);
  ``tests/test_act_select.py`` checks every rule on random tensors.

**Module 3 (extractor, §5.3).** Extraction is guided by buffers: the root must be produced in
HBM, each pii's operand ``i`` must be produced in the buffer its slice ``h^(i)`` reads, an
identity node stays in its operand's buffer. Parameters and constants are the leaves (in
HBM). The cheapest such DAG is found with Knuth's generalisation of Dijkstra's algorithm over
(e-class, buffer) pairs (costs: the instructions' ``cost``; identity nodes ε). Intermediate
values are never routed through HBM (only the output's pieces are written there).

**Bounded enumeration (§5.4).** The e-graph grows one rule iteration at a time; after
iteration ``k`` the extractor runs with the node bound Γ(k) = 2^(k+4). The caller
(:mod:`tenspiler.act.compiler`) asks for further pii graphs when memory allocation fails.
"""

from __future__ import annotations

import heapq
import itertools
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import Any

import egglog.bindings as eb

from tenspiler.act.graph import Graph
from tenspiler.act.pii import PiiGraph, PiiNode
from tenspiler.act.tensor_isa import TensorInstruction, TensorIsa, Term

__all__ = ["SelectionError", "Selector", "egglog_program", "instruction_rule"]

EPS = 1e-3

_CTORS = """
(datatype T
  (Param String)
  (Const i64)
  (Slice T i64 i64 i64 i64)
  (Cat0 T T)
  (Cat1 T T)
  (Add T T)
  (Div T T)
  (Dot T T)
  (Cvt String T)
  (Tr T)
  (Exp T)
  (Reduce String T)
  (Bcast String i64 i64 T)
  (Reshape i64 i64 T))
(function rows (T) i64 :merge old)
(function cols (T) i64 :merge old)
(function dt (T) String :merge old)
"""

# shape/dtype analysis (one rule per constructor whose shape follows from its operands)
_ANALYSIS = """
(ruleset shape)
(rule ((= e (Slice x r0 r1 c0 c1)) (= d (dt x))) ((set (rows e) (- r1 r0)) (set (cols e) (- c1 c0)) (set (dt e) d)) :ruleset shape)
(rule ((= e (Cat0 a b)) (= ra (rows a)) (= rb (rows b)) (= c (cols a)) (= d (dt a))) ((set (rows e) (+ ra rb)) (set (cols e) c) (set (dt e) d)) :ruleset shape)
(rule ((= e (Cat1 a b)) (= ca (cols a)) (= cb (cols b)) (= r (rows a)) (= d (dt a))) ((set (cols e) (+ ca cb)) (set (rows e) r) (set (dt e) d)) :ruleset shape)
(rule ((= e (Add a b)) (= r (rows a)) (= c (cols a)) (= d (dt a))) ((set (rows e) r) (set (cols e) c) (set (dt e) d)) :ruleset shape)
(rule ((= e (Div a b)) (= r (rows a)) (= c (cols a)) (= d (dt a))) ((set (rows e) r) (set (cols e) c) (set (dt e) d)) :ruleset shape)
(rule ((= e (Dot a b)) (= r (rows a)) (= c (cols b)) (= d (dt a))) ((set (rows e) r) (set (cols e) c) (set (dt e) d)) :ruleset shape)
(rule ((= e (Cvt t a)) (= r (rows a)) (= c (cols a))) ((set (rows e) r) (set (cols e) c) (set (dt e) t)) :ruleset shape)
(rule ((= e (Tr a)) (= r (rows a)) (= c (cols a)) (= d (dt a))) ((set (rows e) c) (set (cols e) r) (set (dt e) d)) :ruleset shape)
(rule ((= e (Exp a)) (= r (rows a)) (= c (cols a)) (= d (dt a))) ((set (rows e) r) (set (cols e) c) (set (dt e) d)) :ruleset shape)
(rule ((= e (Reduce "1" a)) (= r (rows a)) (= d (dt a))) ((set (rows e) 1) (set (cols e) r) (set (dt e) d)) :ruleset shape)
(rule ((= e (Reduce "0" a)) (= c (cols a)) (= d (dt a))) ((set (rows e) 1) (set (cols e) c) (set (dt e) d)) :ruleset shape)
(rule ((= e (Reduce "0,1" a)) (= d (dt a))) ((set (rows e) 1) (set (cols e) 1) (set (dt e) d)) :ruleset shape)
(rule ((= e (Bcast s r c a)) (= d (dt a))) ((set (rows e) r) (set (cols e) c) (set (dt e) d)) :ruleset shape)
(rule ((= e (Reshape r c a)) (= d (dt a))) ((set (rows e) r) (set (cols e) c) (set (dt e) d)) :ruleset shape)
"""


def _tiling_rules(t: int) -> str:
    """The IR→IR rules (§5.2.1) at tile size ``t``; each is an identity of the operators."""
    return f"""
(rule ((= e (Dot a b)) (= m (rows a)) (> m {t}) (= k (cols a)))
      ((union e (Cat0 (Dot (Slice a 0 {t} 0 k) b) (Dot (Slice a {t} m 0 k) b)))))
(rule ((= e (Dot a b)) (<= (rows a) {t}) (= n (cols b)) (> n {t}) (= k (rows b)))
      ((union e (Cat1 (Dot a (Slice b 0 k 0 {t})) (Dot a (Slice b 0 k {t} n))))))
(rule ((= e (Dot a b)) (= m (rows a)) (<= m {t}) (<= (cols b) {t}) (= k (cols a)) (> k {t}) (= n (cols b)))
      ((union e (Add (Dot (Slice a 0 m {t} k) (Slice b {t} k 0 n)) (Dot (Slice a 0 m 0 {t}) (Slice b 0 {t} 0 n))))))
(rule ((= e (Add a b)) (= m (rows a)) (> m {t}) (= n (cols a)))
      ((union e (Cat0 (Add (Slice a 0 {t} 0 n) (Slice b 0 {t} 0 n)) (Add (Slice a {t} m 0 n) (Slice b {t} m 0 n))))))
(rule ((= e (Add a b)) (<= (rows a) {t}) (= n (cols a)) (> n {t}) (= m (rows a)))
      ((union e (Cat1 (Add (Slice a 0 m 0 {t}) (Slice b 0 m 0 {t})) (Add (Slice a 0 m {t} n) (Slice b 0 m {t} n))))))
(rewrite (Add a b) (Add b a))
(rule ((= e (Add a (Add b c))) (= b (Dot x y)) (= (dt e) "s32")) ((union e (Add (Add a c) b))))
(rule ((= e (Add a (Add b c))) (= b (Cvt "s32" x)) (= (dt e) "s32")) ((union e (Add (Add a c) b))))
(rule ((= e (Cat0 (Slice x r0 r1 c0 c1) (Slice x r1 r2 c0 c1)))) ((union e (Slice x r0 r2 c0 c1))))
(rule ((= e (Cat1 (Slice x r0 r1 c0 c1) (Slice x r0 r1 c1 c2)))) ((union e (Slice x r0 r1 c0 c2))))
(rewrite (Slice (Cvt d x) r0 r1 c0 c1) (Cvt d (Slice x r0 r1 c0 c1)))
(rewrite (Cvt d (Cat0 a b)) (Cat0 (Cvt d a) (Cvt d b)))
(rewrite (Cvt d (Cat1 a b)) (Cat1 (Cvt d a) (Cvt d b)))
(rule ((= e (Add x (Cat0 a b))) (= ra (rows a)) (= r (rows x)) (= c (cols x)))
      ((union e (Cat0 (Add (Slice x 0 ra 0 c) a) (Add (Slice x ra r 0 c) b)))))
(rule ((= e (Add x (Cat1 a b))) (= ca (cols a)) (= r (rows x)) (= c (cols x)))
      ((union e (Cat1 (Add (Slice x 0 r 0 ca) a) (Add (Slice x 0 r ca c) b)))))
(rewrite (Dot (Cat0 a b) y) (Cat0 (Dot a y) (Dot b y)))
(rule ((= e (Dot x (Cat1 a b)))) ((union e (Cat1 (Dot x a) (Dot x b)))))
(rule ((= e (Dot (Cat1 a b) y)) (= ca (cols a)) (= k (rows y)) (= n (cols y)))
      ((union e (Add (Dot a (Slice y 0 ca 0 n)) (Dot b (Slice y ca k 0 n))))))
(rewrite (Slice (Exp x) r0 r1 c0 c1) (Exp (Slice x r0 r1 c0 c1)))
(rewrite (Slice (Add x y) r0 r1 c0 c1) (Add (Slice x r0 r1 c0 c1) (Slice y r0 r1 c0 c1)))
(rewrite (Slice (Div x y) r0 r1 c0 c1) (Div (Slice x r0 r1 c0 c1) (Slice y r0 r1 c0 c1)))
(rule ((= e (Slice (Dot a b) r0 r1 c0 c1)) (= k (cols a)))
      ((union e (Dot (Slice a r0 r1 0 k) (Slice b 0 k c0 c1)))))
(rewrite (Slice (Slice x a0 a1 b0 b1) r0 r1 c0 c1) (Slice x (+ a0 r0) (+ a0 r1) (+ b0 c0) (+ b0 c1)))
(rule ((= e (Slice x 0 r 0 c)) (= r (rows x)) (= c (cols x))) ((union e x)))
(rule ((= e (Slice (Cat0 a b) r0 r1 c0 c1)) (= ra (rows a)) (<= r1 ra)) ((union e (Slice a r0 r1 c0 c1))))
(rule ((= e (Slice (Cat0 a b) r0 r1 c0 c1)) (= ra (rows a)) (>= r0 ra)) ((union e (Slice b (- r0 ra) (- r1 ra) c0 c1))))
(rule ((= e (Slice (Cat0 a b) r0 r1 c0 c1)) (= ra (rows a)) (< r0 ra) (> r1 ra))
      ((union e (Cat0 (Slice a r0 ra c0 c1) (Slice b 0 (- r1 ra) c0 c1)))))
(rule ((= e (Slice (Cat1 a b) r0 r1 c0 c1)) (= ca (cols a)) (<= c1 ca)) ((union e (Slice a r0 r1 c0 c1))))
(rule ((= e (Slice (Cat1 a b) r0 r1 c0 c1)) (= ca (cols a)) (>= c0 ca)) ((union e (Slice b r0 r1 (- c0 ca) (- c1 ca)))))
(rule ((= e (Slice (Cat1 a b) r0 r1 c0 c1)) (= ca (cols a)) (< c0 ca) (> c1 ca))
      ((union e (Cat1 (Slice a r0 r1 c0 ca) (Slice b r0 r1 0 (- c1 ca))))))
"""


class SelectionError(Exception):
    """Instruction selection found no pii graph (the message says which operation has no
    instruction in which buffer), or the graph is outside the 2-D e-graph encoding."""


# ---------------------------------------------------------------------- rules from the ISA


def _dims_code(dims: tuple[int, ...]) -> str:
    return ",".join(map(str, dims))


def _pattern(term: Term, fresh: Iterator[int]) -> str:
    if term.op == "input":
        return f"x{term.attrs[0]}"
    args = [_pattern(a, fresh) for a in term.args]
    op = term.op
    if op in ("add", "divide", "dot"):
        return f"({ {'add': 'Add', 'divide': 'Div', 'dot': 'Dot'}[op]} {args[0]} {args[1]})"
    if op == "convert":
        return f'(Cvt "{term.dtype}" {args[0]})'
    if op == "exponential":
        return f"(Exp {args[0]})"
    if op == "transpose":
        return f"(Tr {args[0]})"
    if op == "reduce_add":
        return f'(Reduce "{_dims_code(term.attrs[0])}" {args[0]})'
    if op == "broadcast":
        k = next(fresh)
        return f'(Bcast "{_dims_code(term.attrs[0])}" br{k} bc{k} {args[0]})'
    if op == "slice":
        (r0, c0), (r1, c1) = term.attrs[0], term.attrs[1]
        return f"(Slice {args[0]} {r0} {r1} {c0} {c1})"
    raise SelectionError(f"instruction semantics use {op!r}, which the e-graph encoding does not have")


def instruction_rule(isa: TensorIsa, ins: TensorInstruction) -> str:
    """The IR→ISA rewrite rule g_θ → θ_{α,?} generated from ``ins`` (ACT §5.2.2), as egglog
    text.

    Raises:
        SelectionError: an α attribute that no slice dimension determines, or an operator
            the encoding lacks."""
    pat = _pattern(ins.semantics, itertools.count())
    facts = [f"(= e {pat})"] if ins.semantics.op != "input" else []
    root = "e" if ins.semantics.op != "input" else f"x{ins.semantics.attrs[0]}"
    bound: set[str] = set()

    def dim(var: str, fn: str, d: int | str) -> None:
        if isinstance(d, int):
            facts.append(f"(= ({fn} {var}) {d})")
        else:
            facts.append(f"(= ({fn} {var}) {d})")
            bound.add(d)

    for i, s in enumerate(ins.inputs, 1):
        buf = isa.buffer(s.buffer)
        dim(f"x{i}", "rows", s.rows)
        dim(f"x{i}", "cols", s.cols)
        facts.append(f'(= (dt x{i}) "{s.dtype if buf.hbm else buf.dtype}")')
    out_buf = isa.buffer(ins.output.buffer)
    dim(root, "rows", ins.output.rows)
    dim(root, "cols", ins.output.cols)
    facts.append(f'(= (dt {root}) "{ins.output.dtype if out_buf.hbm else out_buf.dtype}")')
    for a, (lo, hi) in ins.alpha:
        if a not in bound:
            raise SelectionError(f"{isa.name}.{ins.name}: α attribute {a!r} is not a slice dimension")
        facts.append(f"(>= {a} {lo})")
        facts.append(f"(<= {a} {hi})")
    args = " ".join([*ins.alpha_names, *(f"x{i}" for i in range(1, len(ins.inputs) + 1))])
    if ins.semantics.op == "input" and len(ins.inputs) != 1:
        raise SelectionError(f"{isa.name}.{ins.name}: identity semantics must read one slice")
    return f"(rule ({' '.join(facts)})\n      ((union {root} (I_{ins.name} {args}))))"


def egglog_program(isa: TensorIsa) -> str:
    """Declarations and rules for ``isa``: the constructors, one pii constructor per
    instruction, the analyses, the tiling rules and the generated IR→ISA rules."""
    piis = "\n".join(f"(constructor I_{i.name} ({' '.join(['i64'] * len(i.alpha) + ['T'] * len(i.inputs))}) T)"
                     for i in isa.instructions)
    rules = "\n".join(instruction_rule(isa, i) for i in isa.instructions)
    return "\n".join([_CTORS, piis, _ANALYSIS, _tiling_rules(isa.tile), rules])


# ---------------------------------------------------------------------- graph → e-graph


def shape2(shape: tuple[int, ...]) -> tuple[int, int]:
    if len(shape) == 1:
        return 1, shape[0]
    if len(shape) == 2:
        return shape
    raise SelectionError(f"rank-{len(shape)} tensors are outside the 2-D e-graph encoding")


def normalize_sums(graph: Graph) -> Graph:
    """Re-associate integer sums (Module 1's only graph rewrite; integer ``add`` wraps modulo
    2^bits, so it is associative and commutative and the rewrite is exact; ``f32`` sums are
    left alone). A maximal tree of ``add`` nodes whose inner nodes have one user becomes a
    left-deep chain: first the terms that are neither a ``dot`` nor a ``convert``, then the
    converts, then the dots — the order in which the accumulate instructions (``x3 + dot``,
    ``x1 + convert(x2)``) absorb them. Equality saturation would find the same chains with
    associativity, but only after as many iterations as the sum has terms, each multiplying
    the e-graph by the commutative variants."""
    from tenspiler.act.graph import GraphBuilder

    users = graph.users()
    b = GraphBuilder()
    new: dict[int, int] = {}

    def terms(i: int, out: list[int]) -> None:
        n = graph.nodes[i]
        for o in n.operands:
            m = graph.nodes[o]
            if m.op == "add" and m.dtype == n.dtype and len(users[o]) == 1:
                terms(o, out)
            else:
                out.append(o)

    for i in graph.live():
        n = graph.nodes[i]
        if n.op == "add" and n.dtype in ("s8", "s32"):
            ts: list[int] = []
            terms(i, ts)
            rank = {"dot": 2, "convert": 1}
            ts.sort(key=lambda t: rank.get(graph.nodes[t].op, 0))  # stable: keeps source order within a rank
            acc = new[ts[0]]
            for t in ts[1:]:
                acc = b.add(acc, new[t])
            new[i] = acc
        else:
            b.nodes.append(type(n)(n.op, n.dtype, n.shape, tuple(new[o] for o in n.operands), n.attrs))
            new[i] = len(b.nodes) - 1
    return b.build(new[graph.root])


def graph_terms(graph: Graph) -> tuple[str, list[str]]:
    """The egglog commands adding ``graph`` (one ``let`` per live node) and the let-names."""
    lines: list[str] = []
    names: dict[int, str] = {}
    for i in graph.live():
        n = graph.nodes[i]
        a = [names[o] for o in n.operands]
        r, c = shape2(n.shape)
        op = n.op
        if op == "parameter":
            t = f'(Param "{n.attrs[1]}")'
        elif op == "constant":
            t = f"(Const {i})"
        elif op == "slice":
            src = graph.nodes[n.operands[0]].shape
            starts, limits = n.attrs
            if len(src) == 1:
                t = f"(Slice {a[0]} 0 1 {starts[0]} {limits[0]})"
            else:
                t = f"(Slice {a[0]} {starts[0]} {limits[0]} {starts[1]} {limits[1]})"
        elif op in ("add", "divide", "dot"):
            t = f"({ {'add': 'Add', 'divide': 'Div', 'dot': 'Dot'}[op]} {a[0]} {a[1]})"
        elif op == "concatenate":
            dim = n.attrs[0] if len(n.shape) == 2 else 1
            ctor = "Cat0" if dim == 0 else "Cat1"
            t = a[-1]
            for x in reversed(a[:-1]):
                t = f"({ctor} {x} {t})"
        elif op == "convert":
            t = f'(Cvt "{n.dtype}" {a[0]})'
        elif op == "transpose":
            t = f"(Tr {a[0]})" if len(n.shape) == 2 and n.attrs[0] == (1, 0) else a[0]
        elif op == "exponential":
            t = f"(Exp {a[0]})"
        elif op == "reduce_add":
            src = graph.nodes[n.operands[0]].shape
            dims = n.attrs[0] if len(src) == 2 else tuple(d + 1 for d in n.attrs[0])
            t = f'(Reduce "{_dims_code(dims)}" {a[0]})'
        elif op == "broadcast":
            t = f'(Bcast "{_dims_code(n.attrs[0])}" {r} {c} {a[0]})'
        elif op == "reshape":
            t = f"(Reshape {r} {c} {a[0]})"
        else:
            raise SelectionError(f"operator {op!r} is outside the e-graph encoding")
        name = f"$n{i}"
        names[i] = name
        lines.append(f"(let {name} {t})")
        if op in ("parameter", "constant", "reshape"):
            lines.append(f'(set (rows {name}) {r}) (set (cols {name}) {c}) (set (dt {name}) "{n.dtype}")')
    return "\n".join(lines), [names[i] for i in graph.live()]


# ---------------------------------------------------------------------- extraction


@dataclass
class _ENode:
    ctor: str
    prims: tuple[Any, ...]
    children: tuple[Any, ...]
    cls: Any


@dataclass
class Selector:
    """Equality saturation for one graph on one ISA (§5): :meth:`grow` runs rule iterations,
    :meth:`extract` returns the cheapest buffer-guided pii graph of the current e-graph.

    Args:
        isa: the accelerator description.
        graph: the tensor dataflow graph (rank ≤ 2).

    Raises:
        SelectionError: the graph is outside the encoding."""

    isa: TensorIsa
    graph: Graph
    iterations: int = 0
    egraph: Any = field(default=None, repr=False)
    seconds: float = 0.0
    _snap: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        t0 = time.perf_counter()
        self.egraph = eb.EGraph()
        self._run(egglog_program(self.isa))
        terms, names = graph_terms(normalize_sums(self.graph))
        self._run(terms)
        self._root_name = names[-1] if names else None
        self._run("(run-schedule (saturate (run shape)))")
        self.seconds += time.perf_counter() - t0

    def _run(self, text: str) -> list[Any]:
        try:
            return self.egraph.run_program(*self.egraph.parse_program(text))
        except eb.EggSmolError as e:  # a bug in the generated program, not the user's input
            raise SelectionError(f"egglog rejected the generated program: {e}") from None

    def grow(self, k: int = 1) -> bool:
        """Run ``k`` more rule iterations; return ``True`` if the e-graph is saturated."""
        self._snap = None
        t0 = time.perf_counter()
        out = self._run(f"(run-schedule (repeat {k} (seq (saturate (run shape)) (run))) (saturate (run shape)))")
        self.iterations += k
        self.seconds += time.perf_counter() - t0
        report = getattr(out[-1], "report", None) if out else None
        return report is not None and not report.updated

    def enodes(self) -> tuple[dict[Any, list[_ENode]], Any, int]:
        """The e-graph: e-nodes by e-class, the root's e-class, the e-node count."""
        classes, root, count, _ = self.snapshot()
        return classes, root, count

    def snapshot(self) -> tuple[dict[Any, list[_ENode]], Any, int, dict[Any, tuple[int, int, str]]]:
        """One read of the e-graph (cached until :meth:`grow`): e-nodes by e-class, the root's
        e-class, the e-node count, and each e-class's ``(rows, cols, dtype)``."""
        if self._snap is None:
            self._snap = self._read()
        return self._snap

    def _read(self) -> tuple[dict[Any, list[_ENode]], Any, int, dict[Any, tuple[int, int, str]]]:
        eg = self.egraph
        frozen = eg.freeze()
        classes: dict[Any, list[_ENode]] = {}
        root = None
        count = 0
        conv = {"i64": eg.value_to_i64, "String": eg.value_to_string}
        for name, f in frozen.functions.items():
            if f.is_let_binding:
                if name == self._root_name:
                    root = f.rows[0].output
                continue
            if f.output_sort != "T":
                continue
            sorts = f.input_sorts
            for row in f.rows:
                if row.subsumed:
                    continue
                prims = tuple(conv[s](v) for s, v in zip(sorts, row.inputs, strict=True) if s != "T")
                kids = tuple(v for s, v in zip(sorts, row.inputs, strict=True) if s == "T")
                classes.setdefault(row.output, []).append(_ENode(name, prims, kids, row.output))
                count += 1
        if root is None:
            raise SelectionError("the graph's root is not in the e-graph")
        shapes: dict[Any, list[Any]] = {}
        for fn in ("rows", "cols", "dt"):
            for row in frozen.functions[fn].rows:
                v = eg.value_to_i64(row.output) if fn != "dt" else eg.value_to_string(row.output)
                shapes.setdefault(row.inputs[0], [None, None, None])[("rows", "cols", "dt").index(fn)] = v
        return classes, root, count, {k: (v[0], v[1], v[2]) for k, v in shapes.items()}

    #: extraction variants tried in turn when memory allocation fails (§5.4: enumerate pii
    #: graphs): all identity instructions; no on-chip slices; no on-chip identity nodes
    VARIANTS: tuple[frozenset[str], ...] = (frozenset(), frozenset({"Slice"}), frozenset({"Slice", "Cat0"}))

    def extract(self, max_nodes: int | None = None, forbid: frozenset[str] = frozenset()) -> PiiGraph:
        """The cheapest buffer-guided pii graph (§5.3); ``forbid``: identity constructors
        (``"Slice"``, ``"Cat0"``) not to use in on-chip buffers.

        Raises:
            SelectionError: no pii graph (the reason names the first operation without an
                instruction), or more than ``max_nodes`` nodes (the bound Γ(k))."""
        classes, root, _, shape = self.snapshot()
        return _Extraction(self.isa, self.graph, classes, shape, forbid).run(root, max_nodes)


Target = tuple[Any, str, bool]  # (e-class, buffer, HBM write mode: the output's pieces)


class _Extraction:
    def __init__(self, isa: TensorIsa, graph: Graph, classes: dict[Any, list[_ENode]],
                 shape: dict[Any, tuple[int, int, str]], forbid: frozenset[str] = frozenset()) -> None:
        self.isa, self.graph, self.classes, self.shape, self.forbid = isa, graph, classes, shape, forbid
        self.hbm = isa.hbm.name
        self.onchip = [b.name for b in isa.buffers[1:]]
        self.ins = {f"I_{i.name}": i for i in isa.instructions}

    def options(self, t: Target) -> list[tuple[float, _ENode, tuple[Target, ...]]]:
        """The ways to produce e-class ``cls`` in ``buf``. In HBM there are two modes: *read*
        (a leaf — parameter or constant — or a window of one: an instruction's HBM operand)
        and *write* (the output: instructions writing HBM, concatenated in place)."""
        cls, buf, write = t
        hbm = buf == self.hbm
        out: list[tuple[float, _ENode, tuple[Target, ...]]] = []
        for n in self.classes.get(cls, ()):
            if n.ctor in ("Param", "Const"):
                if hbm and not write:
                    out.append((0.0, n, ()))
            elif n.ctor in self.ins:
                ins = self.ins[n.ctor]
                if ins.output.buffer != buf or (hbm and not write):
                    continue
                kids = tuple((k, s.buffer, False) for k, s in zip(n.children, ins.inputs, strict=True))
                out.append((ins.cost, n, kids))
            elif n.ctor == "Slice":
                _, _, c0, _ = n.prims
                if (hbm and write) or (not hbm and (c0 != 0 or "Slice" in self.forbid)):
                    continue
                out.append((EPS, n, ((n.children[0], buf, False),)))
            elif n.ctor in ("Cat0", "Cat1"):
                if (hbm and not write) or (not hbm and (n.ctor == "Cat1" or n.ctor in self.forbid)):
                    continue
                out.append((EPS, n, tuple((k, buf, write) for k in n.children)))
        return out

    def run(self, root: Any, max_nodes: int | None) -> PiiGraph:
        # Knuth's generalised Dijkstra over the targets reachable from the root
        start: Target = (root, self.hbm, True)
        opts: dict[Target, list[tuple[float, _ENode, tuple[Target, ...]]]] = {}
        waiting: dict[Target, list[tuple[Target, int]]] = {}
        stack = [start]
        while stack:
            t = stack.pop()
            if t in opts:
                continue
            opts[t] = self.options(t)
            for j, (_, _, kids) in enumerate(opts[t]):
                for k in kids:
                    waiting.setdefault(k, []).append((t, j))
                    if k not in opts:
                        stack.append(k)
        missing = {(t, j): len(set(kids)) for t, os in opts.items() for j, (_, _, kids) in enumerate(os)}
        best: dict[Target, tuple[float, int]] = {}
        heap: list[tuple[float, int, Target, int]] = []
        tie = itertools.count()
        for t, os in opts.items():
            for j, (c, _, kids) in enumerate(os):
                if not kids:
                    heapq.heappush(heap, (c, next(tie), t, j))
        while heap:
            c, _, t, j = heapq.heappop(heap)
            if t in best:
                continue
            best[t] = (c, j)
            for parent, pj in dict.fromkeys(waiting.get(t, ())):
                if parent in best:
                    continue
                missing[(parent, pj)] -= 1
                if missing[(parent, pj)] == 0:
                    pc, _, kids = opts[parent][pj]
                    total = pc + sum(best[k][0] for k in dict.fromkeys(kids))
                    heapq.heappush(heap, (total, next(tie), parent, pj))
        if start not in best:
            raise SelectionError(self._why(start, opts, best))
        return self._build(start, opts, best, max_nodes)

    def _why(self, start: Target, opts: dict, best: dict) -> str:
        """The first unreachable target whose e-class has no instruction at all."""
        seen, order = set(), [start]
        while order:
            t = order.pop(0)
            if t in seen:
                continue
            seen.add(t)
            cls, buf, _ = t
            if not any(n.ctor in self.ins for n in self.classes.get(cls, ())):
                ops = sorted({n.ctor for n in self.classes.get(cls, ()) if n.ctor not in ("Slice", "Cat0", "Cat1")})
                r, c, d = self.shape.get(cls, ("?", "?", "?"))
                if ops:
                    return (f"{self.isa.name}: no instruction computes {'/'.join(ops)} on {d}[{r},{c}] "
                            f"(needed in {buf})")
            for _, _, kids in opts.get(t, ()):
                order.extend(k for k in kids if k not in best)
        r, c, d = self.shape.get(start[0], ("?", "?", "?"))
        return f"{self.isa.name}: no sequence of instructions produces the output {d}[{r},{c}] in HBM"

    def _build(self, start: Target, opts: dict, best: dict, max_nodes: int | None) -> PiiGraph:
        """Materialise the chosen e-nodes as a pii graph. Values are shared between consumers,
        except the operand an in-place instruction overwrites (an input slice at the output's
        start attribute, e.g. ``matmul_acc``'s accumulator): it gets its own copy, built from
        the same choices, so that no other consumer needs the rows it destroys; and so does each
        part of a concatenation (concat^H fixes the parts' relative positions, which a shared
        part could not satisfy for two consumers, nor a part repeated in one)."""
        nodes: list[PiiNode] = []
        memo: dict[Target, int] = {}

        def build(t: Target, fresh: bool = False) -> int:
            if t in memo and not fresh:
                return memo[t]
            _, j = best[t]
            _, n, kids = opts[t][j]
            if n.ctor in self.ins:
                ins = self.ins[n.ctor]
                dest = [s.buffer == ins.output.buffer and s.start == ins.output.start for s in ins.inputs]
                ids = tuple(build(k, d) for k, d in zip(kids, dest, strict=True))
            elif n.ctor in ("Cat0", "Cat1"):  # each part gets its own rows at its position
                ids = tuple(build(k, True) for k in kids)
            else:  # a slice shares: its rows are a part of a value other slices may read too
                ids = tuple(build(k) for k in kids)
            r, c, d = self.shape[t[0]]
            buf = t[1]
            if n.ctor == "Param":
                node = PiiNode("param", buf, r, c, d, attrs=(n.prims[0],))
            elif n.ctor == "Const":
                node = PiiNode("const", buf, r, c, d, attrs=(self.graph.nodes[n.prims[0]].attrs[0],))
            elif n.ctor == "Slice":
                node = PiiNode("slice", buf, r, c, d, ids, attrs=(n.prims[0], n.prims[2]))
            elif n.ctor in ("Cat0", "Cat1"):
                node = PiiNode("concat", buf, r, c, d, ids, attrs=(0 if n.ctor == "Cat0" else 1,))
            else:
                ins = self.ins[n.ctor]
                bd = self.isa.buffer(ins.output.buffer)
                dtype = (ins.output.dtype or "s8") if bd.hbm else bd.dtype
                node = PiiNode("pii", buf, r, c, dtype, ids, inst=ins.name, alpha=tuple(n.prims))
            if n.ctor in ("Param", "Const") and t in memo:  # leaves are never copied
                return memo[t]
            nodes.append(node)
            if not fresh:
                memo[t] = len(nodes) - 1
            if max_nodes is not None and len(nodes) > max_nodes:
                raise SelectionError(f"the cheapest pii graph has more than {max_nodes} nodes")
            return len(nodes) - 1

        limit = sys.getrecursionlimit()
        sys.setrecursionlimit(max(limit, 20000))
        try:
            root = build(start)
        finally:
            sys.setrecursionlimit(limit)
        return PiiGraph(tuple(nodes), root)


# ---------------------------------------------------------------------- soundness check


def check_egraph(sel: Selector, inputs: dict[str, Any], tol: float = 1e-4) -> list[str]:
    """Evaluate every e-node of ``sel``'s e-graph on ``inputs`` (by parameter name) and return
    the e-classes whose e-nodes disagree — empty when every rule applied so far (IR→IR and
    the generated IR→ISA rules, a pii evaluated by its g_θ(α)) preserved the semantics on
    these inputs. Used by the tests as the rules' soundness check."""
    import numpy as np

    from tenspiler.act.graph import Node, apply
    from tenspiler.act.tensor_isa import term_shape_eval

    classes, _, _, shapes = sel.snapshot()
    ins = {f"I_{i.name}": i for i in sel.isa.instructions}

    def value(n: _ENode, vals: dict[Any, Any]) -> Any:
        kids = [vals[k] for k in n.children]
        r, c, d = shapes[n.cls]
        if n.ctor == "Param":
            return np.asarray(inputs[n.prims[0]]).reshape(r, c)
        if n.ctor == "Const":
            g = sel.graph.nodes[n.prims[0]]
            return np.asarray(g.attrs[0], dtype=np.int64 if d != "f32" else np.float32).reshape(r, c)
        if n.ctor in ins:
            return term_shape_eval(ins[n.ctor].semantics, kids, (r, c))
        if n.ctor == "Slice":
            r0, r1, c0, c1 = n.prims
            return kids[0][r0:r1, c0:c1]
        if n.ctor in ("Cat0", "Cat1"):
            return np.concatenate(kids, axis=0 if n.ctor == "Cat0" else 1)
        if n.ctor == "Reshape":
            return kids[0].reshape(r, c)
        if n.ctor == "Tr":
            return kids[0].T
        if n.ctor == "Reduce":
            dims = tuple(int(x) for x in n.prims[0].split(","))
            return kids[0].sum(axis=dims).reshape(r, c).astype(kids[0].dtype)
        if n.ctor == "Bcast":
            dims = n.prims[0]
            k = kids[0]
            k = k if dims == "0,1" else k.reshape(-1, 1) if dims == "0" else k.reshape(1, -1)
            return np.broadcast_to(k, (r, c)).copy()
        op = {"Add": "add", "Div": "divide", "Dot": "dot", "Cvt": "convert", "Exp": "exponential"}[n.ctor]
        from tenspiler.act.graph import DTYPES
        kids = [np.asarray(k).astype(DTYPES[shapes[ch][2]]) for k, ch in zip(kids, n.children, strict=True)]
        return apply(Node(op, d, (r, c), tuple(range(len(kids)))), kids)

    vals: dict[Any, Any] = {}
    changed = True
    while changed:
        changed = False
        for cls, ns in classes.items():
            if cls in vals:
                continue
            for n in ns:
                if all(k in vals for k in n.children):
                    vals[cls] = np.asarray(value(n, vals))
                    changed = True
                    break
    bad = []
    for cls, ns in classes.items():
        if cls not in vals:
            continue
        for n in ns:
            if all(k in vals for k in n.children):
                v = np.asarray(value(n, vals))
                ref = vals[cls]
                ok = v.shape == ref.shape and (np.array_equal(v.astype(np.float64), ref.astype(np.float64)) if ref.dtype.kind in "iu"
                                               else np.allclose(v, ref, rtol=tol, atol=tol))
                if not ok:
                    bad.append(f"{n.ctor}{n.prims}: differs from its e-class {shapes[cls]}")
    return bad
