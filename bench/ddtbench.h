/* Layouts of the ping-pong benchmarks: a pattern is a datatype over each rank's array, the
 * hand-written loop that packs the same bytes, and, for ddtbench's micro-applications
 * (Schneider, Gerstenberger, Hoefler: "Micro-applications for communication data access
 * patterns and MPI datatypes", EuroMPI 2012; at sizes of our own), a builder that makes the
 * datatype anew, as those applications do for every exchange phase. */
#ifndef MEMCOMM_BENCH_DDTBENCH_H
#define MEMCOMM_BENCH_DDTBENCH_H

#include <mpi.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pattern pattern;
struct pattern {
    char name[96];
    MPI_Datatype type;
    int count;
    int64_t n, axis;       /* shape parameters of the loops */
    int64_t inner;         /* round trips per timed turn (0: as many as fill a few ms) */
    bool named;            /* a predefined type: neither committed nor freed */
    double *array;         /* each rank's array */
    size_t array_doubles;
    void (*pack)(const pattern *p, double *out);
    void (*pack_blocked)(const pattern *p, double *out);
    MPI_Datatype (*build)(const pattern *p); /* a new, uncommitted `type` */
    int64_t *index;        /* irregular patterns: the points sent */
};

/* Append the micro-applications (WRF, MILC, NAS LU, NAS MG, FFT2, SPECFEM3D, LAMMPS), their
 * types built (not committed) and arrays not yet allocated. */
void ddtbench_add(pattern *patterns, int *np);

/* The same applications at several sizes each (WRF's and NAS LU's two faces, NAS MG's three;
 * from a few KB to MBs a message): 40 patterns. */
enum { DDTBENCH_SWEEP = 40 };
void ddtbench_add_sweep(pattern *patterns, int *np);

#endif
