// llama softmax_part2: exponentials exp(x[i] - max_val) of the first max_pos entries, llama2.c softmax's second loop.
#include <cmath>
#include <vector>
using namespace std;

vector<float> softmax_part2(vector<float> input, int max_pos, float max_val)
{
    vector<float> output;
    for (int i = 0; i < max_pos; i++) {
        float cur = expf(input[i] - max_val);
        output.push_back(cur);
    }
    return output;
}
