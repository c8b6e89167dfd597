// blend color_burn: 8-bit color burn per pixel, 255 - (255 - base) * 255 / active clamped to [0, 255] (0 where active is 0).
#include <cstdint>
#include <vector>
using namespace std;

inline int at_least_zero(int v) { return v < 0 ? 0 : v; }

inline uint8_t color_burn_8x8(uint8_t b, uint8_t a)
{
    return a == 0 ? 0 : at_least_zero(255 - (255 - b) * 255 / a);
}

vector<vector<uint8_t>> color_burn(vector<vector<uint8_t>> base, vector<vector<uint8_t>> active)
{
    vector<vector<uint8_t>> out;
    int m = base.size();
    int n = base[0].size();
    for (int row = 0; row < m; row++) {
        vector<uint8_t> row_vec;
        for (int col = 0; col < n; col++)
            row_vec.push_back(color_burn_8x8(base[row][col], active[row][col]));
        out.push_back(row_vec);
    }
    return out;
}
