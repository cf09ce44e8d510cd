#include <stdio.h>
#include <stdlib.h>
#include <stdint.h>
#include <time.h>
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+1e-9*t.tv_nsec;}
int main(void){
 size_t maxp=16384; char*buf=aligned_alloc(4096,maxp*4096);
 for(size_t i=0;i<maxp*4096;i+=4096)buf[i]=0;
 int ns[]={32,64,96,128,192,256,512,1024,1536,2048,3072,4096,6144,8192,12288,16384};
 for(int k=0;k<16;k++){int n=ns[k];
  /* random cyclic order of n pages; each access at a different line offset within the page to avoid cache set conflicts */
  size_t*perm=malloc(n*sizeof*perm);for(int i=0;i<n;i++)perm[i]=i;
  for(int i=n-1;i>0;i--){int j=rand()%(i+1);size_t t=perm[i];perm[i]=perm[j];perm[j]=t;}
  for(int i=0;i<n;i++){size_t a=perm[i]*4096+(perm[i]%64)*64, b=perm[(i+1)%n]*4096+(perm[(i+1)%n]%64)*64; *(void**)(buf+a)=buf+b;}
  void*p=buf+perm[0]*4096+(perm[0]%64)*64; long it=20000000;
  for(long i=0;i<n*4;i++)p=*(void**)p;
  double t0=now();for(long i=0;i<it;i++)p=*(void**)p;double t=now()-t0;
  printf("%6d pages: %.2f ns/access %p\n",n,t/it*1e9,(void*)((uintptr_t)p&1));free(perm);}
 return 0;}
