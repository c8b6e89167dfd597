#include <vector>
using namespace std;
// 2-D correlation over nested vectors: the output built row by row
vector<vector<float>> conv2d_vec(const vector<vector<float>> &img, const vector<vector<float>> &ker, int oh, int ow) {
  int k = ker.size();
  vector<vector<float>> out;
  for (int i = 0; i < oh; i++) {
    vector<float> row;
    for (int j = 0; j < ow; j++) {
      float acc = 0.0f;
      for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
          acc += img[i + a][j + b] * ker[a][b];
      row.push_back(acc);
    }
    out.push_back(row);
  }
  return out;
}
