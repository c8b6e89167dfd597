"""The synthesis loop (paper §5.5, Fig. 7): bounded search over expression-tree-shaped
candidates, concrete filtering, unbounded verification, counterexample-guided refinement.

1. Build one expression tree per output hole (written array, loop-carried scalar) and the
   leaf pools (live slices, loop-invariant scalars, program constants).
2. Enumerate candidates per hole; keep those that agree with the source on a set of small
   random program states (bounded synthesis: short arrays, small values).
3. Verify combinations of survivors with cvc5 (unbounded). A counterexample becomes a new
   program state (CEGIS); ``unknown``/timeout rejects the candidate.
4. If no candidate survives, expand the grammar (operators become holes too) and repeat.
"""

from __future__ import annotations

import functools
import itertools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field, replace

import numpy as np

from tenspiler.budget import PROOF_RLIMIT, SAFETY_NET_S, SYNTHESIS_SAFETY_NET_S, check_deadline
from tenspiler.errors import NotLiftable, VerificationError
from tenspiler.ir.printer import show, show_summary
from tenspiler.ir.terms import Lit, ProgramSummary, Scalar, ScalarCast, ScalarOutput
from tenspiler.loops.ir import DType, Expr, For, Var
from tenspiler.synth.nest_search import nest_space
from tenspiler.synth.trees import (
    Pools,
    Tree,
    accumulate,
    enumerate_terms,
    expression_tree,
    fill_over_range,
    leaf_pools,
    running_arg_extremum,
    running_max,
    running_min,
    running_product,
    show_tree,
)
from tenspiler.vc.analyze import AnyKernel
from tenspiler.vc.blocks import BlockKernel
from tenspiler.vc.concrete import Example, make_example, mismatch, random_examples
from tenspiler.vc.conditions import Candidate, exit_term, lift_entry_scalar, result_term, summary
from tenspiler.vc.kernel import LoopKernel
from tenspiler.vc.nest import NestKernel
from tenspiler.vc.phases import PhasedKernel
from tenspiler.vc.updates import (
    accumulation_wrap,
    arg_extremum_part,
    maximum_part,
    minimum_part,
    product_part,
    reduction_parts,
    stores_counter,
)
from tenspiler.verify.verifier import PhasedProof, Proof, prove, refute_concretely, verify

Progress = Callable[[str], None]


@dataclass
class SearchStats:
    """What the search did (reported in ``--json`` under ``synthesis``)."""

    trees: dict[str, str] = field(default_factory=dict)
    enumerated: int = 0
    survivors: int = 0
    proofs_attempted: int = 0
    counterexamples: int = 0
    rounds: int = 0
    rejected: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Synthesized:
    candidate: Candidate
    summary: ProgramSummary
    proof: Proof
    stats: SearchStats


@dataclass
class _Hole:
    name: str
    tree: Tree
    make: Callable[[object], object]  # wraps an enumerated term into the hole's term


def _stored_index(index: Expr, k: LoopKernel, at: Scalar) -> Scalar:
    """The value an argmax stores (``index``, a function of the loop counter) where the
    counter is ``at``."""
    return lift_entry_scalar(index, k, {k.var: at})


