// Observation (completeness, not soundness): the integer analogue of
// benchmarks/kernels/reductions/product_positive.c is not lifted: the right candidate
// p = reduce_prod(select(take(a, n) > 0, take(a, n), 1)) is found, but cvc5 times out on the
// 'preservation' clause (also with --proof-timeout 30 and with long/int accumulators; the double
// version verifies in < 1 s). 34 of the 41 guardedprod time-outs of the campaign are this clause.
// Tool at c04ec39.
int kern(int n, const int *a) {
  int p = 1;
  for (int i = 0; i < n; i++)
    if (a[i] > 0) p *= a[i];
  return p;
}
