#include "carrypath.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../core/config.h"

enum { SIZE_CLASSES = 48, UNDECIDED = -1 }; /* per direction */

typedef struct {
    int next;    /* trials handed out */
    int recorded;
    int decided; /* UNDECIDED or a carry_path */
    double seconds[CARRYPATH_TRIALS];
} size_class_state;

struct carrypath_table {
    pthread_mutex_t lock;
    size_class_state classes[2 * SIZE_CLASSES]; /* sends, then receives */
};

/* powers of two: messages within a factor of two share a measurement */
static int size_class(int64_t bytes, bool receive)
{
    int c = 0;
    while (bytes > 1 && c < SIZE_CLASSES - 1) {
        bytes >>= 1;
        c++;
    }
    return receive ? SIZE_CLASSES + c : c;
}

static carrypath_table *table_of(analysis *a)
{
    carrypath_table *t = atomic_load_explicit(&a->carry_paths, memory_order_acquire);
    if (t)
        return t;
    carrypath_table *fresh = calloc(1, sizeof *fresh);
    if (!fresh)
        return NULL;
    pthread_mutex_init(&fresh->lock, NULL);
    for (int c = 0; c < 2 * SIZE_CLASSES; c++)
        fresh->classes[c].decided = UNDECIDED;
    carrypath_table *expected = NULL;
    if (!atomic_compare_exchange_strong(&a->carry_paths, &expected, fresh)) {
        pthread_mutex_destroy(&fresh->lock);
        free(fresh);
        return expected;
    }
    return fresh;
}

static carry_path fixed_path(void)
{
    return config_get()->carry_path == CONFIG_SEND_BY_MPI ? CARRY_BY_MPI : CARRY_PACKED;
}

carry_choice carrypath_choose(analysis *a, int64_t bytes, bool receive)
{
    carry_choice choice = {fixed_path(), -1, size_class(bytes, receive)};
    carrypath_table *t;
    if (config_get()->carry_path != CONFIG_SEND_MEASURE || !(t = table_of(a)))
        return choice;
    size_class_state *s = &t->classes[choice.size_class];
    pthread_mutex_lock(&t->lock);
    if (s->decided != UNDECIDED) {
        choice.path = (carry_path)s->decided;
    } else if (s->next < CARRYPATH_TRIALS) {
        choice.trial = s->next++;
        choice.path = choice.trial % 2 ? CARRY_BY_MPI : CARRY_PACKED;
    } /* else: trials out, not all recorded yet: pack */
    pthread_mutex_unlock(&t->lock);
    return choice;
}

void carrypath_record(analysis *a, const carry_choice *c, double seconds)
{
    carrypath_table *t = atomic_load_explicit(&a->carry_paths, memory_order_acquire);
    if (c->trial < 0 || !t)
        return;
    size_class_state *s = &t->classes[c->size_class];
    pthread_mutex_lock(&t->lock);
    s->seconds[c->trial] = seconds;
    if (++s->recorded == CARRYPATH_TRIALS) {
        double packed[CARRYPATH_TRIALS / 2], by_mpi[CARRYPATH_TRIALS / 2];
        for (int i = 0; i < CARRYPATH_TRIALS / 2; i++) {
            packed[i] = s->seconds[2 * i];
            by_mpi[i] = s->seconds[2 * i + 1];
        }
        s->decided = (int)carrypath_decide(packed, by_mpi, CARRYPATH_TRIALS / 2);
    }
    pthread_mutex_unlock(&t->lock);
}

carry_path carrypath_for_nonblocking(analysis *a, int64_t bytes, bool receive)
{
    carrypath_table *t = atomic_load_explicit(&a->carry_paths, memory_order_acquire);
    if (config_get()->carry_path != CONFIG_SEND_MEASURE)
        return fixed_path();
    if (!t)
        return CARRY_PACKED;
    pthread_mutex_lock(&t->lock);
    int decided = t->classes[size_class(bytes, receive)].decided;
    pthread_mutex_unlock(&t->lock);
    return decided == UNDECIDED ? CARRY_PACKED : (carry_path)decided;
}

carry_path carrypath_decide(const double packed[], const double by_mpi[], int n)
{
    double best_packed = packed[0], best_mpi = by_mpi[0];
    for (int i = 1; i < n; i++) {
        best_packed = packed[i] < best_packed ? packed[i] : best_packed;
        best_mpi = by_mpi[i] < best_mpi ? by_mpi[i] : best_mpi;
    }
    return best_mpi < best_packed ? CARRY_BY_MPI : CARRY_PACKED;
}

void carrypath_free(analysis *a)
{
    carrypath_table *t = atomic_load(&a->carry_paths);
    if (t) {
        pthread_mutex_destroy(&t->lock);
        free(t);
    }
}