def _holes(k: LoopKernel) -> tuple[list[_Hole], Pools]:
    holes: list[_Hole] = []
    values = []
    for a in k.arrays:
        tree = expression_tree(a.value, k)
        if tree.kind != "vector":  # a fill: the loop-invariant value over the loop's range
            holes.append(_Hole(a.array, tree, lambda t: fill_over_range(k, t)))  # type: ignore[arg-type]
            values.append(a.value)
            continue
        holes.append(_Hole(a.array, tree, lambda t: t))
        values.append(a.value)
    for s in k.scalars:
        arg = arg_extremum_part(s, k.scalars, k.var)
        if arg is not None:
            tree = expression_tree(arg.value, k)
            if tree.kind != "vector":
                raise NotLiftable(f"'{s.name}' keeps the index of an extremum of a loop-invariant value", s.update.loc)
            start = lift_entry_scalar(k.start, k)
            holes.append(_Hole(s.name, tree, functools.partial(
                running_arg_extremum, lift_entry_scalar(s.init, k), lift_entry_scalar(arg.extremum.init, k),
                start=start, compare=arg.extremum.dtype, bigger=arg.bigger, last=arg.last,
                stored=functools.partial(_stored_index, arg.index, k))))
            values.append(arg.value)
            continue
        extremum = next(((kind, f) for kind, f in (("minimum", minimum_part(s)), ("maximum", maximum_part(s)))
                         if f is not None), None)
        if extremum is not None:
            kind, f = extremum
            tree = expression_tree(f, k)
            if tree.kind != "vector":
                raise NotLiftable(f"'{s.name}' keeps a {kind} of a loop-invariant value", s.update.loc)
            init = lift_entry_scalar(s.init, k)
            start = lift_entry_scalar(k.start, k)
            running = running_min if kind == "minimum" else running_max
            holes.append(_Hole(s.name, tree, lambda t, init=init, start=start, d=s.dtype, r=running: r(init, t, start, d)))  # type: ignore[misc]
            values.append(f)
            continue
        prod = product_part(s)
        if prod is not None:
            tree = expression_tree(prod, k)
            if tree.kind != "vector":
                raise NotLiftable(f"'{s.name}' multiplies by a value that does not depend on the loop counter",
                                  s.update.loc)
            init = lift_entry_scalar(s.init, k)
            if not (isinstance(init, Lit) and init.value == 1):
                # init * reduce_prod(...): cvc5 times out on the non-linear preservation
                # (measured: a timeout even with the unfolding given)
                raise NotLiftable(f"a running product of '{s.name}' starting from a value other than 1 is not "
                                  "supported yet", s.update.loc)
            holes.append(_Hole(s.name, tree, lambda t, init=init, d=s.dtype: running_product(init, t, d)))  # type: ignore[misc]
            values.append(prod)
            continue
        if stores_counter(s, k.var):
            raise NotLiftable(
                f"'{s.name}' stores the loop counter '{k.var}' under a condition, but not as the index of an "
                f"extremum: an argmax is 'if (F > m) {{ m = F; {s.name} = {k.var}; }}' (or >=, <, <=) with 'm' a "
                f"running maximum (minimum) of the same F, both updated under that one condition, and an int "
                f"'{s.name}'", s.update.loc)
        sign, f = reduction_parts(s)
        tree = expression_tree(f, k)
        if tree.kind != "vector":
            raise NotLiftable(
                f"'{s.name}' accumulates a value that does not depend on the loop counter", s.update.loc
            )
        init = lift_entry_scalar(s.init, k)
        wrap = accumulation_wrap(s)
        if wrap is not None:
            # (T)(init ± Σ F): the sum in int, reduced modulo 2^n once
            holes.append(_Hole(s.name, tree, lambda t, init=init, sign=sign, w=wrap, d=s.dtype: _as(  # type: ignore[misc]
                ScalarCast(accumulate(init, sign, t, DType.INT), w), d)))
        else:
            holes.append(
                _Hole(s.name, tree, lambda t, init=init, sign=sign, d=s.dtype: accumulate(init, sign, t, d))  # type: ignore[misc]
            )
        values.append(f)
    return holes, leaf_pools(k, values)


def _as(t: Scalar, dtype: DType) -> Scalar:
    """``t`` converted to ``dtype`` (an ``unsigned int`` accumulator kept as INT: the
    wrapped sum, in ``[0, 2^32)``, converted back without change)."""
    return t if t.dtype == dtype else ScalarCast(t, dtype)


