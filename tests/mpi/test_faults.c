/* One story through every path of memcomm that allocates, checked against the MPI alone:
 * fault_sweep.sh runs it once per allocation, with MEMCOMM_FAIL_ALLOC failing that one,
 * and every run must still give the MPI's answers (the call falls back) and, in the
 * sanitizer builds, leak nothing.
 *
 * Two ranks. Types: a matrix column, a face of a 3-D array, a struct, an indexed type.
 * MPI_Pack/Unpack are compared with PMPI_Pack/Unpack. Messages of the column go from rank 0 to
 * rank 1 by every kind of call memcomm carries (blocking, non-blocking completed by each
 * completion call, persistent, freed, matched), the other types blocking and by Waitall
 * (fewer allocations, so a shorter sweep, through the same code); rank 1 compares each
 * receive with what the MPI's own pack and unpack of the same data give. Then the column goes
 * through collectives in each form, compared with the MPI alone. Rank 0 prints
 * "allocations: N", the most either rank asked memcomm for. */
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "memcomm.h"

enum { COUNT = 3, MESSAGES = 17, SPAN = 1 << 16 }; /* 17: past the 16 statuses on the stack */
enum { TYPES = 4 };

static MPI_Datatype types[TYPES];

static void make_types(void)
{
    MPI_Datatype v;
    MPI_Type_vector(16, 1, 16, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, sizeof(double), &types[0]);
    MPI_Type_free(&v);
    int full[3] = {8, 8, 8}, sub[3] = {8, 1, 8}, start[3] = {0, 3, 0};
    MPI_Type_create_subarray(3, full, sub, start, MPI_ORDER_C, MPI_DOUBLE, &types[1]);
    int lens[2] = {1, 3};
    MPI_Aint displs[2] = {0, 8};
    MPI_Datatype members[2] = {MPI_INT, MPI_DOUBLE};
    MPI_Type_create_struct(2, lens, displs, members, &types[2]);
    int blocks[3] = {2, 1, 3}, offsets[3] = {0, 5, 9};
    MPI_Type_indexed(3, blocks, offsets, MPI_FLOAT, &types[3]);
    for (int t = 0; t < TYPES; t++)
        MPI_Type_commit(&types[t]);
}

static void fill(unsigned char *p, size_t n, unsigned seed)
{
    for (size_t i = 0; i < n; i++)
        p[i] = (unsigned char)(seed * 131 + i * 7 + (i >> 8));
}

/* What a receive of `count` of type t must leave in a buffer prefilled with `seed`: the
 * MPI's own pack of the sender's data, unpacked by the MPI. */
static void expected(MPI_Datatype t, int count, unsigned seed, unsigned char *out)
{
    static unsigned char src[SPAN], packed[SPAN];
    fill(src, SPAN, 1000 + seed);
    fill(out, SPAN, seed);
    int pos = 0;
    PMPI_Pack(src, count, t, packed, SPAN, &pos, MPI_COMM_SELF);
    int in = 0;
    PMPI_Unpack(packed, pos, &in, out, count, t, MPI_COMM_SELF);
}

static void pack_unpack(void)
{
    static unsigned char src[SPAN], mine[SPAN], theirs[SPAN];
    for (int t = 0; t < TYPES; t++) {
        fill(src, SPAN, 7);
        int a = 0, b = 0;
        MPI_Pack(src, COUNT, types[t], mine, SPAN, &a, MPI_COMM_SELF);
        PMPI_Pack(src, COUNT, types[t], theirs, SPAN, &b, MPI_COMM_SELF);
        CHECK(a == b && memcmp(mine, theirs, (size_t)a) == 0);
        fill(mine, SPAN, 8);
        fill(theirs, SPAN, 8);
        int in_a = 0, in_b = 0;
        MPI_Unpack(src, a, &in_a, mine, COUNT, types[t], MPI_COMM_SELF);
        PMPI_Unpack(src, b, &in_b, theirs, COUNT, types[t], MPI_COMM_SELF);
        CHECK(in_a == in_b && memcmp(mine, theirs, SPAN) == 0);
    }
}

typedef enum {
    BLOCKING, SENDRECV, WAITALL, TESTALL, WAITSOME, WAITANY, PERSISTENT, FREED, MATCHED, WAYS
} way;

