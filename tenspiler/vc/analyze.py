"""The kernel-shape dispatch: which analysis a function's loops go to.

A function is one of four shapes (docs/ARCHITECTURE.md, "Supported shapes"): one counted
loop (:mod:`tenspiler.vc.kernel`), a two-deep nest (:mod:`tenspiler.vc.nest`), several loops
one after another (:mod:`tenspiler.vc.phases`) or a nest deeper than two whose outer loop
writes one row per iteration (:mod:`tenspiler.vc.blocks`). The last two analyse their parts
(each phase, the row function) as kernels of any shape again: they receive
:func:`analyze_kernel` as their ``analyze`` argument, so the shapes' modules never import
this one (``vc`` has no import cycle, ``tests/test_layers.py``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TypeAlias

from tenspiler.errors import NotLiftable
from tenspiler.loops.counters import counters_rebased
from tenspiler.loops.distribute import distributed
from tenspiler.loops.interchange import interchanged
from tenspiler.loops.ir import For, Function
from tenspiler.loops.scalarize import scalar_replaced
from tenspiler.vc.blocks import BlockKernel, analyze_block, is_block_loop
from tenspiler.vc.kernel import LoopKernel, analyze
from tenspiler.vc.nest import NestKernel, analyze_nest
from tenspiler.vc.phases import PhasedKernel, analyze_phases

__all__ = ["AnyKernel", "ProvableKernel", "analyze_kernel"]

#: Every kernel shape :func:`analyze_kernel` returns.
AnyKernel: TypeAlias = LoopKernel | NestKernel | PhasedKernel | BlockKernel
#: The shapes proved by one VC (loop phases are proved phase by phase).
ProvableKernel: TypeAlias = LoopKernel | NestKernel | BlockKernel


def analyze_kernel(fn: Function, live_out: tuple[str, ...] = ()) -> AnyKernel:
    """The kernel analysis of ``fn``'s shape: :func:`~tenspiler.vc.kernel.analyze` for one
    loop, :func:`~tenspiler.vc.nest.analyze_nest` for a two-deep nest,
    :func:`~tenspiler.vc.blocks.analyze_block` for a deeper one that writes a row per outer
    iteration (and for a two-deep one the nest shape refuses), :func:`~tenspiler.vc.phases.analyze_phases` for several loops one after
    another. ``live_out``: scalars a later phase reads (see
    :class:`~tenspiler.vc.kernel.LoopKernel`).

    A function outside every shape as written is analysed once more with the output
    elements it accumulates into kept in scalars (:mod:`tenspiler.loops.scalarize`), then
    with its nests whose inner loop runs over the elements they update interchanged
    (:mod:`tenspiler.loops.interchange`), and both.

    Raises:
        NotLiftable: the function is outside every supported shape (located; the error of
            the function as written).
    """
    if fn.split is not None:  # (its paths are analysed one by one: pipeline, path_leaves)
        raise AssertionError(f"'{fn.name}' branches into paths: analyse each path's function")
    try:
        return _analyze_shape(fn, live_out)
    except NotLiftable as err:
        # a nest accumulating into an output element: analysed with the element kept in a
        # scalar (loops/scalarize.py); a nest whose inner loop runs over the elements it
        # updates: interchanged (loops/interchange.py); when the function as written fits
        # no shape
        for alt in _normalized(fn, live_out):
            if live_out and sum(isinstance(s, For) for s in alt.body) > 1:
                continue  # (a phase stays one loop: the whole function is distributed instead)
            try:
                return _analyze_shape(alt, live_out)
            except NotLiftable:
                pass
        raise err from None


def _normalized(fn: Function, live_out: tuple[str, ...] = ()) -> Iterator[Function]:
    """``fn`` rewritten by the loop-IR normalizations, one combination at a time, those that
    change it: scalar replacement, interchange, both; loop distribution, then either or
    both of the others; all of that again after normalising the loop counters
    (:mod:`tenspiler.loops.counters`), when that changes ``fn``."""
    def both(f: Function) -> list[Function | None]:
        swapped = interchanged(f)
        return [scalar_replaced(f), swapped, None if swapped is None else scalar_replaced(swapped)]

    rebased = counters_rebased(fn, live_out)
    for base in (fn,) if rebased is None else (fn, rebased):
        if base is not fn:
            yield base
        for alt in both(base):
            if alt is not None:
                yield alt
        split = distributed(base)
        if split is not None:
            yield split
            for alt in both(split):
                if alt is not None:
                    yield alt


def _several_inner_loops(fn: Function) -> bool:
    """Whether ``fn``'s outer loop holds more than one loop (each row is then a function of
    several loop phases, which only the block shape takes)."""
    outer = next(s for s in fn.body if isinstance(s, For))
    return sum(isinstance(s, For) for s in outer.body) > 1


def _analyze_shape(fn: Function, live_out: tuple[str, ...]) -> AnyKernel:
    loops = [s for s in fn.body if isinstance(s, For)]
    if len(loops) > 1:
        if live_out:
            raise AssertionError("a phase has one loop")
        return analyze_phases(fn, analyze_kernel)
    if len(loops) == 1 and any(isinstance(s, For) for s in loops[0].body):
        if is_block_loop(fn):
            return analyze_block(fn, analyze_kernel, live_out)
        try:
            return analyze_nest(fn, live_out)
        except NotLiftable as err:
            # a two-deep nest whose outer loop writes a block of each row (rows with a
            # leading dimension), which the nest shape does not take: its rows as one-loop
            # kernels
            try:
                block = analyze_block(fn, analyze_kernel, live_out)
            except NotLiftable:
                raise err from None
            if not any(v.width is not None for v in block.views) and not _several_inner_loops(fn):
                raise err  # (whole rows of one inner loop: the nest shape's reason stands)
            return block
    return analyze(fn, live_out)
