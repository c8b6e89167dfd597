// fuzz regression (VERIFIED-BUT-WRONG at e95f847; the root cause of
// argmax_float_negative_double_literal.c without an argmax): the float local m = -1e+30 holds
// float(-1e30) = -1.0000000150474662e+30, the summary compares with the double -1e+30:
// reduce_sum(select(a >= -1e+30, 1, 0)). (Before exact_return the oracle's float tolerance,
// scaled by the 1e30 inputs, hid the wrong count.)
// fuzz-spec: {"exact_return": true}
// input: {"a": [-1.0000000150474662e+30], "n": 1}
// gcc -O0 -fwrapv / -O2:  return 1
// generated NumPy:        return 0
int f(float *a, int n) {
  float m = -1e+30;
  int c = 0;
  for (int i = 0; i < n; i++) {
    if (a[i] >= m) c++;
  }
  return c;
}