/* MESSAGES messages of type t from rank 0 to rank 1, sent and received the given way. */
static void exchange(int rank, int t, way how)
{
    static unsigned char bufs[MESSAGES][SPAN], want[SPAN];
    MPI_Request r[MESSAGES];
    const int n = how == BLOCKING || how == SENDRECV || how == MATCHED ? 2 : MESSAGES;
    for (int i = 0; i < n; i++)
        fill(bufs[i], SPAN, rank == 0 ? 1000 + (unsigned)i : (unsigned)i);
    if (rank == 0) {
        for (int i = 0; i < n; i++) {
            if (how == BLOCKING || how == MATCHED) {
                MPI_Send(bufs[i], COUNT, types[t], 1, i, MPI_COMM_WORLD);
            } else if (how == SENDRECV) {
                MPI_Sendrecv(bufs[i], COUNT, types[t], 1, i, NULL, 0, MPI_INT, MPI_PROC_NULL, 0,
                             MPI_COMM_WORLD, MPI_STATUS_IGNORE);
            } else if (how == PERSISTENT) {
                MPI_Send_init(bufs[i], COUNT, types[t], 1, i, MPI_COMM_WORLD, &r[i]);
            } else {
                MPI_Isend(bufs[i], COUNT, types[t], 1, i, MPI_COMM_WORLD, &r[i]);
                if (how == FREED)
                    MPI_Request_free(&r[i]);
            }
        }
        if (how == PERSISTENT) {
            MPI_Startall(n, r);
            MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
            for (int i = 0; i < n; i++)
                MPI_Request_free(&r[i]);
        } else if (how != BLOCKING && how != SENDRECV && how != MATCHED && how != FREED) {
            MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
        }
        MPI_Barrier(MPI_COMM_WORLD); /* freed sends have arrived */
        return;
    }
    for (int i = 0; i < n; i++) {
        if (how == BLOCKING) {
            MPI_Recv(bufs[i], COUNT, types[t], 0, i, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (how == SENDRECV) {
            MPI_Sendrecv(NULL, 0, MPI_INT, MPI_PROC_NULL, 0, bufs[i], COUNT, types[t], 0, i,
                         MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        } else if (how == MATCHED) {
            MPI_Message m;
            MPI_Mprobe(0, i, MPI_COMM_WORLD, &m, MPI_STATUS_IGNORE);
            MPI_Mrecv(bufs[i], COUNT, types[t], &m, MPI_STATUS_IGNORE);
        } else if (how == PERSISTENT) {
            MPI_Recv_init(bufs[i], COUNT, types[t], 0, i, MPI_COMM_WORLD, &r[i]);
        } else {
            MPI_Irecv(bufs[i], COUNT, types[t], 0, i, MPI_COMM_WORLD, &r[i]);
        }
    }
    int done = 0, outcount, indices[MESSAGES], index;
    switch (how) {
    case WAITALL:
    case FREED:
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
        break;
    case TESTALL:
        while (!done)
            MPI_Testall(n, r, &done, MPI_STATUSES_IGNORE);
        break;
    case WAITSOME:
        for (; done < n; done += outcount)
            MPI_Waitsome(n, r, &outcount, indices, MPI_STATUSES_IGNORE);
        break;
    case WAITANY:
        for (; done < n; done++)
            MPI_Waitany(n, r, &index, MPI_STATUS_IGNORE);
        break;
    case PERSISTENT:
        MPI_Startall(n, r);
        MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
        for (int i = 0; i < n; i++)
            MPI_Request_free(&r[i]);
        break;
    default:
        break;
    }
    MPI_Barrier(MPI_COMM_WORLD);
    for (int i = 0; i < n; i++) {
        expected(types[t], COUNT, (unsigned)i, want);
        CHECK(memcmp(bufs[i], want, SPAN) == 0);
    }
}

/* The collectives memcomm carries, with the column type: MPI_Alltoall and MPI_Allgather,
 * blocking, non-blocking and (where the MPI has it) persistent; each receive compared with
 * the MPI alone's. */
static void collectives(int rank)
{
    static unsigned char send[SPAN], mine[SPAN], want[SPAN];
    const MPI_Datatype t = types[0];
    fill(send, SPAN, 40 + (unsigned)rank);
    for (int gather = 0; gather < 2; gather++)
        for (int form = 0; form < 2 + MEMCOMM_HAVE_PERSISTENT_COLLECTIVES; form++) {
            fill(mine, SPAN, 7);
            fill(want, SPAN, 7);
            MPI_Request r;
            if (form == 0 && gather)
                MPI_Allgather(send, COUNT, t, mine, COUNT, t, MPI_COMM_WORLD);
            else if (form == 0)
                MPI_Alltoall(send, COUNT, t, mine, COUNT, t, MPI_COMM_WORLD);
            else if (form == 1 && gather)
                MPI_Iallgather(send, COUNT, t, mine, COUNT, t, MPI_COMM_WORLD, &r);
            else if (form == 1)
                MPI_Ialltoall(send, COUNT, t, mine, COUNT, t, MPI_COMM_WORLD, &r);
#if MEMCOMM_HAVE_PERSISTENT_COLLECTIVES
            else if (gather)
                MPI_Allgather_init(send, COUNT, t, mine, COUNT, t, MPI_COMM_WORLD,
                                   MPI_INFO_NULL, &r);
            else
                MPI_Alltoall_init(send, COUNT, t, mine, COUNT, t, MPI_COMM_WORLD,
                                  MPI_INFO_NULL, &r);
            if (form == 2)
                MPI_Start(&r);
#endif
            if (form > 0)
                MPI_Wait(&r, MPI_STATUS_IGNORE);
            if (form == 2)
                MPI_Request_free(&r);
            if (gather)
                PMPI_Allgather(send, COUNT, t, want, COUNT, t, MPI_COMM_WORLD);
            else
                PMPI_Alltoall(send, COUNT, t, want, COUNT, t, MPI_COMM_WORLD);
            CHECK(memcmp(mine, want, SPAN) == 0);
        }
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    int rank, size;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        fprintf(stderr, "test_faults: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    make_types();
    pack_unpack();
    for (int how = 0; how < WAYS; how++) /* every way with one type, */
        exchange(rank, 0, (way)how);
    for (int t = 1; t < TYPES; t++) { /* every type through the two main ways */
        exchange(rank, t, BLOCKING);
        exchange(rank, t, WAITALL);
    }
    collectives(rank);
    for (int t = 0; t < TYPES; t++)
        MPI_Type_free(&types[t]);
    memcomm_stats s;
    memcomm_stats_get(&s);
    unsigned long long mine = s.allocations, most;
    int failed = check_failed, any;
    MPI_Reduce(&mine, &most, 1, MPI_UNSIGNED_LONG_LONG, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0)
        printf("allocations: %llu\n", most);
    const int rc = rank == 1 ? check_summary("test_faults") : (any ? 1 : 0);
    MPI_Finalize();
    return rc;
}
