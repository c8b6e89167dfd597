// elementwise sum of two 3-D int tensors, flattened
#include <vector>
using namespace std;

vector<int> add3(vector<vector<vector<int>>> x, vector<vector<vector<int>>> y) {
  vector<int> out;
  for (int p = 0; p < x.size(); p++)
    for (int r = 0; r < x[0].size(); r++)
      for (int c = 0; c < x[0][0].size(); c++)
        out.push_back(x[p][r][c] + y[p][r][c]);
  return out;
}
