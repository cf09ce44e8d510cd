/* The request table under the cases that broke it (lib/p2p/requests.h, completion.h): two
 * ranks, rank 0 sends columns of a matrix (a resized vector memcomm carries), rank 1
 * receives them through memcomm; every received buffer is compared with what the column
 * holds.
 *
 *   errors     a completion call that fails as a whole (an invalid handle next to carried
 *              receives, MPI_ERRORS_RETURN) leaves the carried receives to the MPI; waited
 *              for afterwards, they deliver their data. MPICH only: Open MPI does not
 *              check handles (it crashes on an invalid one, with or without memcomm)
 *   many       10,000 carried receives (and sends) in one Waitall, with and without
 *              statuses; the same through Waitsome and Testany loops
 *   behind     a carried receive completed by PMPI_Wait, behind memcomm's back: when the
 *              MPI hands its handle out again, memcomm drops the stale entry and counts it
 *   threads    under MPI_THREAD_MULTIPLE, threads post and complete their own requests
 *   freed      a carried receive freed and never matched: MPI_Finalize still returns (CTest's
 *              timeout catches a hang)
 *
 * Run with MEMCOMM_SEND_PATH=packed so that sends are carried too. */
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../check.h"
#include "memcomm.h"

enum { N = 8, MANY = 10000, THREADS = 4, PER_THREAD = 200 };

static MPI_Datatype column; /* one column of an N x N matrix of doubles, extent one double */

static void make_column(void)
{
    MPI_Datatype v;
    MPI_Type_vector(N, 1, N, MPI_DOUBLE, &v);
    MPI_Type_create_resized(v, 0, sizeof(double), &column);
    MPI_Type_commit(&column);
    MPI_Type_free(&v);
}

/* Message m is column 0 of a matrix whose element (r, c) is m * 1000 + r * N + c. */
static void fill_matrix(double *a, int m)
{
    for (int k = 0; k < N * N; k++)
        a[k] = m * 1000.0 + k;
}

/* Whether column 0 of `a` holds message m, and nothing else in `a` changed from -1. */
static bool holds(const double *a, int m)
{
    for (int r = 0; r < N; r++)
        for (int c = 0; c < N; c++)
            if (a[r * N + c] != (c == 0 ? m * 1000.0 + r * N : -1.0))
                return false;
    return true;
}

static void clear(double *a)
{
    for (int k = 0; k < N * N; k++)
        a[k] = -1.0;
}

static void send_messages(int first, int n, int tag)
{
    double *a = malloc(sizeof(double) * N * N * (size_t)n);
    MPI_Request *r = malloc(sizeof *r * (size_t)n);
    for (int i = 0; i < n; i++) {
        fill_matrix(a + (size_t)i * N * N, first + i);
        MPI_Isend(a + (size_t)i * N * N, 1, column, 1, tag, MPI_COMM_WORLD, &r[i]);
    }
    MPI_Waitall(n, r, MPI_STATUSES_IGNORE);
    free(r);
    free(a);
}

/* ---- errors ---- */

static MPI_Request invalid_request(void)
{
    MPI_Request r;
    memset(&r, 0, sizeof r); /* neither a handle nor MPI_REQUEST_NULL, on both MPIs */
    return r;
}

static void errors(int rank)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int len;
    MPI_Get_library_version(version, &len);
    if (strstr(version, "Open MPI")) {
        if (rank == 1)
            printf("test_requests: Open MPI does not check request handles; errors not run\n");
        return;
    }
#ifdef MPI_ABI_VERSION
    /* MPICH 5.0.2's libmpi_abi dies on a handle that is not one (SIGSEGV in PMPI_Testall) */
    if (rank == 1)
        printf("test_requests: the standard ABI's handles are not checked; errors not run\n");
    return;
