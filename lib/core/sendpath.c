#include "sendpath.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

#include "../base/alloc.h"
#include "config.h"

enum { SIZE_CLASSES = 48, UNDECIDED = -1 };

enum { MAX_TRIALS = SENDPATH_MAX_PATHS * SENDPATH_TRIALS_EACH };

typedef struct {
    int next;    /* trials handed out */
    int recorded;
    int paths;   /* alternatives, set by the first choice */
    int decided; /* UNDECIDED or a path */
    double seconds[MAX_TRIALS];
} size_class_state;

/* per use, made at its first choice: most types are measured in one or two uses */
struct sendpath_table {
    pthread_mutex_t lock;
    size_class_state *classes[PATH_USES];
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
    sendpath_table *expected = NULL;
    if (!atomic_compare_exchange_strong(&a->send_paths, &expected, fresh)) {
        pthread_mutex_destroy(&fresh->lock);
        free(fresh);
        return expected;
    }
    return fresh;
}

/* A use's size classes, made undecided at the first call that asks (under the table's lock);
 * NULL when memory is short. */
static size_class_state *classes_of(sendpath_table *t, path_use use)
{
    if (!t->classes[use] &&
        (t->classes[use] = mc_calloc(SIZE_CLASSES, sizeof(size_class_state))))
        for (int c = 0; c < SIZE_CLASSES; c++)
            t->classes[use][c].decided = UNDECIDED;
    return t->classes[use];
}

static int fixed_path(int paths)
{
    return config_get()->send_path == CONFIG_SEND_BY_MPI ? paths - 1 : 0;
}

send_choice sendpath_choose(analysis *a, path_use use, int64_t bytes, int paths)
{
    send_choice choice = {fixed_path(paths), -1, size_class(bytes), use};
    sendpath_table *t;
    if (config_get()->send_path != CONFIG_SEND_MEASURE || !(t = table_of(a)) || paths < 2 ||
        paths > SENDPATH_MAX_PATHS)
        return choice;
    pthread_mutex_lock(&t->lock);
    size_class_state *s = classes_of(t, use);
    if (!s) {
        pthread_mutex_unlock(&t->lock);
        return choice;
    }
    s += choice.size_class;
    if (!s->paths)
        s->paths = paths;
    if (s->decided != UNDECIDED) {
        choice.path = s->decided < paths ? s->decided : 0;
    } else if (s->paths == paths && s->next < paths * SENDPATH_TRIALS_EACH) {
        choice.trial = s->next++;
        choice.path = choice.trial / SENDPATH_TRIALS_EACH;
    } /* else: trials out, not all recorded yet: pack */
    pthread_mutex_unlock(&t->lock);
    return choice;
}

void sendpath_record(analysis *a, const send_choice *c, double seconds)
{
    sendpath_table *t = atomic_load_explicit(&a->send_paths, memory_order_acquire);
    if (c->trial < 0 || !t)
        return;
    pthread_mutex_lock(&t->lock);
    size_class_state *s = t->classes[c->use] + c->size_class; /* made by the choice */
    s->seconds[c->trial] = seconds;
    if (++s->recorded == s->paths * SENDPATH_TRIALS_EACH)
        s->decided = sendpath_decide(s->seconds, s->paths, s->recorded);
    pthread_mutex_unlock(&t->lock);
}

int sendpath_for_nonblocking(analysis *a, path_use use, int64_t bytes, int paths)
{
    sendpath_table *t = atomic_load_explicit(&a->send_paths, memory_order_acquire);
    if (config_get()->send_path != CONFIG_SEND_MEASURE)
        return fixed_path(paths);
    if (!t)
        return SEND_PACKED;
    pthread_mutex_lock(&t->lock);
    const size_class_state *classes = t->classes[use];
    const int decided = classes ? classes[size_class(bytes)].decided : UNDECIDED;
    pthread_mutex_unlock(&t->lock);
    return decided == UNDECIDED || decided >= paths ? SEND_PACKED : decided;
}

int sendpath_decide(const double seconds[], int paths, int trials)
{
    double best[SENDPATH_MAX_PATHS];
    const int each = trials / paths;
    for (int p = 0; p < paths; p++) {
        best[p] = seconds[p * each];
        for (int t = p * each + 1; t < (p + 1) * each; t++)
            best[p] = seconds[t] < best[p] ? seconds[t] : best[p];
    }
    int chosen = 0;
    for (int p = 1; p < paths; p++)
        if (best[p] < best[chosen])
            chosen = p;
    return chosen;
}

void sendpath_free(analysis *a)
{
    sendpath_table *t = atomic_load(&a->send_paths);
    if (t) {
        for (int u = 0; u < PATH_USES; u++)
            free(t->classes[u]);
        pthread_mutex_destroy(&t->lock);
        free(t);
    }
}
