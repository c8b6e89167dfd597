// nearest centroid on a line: the index of the smallest squared distance
int argmin_dist(int k, double *centroid, double x) {
  double best_d = 1e300;
  int best = -1;
  for (int c = 0; c < k; c++) {
    double d = (centroid[c] - x) * (centroid[c] - x);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}
