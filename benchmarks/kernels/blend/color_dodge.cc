// blend color_dodge: 8-bit color dodge per pixel, base * 255 / (255 - active) clamped to 255 (255 where active is 255).
#include <cstdint>
#include <vector>
using namespace std;

vector<vector<uint8_t>> color_dodge(vector<vector<uint8_t>> base, vector<vector<uint8_t>> active)
{
    vector<vector<uint8_t>> out;
    int m = base.size();
    int n = base[0].size();
    for (int i = 0; i < m; ++i) {
        vector<uint8_t> r;
        for (int j = 0; j < n; ++j) {
            uint8_t pixel;
            if (active[i][j] == 255) {
                pixel = 255;
            } else {
                int q = base[i][j] * 255 / (255 - active[i][j]);
                if (q > 255)
                    q = 255;
                pixel = q;
            }
            r.push_back(pixel);
        }
        out.push_back(r);
    }
    return out;
}
