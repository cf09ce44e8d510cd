#define _GNU_SOURCE
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <time.h>
#include <immintrin.h>
#include "memcomm.h"
enum { N = 262144, B = 24 };
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
static void flush(char*a,size_t n){for(size_t i=0;i<n;i+=64)_mm_clflush(a+i);_mm_mfence();}
static void copy24_nt(char*d,const char*s){ long long a,b,c; memcpy(&a,s,8);memcpy(&b,s+8,8);memcpy(&c,s+16,8);
  _mm_stream_si64((long long*)d,a);_mm_stream_si64((long long*)(d+8),b);_mm_stream_si64((long long*)(d+16),c);}
static int cmpd(const void*a,const void*b){double x=*(const double*)a,y=*(const double*)b;return (x>y)-(x<y);}
int main(int argc,char**argv){
  MPI_Init(&argc,&argv);
  int reps = argc>1?atoi(argv[1]):15, AHEAD=argc>2?atoi(argv[2]):256;
  size_t sb=(size_t)2*N*B; char *src,*out,*ref;
  posix_memalign((void**)&src,4096,sb); posix_memalign((void**)&out,4096,(size_t)N*B); posix_memalign((void**)&ref,4096,(size_t)N*B);
  memset(src,0,sb); memset(out,0,(size_t)N*B); memset(ref,0,(size_t)N*B);
  for(size_t i=0;i<sb;i++) src[i]=(char)(i*7+i/13);
  int *slot=malloc(2*N*4); for(int i=0;i<2*N;i++) slot[i]=i;
  srand(1); for(int i=2*N-1;i>0;i--){int j=rand()%(i+1);int t=slot[i];slot[i]=slot[j];slot[j]=t;}
  uint32_t *off=malloc(N*4); for(int i=0;i<N;i++) off[i]=slot[i]*B;
  MPI_Datatype atom,t; MPI_Type_contiguous(3,MPI_DOUBLE,&atom); MPI_Type_create_indexed_block(N,1,slot,atom,&t); MPI_Type_commit(&t);
  double tm[3][64];
  for(int r=0;r<reps;r++) for(int m=0;m<3;m++){
    flush(src,sb); flush(out,(size_t)N*B); double t0=now();
    if(m==0) memcpy(out,src,(size_t)N*B);
    else if(m==1){ MPI_Count pos=0; memcomm_pack(src,1,t,out,(MPI_Count)N*B,&pos); }
    else { for(int i=0;i<N;i++){ if(i+AHEAD<N){ __builtin_prefetch(src+off[i+AHEAD],0,1); __builtin_prefetch(src+off[i+AHEAD]+23,0,1);} copy24_nt(out+(size_t)i*B,src+off[i]); } _mm_sfence(); }
    tm[m][r]=now()-t0;
    if(m==1 && r==0){ memcpy(ref,out,(size_t)N*B);} if(m==2&&r==0) printf("equal %d\n",memcmp(ref,out,(size_t)N*B)==0);
  }
  const char*nm[3]={"memcpy","memcomm_pack","throwaway"};
  for(int m=0;m<3;m++){qsort(tm[m],reps,sizeof(double),cmpd);printf("%-14s %7.1f us (min %.1f)\n",nm[m],tm[m][reps/2]*1e6,tm[m][0]*1e6);}
  MPI_Finalize();return 0;}
