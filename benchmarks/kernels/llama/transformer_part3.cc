// llama transformer_part3: SiLU of the FFN gate, hb[i] * (1 / (1 + exp(-hb[i]))) for i < hidden_dim (first half of SwiGLU).
#include <cmath>
#include <vector>
using namespace std;

vector<float> transformer_part3(vector<float> input, int hidden_dim)
{
    vector<float> output;
    for (int i = 0; i < hidden_dim; i++) {
        float val = input[i];
        val *= (1.0f / (1.0f + exp(-val)));
        output.push_back(val);
    }
    return output;
}
