// y = a * x + y over std::vectors, built with push_back (C++ vector subset).
#include <vector>
using namespace std;

vector<float> vec_axpy(float a, const vector<float> &x, const vector<float> &y)
{
    vector<float> out;
    for (int i = 0; i < x.size(); i++) {
        out.push_back(a * x[i] + y[i]);
    }
    return out;
}
