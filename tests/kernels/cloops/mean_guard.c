#include <stdint.h>
typedef float float32_t;
/* CMSIS-style mean with an argument guard and a count-down counter */
float32_t mean_guard(const float32_t *pSrc, uint32_t blockSize)
{
    if (blockSize == 0U) return 0.0f;
    float32_t sum = 0.0f;
    uint32_t blkCnt = blockSize;
    while (blkCnt > 0U) {
        sum += *pSrc++;
        blkCnt--;
    }
    return sum / (float32_t) blockSize;
}