#endif
    static const char *calls[] = {"Testall", "Waitall", "Testany", "Testsome"};
    for (int call = 0; call < 4; call++) {
        if (rank == 0) {
            MPI_Barrier(MPI_COMM_WORLD); /* receives posted, failed call made */
            send_messages(call * 2, 2, 1);
            continue;
        }
        double a[2][N * N];
        MPI_Request r[3];
        clear(a[0]);
        clear(a[1]);
        for (int i = 0; i < 2; i++)
            MPI_Irecv(a[i], 1, column, 0, 1, MPI_COMM_WORLD, &r[i]);
        r[2] = invalid_request();
        int flag = 0, index, outcount, indices[3], rc;
        MPI_Status statuses[3];
        if (call == 0)
            rc = MPI_Testall(3, r, &flag, statuses);
        else if (call == 1)
            rc = MPI_Waitall(3, r, statuses);
        else if (call == 2)
            rc = MPI_Testany(3, r, &index, &flag, statuses);
        else
            rc = MPI_Testsome(3, r, &outcount, indices, statuses);
        int cls;
        MPI_Error_class(rc, &cls);
        if (cls != MPI_ERR_REQUEST && cls != MPI_ERR_ARG)
            fprintf(stderr, "test_requests: %s with an invalid handle: class %d\n", calls[call],
                    cls);
        CHECK(rc != MPI_SUCCESS);
        CHECK(r[0] != MPI_REQUEST_NULL && r[1] != MPI_REQUEST_NULL); /* still the MPI's */
        MPI_Barrier(MPI_COMM_WORLD);
        CHECK(MPI_Waitall(2, r, MPI_STATUSES_IGNORE) == MPI_SUCCESS);
        CHECK(holds(a[0], call * 2) && holds(a[1], call * 2 + 1));
    }
}

/* ---- many ---- */

typedef enum { ALL_IGNORED, ALL_STATUSES, SOME, ANY, HOW } completion;
static const char *completion_names[HOW] = {"Waitall, statuses ignored", "Waitall, statuses",
                                            "Waitsome loop", "Testany loop"};

static void many(int rank)
{
    for (int how = 0; how < HOW; how++) {
        if (rank == 0) {
            send_messages(how * MANY, MANY, 2);
            continue;
        }
        double *a = malloc(sizeof(double) * N * N * MANY);
        MPI_Request *r = malloc(sizeof *r * MANY);
        MPI_Status *st = malloc(sizeof *st * MANY);
        int *indices = malloc(sizeof *indices * MANY);
        for (int i = 0; i < MANY; i++) {
            clear(a + (size_t)i * N * N);
            MPI_Irecv(a + (size_t)i * N * N, 1, column, 0, 2, MPI_COMM_WORLD, &r[i]);
        }
        int rc = MPI_SUCCESS, completed = 0;
        if (how == ALL_IGNORED || how == ALL_STATUSES) {
            rc = MPI_Waitall(MANY, r, how == ALL_STATUSES ? st : MPI_STATUSES_IGNORE);
            completed = MANY;
        }
        while (how == SOME && completed < MANY) {
            int outcount;
            rc |= MPI_Waitsome(MANY, r, &outcount, indices, st);
            completed += outcount;
        }
        while (how == ANY && completed < MANY) {
            int index, flag;
            rc |= MPI_Testany(MANY, r, &index, &flag, MPI_STATUS_IGNORE);
            completed += flag && index != MPI_UNDEFINED;
        }
        int wrong = 0, count_ok = 1;
        for (int i = 0; i < MANY; i++)
            wrong += !holds(a + (size_t)i * N * N, how * MANY + i);
        for (int i = 0; how == ALL_STATUSES && i < MANY; i++) {
            int count;
            MPI_Get_count(&st[i], column, &count);
            count_ok &= count == 1;
        }
        if (wrong)
            fprintf(stderr, "test_requests: %s: %d of %d receives wrong\n",
                    completion_names[how], wrong, MANY);
        CHECK(rc == MPI_SUCCESS && wrong == 0 && count_ok);
        free(indices);
        free(st);
        free(r);
        free(a);
    }
}

/* ---- behind memcomm's back ---- */

