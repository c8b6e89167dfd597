long sum_long(long *a, int n) { long s = 0; for (int i = 0; i < n; i++) s += a[i]; return s; }
