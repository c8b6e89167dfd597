// blend normal_blend_f: 8-bit normal blend with a float opacity in [0, 1] over a flattened image, opacity * active + (1 - opacity) * base.
#include <cstdint>
#include <vector>
using namespace std;

vector<uint8_t> normal_blend_f(vector<uint8_t> base, vector<uint8_t> active, float opacity)
{
    vector<uint8_t> out;
    int n = base.size();
    for (int i = 0; i < n; ++i) {
        float mixed = opacity * active[i] + (1 - opacity) * base[i];
        out.push_back((uint8_t)mixed);
    }
    return out;
}
