// blend screen_blend: 8-bit screen per pixel, base + active - base * active / 255.
#include <cstdint>
#include <vector>
using namespace std;

inline uint8_t screen_8x8(uint8_t b, uint8_t a) { return b + a - (b * a) / 255; }

vector<vector<uint8_t>> screen_blend(vector<vector<uint8_t>> base, vector<vector<uint8_t>> active)
{
    vector<vector<uint8_t>> out;
    int m = base.size();
    int n = base[0].size();
    for (int row = 0; row < m; row++) {
        vector<uint8_t> row_vec;
        for (int col = 0; col < n; col++)
            row_vec.push_back(screen_8x8(base[row][col], active[row][col]));
        out.push_back(row_vec);
    }
    return out;
}
