#include <vector>
using namespace std;
// The real parts of n interleaved complex samples (re, im, re, im, ...), scaled.
vector<float> deinterleave_re(vector<float> z, float g, int n) {
  vector<float> out;
  for (int i = 0; i < n; i++) out.push_back(z[2 * i] * g);
  return out;
}
