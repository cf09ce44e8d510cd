#include "ddtbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WRF_ARRAYS = 3, WRF_NZ = 32, WRF_NY = 64, WRF_NX = 64, WRF_HALO = 3 };

/* WRF: the y halo (3 rows) of three 3-D float arrays, one struct of three subarrays */
static void pack_wrf(const pattern *p, double *out)
{
    float *f = (float *)p->array, *o = (float *)out;
    for (int a = 0; a < WRF_ARRAYS; a++)
        for (int k = 0; k < WRF_NZ; k++)
            for (int j = 0; j < WRF_HALO; j++) {
                const float *row = f + (((size_t)a * WRF_NZ + k) * WRF_NY + j) * WRF_NX;
                memcpy(o, row, WRF_NX * sizeof(float));
                o += WRF_NX;
            }
}

/* MILC: the x = 0 face of a 4-D lattice of su3 vectors (3 complex doubles, 48 bytes) */
static void pack_milc(const pattern *p, double *out)
{
    const int64_t l = p->n;
    for (int64_t site = 0; site < l * l * l; site++, out += 6)
        memcpy(out, p->array + site * l * 6, 6 * sizeof(double));
}

/* NAS LU: the i = 0 face of u(5, n, n, n), 5 doubles per point */
static void pack_lu(const pattern *p, double *out)
{
    const int64_t n = p->n;
    for (int64_t kj = 0; kj < n * n; kj++, out += 5)
        memcpy(out, p->array + kj * n * 5, 5 * sizeof(double));
}

/* FFT2: the transpose of an n x n matrix of complex doubles */
static void pack_fft2(const pattern *p, double *out)
{
    const int64_t n = p->n;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < n; i++, out += 2)
            memcpy(out, p->array + (i * n + j) * 2, 2 * sizeof(double));
}

/* SPECFEM3D: points of a mesh, 3 floats each, listed by an index */
static void pack_specfem(const pattern *p, double *out)
{
    const float *f = (const float *)p->array;
    float *o = (float *)out;
    for (int64_t i = 0; i < p->n; i++, o += 3)
        memcpy(o, f + p->index[i] * 3, 3 * sizeof(float));
}

/* LAMMPS: atoms listed by an index; positions (3 doubles), velocities (3 doubles) and tags
 * (int) from three arrays: all positions, then all velocities, then all tags */
static void pack_lammps(const pattern *p, double *out)
{
    const int64_t atoms = p->axis;
    const double *x = p->array, *v = p->array + atoms * 3;
    const int *tag = (const int *)(p->array + atoms * 6);
    char *o = (char *)out;
    for (int64_t i = 0; i < p->n; i++, o += 24)
        memcpy(o, x + p->index[i] * 3, 24);
    for (int64_t i = 0; i < p->n; i++, o += 24)
        memcpy(o, v + p->index[i] * 3, 24);
    for (int64_t i = 0; i < p->n; i++, o += 4)
        memcpy(o, tag + p->index[i], 4);
}

/* The points 0..total-1 in random order (a fixed seed); a pattern sends the first few. */
static int64_t *random_points(int64_t total)
{
    int64_t *perm = malloc(sizeof *perm * (size_t)total);
    for (int64_t i = 0; i < total; i++)
        perm[i] = i;
    uint64_t state = 2012;
    for (int64_t i = total - 1; i > 0; i--) {
        state = state * 6364136223846793005ull + 1442695040888963407ull;
        int64_t j = (int64_t)((state >> 33) % (uint64_t)(i + 1)), t = perm[i];
        perm[i] = perm[j];
        perm[j] = t;
    }
    return perm;
}

/* NAS MG: the i = 0 face of u(n, n, n), one double every row */
static void pack_mg(const pattern *p, double *out)
{
    const int64_t n = p->n;
    for (int64_t kj = 0; kj < n * n; kj++)
        *out++ = p->array[kj * n];
}

static MPI_Datatype build_wrf(const pattern *p)
{
    (void)p;
    int full[3] = {WRF_NZ, WRF_NY, WRF_NX}, sub[3] = {WRF_NZ, WRF_HALO, WRF_NX},
        start[3] = {0, 0, 0};
    MPI_Datatype face, types[WRF_ARRAYS], t;
    int lens[WRF_ARRAYS];
    MPI_Aint displs[WRF_ARRAYS];
    MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_FLOAT, &face);
    for (int a = 0; a < WRF_ARRAYS; a++) {
        types[a] = face;
        lens[a] = 1;
        displs[a] = (MPI_Aint)a * WRF_NZ * WRF_NY * WRF_NX * (MPI_Aint)sizeof(float);
    }
    MPI_Type_create_struct(WRF_ARRAYS, lens, displs, types, &t);
    MPI_Type_free(&face);
    return t;
}

static MPI_Datatype build_milc(const pattern *p)
{
    MPI_Datatype t;
    MPI_Type_vector((int)(p->n * p->n * p->n), 6, (int)(6 * p->n), MPI_DOUBLE, &t);
    return t;
}

static MPI_Datatype build_lu(const pattern *p)
{
    MPI_Datatype t;
    MPI_Type_vector((int)(p->n * p->n), 5, (int)(5 * p->n), MPI_DOUBLE, &t);
    return t;
}

