// mean, minimum and maximum of a series, each written through its own pointer
void stats_out(int n, const double *x, double *mean, double *lo, double *hi) {
  double s = 0.0;
  double m = 1e300;
  double M = -1e300;
  for (int i = 0; i < n; i++) {
    s += x[i];
    if (x[i] < m) m = x[i];
    if (x[i] > M) M = x[i];
  }
  *mean = s / n;
  *lo = m;
  *hi = M;
}
