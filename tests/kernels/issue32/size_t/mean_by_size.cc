// sum / v.size(): the size is converted to float (exact for sizes below 2^24)
#include <vector>
using namespace std;

float mean_by_size(vector<float> v) {
  float sum = 0.0f;
  for (int i = 0; i < v.size(); i++) sum += v[i];
  return sum / v.size();
}
