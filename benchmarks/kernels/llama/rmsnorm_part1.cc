// llama rmsnorm_part1: sum of squares of the activation, the first loop of llama2.c rmsnorm.
#include <vector>
using namespace std;

float rmsnorm_part1(vector<float> input, vector<float> weight)
{
    float ss = 0.0f;
    int size = input.size();
    for (int j = 0; j < size; j++) {
        ss += input[j] * input[j];
    }
    return ss;
}
