// int ow = img[0].size() - k + 1: size_t arithmetic converted to int at once; the
// unsigned result is congruent to the mathematical one modulo 2^64 and the latter fits
// int, so GCC's conversion gives it back (negative when the kernel is wider than img)
#include <vector>
using namespace std;

vector<float> size_difference_to_int(const vector<vector<float>> &img, const vector<float> &ker) {
  int k = ker.size();
  int oh = img.size() - k + 1;
  int ow = img[0].size() - k + 1;
  vector<float> out;
  for (int i = 0; i < oh; i++)
    for (int j = 0; j < ow; j++) {
      float acc = 0.0f;
      for (int b = 0; b < k; b++) acc += img[i][j + b] * ker[b];
      out.push_back(acc);
    }
  return out;
}
