// blend normal_blend: 8-bit normal blend with an 8-bit opacity over a flattened image, (opacity * active + (255 - opacity) * base) / 255.
#include <cstdint>
#include <vector>
using namespace std;

vector<uint8_t> normal_blend(vector<uint8_t> base, vector<uint8_t> active, uint8_t opacity)
{
    vector<uint8_t> out;
    int n = base.size();
    for (int i = 0; i < n; ++i) {
        uint8_t pixel = (opacity * active[i] + (255 - opacity) * base[i]) / 255;
        out.push_back(pixel);
    }
    return out;
}
