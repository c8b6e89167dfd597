// Dot product of a window [off, off + len) of every row with a vector.
#include <vector>
using namespace std;

vector<int> block_dot(vector<vector<int>> m, vector<int> v, int off, int len)
{
    vector<int> out;
    for (int r = 0; r < m.size(); r++) {
        int s = 0;
        for (int k = 0; k < len; k++)
            s += m[r][off + k] * v[k];
        out.push_back(s);
    }
    return out;
}
