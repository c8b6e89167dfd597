"""The loop IR: the typed, located form every frontend produces and every later phase reads.

* :mod:`tenspiler.loops.ir` — the IR itself (functions, counted loops, typed expressions);
* :mod:`tenspiler.loops.interp` — its concrete interpreter with exact C semantics (the
  reference the rest of the pipeline is tested against);
* :mod:`tenspiler.loops.simplify` — boolean/select simplification for the search only;
* :mod:`tenspiler.loops.updates` — recognisers of loop-carried scalar updates (running
  extrema, products, accumulations, the index of an extremum).

Layering: frontends → loops → vc → synth (nothing here imports a later phase).
"""
