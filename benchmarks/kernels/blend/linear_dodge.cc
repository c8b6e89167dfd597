// blend linear_dodge: 8-bit linear dodge (add) per pixel, base + active clamped at 255.
#include <cstdint>
#include <vector>
using namespace std;

inline uint8_t linear_dodge_8x8(uint8_t b, uint8_t a)
{
    int sum = b + a;
    return sum > 255 ? 255 : sum;
}

vector<vector<uint8_t>> linear_dodge(vector<vector<uint8_t>> base, vector<vector<uint8_t>> active)
{
    vector<vector<uint8_t>> out;
    int m = base.size();
    int n = base[0].size();
    for (int i = 0; i < m; i++) {
        vector<uint8_t> r;
        for (int j = 0; j < n; j++)
            r.push_back(linear_dodge_8x8(base[i][j], active[i][j]));
        out.push_back(r);
    }
    return out;
}
