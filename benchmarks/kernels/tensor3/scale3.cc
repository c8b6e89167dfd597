// every element of a 3-D tensor (planes x rows x cols) scaled, flattened row-major
#include <vector>
using namespace std;

vector<float> scale3(vector<vector<vector<float>>> x, float a) {
  vector<float> out;
  int P = x.size();
  int R = x[0].size();
  int C = x[0][0].size();
  for (int p = 0; p < P; p++)
    for (int r = 0; r < R; r++)
      for (int c = 0; c < C; c++)
        out.push_back(a * x[p][r][c]);
  return out;
}
