// llama softmax_part3: sum of the first max_pos exponentials, the normalizer of llama2.c softmax.
#include <vector>
using namespace std;

float softmax_part3(vector<float> output, int max_pos)
{
    float sum = 0.0f;
    for (int i = 0; i < max_pos; i++) {
        sum += output[i];
    }
    return sum;
}
