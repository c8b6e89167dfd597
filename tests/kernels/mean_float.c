float mean_float(int *a, int n) { int s = 0; for (int i = 0; i < n; i++) s += a[i]; return (float) s / n; }
