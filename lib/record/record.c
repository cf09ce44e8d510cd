/* The call-site recorder behind `memcomm advise -- PROG`: a preload library of its own
 * (libmemcomm_record.so), put before libmemcomm.so, so that an ordinary run of memcomm pays
 * nothing for it. Each communication call of the program is passed on to the next
 * definition (memcomm's, then the MPI's) and counted per call site: the return address, the
 * call, the message's bytes and whether its datatype is derived, with the time spent in the
 * call. At MPI_Finalize each rank writes its sites to $MEMCOMM_RECORD_DIR/sites.<rank>.jsonl
 * as the module and offset of the return address, which `memcomm advise` symbolizes, and,
 * for a derived datatype, what memcomm's planner makes of it (memcomm_type_explain).
 *
 * Recorded: MPI_Send, Ssend, Isend, Recv, Irecv, Sendrecv, Sendrecv_replace, Bcast,
 * Allreduce, Alltoall, Alltoallv, Alltoallw, Allgather, and where the MPI has them the
 * large-count forms of the first nine (what mpi4py calls on MPICH). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/mpiutil.h"

enum { SLOTS = 4096, EXPLAIN_BYTES = 1024 };

typedef struct {
    void *site; /* NULL: free slot */
    const char *call;
    int64_t bytes;
    bool derived;
    uint64_t calls;
    double seconds;
    char explain[EXPLAIN_BYTES];
} site_entry;

static site_entry table[SLOTS];
static uint64_t dropped; /* calls at sites beyond the table */
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

typedef int (*explain_fn)(MPI_Datatype, MPI_Count, char *, size_t);

static void *next_definition(const char *name)
{
    void *f = dlsym(RTLD_NEXT, name);
    if (!f) {
        fprintf(stderr, "memcomm advise: %s not found after the recorder\n", name);
        abort();
    }
    return f;
}

static bool is_derived(MPI_Datatype type)
{
    int integers, addresses, types, combiner;
    PMPI_Type_get_envelope(type, &integers, &addresses, &types, &combiner);
    return combiner != MPI_COMBINER_NAMED;
}

static void record(void *site, const char *call, MPI_Datatype type, int64_t count, double seconds)
{
    int size = 0;
    if (type != MPI_DATATYPE_NULL)
        PMPI_Type_size(type, &size);
    const int64_t bytes = (int64_t)size * count;
    const bool derived = type != MPI_DATATYPE_NULL && is_derived(type);
    uint64_t h = ((uintptr_t)site * 0x9E3779B97F4A7C15ull) ^ (uint64_t)bytes ^ (uintptr_t)call;
    pthread_mutex_lock(&lock);
    for (int probe = 0; probe < SLOTS; probe++) {
        site_entry *e = &table[(h + (uint64_t)probe) % SLOTS];
        if (!e->site) {
            *e = (site_entry){.site = site, .call = call, .bytes = bytes, .derived = derived};
            if (derived) { /* the plan, once per entry, from memcomm if it is loaded */
                explain_fn explain = (explain_fn)dlsym(RTLD_DEFAULT, "memcomm_type_explain");
                if (!explain || explain(type, (MPI_Count)count, e->explain, EXPLAIN_BYTES) < 0)
                    e->explain[0] = '\0';
            }
        }
        if (e->site == site && e->call == call && e->bytes == bytes && e->derived == derived) {
            e->calls++;
            e->seconds += seconds;
            pthread_mutex_unlock(&lock);
            return;
        }
    }
    dropped++;
    pthread_mutex_unlock(&lock);
}

