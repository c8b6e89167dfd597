/* A path taken at one value of a parameter only: the inputs of that path come from the
   constants of its condition. */
void rare_path(const int *a, int k, int *out, int n) {
  if (k == 1000) {
    for (int i = 0; i < n; i++) out[i] = a[i] + 1;
  } else {
    for (int i = 0; i < n; i++) out[i] = a[i] - 1;
  }
}
