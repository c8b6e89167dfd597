// llama matmul: W (d x n) @ x (n) -> xout (d), the llama2.c matmul over a weight matrix stored as rows.
#include <vector>
using namespace std;

vector<float> matmul(vector<vector<float>> weight, vector<float> input)
{
    vector<float> output;
    int d = weight.size();
    int n = input.size();
    for (int i = 0; i < d; i++) {
        float val = 0.0f;
        for (int j = 0; j < n; j++) {
            val += weight[i][j] * input[j];
        }
        output.push_back(val);
    }
    return output;
}
