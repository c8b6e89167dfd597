// int W = base[0].size(): the row length of a vector<vector<T>> converted to int
#include <vector>
using namespace std;

vector<vector<float>> row_size_to_int(vector<vector<float>> base, float s) {
  int H = base.size();
  int W = base[0].size();
  vector<vector<float>> out;
  for (int r = 0; r < H; r++) {
    vector<float> row;
    for (int c = 0; c < W; c++) row.push_back(base[r][c] + s);
    out.push_back(row);
  }
  return out;
}