def synthesize(
    k: AnyKernel,
    timeout: float = SYNTHESIS_SAFETY_NET_S,
    proof_timeout: float = SAFETY_NET_S,
    seed: int = 0,
    n_examples: int = 24,
    max_enumerate: int = 50_000,
    max_survivors: int = 6,
    progress: Progress | None = None,
    proof_rlimit: int = PROOF_RLIMIT,
) -> Synthesized:
    """Find a program summary and loop invariant for ``k`` and prove them.

    The budget is counted in work (:mod:`tenspiler.synth.budget`): ``max_enumerate``
    candidates per hole, ``max_survivors`` kept per hole, ``proof_rlimit`` cvc5 resource
    units per VC clause; the result is the same for the same input and options on any
    machine under any load.

    Args:
        timeout: wall-clock safety net of the whole search, in seconds.
        proof_timeout: wall-clock safety net of one VC clause, in seconds (its worker is
            killed after it).
        seed: seed of the random program states (results are deterministic for a seed).
        proof_rlimit: cvc5 resource units per VC clause (``rlimit-per``).

    Raises:
        NotLiftable: no candidate of the search space was verified within the budget.
        WallClockTimeout: a safety net fired.
    """
    say = progress or (lambda _m: None)
    if isinstance(k, PhasedKernel):
        return _synthesize_phases(k, timeout, proof_timeout, seed, n_examples, max_enumerate, max_survivors, say,
                                  proof_rlimit)
    if isinstance(k, BlockKernel):
        return _synthesize_block(k, timeout, proof_timeout, seed, n_examples, max_enumerate, max_survivors, say,
                                 proof_rlimit)
    deadline = time.monotonic() + timeout
    stats = SearchStats()
    if isinstance(k, NestKernel):
        stats.trees, nest_candidates = nest_space(k)
        array_names = {o.array for o in k.linear} | {r.array for r in k.rows}

        def survivors_of(expanded: bool) -> Iterator[tuple[tuple[str, object], ...]] | None:
            return nest_candidates(examples, expanded, max_enumerate, max_survivors, deadline, stats)
    else:
        holes, pools = _holes(k)
        for h in holes:
            stats.trees[h.name] = show_tree(h.tree)
        array_names = {a.array for a in k.arrays}

        def survivors_of(expanded: bool) -> Iterator[tuple[tuple[str, object], ...]] | None:
            assert isinstance(k, LoopKernel)
            return _filter(k, holes, pools, examples, expanded, max_enumerate, max_survivors, stats, deadline)

    rng = np.random.default_rng(seed)
    examples = random_examples(k, rng, n_examples)
    if not examples:
        raise NotLiftable("could not generate any input that satisfies the kernel's preconditions")
    say(f"expression trees: {stats.trees}; {len(examples)} concrete states")

    tried: set[Candidate] = set()
    for expanded in (False, True):
        stats.rounds += 1
        survivors = survivors_of(expanded)
        if survivors is None:
            continue
        say(f"round {stats.rounds}: {stats.survivors} candidates agree with the source on all states")
        for combo in survivors:
            check_deadline(deadline)
            cand = Candidate(
                tuple((n, t) for n, t in combo if n not in array_names),  # type: ignore[misc]
                tuple((n, t) for n, t in combo if n in array_names),  # type: ignore[misc]
            )
            if cand in tried:  # the expanded grammar re-enumerates the first round's terms
                continue
            tried.add(cand)
            bad = next((m for ex in examples if (m := mismatch(k.summary(cand), ex))), None)
            if bad is not None:
                continue
            stats.proofs_attempted += 1
            say(f"proving candidate {stats.proofs_attempted}: {_show_cand(cand)}")
            try:
                proof = verify(k, cand, (), min(proof_timeout, max(1.0, deadline - time.monotonic())),
                               rlimit=proof_rlimit)
            except VerificationError as err:
                stats.rejected.append(f"{_show_cand(cand)}: {err}")
                if err.counterexample:
                    ex = _example_from_model(k, err.counterexample)
                    if ex is not None:
                        stats.counterexamples += 1
                        examples.append(ex)
                continue
            return Synthesized(cand, k.summary(cand), proof, stats)
    reason = "; ".join(stats.rejected[:3]) if stats.rejected else "no candidate agreed with the source"
    loop = getattr(k, "loop", None) or getattr(k, "outer", None)
    raise NotLiftable(
        f"no verified summary found (trees {stats.trees}, {stats.enumerated} candidates enumerated, "
        f"{stats.proofs_attempted} proofs attempted): {reason}",
        getattr(loop, "loc", None),
    )


def _synthesize_phases(
    k: PhasedKernel, timeout: float, proof_timeout: float, seed: int, n_examples: int,
    max_enumerate: int, max_survivors: int, say: Progress, proof_rlimit: int,
) -> Synthesized:
    """Each loop phase synthesized and proved on its own (over every state at its entry),
    then the summaries composed (:func:`tenspiler.vc.phases.compose`)."""
    deadline = time.monotonic() + timeout
    parts: list[Synthesized] = []
    n = len(k.phases)
    for p in k.phases:
        check_deadline(deadline)
        left = deadline - time.monotonic()
        say(f"loop {p.index + 1} of {n}")
        try:
            parts.append(synthesize(p.kernel, left, proof_timeout, seed, n_examples, max_enumerate,
                                    max_survivors, say, proof_rlimit))
        except NotLiftable as err:
            loop = next(s for s in p.fn.body if isinstance(s, For))
            raise NotLiftable(f"loop {p.index + 1} of {n}: {err.message}", err.loc or loop.loc) from None
    stats = SearchStats()
    for q, part in zip(k.phases, parts, strict=True):
        for name, tree in part.stats.trees.items():
            stats.trees[f"loop {q.index + 1}: {name}"] = tree
        stats.enumerated += part.stats.enumerated
        stats.survivors += part.stats.survivors
        stats.proofs_attempted += part.stats.proofs_attempted
        stats.counterexamples += part.stats.counterexamples
        stats.rounds += part.stats.rounds
        stats.rejected += part.stats.rejected
    cands = tuple(part.candidate for part in parts)
    return Synthesized(cands, k.summary(cands), PhasedProof(tuple(part.proof for part in parts)), stats)  # type: ignore[arg-type]


