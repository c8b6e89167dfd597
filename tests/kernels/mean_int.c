int mean_int(int *a, int n) { int s = 0; for (int i = 0; i < n; ++i) s = s + a[i]; return s / n; }
