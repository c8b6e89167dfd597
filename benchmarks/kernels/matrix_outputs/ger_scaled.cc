#include <vector>
using namespace std;
// A scaled rank-1 update in the C++ vector subset: out[i][j] = a[i][j] + alpha * x[i] * y[j].
vector<vector<float>> ger_scaled(vector<vector<float>> a, vector<float> x, vector<float> y, float alpha) {
  vector<vector<float>> out;
  for (int i = 0; i < x.size(); i++) {
    vector<float> row;
    for (int j = 0; j < y.size(); j++) row.push_back(a[i][j] + alpha * x[i] * y[j]);
    out.push_back(row);
  }
  return out;
}
