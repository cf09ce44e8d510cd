/* the transpose walk's store pattern: wr2 ROWS LEN PITCH STRIP BAND: output rows of LEN bytes
 * PITCH apart; per band of BAND bytes of each row, per strip of STRIP rows, per line, per row:
 * one 64-byte line streamed (two 32-byte stores). Caches flushed before each of 21 reps. */
#include <immintrin.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec*1e-9;}
static int cmp(const void*a,const void*b){double x=*(double*)a,y=*(double*)b;return x<y?-1:x>y;}
int main(int c, char**v){
  long rows=atol(v[1]), len=atol(v[2]), pitch=atol(v[3]), strip=atol(v[4]), band=atol(v[5]);
  int cached = c>6 && atoi(v[6]);
  char *d = aligned_alloc(4096, rows*pitch+4096); memset(d,1,rows*pitch+4096);
  static char junk[64<<20]; double s[21]; __m256 x=_mm256_set1_ps(1.f);
  for(int r=0;r<21;r++){ memset(junk,r,sizeof junk); double t0=now();
    for(long b=0;b<len;b+=band)
     for(long r0=0;r0<rows;r0+=strip)
      for(long o=b;o<b+band&&o<len;o+=64)
        for(long rr=r0;rr<r0+strip&&rr<rows;rr++){ float*p=(float*)(d+rr*pitch+o);
            if(cached){_mm256_store_ps(p,x);_mm256_store_ps(p+8,x);} else {_mm256_stream_ps(p,x);_mm256_stream_ps(p+8,x);}}
    _mm_sfence(); s[r]=now()-t0;}
  qsort(s,21,8,cmp);
  printf("rows %ld len %ld pitch %ld strip %ld band %ld %s: %.2f GB/s\n",rows,len,pitch,strip,band,cached?"cached":"nt",rows*len/s[10]/1e9);
}
