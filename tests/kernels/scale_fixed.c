#define N 64
#define SCALE 3
void scale_fixed(int *a, int *b) {
  for (int i = 0; i < N; i++) b[i] = SCALE * a[i];
}