static MPI_Datatype build_mg(const pattern *p)
{
    MPI_Datatype t;
    MPI_Type_vector((int)(p->n * p->n), 1, (int)p->n, MPI_DOUBLE, &t);
    return t;
}

static MPI_Datatype build_fft2(const pattern *p)
{
    MPI_Datatype complex, column, t;
    MPI_Type_contiguous(2, MPI_DOUBLE, &complex);
    MPI_Type_vector((int)p->n, 1, (int)p->n, complex, &column);
    MPI_Type_create_resized(column, 0, 2 * sizeof(double), &t);
    MPI_Type_free(&complex);
    MPI_Type_free(&column);
    return t;
}

static MPI_Datatype build_specfem(const pattern *p)
{
    int *displs = malloc(sizeof *displs * (size_t)p->n);
    for (int64_t i = 0; i < p->n; i++)
        displs[i] = (int)(p->index[i] * 3);
    MPI_Datatype t;
    MPI_Type_create_indexed_block((int)p->n, 3, displs, MPI_FLOAT, &t);
    free(displs);
    return t;
}

static MPI_Datatype build_lammps(const pattern *p)
{
    const int64_t atoms = p->axis;
    MPI_Aint *bytes3 = malloc(sizeof *bytes3 * (size_t)p->n);
    int *ints = malloc(sizeof *ints * (size_t)p->n);
    for (int64_t i = 0; i < p->n; i++) {
        bytes3[i] = (MPI_Aint)p->index[i] * 24;
        ints[i] = (int)p->index[i];
    }
    MPI_Datatype xv, tag, parts[3], t;
    MPI_Type_create_hindexed_block((int)p->n, 3, bytes3, MPI_DOUBLE, &xv);
    MPI_Type_create_indexed_block((int)p->n, 1, ints, MPI_INT, &tag);
    parts[0] = parts[1] = xv;
    parts[2] = tag;
    int lens[3] = {1, 1, 1};
    MPI_Aint displs[3] = {0, (MPI_Aint)atoms * 24, (MPI_Aint)atoms * 48};
    MPI_Type_create_struct(3, lens, displs, parts, &t);
    MPI_Type_free(&xv);
    MPI_Type_free(&tag);
    free(bytes3);
    free(ints);
    return t;
}

static pattern *next(pattern *patterns, int *np, MPI_Datatype (*build)(const pattern *),
                     void (*pack)(const pattern *, double *))
{
    pattern *p = &patterns[(*np)++];
    p->build = build;
    p->pack = pack;
    p->count = 1;
    return p;
}

void ddtbench_add(pattern *patterns, int *np)
{
    pattern *p = next(patterns, np, build_wrf, pack_wrf);
    snprintf(p->name, sizeof p->name, "WRF: y halo of %d float arrays %dx%dx%d", WRF_ARRAYS,
             WRF_NZ, WRF_NY, WRF_NX);
    p->array_doubles = (size_t)WRF_ARRAYS * WRF_NZ * WRF_NY * WRF_NX / 2;

    p = next(patterns, np, build_milc, pack_milc);
    p->n = 16;
    snprintf(p->name, sizeof p->name, "MILC: x face of a %lld^4 su3 lattice", (long long)p->n);
    p->array_doubles = (size_t)(p->n * p->n * p->n * p->n * 6);

    p = next(patterns, np, build_lu, pack_lu);
    p->n = 128;
    snprintf(p->name, sizeof p->name, "NAS LU: i face of u(5,%lld,%lld,%lld)", (long long)p->n,
             (long long)p->n, (long long)p->n);
    p->array_doubles = (size_t)(p->n * p->n * p->n * 5);

    p = next(patterns, np, build_mg, pack_mg);
    p->n = 130;
    snprintf(p->name, sizeof p->name, "NAS MG: i face of u(%lld,%lld,%lld)", (long long)p->n,
             (long long)p->n, (long long)p->n);
    p->array_doubles = (size_t)(p->n * p->n * p->n);

    p = next(patterns, np, build_fft2, pack_fft2);
    p->n = 512;
    snprintf(p->name, sizeof p->name, "FFT2: %lldx%lld complex doubles, by columns",
             (long long)p->n, (long long)p->n);
    p->count = (int)p->n;
    p->array_doubles = (size_t)(p->n * p->n * 2);

    p = next(patterns, np, build_specfem, pack_specfem);
    const int64_t points = 1 << 18;
    p->n = 1 << 16;
    p->index = random_points(points);
    snprintf(p->name, sizeof p->name, "SPECFEM3D: %lld of %lld points, 3 floats each",
             (long long)p->n, (long long)points);
    p->array_doubles = (size_t)(points * 3 / 2);

    p = next(patterns, np, build_lammps, pack_lammps);
    const int64_t atoms = 1 << 17;
    p->axis = atoms;
    p->n = 1 << 14;
    p->index = random_points(atoms);
    snprintf(p->name, sizeof p->name, "LAMMPS: %lld of %lld atoms, x, v and tag",
             (long long)p->n, (long long)atoms);
    p->array_doubles = (size_t)(atoms * 6 + atoms / 2);

    for (int i = *np - 7; i < *np; i++)
        patterns[i].type = patterns[i].build(&patterns[i]);
}
