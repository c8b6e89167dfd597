#include <vector>
using namespace std;
// Normalise by the sum of squares (C++ vector subset): two loops, one returned vector.
vector<float> sum_then_scale(vector<float> x, float eps) {
  float ss = 0.0f;
  for (int i = 0; i < x.size(); i++) ss += x[i] * x[i];
  float r = 1.0f / (ss + eps);
  vector<float> out;
  for (int i = 0; i < x.size(); i++) out.push_back(x[i] * r);
  return out;
}
