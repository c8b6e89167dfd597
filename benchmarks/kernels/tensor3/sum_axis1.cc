#include <vector>
using namespace std;
// the sum over the middle axis: out[p][c] = sum_r x[p][r][c]
vector<int> sum_axis1(const vector<vector<vector<int>>> &x) {
  vector<int> out;
  for (int p = 0; p < x.size(); p++)
    for (int c = 0; c < x[0][0].size(); c++) {
      int s = 0;
      for (int r = 0; r < x[0].size(); r++)
        s += x[p][r][c];
      out.push_back(s);
    }
  return out;
}
