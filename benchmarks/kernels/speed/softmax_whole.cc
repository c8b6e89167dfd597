#include <vector>
#include <cmath>
using namespace std;

vector<float> softmax_whole(vector<float> input, int size) {
  float max_val = input[0];
  for (int i = 1; i < size; i++) {
    if (input[i] > max_val) {
      max_val = input[i];
    }
  }
  float sum = 0;
  for (int i = 0; i < size; i++) {
    sum += expf(input[i] - max_val);
  }
  vector<float> output;
  for (int i = 0; i < size; i++) {
    output.push_back(expf(input[i] - max_val) / sum);
  }
  return output;
}
