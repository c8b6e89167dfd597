// llama transformer_part2: attention-weighted sum of the values of one head, xb[i] = sum_{t <= token_position} att[t] * v_t[head * head_size + i].
#include <vector>
using namespace std;

vector<float> transformer_part2(int token_position, int head, int head_size,
                                vector<vector<float>> value_cache_layer, vector<float> attention)
{
    vector<float> xb;
    for (int i = 0; i < head_size; i++) {
        float curr = 0.0f;
        for (int timestep = 0; timestep <= token_position; timestep++) {
            curr += attention[timestep] * value_cache_layer[timestep][head * head_size + i];
        }
        xb.push_back(curr);
    }
    return xb;
}
