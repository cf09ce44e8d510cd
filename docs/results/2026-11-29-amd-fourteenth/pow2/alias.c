/* alias ROWS COLS SP DP SRC_OFF DST_OFF: the AVX2 double transposing kernel called directly,
 * streamed (TRANSPOSE_STREAM_COLD, band 256), 64 MiB written before each of 51 calls; median us
 * and the result checked. SRC_OFF/DST_OFF: bytes past a 4096-aligned base. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "kernel/kernel.h"
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int argc, char **argv) {
    (void)argc;
    long rows = atol(argv[1]), cols = atol(argv[2]), sp = atol(argv[3]), dp = atol(argv[4]);
    long so = atol(argv[5]), doff = atol(argv[6]);
    plan_transpose_fn f = kernel_transpose_for(8, 32);
    char *sb = aligned_alloc(4096, rows * sp + 8192), *db = aligned_alloc(4096, cols * dp + 8192);
    char *src = sb + so, *dst = db + doff;
    for (long i = 0; i < rows * sp; i++) src[i] = (char)(i * 7);
    memset(db, 0, cols * dp + 8192);
    static char junk[64 << 20]; double s[51];
    for (int r = 0; r < 51; r++) {
        memset(junk, r, sizeof junk);
        double t0 = now();
        f(src, sp, dst, dp, rows, cols, 256, TRANSPOSE_STREAM_COLD);
        s[r] = now() - t0;
    }
    for (long c = 0; c < cols; c++) for (long r = 0; r < rows; r++)
        if (memcmp(dst + c * dp + r * 8, src + r * sp + c * 8, 8)) { printf("WRONG\n"); return 1; }
    qsort(s, 51, 8, cmp);
    printf("rows %ld cols %ld sp %ld dp %ld src+%ld dst+%ld: %.1f us\n", rows, cols, sp, dp, so, doff, s[25] * 1e6);
    return 0;
}
