// blend linear_burn: 8-bit linear burn per pixel, base + active - 255 clamped at 0.
#include <cstdint>
#include <vector>
using namespace std;

vector<vector<uint8_t>> linear_burn(vector<vector<uint8_t>> base, vector<vector<uint8_t>> active)
{
    vector<vector<uint8_t>> out;
    int m = base.size();
    int n = base[0].size();
    for (int row = 0; row < m; row++) {
        vector<uint8_t> row_vec;
        for (int col = 0; col < n; col++) {
            int sum = base[row][col] + active[row][col];
            uint8_t pixel = sum < 255 ? 0 : sum - 255;
            row_vec.push_back(pixel);
        }
        out.push_back(row_vec);
    }
    return out;
}
