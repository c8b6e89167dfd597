// int d = a.size() - b.size(): negative when b is longer; the unsigned difference wraps
// but its conversion to int gives the mathematical value back
#include <vector>
using namespace std;

vector<float> size_minus_size(vector<float> a, vector<float> b, float s) {
  int d = a.size() - b.size();
  vector<float> out;
  for (int i = 0; i < a.size(); i++) out.push_back(a[i] + s * d);
  return out;
}
