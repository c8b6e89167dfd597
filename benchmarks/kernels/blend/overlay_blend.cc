// blend overlay_blend: 8-bit overlay per pixel, multiply (2ab/255) where base < 128, screen (255 - 2(255-a)(255-b)/255) elsewhere.
#include <cstdint>
#include <vector>
using namespace std;

inline uint8_t overlay_8x8(uint8_t b, uint8_t a)
{
    return b < 128 ? 2 * b * a / 255 : 255 - 2 * (255 - b) * (255 - a) / 255;
}

vector<vector<uint8_t>> overlay_blend(vector<vector<uint8_t>> base, vector<vector<uint8_t>> active)
{
    vector<vector<uint8_t>> out;
    int m = base.size();
    int n = base[0].size();
    for (int row = 0; row < m; row++) {
        vector<uint8_t> row_vec;
        for (int col = 0; col < n; col++)
            row_vec.push_back(overlay_8x8(base[row][col], active[row][col]));
        out.push_back(row_vec);
    }
    return out;
}
