// C++: the -O2 branch, and __cplusplus (the check compiles with c++ -std=c++17)
#include <vector>
using namespace std;
#if defined(__OPTIMIZE__) && __cplusplus >= 201703L
#define SCALE 3.0f
#else
#define SCALE 5.0f
#endif
vector<float> optimize_branch(vector<float> x) {
  vector<float> out;
  for (int i = 0; i < x.size(); i++) out.push_back(x[i] * SCALE);
  return out;
}
