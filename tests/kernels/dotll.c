long long dotll(long long *a, long long *b, int n) { long long s = 0; for (int i = 0; i < n; i++) s += a[i] * b[i]; return s; }