static void behind(int rank)
{
    if (rank == 0) {
        double a[N * N];
        fill_matrix(a, 7);
        MPI_Send(a, 1, column, 1, 3, MPI_COMM_WORLD);
        int x = 42;
        MPI_Send(&x, 1, MPI_INT, 1, 4, MPI_COMM_WORLD);
        return;
    }
    memcomm_stats before, after;
    memcomm_stats_get(&before);
    double a[N * N];
    clear(a);
    MPI_Request r, old;
    MPI_Irecv(a, 1, column, 0, 3, MPI_COMM_WORLD, &r);
    old = r;
    PMPI_Wait(&r, MPI_STATUS_IGNORE); /* as a Fortran binding or another tool would */
    int x = 0;
    MPI_Irecv(&x, 1, MPI_INT, 0, 4, MPI_COMM_WORLD, &r); /* passes through memcomm */
    const bool reused = r == old;
    MPI_Wait(&r, MPI_STATUS_IGNORE);
    memcomm_stats_get(&after);
    CHECK(x == 42);
    bool untouched = true; /* memcomm never unpacked the column: documented, not repairable */
    for (int k = 0; k < N * N; k++)
        untouched &= a[k] == -1.0;
    CHECK(untouched);
    if (reused) /* then memcomm saw the handle come back: dropped, counted */
        CHECK(after.stale_requests == before.stale_requests + 1);
    else
        printf("test_requests: the MPI did not reuse the handle; stale entry stays\n");
}

/* ---- threads ---- */

typedef struct {
    int rank, thread, wrong;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *job = arg;
    const int tag = 10 + job->thread;
    double *a = malloc(sizeof(double) * N * N * PER_THREAD);
    MPI_Request *r = malloc(sizeof *r * PER_THREAD);
    for (int i = 0; i < PER_THREAD; i++) {
        double *m = a + (size_t)i * N * N;
        if (job->rank == 0) {
            fill_matrix(m, job->thread * PER_THREAD + i);
            MPI_Isend(m, 1, column, 1, tag, MPI_COMM_WORLD, &r[i]);
        } else {
            clear(m);
            MPI_Irecv(m, 1, column, 0, tag, MPI_COMM_WORLD, &r[i]);
        }
    }
    for (int done = 0; done < PER_THREAD; done++) { /* Waitany: one at a time */
        int index;
        MPI_Waitany(PER_THREAD, r, &index, MPI_STATUS_IGNORE);
    }
    for (int i = 0; job->rank == 1 && i < PER_THREAD; i++)
        job->wrong += !holds(a + (size_t)i * N * N, job->thread * PER_THREAD + i);
    free(r);
    free(a);
    return NULL;
}

static void threads(int rank, int provided)
{
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("test_requests: no MPI_THREAD_MULTIPLE; threads not run\n");
        return;
    }
    pthread_t t[THREADS];
    thread_job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (thread_job){rank, i, 0};
        pthread_create(&t[i], NULL, thread_main, &jobs[i]);
    }
    int wrong = 0;
    for (int i = 0; i < THREADS; i++) {
        pthread_join(t[i], NULL);
        wrong += jobs[i].wrong;
    }
    CHECK(wrong == 0);
}

/* ---- freed, never matched ---- */

static void freed(int rank)
{
    if (rank != 1)
        return;
    static double a[N * N];
    MPI_Request r;
    MPI_Irecv(a, 1, column, 0, 99, MPI_COMM_WORLD, &r); /* nobody sends tag 99 */
    CHECK(MPI_Request_free(&r) == MPI_SUCCESS && r == MPI_REQUEST_NULL);
}

int main(int argc, char **argv)
{
    int provided, rank, size;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    if (size != 2) {
        fprintf(stderr, "test_requests: run on 2 ranks\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    make_column();
    errors(rank);
    many(rank);
    behind(rank);
    MPI_Barrier(MPI_COMM_WORLD);
    threads(rank, provided);
    freed(rank);
    MPI_Type_free(&column);
    int failed = check_failed, any;
    MPI_Allreduce(&failed, &any, 1, MPI_INT, MPI_SUM, MPI_COMM_WORLD);
    const int rc = rank == 1 ? check_summary("test_requests") : (any ? 1 : 0);
    MPI_Finalize();
    return rc;
}
