/* assert(E) at the top of the function (<assert.h> without NDEBUG): a precondition, stated
   among the assumptions and checked by the generated code (issue 34). */
#include <assert.h>
float assert_pre(const float *x, float *y, int n, int m) {
  assert(n <= m && m < 100000);
  assert(n == n);
  float s = 0.0f;
  for (int i = 0; i < n; i++) {
    y[i] = 2.0f * x[i];
    s += x[i];
  }
  return s;
}
