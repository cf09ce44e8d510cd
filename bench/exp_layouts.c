/* layouts: the pack time of many layouts, for Memory-LogP (memcomm.models.memory).
 *
 * MPI_Pack (memcomm's when it is preloaded) of
 *   - vectors of doubles: for each packed size of --sizes, blocks of 8, 16, 64 and 512 bytes
 *     at strides of 2, 4, 16 and 64 blocks (when the layout spans at most 512 MiB);
 *   - matrix transposes: an n x n matrix of doubles packed column by column, n = 128 to 4096
 *     (those of at most 8 times the largest packed size);
 *   - halo faces of an n x n x n array of doubles (MPI_Type_create_subarray), n the side whose
 *     face packs to each size (when the array fits 512 MiB): the three faces one plane deep,
 *     and the innermost face two planes deep. Memory-LogP never fits on these: they check it
 *     on layouts of a kind it has not seen.
 * Each record names its layout (vector or transpose, count, block and stride bytes, n; for
 * faces the strided form memcomm normalizes them to, as `memcomm explain` prints it: dims
 * outermost first and the block), so the model can compute what the layout does to the
 * caches and the TLB. Rank 0 alone. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "experiments.h"

typedef struct {
    int rank;
    MPI_Datatype type;
    int count;
    char *data, *packed;
    int64_t bytes;
} packing;

static double pack_sample(void *ctx, int64_t inner)
{
    packing *p = ctx;
    if (p->rank != 0)
        return 0;
    double t0 = MPI_Wtime();
    for (int64_t k = 0; k < inner; k++) {
        int position = 0;
        MPI_Pack(p->data, p->count, p->type, p->packed, (int)p->bytes, &position, MPI_COMM_SELF);
    }
    return MPI_Wtime() - t0;
}

static void measure_layout(const timing *t, int rank, MPI_Datatype type, int count,
                           int64_t span, int64_t bytes, const char *params)
{
    MPI_Type_commit(&type);
    packing p = {rank, type, count, harness_alloc(span), harness_alloc(bytes), bytes};
    for (int64_t i = 0; i < span; i++)
        p.data[i] = (char)i;
    measurement m = {"layouts", "MPI_Pack", {"pack", NULL}, bytes, ""};
    snprintf(m.params, sizeof m.params, "%s", params);
    harness_measure(t, &m, pack_sample, &p, MPI_COMM_WORLD);
    MPI_Type_free(&type);
    free(p.data);
    free(p.packed);
}

int experiment_layouts(const timing *t, const char *sizes, int argc, char **argv)
{
    if (harness_no_options(argc, argv))
        return 2;
    int64_t bytes[16];
    int n = harness_sizes(sizes, "64K,1M,16M", bytes, 16, 512, 1ll << 28);
    if (n < 0)
        return 2;
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    static const int blocks[] = {8, 16, 64, 512}, ratios[] = {2, 4, 16, 64};
    for (int i = 0; i < n; i++)
        for (size_t b = 0; b < sizeof blocks / sizeof blocks[0]; b++)
            for (size_t r = 0; r < sizeof ratios / sizeof ratios[0]; r++) {
                const int64_t block = blocks[b], stride = block * ratios[r];
                const int64_t count = bytes[i] / block, span = count * stride;
                if (count < 1 || span > (512ll << 20))
                    continue;
                harness_progress("layouts");
                MPI_Datatype type;
                MPI_Type_vector((int)count, (int)(block / 8), (int)(stride / 8), MPI_DOUBLE,
                                &type);
                char params[160];
                snprintf(params, sizeof params,
                         "\"layout\": \"vector\", \"count\": %lld, \"block\": %lld, "
                         "\"stride\": %lld",
                         (long long)count, (long long)block, (long long)stride);
                measure_layout(t, rank, type, 1, span, count * block, params);
            }
    int64_t largest = 0;
    for (int i = 0; i < n; i++)
        largest = bytes[i] > largest ? bytes[i] : largest;
    /* transposes up to 8 times the largest packed size: 4096^2 with the default sizes */
    for (int64_t side = 128; side <= 4096 && side * side <= largest; side *= 2) {
        harness_progress("layouts");
        MPI_Datatype column, type;
        MPI_Type_vector((int)side, 1, (int)side, MPI_DOUBLE, &column);
        MPI_Type_create_resized(column, 0, sizeof(double), &type);
        MPI_Type_free(&column);
        char params[160];
        snprintf(params, sizeof params,
                 "\"layout\": \"transpose\", \"count\": %lld, \"block\": 8, \"stride\": %lld, "
                 "\"n\": %lld",
                 (long long)(side * side), (long long)(side * 8), (long long)side);
        measure_layout(t, rank, type, (int)side, side * side * 8, side * side * 8, params);
    }
    /* halo faces: the face of side n packs n*n doubles (two planes: twice that) */
    for (int i = 0; i < n; i++) {
        int64_t side = 1;
        while ((side + 1) * (side + 1) * 8 <= bytes[i])
            side++;
        if (side < 4 || side * side * side * 8 > (512ll << 20))
            continue;
        const int sizes3[3] = {(int)side, (int)side, (int)side};
        const int64_t row = side * 8, plane = side * side * 8;
        struct {
            const char *name;
            int sub[3];
            char dims[96];
            int64_t block;
        } faces[] = {{"x face", {1, (int)side, (int)side}, "", plane},
                     {"y face", {(int)side, 1, (int)side}, "", row},
                     {"z face", {(int)side, (int)side, 1}, "", 8},
                     {"z face, 2 deep", {(int)side, (int)side, 2}, "", 16}};
        snprintf(faces[0].dims, sizeof faces[0].dims, "1x%lld", (long long)plane);
        snprintf(faces[1].dims, sizeof faces[1].dims, "%lldx%lld", (long long)side,
                 (long long)plane);
        snprintf(faces[2].dims, sizeof faces[2].dims, "%lldx%lld,%lldx%lld", (long long)side,
                 (long long)plane, (long long)side, (long long)row);
        snprintf(faces[3].dims, sizeof faces[3].dims, "%s", faces[2].dims);
        for (size_t f = 0; f < sizeof faces / sizeof faces[0]; f++) {
            harness_progress("layouts");
            const int starts[3] = {0, 0, 0};
            MPI_Datatype type;
            MPI_Type_create_subarray(3, sizes3, faces[f].sub, starts, MPI_ORDER_C, MPI_DOUBLE,
                                     &type);
            const int64_t packed = (int64_t)faces[f].sub[0] * faces[f].sub[1] * faces[f].sub[2] * 8;
            char params[240];
            snprintf(params, sizeof params,
                     "\"layout\": \"strided\", \"name\": \"%s of a %lld^3 array\", "
                     "\"dims\": \"%s\", \"block\": %lld",
                     faces[f].name, (long long)side, faces[f].dims, (long long)faces[f].block);
            measure_layout(t, rank, type, 1, side * side * side * 8, packed, params);
        }
    }
    return 0;
}
