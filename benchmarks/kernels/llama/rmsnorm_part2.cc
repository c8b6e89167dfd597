// llama rmsnorm_part2: normalize and scale, o[j] = weight[j] * (x[j] / sqrt(ss / size + 1e-5)), the second loop of llama2.c rmsnorm.
#include <cmath>
#include <vector>
using namespace std;

vector<float> rmsnorm_part2(vector<float> input, vector<float> weight, float ss)
{
    vector<float> output;
    int size = input.size();
    float inv = 1.0f / sqrtf(ss / size + 1e-5f);
    for (int j = 0; j < size; j++) {
        output.push_back(weight[j] * (inv * input[j]));
    }
    return output;
}
