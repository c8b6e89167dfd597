// the sum of each plane of a 3-D tensor (a reduction over its last two axes)
#include <vector>
using namespace std;

vector<float> plane_sums(vector<vector<vector<float>>> x) {
  vector<float> out;
  for (int p = 0; p < x.size(); p++) {
    float s = 0;
    for (int r = 0; r < x[0].size(); r++)
      for (int c = 0; c < x[0][0].size(); c++)
        s += x[p][r][c];
    out.push_back(s);
  }
  return out;
}
