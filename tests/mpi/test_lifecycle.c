/* The type cache across a type's life: a freed and re-created handle never meets a stale
 * plan (also when freed behind memcomm's back through PMPI), dups share the analysis and
 * outlive their original, and concurrent threads under MPI_THREAD_MULTIPLE create, pack and
 * free types while sharing one; a fork while other threads pack leaves the child able to
 * pack. Every pack is compared with PMPI_Pack. */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../check.h"
#include "memcomm.h"

static int data[4096];
static pthread_mutex_t check_lock = PTHREAD_MUTEX_INITIALIZER;

/* Pack with memcomm (interposed) and with the MPI; true when bytes and positions agree. */
static bool packs_like_mpi(MPI_Datatype t, int count)
{
    int size;
    MPI_Type_size(t, &size);
    int n = size * count;
    unsigned char *a = malloc((size_t)n + 1), *b = malloc((size_t)n + 1);
    int pa = 0, pb = 0;
    int ra = MPI_Pack(data + 1024, count, t, a, n, &pa, MPI_COMM_WORLD);
    int rb = PMPI_Pack(data + 1024, count, t, b, n, &pb, MPI_COMM_WORLD);
    bool same = ra == MPI_SUCCESS && rb == MPI_SUCCESS && pa == pb && memcmp(a, b, (size_t)n) == 0;
    free(a);
    free(b);
    return same;
}

static bool handled(MPI_Datatype t)
{
    memcomm_type_info info;
    return memcomm_type_info_get(t, &info) == MPI_SUCCESS && info.handled;
}

static void reused_handles(void)
{
    for (int i = 0; i < 300; i++) {
        MPI_Datatype t;
        /* alternate layouts so that a stale plan would pack the wrong bytes */
        if (i % 3 == 0)
            MPI_Type_vector(4 + i % 5, 1 + i % 2, 7, MPI_INT, &t);
        else if (i % 3 == 1)
            MPI_Type_contiguous(3 + i % 7, MPI_DOUBLE, &t);
        else {
            int lens[2] = {1, 2}, displs[2] = {i % 11, 20};
            MPI_Type_indexed(2, lens, displs, MPI_SHORT, &t);
        }
        MPI_Type_commit(&t);
        CHECK(handled(t));
        CHECK(packs_like_mpi(t, 2));
        if (i % 2)
            MPI_Type_free(&t);
        else
            PMPI_Type_free(&t); /* behind memcomm's back: the attribute still cleans up */
    }
}

static void dups_and_recommit(void)
{
    MPI_Datatype t, d;
    MPI_Type_vector(5, 2, 6, MPI_FLOAT, &t);
    MPI_Type_commit(&t);
    MPI_Type_commit(&t); /* committing again is allowed and changes nothing */
    MPI_Type_dup(t, &d);
    CHECK(handled(d));
    MPI_Type_free(&t);
    CHECK(packs_like_mpi(d, 3)); /* the dup outlives the original */
    MPI_Type_free(&d);
    /* a dup of a predefined type */
    MPI_Type_dup(MPI_DOUBLE_INT, &d);
    CHECK(handled(d));
    CHECK(packs_like_mpi(d, 5));
    MPI_Type_free(&d);
}

static MPI_Datatype shared_type;

static void *worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    int bad = 0;
    for (int i = 0; i < 200; i++) {
        MPI_Datatype t;
        MPI_Type_vector(3 + (i + id) % 4, 2, 5 + id, MPI_INT, &t);
        MPI_Type_commit(&t);
        bad += !packs_like_mpi(t, 2);
        bad += !packs_like_mpi(shared_type, 4);
        MPI_Type_free(&t);
    }
    pthread_mutex_lock(&check_lock);
    CHECK(bad == 0);
    pthread_mutex_unlock(&check_lock);
    return NULL;
}

static void threads(int provided)
{
    if (provided < MPI_THREAD_MULTIPLE) {
        printf("test_lifecycle: MPI gives no MPI_THREAD_MULTIPLE; thread test not run\n");
        return;
    }
    int lens[3] = {1, 1, 2};
    MPI_Aint displs[3] = {0, 8, 16};
    MPI_Datatype types[3] = {MPI_INT, MPI_DOUBLE, MPI_SHORT};
    MPI_Type_create_struct(3, lens, displs, types, &shared_type);
    MPI_Type_commit(&shared_type);
    pthread_t tid[4];
    for (int i = 0; i < 4; i++)
        pthread_create(&tid[i], NULL, worker, (void *)(intptr_t)i);
    for (int i = 0; i < 4; i++)
        pthread_join(tid[i], NULL);
    MPI_Type_free(&shared_type);
}

static atomic_bool stop_packing;

static void *pack_until_stopped(void *arg)
{
    (void)arg;
    int bad = 0;
    while (!atomic_load(&stop_packing)) {
        MPI_Datatype t;
        MPI_Type_vector(7, 1, 3, MPI_INT, &t); /* commit, first use and free take the locks */
        MPI_Type_commit(&t);
        bad += !packs_like_mpi(t, 3);
        MPI_Type_free(&t);
    }
    return (void *)(intptr_t)bad;
}

/* Children forked while another thread goes through memcomm's locks: each packs (memcomm's
 * engine, which takes the type cache and pool locks) and exits; none may hang. */
static void forks(int provided)
{
    if (provided < MPI_THREAD_MULTIPLE)
        return;
    MPI_Datatype t;
    MPI_Type_vector(5, 2, 9, MPI_INT, &t);
    MPI_Type_commit(&t);
    CHECK(packs_like_mpi(t, 2)); /* analysed before the forks */
    pthread_t tid;
    pthread_create(&tid, NULL, pack_until_stopped, NULL);
    int hung = 0, failed = 0;
    for (int i = 0; i < 40; i++) {
        pid_t pid = fork();
        if (pid == 0) {
            alarm(10); /* a deadlocked child dies instead of hanging the test */
            char out[256];
            MPI_Count pos = 0;
            _exit(memcomm_pack(data, 2, t, out, sizeof out, &pos) == MPI_SUCCESS ? 0 : 1);
        }
        int status = 0;
        waitpid(pid, &status, 0);
        hung += WIFSIGNALED(status);
        failed += WIFEXITED(status) && WEXITSTATUS(status) != 0;
    }
    atomic_store(&stop_packing, true);
    void *bad;
    pthread_join(tid, &bad);
    CHECK(hung == 0 && failed == 0 && bad == NULL);
    MPI_Type_free(&t);
}

int main(int argc, char **argv)
{
    int provided;
    MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
    for (int i = 0; i < 4096; i++)
        data[i] = i * 7919;
    reused_handles();
    dups_and_recommit();
    threads(provided);
    forks(provided);
    memcomm_stats stats;
    memcomm_stats_get(&stats);
    CHECK(stats.handled_calls > 0 && stats.fallback_calls == 0);
    int rank;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    int failed = check_failed, any_failed;
    MPI_Allreduce(&failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    int code = rank == 0 ? check_summary("test_lifecycle") : 0;
    MPI_Finalize();
    return code || any_failed;
}
