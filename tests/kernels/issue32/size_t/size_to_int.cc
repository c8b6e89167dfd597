// int n = v.size(): a size_t converted to int keeps its value (sizes are at most 2^30)
#include <vector>
using namespace std;

vector<float> size_to_int(vector<float> x, float r) {
  int n = x.size();
  vector<float> out;
  for (int i = 0; i < n; i++) out.push_back(x[i] * r);
  return out;
}
