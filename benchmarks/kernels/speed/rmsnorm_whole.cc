#include <vector>
#include <cmath>
using namespace std;

vector<float> rmsnorm_whole(vector<float> input, vector<float> weight) {
  float ss = 0;
  for (int i = 0; i < input.size(); i++) {
    ss += input[i] * input[i];
  }
  ss = ss / input.size() + 1e-5;
  ss = 1 / sqrt(ss);
  vector<float> output;
  for (int i = 0; i < input.size(); i++) {
    output.push_back(weight[i] * (ss * input[i]));
  }
  return output;
}
