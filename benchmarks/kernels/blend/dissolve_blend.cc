// blend dissolve_blend: 8-bit dissolve, each pixel shows active where its random threshold is below opacity, else base.
#include <cstdint>
#include <vector>
using namespace std;

vector<vector<uint8_t>> dissolve_blend(vector<vector<uint8_t>> base, vector<vector<uint8_t>> active,
                                       uint8_t opacity, vector<vector<uint8_t>> rand_threshold)
{
    vector<vector<uint8_t>> out;
    int m = base.size();
    int n = base[0].size();
    for (int row = 0; row < m; row++) {
        vector<uint8_t> row_vec;
        for (int col = 0; col < n; col++) {
            uint8_t pixel;
            if (rand_threshold[row][col] < opacity)
                pixel = active[row][col];
            else
                pixel = base[row][col];
            row_vec.push_back(pixel);
        }
        out.push_back(row_vec);
    }
    return out;
}
