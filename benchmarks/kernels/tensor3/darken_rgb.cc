// darken blend of two RGB images stored as rows x cols x channels, one row of pixels per output row
#include <cstdint>
#include <vector>
using namespace std;

vector<vector<uint8_t>> darken_rgb(vector<vector<vector<uint8_t>>> base, vector<vector<vector<uint8_t>>> active) {
  vector<vector<uint8_t>> out;
  int H = base.size();
  int W = base[0].size();
  int C = base[0][0].size();
  for (int y = 0; y < H; y++) {
    vector<uint8_t> row;
    for (int x = 0; x < W; x++)
      for (int c = 0; c < C; c++) {
        uint8_t v;
        if (base[y][x][c] > active[y][x][c])
          v = active[y][x][c];
        else
          v = base[y][x][c];
        row.push_back(v);
      }
    out.push_back(row);
  }
  return out;
}
