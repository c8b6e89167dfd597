#include <vector>
using namespace std;
// 2-D correlation of nested vectors, the output flattened row by row
vector<float> conv2d_flat(const vector<vector<float>> &img, const vector<vector<float>> &ker) {
  int k = ker.size();
  int oh = img.size() - k + 1;
  int ow = img[0].size() - k + 1;
  vector<float> out;
  for (int i = 0; i < oh; i++)
    for (int j = 0; j < ow; j++) {
      float acc = 0.0f;
      for (int a = 0; a < k; a++)
        for (int b = 0; b < k; b++)
          acc += img[i + a][j + b] * ker[a][b];
      out.push_back(acc);
    }
  return out;
}