def _synthesize_block(
    k: BlockKernel, timeout: float, proof_timeout: float, seed: int, n_examples: int,
    max_enumerate: int, max_survivors: int, say: Progress, proof_rlimit: int,
) -> Synthesized:
    """The row kernel synthesized and proved on its own, its summary lifted to 2-D, and the
    outer loop proved with the row summary as the transition (:mod:`tenspiler.vc.blocks`)."""
    deadline = time.monotonic() + timeout
    say(f"rows of the outer loop '{k.var}': the row kernel")
    try:
        part = synthesize(k.kernel, timeout, proof_timeout, seed, n_examples, max_enumerate, max_survivors, say,
                          proof_rlimit)
    except NotLiftable as err:
        raise NotLiftable(f"the rows of the outer loop '{k.var}': {err.message}", err.loc or k.outer.loc) from None
    ps = k.summary(part.candidate)
    say(f"outer loop '{k.var}': {show_summary(ps)}")
    examples = random_examples(k, np.random.default_rng(seed), n_examples)
    stats = replace(part.stats)
    stats.proofs_attempted += 1
    try:
        refute_concretely(k, part.candidate, examples, ps)
        # the outer loop's VC carries the row summary: three times a clause's budget
        proof = prove(k, part.candidate, min(proof_timeout * 3, max(1.0, deadline - time.monotonic())), ps,
                      proof_rlimit * 3)
    except VerificationError as err:
        raise NotLiftable(f"the outer loop '{k.var}' of the nest: {err}", k.outer.loc) from None
    return Synthesized(part.candidate, ps, PhasedProof((part.proof, proof), ("row kernel", "outer loop")), stats)  # type: ignore[arg-type]


def _show_cand(c: Candidate) -> str:
    return ", ".join(f"{n} = {show(t)}" for n, t in c.scalars + c.arrays)


def _filter(
    k: LoopKernel,
    holes: list[_Hole],
    pools: Pools,
    examples: list[Example],
    expanded: bool,
    max_enumerate: int,
    max_survivors: int,
    stats: SearchStats,
    deadline: float,
) -> Iterator[tuple[tuple[str, object], ...]] | None:
    """Per-hole concrete filtering; returns an iterator over surviving combinations."""
    array_holes = [h for h in holes if h.name in {a.array for a in k.arrays}]
    scalar_holes = [h for h in holes if h not in array_holes]
    per_hole: list[list[tuple[str, object]]] = []
    for h in array_holes:
        keep: list[tuple[str, object]] = []
        for n, t in enumerate(enumerate_terms(h.tree, pools, expanded)):
            check_deadline(deadline)
            if n >= max_enumerate:
                break
            stats.enumerated += 1
            cand = Candidate((), ((h.name, h.make(t)),))  # type: ignore[arg-type]
            ps = _partial_summary(k, cand, h.name)
            if all(mismatch(ps, ex, only=h.name) is None for ex in examples):
                keep.append((h.name, h.make(t)))
                if len(keep) >= max_survivors:
                    break
        if not keep:
            return None
        per_hole.append(keep)
    if scalar_holes:
        keep_s: list[tuple[tuple[str, object], ...]] = []
        spaces = [
            [(h.name, h.make(t)) for t in itertools.islice(enumerate_terms(h.tree, pools, expanded), max_enumerate)]
            for h in scalar_holes
        ]
        for combo in itertools.product(*spaces):
            check_deadline(deadline)
            if stats.enumerated >= max_enumerate * 2:
                break
            stats.enumerated += 1
            cand = Candidate(tuple(combo), ())  # type: ignore[arg-type]
            observed = [ScalarOutput("return", result_term(k, cand))] if k.result is not None else []
            observed += [ScalarOutput(x, exit_term(k, cand, Var(x, k.fn.dtype_of(x)))) for x in k.live_out]
            if observed:
                ps = ProgramSummary(k.fn.name, tuple(observed))
                if any(mismatch(ps, ex) is not None for ex in examples):
                    continue
            keep_s.append(tuple(combo))
            if len(keep_s) >= max_survivors:
                break
        if not keep_s:
            return None
        stats.survivors += len(keep_s)
    else:
        keep_s = [()]
    stats.survivors += sum(len(p) for p in per_hole)

    def combos() -> Iterator[tuple[tuple[str, object], ...]]:
        for arrays in itertools.product(*per_hole):
            for scal in keep_s:
                yield tuple(scal) + tuple(arrays)

    return combos()


def _partial_summary(k: LoopKernel, cand: Candidate, array: str) -> ProgramSummary:
    """The summary of one written array alone (to filter its candidates on their own)."""
    only = replace(k, scalars=(), arrays=tuple(a for a in k.arrays if a.array == array), result=None,
                   post_stores=())
    return summary(only, Candidate((), cand.arrays))


def _example_from_model(k: AnyKernel, inputs: dict[str, object] | None) -> Example | None:
    return None if inputs is None else make_example(k, inputs)


__all__ = ["SearchStats", "Synthesized", "synthesize"]
