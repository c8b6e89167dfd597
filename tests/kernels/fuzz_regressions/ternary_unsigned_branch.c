// fuzz regression (VERIFIED-BUT-WRONG at e02be83 with the API default check=False; the CLI's
// differential check catches it): the branches of ?: are int (1 - a[i]) and unsigned int (3u),
// so the result is unsigned int (C11 6.5.15p5, usual arithmetic conversions) and
// 1 - 131 becomes 4294967166 before it is added to the long s; the tool adds -130.
// Found by benchmarks/fuzz.py --tool-check (seed 31, k31_538: s += (0xFFFFFFFF >= ((long) 0400)
// ? (1 - a[i]) : (3U % 4294967295u))), minimised by hand.
// input: {"a": [121, 131], "n": 2}
// gcc -O0 -fwrapv / -O2:  return 4294967166
// generated NumPy:        return -130
long f(unsigned char *a, int n) {
  long s = 0;
  for (int i = 1; i < n; i++) s += (n > 0 ? 1 - a[i] : 3u);
  return s;
}
