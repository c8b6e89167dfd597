/* red team: a loop bound copied from a value an earlier loop computed, in the code
   between two later loops (was verified with a trip-count check on the entry value). */
// fuzz-spec: {"extents": {"a": "n"}}
// input: {"a": [-1], "n": 1, "s": 0}
int f(int *a, int n, int s) {
  for (int i = 0; i < n; i++) s += a[i];
  int k = s;
  for (int i = 0; i < n; i++) a[i] = 1;
  int t = 0;
  for (int i = 0; i < k; i++) t = t + 3;
  return t;
}
