#include "ddtbench.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { WRF_ARRAYS = 3, WRF_HALO = 3 };

/* WRF: the halo (3 rows in y, or 3 columns in x) of three float arrays of nz x n x n (p->axis
 * = nz, p->n = n), one struct of three subarrays */
static void pack_wrf_y(const pattern *p, double *out)
{
    const int64_t nz = p->axis, n = p->n;
    float *f = (float *)p->array, *o = (float *)out;
    for (int a = 0; a < WRF_ARRAYS; a++)
        for (int64_t k = 0; k < nz; k++)
            for (int j = 0; j < WRF_HALO; j++) {
                const float *row = f + ((a * nz + k) * n + j) * n;
                memcpy(o, row, (size_t)n * sizeof(float));
                o += n;
            }
}

static void pack_wrf_x(const pattern *p, double *out)
{
    const int64_t nz = p->axis, n = p->n;
    float *f = (float *)p->array, *o = (float *)out;
    for (int a = 0; a < WRF_ARRAYS; a++)
        for (int64_t kj = 0; kj < nz * n; kj++, o += WRF_HALO)
            memcpy(o, f + (a * nz * n + kj) * n, WRF_HALO * sizeof(float));
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

/* NAS LU: the j = 0 face of u(5, n, n, n), a run of 5n doubles per k */
static void pack_lu_j(const pattern *p, double *out)
{
    const int64_t n = p->n;
    for (int64_t k = 0; k < n; k++, out += 5 * n)
        memcpy(out, p->array + k * n * n * 5, (size_t)(5 * n) * sizeof(double));
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

static MPI_Datatype build_wrf(const pattern *p, int y)
{
    const int nz = (int)p->axis, n = (int)p->n;
    int full[3] = {nz, n, n}, sub[3] = {nz, y ? WRF_HALO : n, y ? n : WRF_HALO},
        start[3] = {0, 0, 0};
    MPI_Datatype face, types[WRF_ARRAYS], t;
    int lens[WRF_ARRAYS];
    MPI_Aint displs[WRF_ARRAYS];
    MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_FLOAT, &face);
    for (int a = 0; a < WRF_ARRAYS; a++) {
        types[a] = face;
        lens[a] = 1;
        displs[a] = (MPI_Aint)a * nz * n * n * (MPI_Aint)sizeof(float);
    }
    MPI_Type_create_struct(WRF_ARRAYS, lens, displs, types, &t);
    MPI_Type_free(&face);
    return t;
}

static MPI_Datatype build_wrf_y(const pattern *p)
{
    return build_wrf(p, 1);
}

static MPI_Datatype build_wrf_x(const pattern *p)
{
    return build_wrf(p, 0);
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

static MPI_Datatype build_lu_j(const pattern *p)
{
    MPI_Datatype t;
    MPI_Type_vector((int)p->n, (int)(5 * p->n), (int)(5 * p->n * p->n), MPI_DOUBLE, &t);
    return t;
}

static MPI_Datatype build_mg(const pattern *p)
{
    MPI_Datatype t;
    MPI_Type_vector((int)(p->n * p->n), 1, (int)p->n, MPI_DOUBLE, &t);
    return t;
}

/* NAS MG: the j = 0 face (a run of n doubles per k) and the k = 0 face (contiguous, as a
 * subarray) of u(n, n, n) */
static MPI_Datatype build_mg_j(const pattern *p)
{
    MPI_Datatype t;
    MPI_Type_vector((int)p->n, (int)p->n, (int)(p->n * p->n), MPI_DOUBLE, &t);
    return t;
}

static MPI_Datatype build_mg_k(const pattern *p)
{
    int n = (int)p->n, full[3] = {n, n, n}, sub[3] = {1, n, n}, start[3] = {0, 0, 0};
    MPI_Datatype t;
    MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_DOUBLE, &t);
    return t;
}

static void pack_mg_j(const pattern *p, double *out)
{
    const int64_t n = p->n;
    for (int64_t k = 0; k < n; k++, out += n)
        memcpy(out, p->array + k * n * n, (size_t)n * sizeof(double));
}

static void pack_mg_k(const pattern *p, double *out)
{
    memcpy(out, p->array, (size_t)(p->n * p->n) * sizeof(double));
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

static void add_wrf(pattern *patterns, int *np, int y, int64_t nz, int64_t n)
{
    pattern *p = next(patterns, np, y ? build_wrf_y : build_wrf_x, y ? pack_wrf_y : pack_wrf_x);
    p->axis = nz;
    p->n = n;
    snprintf(p->name, sizeof p->name, "WRF: %s halo of %d float arrays %lldx%lldx%lld",
             y ? "y" : "x", WRF_ARRAYS, (long long)nz, (long long)n, (long long)n);
    p->array_doubles = (size_t)(WRF_ARRAYS * nz * n * n / 2);
}

static void add_milc(pattern *patterns, int *np, int64_t n)
{
    pattern *p = next(patterns, np, build_milc, pack_milc);
    p->n = n;
    snprintf(p->name, sizeof p->name, "MILC: x face of a %lld^4 su3 lattice", (long long)n);
    p->array_doubles = (size_t)(n * n * n * n * 6);
}

static void add_lu(pattern *patterns, int *np, int j, int64_t n)
{
    pattern *p = next(patterns, np, j ? build_lu_j : build_lu, j ? pack_lu_j : pack_lu);
    p->n = n;
    snprintf(p->name, sizeof p->name, "NAS LU: %s face of u(5,%lld,%lld,%lld)", j ? "j" : "i",
             (long long)n, (long long)n, (long long)n);
    p->array_doubles = (size_t)(n * n * n * 5);
}

static void add_mg(pattern *patterns, int *np, char face, int64_t n)
{
    pattern *p = face == 'i'   ? next(patterns, np, build_mg, pack_mg)
                 : face == 'j' ? next(patterns, np, build_mg_j, pack_mg_j)
                               : next(patterns, np, build_mg_k, pack_mg_k);
    p->n = n;
    snprintf(p->name, sizeof p->name, "NAS MG: %c face of u(%lld,%lld,%lld)", face,
             (long long)n, (long long)n, (long long)n);
    p->array_doubles = (size_t)(n * n * n);
}

static void add_fft2(pattern *patterns, int *np, int64_t n)
{
    pattern *p = next(patterns, np, build_fft2, pack_fft2);
    p->n = n;
    snprintf(p->name, sizeof p->name, "FFT2: %lldx%lld complex doubles, by columns",
             (long long)n, (long long)n);
    p->count = (int)n;
    p->array_doubles = (size_t)(n * n * 2);
}

static void add_specfem(pattern *patterns, int *np, int64_t sent)
{
    const int64_t points = 1 << 18;
    pattern *p = next(patterns, np, build_specfem, pack_specfem);
    p->n = sent;
    p->index = random_points(points);
    snprintf(p->name, sizeof p->name, "SPECFEM3D: %lld of %lld points, 3 floats each",
             (long long)sent, (long long)points);
    p->array_doubles = (size_t)(points * 3 / 2);
}

static void add_lammps(pattern *patterns, int *np, int64_t sent)
{
    const int64_t atoms = 1 << 17;
    pattern *p = next(patterns, np, build_lammps, pack_lammps);
    p->axis = atoms;
    p->n = sent;
    p->index = random_points(atoms);
    snprintf(p->name, sizeof p->name, "LAMMPS: %lld of %lld atoms, x, v and tag",
             (long long)sent, (long long)atoms);
    p->array_doubles = (size_t)(atoms * 6 + atoms / 2);
}

static void build_types(pattern *patterns, int from, int to)
{
    for (int i = from; i < to; i++)
        patterns[i].type = patterns[i].build(&patterns[i]);
}

void ddtbench_add(pattern *patterns, int *np)
{
    const int from = *np;
    add_wrf(patterns, np, 1, 32, 64);
    add_milc(patterns, np, 16);
    add_lu(patterns, np, 0, 128);
    add_mg(patterns, np, 'i', 130);
    add_fft2(patterns, np, 512);
    add_specfem(patterns, np, 1 << 16);
    add_lammps(patterns, np, 1 << 14);
    build_types(patterns, from, *np);
}

void ddtbench_add_sweep(pattern *patterns, int *np)
{
    const int from = *np;
    static const int64_t wrf[][2] = {{8, 16}, {16, 32}, {32, 64}}, milc[] = {4, 8, 16},
                         lu[] = {12, 33, 64, 128}, mg[] = {18, 34, 66, 130},
                         fft2[] = {64, 128, 256, 512}, specfem[] = {170, 290, 4096, 1 << 16},
                         lammps[] = {128, 1024, 1 << 14};
    for (int y = 1; y >= 0; y--)
        for (size_t i = 0; i < sizeof wrf / sizeof wrf[0]; i++)
            add_wrf(patterns, np, y, wrf[i][0], wrf[i][1]);
    for (size_t i = 0; i < sizeof milc / sizeof milc[0]; i++)
        add_milc(patterns, np, milc[i]);
    for (int j = 0; j <= 1; j++)
        for (size_t i = 0; i < sizeof lu / sizeof lu[0]; i++)
            add_lu(patterns, np, j, lu[i]);
    for (const char *face = "ijk"; *face; face++)
        for (size_t i = 0; i < sizeof mg / sizeof mg[0]; i++)
            add_mg(patterns, np, *face, mg[i]);
    for (size_t i = 0; i < sizeof fft2 / sizeof fft2[0]; i++)
        add_fft2(patterns, np, fft2[i]);
    for (size_t i = 0; i < sizeof specfem / sizeof specfem[0]; i++)
        add_specfem(patterns, np, specfem[i]);
    for (size_t i = 0; i < sizeof lammps / sizeof lammps[0]; i++)
        add_lammps(patterns, np, lammps[i]);
    build_types(patterns, from, *np);
}
