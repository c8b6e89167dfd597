// the product of an int array
int product_int(int n, int *a) {
  int p = 1;
  for (int i = 0; i < n; i++)
    p *= a[i];
  return p;
}
