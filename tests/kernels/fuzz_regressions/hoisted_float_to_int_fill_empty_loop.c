// fuzz regression (VERIFIED-BUT-WRONG, working tree of 2026-11-24 21:25, HEAD d1d306b): a fill
// out[i] = k of a double into int (TensIR full(n, cast(k, int)), c6a3271). C converts k only
// inside the loop; with n = 0 it never converts (no undefined behaviour) and leaves out
// unchanged, but the generated NumPy evaluates int(k) eagerly as the argument of np.full and
// raises OverflowError (k = 1e300; ValueError for k = NaN, e.g. out[i] = k / k with k = 0.0).
// Same family as hoisted_overflow_empty_loop.c (a loop-invariant scalar hoisted out of an
// empty loop). Found by the phase fuzzer (a two-phase kernel with out[i] = (k / k)),
// minimised by hand.
// fuzz-spec: {"extents": {"out": "n"}}
// input: {"out": [], "k": 1e300, "n": 0}
// gcc -O0 -fwrapv / -O2:  out = []
// generated NumPy:        OverflowError: Python int too large to convert to C long
void f(int *out, double k, int n) {
  for (int i = 0; i < n; i++) out[i] = k;
}
