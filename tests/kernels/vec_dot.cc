// Dot product of two std::vectors (a scalar result).
#include <vector>
using namespace std;

double vec_dot(vector<double> a, vector<double> b, int n)
{
    double s = 0.0;
    for (int i = 0; i < n; ++i)
        s += a[i] * b[i];
    return s;
}
