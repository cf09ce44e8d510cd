#include "sendpath.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../base/alloc.h"
#include "config.h"

enum { SIZE_CLASSES = 48, UNDECIDED = -1 };

typedef struct {
    int next;    /* trials handed out */
    int recorded;
    int decided; /* UNDECIDED or a send_path */
    double seconds[SENDPATH_TRIALS];
} size_class_state;

struct sendpath_table {
    pthread_mutex_t lock;
    size_class_state classes[SIZE_CLASSES];
};

/* powers of two: messages within a factor of two share a measurement */
static int size_class(int64_t bytes)
{
    int c = 0;
    while (bytes > 1 && c < SIZE_CLASSES - 1) {
        bytes >>= 1;
        c++;
    }
    return c;
}

static sendpath_table *table_of(analysis *a)
{
    sendpath_table *t = atomic_load_explicit(&a->send_paths, memory_order_acquire);
    if (t)
        return t;
    sendpath_table *fresh = mc_calloc(1, sizeof *fresh);
    if (!fresh)
        return NULL;
    pthread_mutex_init(&fresh->lock, NULL);
    for (int c = 0; c < SIZE_CLASSES; c++)
        fresh->classes[c].decided = UNDECIDED;
    sendpath_table *expected = NULL;
    if (!atomic_compare_exchange_strong(&a->send_paths, &expected, fresh)) {
        pthread_mutex_destroy(&fresh->lock);
        free(fresh);
        return expected;
    }
    return fresh;
}

static send_path fixed_path(void)
{
    return config_get()->send_path == CONFIG_SEND_BY_MPI ? SEND_BY_MPI : SEND_PACKED;
}

send_choice sendpath_choose(analysis *a, int64_t bytes)
{
    send_choice choice = {fixed_path(), -1, size_class(bytes)};
    sendpath_table *t;
    if (config_get()->send_path != CONFIG_SEND_MEASURE || !(t = table_of(a)))
        return choice;
    size_class_state *s = &t->classes[choice.size_class];
    pthread_mutex_lock(&t->lock);
    if (s->decided != UNDECIDED) {
        choice.path = (send_path)s->decided;
    } else if (s->next < SENDPATH_TRIALS) {
        choice.trial = s->next++;
        choice.path = choice.trial % 2 ? SEND_BY_MPI : SEND_PACKED;
    } /* else: trials out, not all recorded yet: pack */
    pthread_mutex_unlock(&t->lock);
    return choice;
}

void sendpath_record(analysis *a, const send_choice *c, double seconds)
{
    sendpath_table *t = atomic_load_explicit(&a->send_paths, memory_order_acquire);
    if (c->trial < 0 || !t)
        return;
    size_class_state *s = &t->classes[c->size_class];
    pthread_mutex_lock(&t->lock);
    s->seconds[c->trial] = seconds;
    if (++s->recorded == SENDPATH_TRIALS) {
        double packed[SENDPATH_TRIALS / 2], by_mpi[SENDPATH_TRIALS / 2];
        for (int i = 0; i < SENDPATH_TRIALS / 2; i++) {
            packed[i] = s->seconds[2 * i];
            by_mpi[i] = s->seconds[2 * i + 1];
        }
        s->decided = (int)sendpath_decide(packed, by_mpi, SENDPATH_TRIALS / 2);
    }
    pthread_mutex_unlock(&t->lock);
}

send_path sendpath_for_nonblocking(analysis *a, int64_t bytes)
{
    sendpath_table *t = atomic_load_explicit(&a->send_paths, memory_order_acquire);
    if (config_get()->send_path != CONFIG_SEND_MEASURE)
        return fixed_path();
    if (!t)
        return SEND_PACKED;
    pthread_mutex_lock(&t->lock);
    int decided = t->classes[size_class(bytes)].decided;
    pthread_mutex_unlock(&t->lock);
    return decided == UNDECIDED ? SEND_PACKED : (send_path)decided;
}

send_path sendpath_decide(const double packed[], const double by_mpi[], int n)
{
    double best_packed = packed[0], best_mpi = by_mpi[0];
    for (int i = 1; i < n; i++) {
        best_packed = packed[i] < best_packed ? packed[i] : best_packed;
        best_mpi = by_mpi[i] < best_mpi ? by_mpi[i] : best_mpi;
    }
    return best_mpi < best_packed ? SEND_BY_MPI : SEND_PACKED;
}

void sendpath_free(analysis *a)
{
    sendpath_table *t = atomic_load(&a->send_paths);
    if (t) {
        pthread_mutex_destroy(&t->lock);
        free(t);
    }
}
