#include <stdint.h>
typedef float float32_t;
float32_t mean_blk(const float32_t *pSrc, uint32_t blockSize)
{
    uint32_t blkCnt;
    float32_t sum = 0.0f;
    const float32_t *p = pSrc;
    blkCnt = blockSize;
    while (blkCnt > 0U) {
        sum += *p++;
        blkCnt--;
    }
    return sum / (float32_t) blockSize;
}
