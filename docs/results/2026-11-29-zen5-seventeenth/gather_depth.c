#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <immintrin.h>
enum { N = 262144, B = 24 }; static int SLOTS = 2 * N; static int AHEAD = 128;
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static char *flushbuf;
static char *fa,*fb; static size_t na,nb; static void flush(void){ for(size_t i=0;i<na;i+=64)_mm_clflush(fa+i); for(size_t i=0;i<nb;i+=64)_mm_clflush(fb+i); _mm_mfence(); }
typedef struct { uint32_t src, dst; } pair;
static int cmp(const void*a,const void*b){uint32_t x=((const pair*)a)->src,y=((const pair*)b)->src;return (x>y)-(x<y);}
static void copy24_nt(char*d,const char*s){ long long a,b,c; memcpy(&a,s,8);memcpy(&b,s+8,8);memcpy(&c,s+16,8);
  _mm_stream_si64((long long*)d,a);_mm_stream_si64((long long*)(d+8),b);_mm_stream_si64((long long*)(d+16),c);}
static void copy24(char*d,const char*s){ memcpy(d,s,24);}
int main(int argc,char**argv){
  int reps = argc>1?atoi(argv[1]):11; if(argc>2) AHEAD=atoi(argv[2]); if(argc>3) SLOTS=atoi(argv[3])*N;
  flushbuf = malloc(256u<<20); memset(flushbuf,1,256u<<20);
  char *src = aligned_alloc(4096, (size_t)SLOTS*B), *out = aligned_alloc(4096,(size_t)N*B), *out2=aligned_alloc(4096,(size_t)N*B);
  memset(src,3,(size_t)SLOTS*B); fa=src;na=(size_t)SLOTS*B;fb=out;nb=(size_t)N*B; memset(out,0,(size_t)N*B); memset(out2,0,(size_t)N*B);
  for(size_t i=0;i<(size_t)SLOTS*B;i++) src[i]=(char)(i*7+i/13);
  uint32_t *slot = malloc(SLOTS*4); for(int i=0;i<SLOTS;i++) slot[i]=i;
  srand(1); for(int i=SLOTS-1;i>0;i--){int j=rand()%(i+1);uint32_t t=slot[i];slot[i]=slot[j];slot[j]=t;}
  uint32_t *off = malloc(N*4); for(int i=0;i<N;i++) off[i]=slot[i]*B;
  pair *p = malloc(N*sizeof(pair)); for(int i=0;i<N;i++){p[i].src=off[i];p[i].dst=i*B;} qsort(p,N,sizeof(pair),cmp);
  const char *names[]={"memcpy","list order NT","list order cached","address order cached","address order, out prefetchw","memcomm-like NT both lines"};
  for(int m=0;m<6;m++){ double t[64];
    for(int r=0;r<reps;r++){ flush(); double t0=now();
      if(m==0) memcpy(out,src,(size_t)N*B);
      else if(m==1){ for(int i=0;i<N;i++){ if(i+AHEAD<N) __builtin_prefetch(src+off[i+AHEAD],0,2); copy24_nt(out+(size_t)i*B,src+off[i]); } _mm_sfence(); }
      else if(m==2){ for(int i=0;i<N;i++){ if(i+AHEAD<N) __builtin_prefetch(src+off[i+AHEAD],0,2); copy24(out+(size_t)i*B,src+off[i]); } }
      else if(m==3){ for(int i=0;i<N;i++){ copy24(out+p[i].dst,src+p[i].src);} }
      else if(m==5){ for(int i=0;i<N;i++){ if(i+AHEAD<N){ __builtin_prefetch(src+off[i+AHEAD],0,1); __builtin_prefetch(src+off[i+AHEAD]+23,0,1);} copy24_nt(out+(size_t)i*B,src+off[i]); } _mm_sfence(); }
      else { for(int i=0;i<N;i++){ if(i+64<N) __builtin_prefetch(out+p[i+64].dst,1,3); copy24(out+p[i].dst,src+p[i].src);} }
      t[r]=now()-t0; }
    for(int i=0;i<reps;i++)for(int j=i+1;j<reps;j++)if(t[j]<t[i]){double x=t[i];t[i]=t[j];t[j]=x;}
    printf("%-32s %8.1f us\n",names[m],t[reps/2]*1e6);
    if(m>=2 && m<=4 && m!=2){ /* check */ }
  }
  /* correctness of address order */
  for(int i=0;i<N;i++) memcpy(out2+(size_t)i*B,src+off[i],B);
  for(int i=0;i<N;i++) copy24(out+p[i].dst,src+p[i].src);
  printf("address order equal: %d\n", memcmp(out,out2,(size_t)N*B)==0);
  return 0;}