/* A JSON string: quotes, backslashes and control characters escaped. */
static void json_string(FILE *out, const char *s)
{
    fputc('"', out);
    for (; *s; s++) {
        if (*s == '"' || *s == '\\')
            fprintf(out, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(out, "\\u%04x", (unsigned char)*s);
        else
            fputc(*s, out);
    }
    fputc('"', out);
}

static void write_sites(void)
{
    const char *dir = getenv("MEMCOMM_RECORD_DIR");
    if (!dir)
        return;
    int rank = 0;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    char path[4096];
    snprintf(path, sizeof path, "%s/sites.%d.jsonl", dir, rank);
    FILE *out = fopen(path, "w");
    if (!out) {
        fprintf(stderr, "memcomm advise: cannot write %s\n", path);
        return;
    }
    for (int i = 0; i < SLOTS; i++) {
        const site_entry *e = &table[i];
        if (!e->site)
            continue;
        Dl_info where = {0};
        dladdr(e->site, &where);
        fprintf(out, "{\"rank\": %d, \"call\": \"%s\", \"module\": ", rank, e->call);
        json_string(out, where.dli_fname ? where.dli_fname : "?");
        fprintf(out,
                ", \"address\": \"0x%" PRIxPTR "\", \"offset\": \"0x%" PRIxPTR "\", "
                "\"bytes\": %" PRId64 ", \"derived\": %s, \"calls\": %" PRIu64 ", "
                "\"seconds\": %.9f, \"explain\": ",
                (uintptr_t)e->site, (uintptr_t)e->site - (uintptr_t)where.dli_fbase, e->bytes,
                e->derived ? "true" : "false", e->calls, e->seconds);
        json_string(out, e->explain);
        fputs("}\n", out);
    }
    if (dropped)
        fprintf(out, "{\"rank\": %d, \"dropped\": %" PRIu64 "}\n", rank, dropped);
    fclose(out);
}

/* One wrapper per call: the next definition, timed, then recorded with its type and count. */
#define RECORDED(NAME, PARAMS, ARGS, TYPE, COUNT)                                              \
    EXPORT int NAME PARAMS                                                                     \
    {                                                                                          \
        static int(*next) PARAMS;                                                              \
        if (!next)                                                                             \
            next = (int(*) PARAMS)next_definition(#NAME);                                      \
        void *site = __builtin_return_address(0);                                              \
        const double start = PMPI_Wtime();                                                     \
        const int rc = next ARGS;                                                              \
        record(site, #NAME, TYPE, COUNT, PMPI_Wtime() - start);                                \
        return rc;                                                                             \
    }

/* The calls with one count: one definition for the int and the large-count (_c) forms. */
#define RECORDED_FAMILY(SUFFIX, COUNT_T)                                                       \
    RECORDED(MPI_Send##SUFFIX,                                                                 \
             (const void *b, COUNT_T c, MPI_Datatype t, int p, int g, MPI_Comm m),             \
             (b, c, t, p, g, m), t, c)                                                         \
    RECORDED(MPI_Ssend##SUFFIX,                                                                \
             (const void *b, COUNT_T c, MPI_Datatype t, int p, int g, MPI_Comm m),             \
             (b, c, t, p, g, m), t, c)                                                         \
    RECORDED(MPI_Isend##SUFFIX,                                                                \
             (const void *b, COUNT_T c, MPI_Datatype t, int p, int g, MPI_Comm m,              \
              MPI_Request *r),                                                                 \
             (b, c, t, p, g, m, r), t, c)                                                      \
    RECORDED(MPI_Recv##SUFFIX,                                                                 \
             (void *b, COUNT_T c, MPI_Datatype t, int p, int g, MPI_Comm m, MPI_Status *s),    \
             (b, c, t, p, g, m, s), t, c)                                                      \
    RECORDED(MPI_Irecv##SUFFIX,                                                                \
             (void *b, COUNT_T c, MPI_Datatype t, int p, int g, MPI_Comm m, MPI_Request *r),   \
             (b, c, t, p, g, m, r), t, c)                                                      \
    RECORDED(MPI_Sendrecv##SUFFIX,                                                             \
             (const void *sb, COUNT_T sc, MPI_Datatype st, int d, int sg, void *rb,            \
              COUNT_T rc_, MPI_Datatype rt, int s, int rg, MPI_Comm m, MPI_Status *status),    \
             (sb, sc, st, d, sg, rb, rc_, rt, s, rg, m, status), st, sc)                       \
    RECORDED(MPI_Sendrecv_replace##SUFFIX,                                                     \
             (void *b, COUNT_T c, MPI_Datatype t, int d, int sg, int s, int rg, MPI_Comm m,    \
              MPI_Status *status),                                                             \
             (b, c, t, d, sg, s, rg, m, status), t, c)                                         \
    RECORDED(MPI_Bcast##SUFFIX, (void *b, COUNT_T c, MPI_Datatype t, int root, MPI_Comm m),    \
             (b, c, t, root, m), t, c)                                                         \
    RECORDED(MPI_Allreduce##SUFFIX,                                                            \
             (const void *sb, void *rb, COUNT_T c, MPI_Datatype t, MPI_Op op, MPI_Comm m),     \
             (sb, rb, c, t, op, m), t, c)

RECORDED_FAMILY(, int)
#if MEMCOMM_HAVE_LARGE_COUNT
RECORDED_FAMILY(_c, MPI_Count)
#endif

RECORDED(MPI_Alltoall,
         (const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
          MPI_Comm m),
         (sb, sc, st, rb, rc_, rt, m), st, sc)
RECORDED(MPI_Allgather,
         (const void *sb, int sc, MPI_Datatype st, void *rb, int rc_, MPI_Datatype rt,
          MPI_Comm m),
         (sb, sc, st, rb, rc_, rt, m), st, sc)
/* the v and w forms: the bytes of the first peer's block stand for the call */
RECORDED(MPI_Alltoallv,
         (const void *sb, const int *sc, const int *sd, MPI_Datatype st, void *rb,
          const int *rc_, const int *rd, MPI_Datatype rt, MPI_Comm m),
         (sb, sc, sd, st, rb, rc_, rd, rt, m), st, sc ? sc[0] : 0)
RECORDED(MPI_Alltoallw,
         (const void *sb, const int *sc, const int *sd, const MPI_Datatype *st, void *rb,
          const int *rc_, const int *rd, const MPI_Datatype *rt, MPI_Comm m),
         (sb, sc, sd, st, rb, rc_, rd, rt, m), st ? st[0] : MPI_DATATYPE_NULL,
         sc ? sc[0] : 0)


EXPORT int MPI_Finalize(void)
{
    static int (*next)(void);
    if (!next)
        next = (int (*)(void))next_definition("MPI_Finalize");
    write_sites();
    return next();
}
