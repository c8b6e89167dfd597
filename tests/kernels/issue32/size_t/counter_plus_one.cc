// i + 1 < v.size(): the counter of an ascending loop from 0 is never negative
#include <vector>
using namespace std;

vector<float> counter_plus_one(vector<float> v) {
  vector<float> out;
  for (int i = 0; i + 1 < v.size(); i++) out.push_back(v[i + 1] - v[i]);
  return out;
}
