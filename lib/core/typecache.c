#include "typecache.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "constructions.h"
#include "../base/mpiutil.h"
#include "../decode/fingerprint.h"

/* Open addressing, linear probing, backward-shift deletion; an empty slot has value NULL.
 * Lookups take the read lock; commit, dup and free take the write lock only around the
 * table update (analysis and MPI calls happen outside it). */
typedef struct {
    uint64_t key;
    analysis *value;
    bool recognised;     /* value: recognised by fingerprint, not read (constructions.h) */
    uint32_t uses_left;  /* of a recognised value, before the type is read in full */
} slot;

static pthread_rwlock_t lock = PTHREAD_RWLOCK_INITIALIZER;
/* The value of a committed type not analysed yet (its first use will). */
static analysis pending;
static slot *table;
static size_t cap, used;
/* Read without the lock once created (every commit reads it). */
static _Atomic int keyval = MPI_KEYVAL_INVALID;

static uint64_t key_of(MPI_Datatype type) { return handle_key(type); }

static size_t home(uint64_t key)
{
    return (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (cap - 1);
}

static slot *find(uint64_t key)
{
    if (!table)
        return NULL;
    for (size_t i = home(key);; i = (i + 1) & (cap - 1)) {
        if (!table[i].value)
            return NULL;
        if (table[i].key == key)
            return &table[i];
    }
}

static bool grow(void)
{
    size_t old_cap = cap;
    slot *old = table;
    size_t new_cap = cap ? cap * 2 : 64;
    slot *fresh = mc_calloc(new_cap, sizeof *fresh);
    if (!fresh)
        return false;
    table = fresh;
    cap = new_cap;
    for (size_t i = 0; i < old_cap; i++)
        if (old[i].value) {
            size_t j = home(old[i].key);
            while (table[j].value)
                j = (j + 1) & (cap - 1);
            table[j] = old[i];
        }
    free(old);
    return true;
}

/* Insert unless present; takes over the caller's reference on success. */
static bool insert_locked(uint64_t key, analysis *value)
{
    if (find(key))
        return false;
    if ((used + 1) * 2 > cap && !grow())
        return false;
    size_t i = home(key);
    while (table[i].value)
        i = (i + 1) & (cap - 1);
    table[i] = (slot){.key = key, .value = value};
    used++;
    return true;
}

static analysis *remove_locked(uint64_t key)
{
    slot *s = find(key);
    if (!s)
        return NULL;
    analysis *value = s->value;
    size_t hole = (size_t)(s - table);
    s->value = NULL;
    used--;
    for (size_t i = (hole + 1) & (cap - 1); table[i].value; i = (i + 1) & (cap - 1)) {
        size_t h = home(table[i].key);
        /* move back if its home is not in (hole, i] cyclically */
        bool stays = hole < i ? (h > hole && h <= i) : (h > hole || h <= i);
        if (!stays) {
            table[hole] = table[i];
            table[i].value = NULL;
            hole = i;
        }
    }
    return value;
}

static void release_value(analysis *a)
{
    if (a != &pending)
        analysis_release(a);
}

_Atomic uint64_t typecache_freed;

static int on_type_delete(MPI_Datatype type, int kv, void *value, void *extra)
{
    (void)kv;
    (void)value;
    (void)extra;
    pthread_rwlock_wrlock(&lock);
    analysis *a = remove_locked(key_of(type));
    pthread_rwlock_unlock(&lock);
    atomic_fetch_add_explicit(&typecache_freed, 1, memory_order_release);
    release_value(a);
    return MPI_SUCCESS;
}

static bool ensure_keyval(void)
{
    if (atomic_load_explicit(&keyval, memory_order_acquire) != MPI_KEYVAL_INVALID)
        return true;
    pthread_rwlock_wrlock(&lock);
    int created = atomic_load_explicit(&keyval, memory_order_relaxed);
    if (created == MPI_KEYVAL_INVALID &&
        PMPI_Type_create_keyval(MPI_TYPE_NULL_COPY_FN, on_type_delete, &created, NULL) ==
            MPI_SUCCESS)
        atomic_store_explicit(&keyval, created, memory_order_release);
    pthread_rwlock_unlock(&lock);
    return created != MPI_KEYVAL_INVALID;
}

/* Cache `a` (the caller's reference, or `pending`) under `type`; with an attribute that will
 * remove it when the type is freed, unless the type is predefined. (memcomm's own attribute
 * has no copy callback and calls none of the program's.) */
static void publish(MPI_Datatype type, analysis *a, bool with_attribute)
{
    if (with_attribute && !ensure_keyval()) {
        release_value(a);
        return;
    }
    pthread_rwlock_wrlock(&lock);
    bool inserted = insert_locked(key_of(type), a);
    pthread_rwlock_unlock(&lock);
    if (!inserted) { /* already cached (re-commit) or no memory */
        release_value(a);
        return;
    }
    if (with_attribute &&
        PMPI_Type_set_attr(type, atomic_load_explicit(&keyval, memory_order_relaxed), NULL) !=
            MPI_SUCCESS) {
        pthread_rwlock_wrlock(&lock);
        release_value(remove_locked(key_of(type)));
        pthread_rwlock_unlock(&lock);
        atomic_fetch_add_explicit(&typecache_freed, 1, memory_order_release); /* for last_found */
    }
}

/* What the cache holds for `key`: an analysis (retained), `pending`, or NULL. A recognised
 * analysis is returned (`*recognised` set) only to a caller that may use one (`spend`), and
 * counted as one of its uses; otherwise, or once its uses are spent (`*spent`), `pending`:
 * read the type now. */
static analysis *peek(uint64_t key, bool spend, bool *recognised, bool *spent)
{
    pthread_rwlock_rdlock(&lock);
    slot *s = find(key);
    analysis *a = s ? s->value : NULL;
    *recognised = s && s->recognised;
    *spent = *recognised && __atomic_load_n(&s->uses_left, __ATOMIC_RELAXED) == 0;
    if (*recognised && (!spend || *spent)) {
        a = &pending;
        *recognised = false;
    } else if (*recognised) { /* readers race to count: a use may go uncounted */
        __atomic_store_n(&s->uses_left, __atomic_load_n(&s->uses_left, __ATOMIC_RELAXED) - 1,
                         __ATOMIC_RELAXED);
    }
    if (a && a != &pending)
        analysis_retain(a);
    pthread_rwlock_unlock(&lock);
    return a;
}

/* Into `key`'s slot, if it still waits for this (`pending`, or a recognised analysis where
 * `a` was read): `a` (the caller's reference stays the caller's). Returns what the slot holds
 * then, retained, and whether that is recognised. */
static analysis *settle(uint64_t key, analysis *a, bool *recognised)
{
    analysis *dropped = NULL;
    pthread_rwlock_wrlock(&lock);
    slot *s = find(key);
    if (s && (s->value == &pending || (s->recognised && !*recognised))) {
        dropped = s->value == &pending ? NULL : s->value;
        analysis_retain(a); /* the cache's reference */
        s->value = a;
        s->recognised = *recognised;
        s->uses_left = TYPECACHE_RECOGNISED_USES;
    } else if (s) { /* another thread was first, or found the same */
        if (s->value != a) {
            dropped = a;
            a = s->value;
            analysis_retain(a);
        }
        *recognised = s->recognised;
    }
    pthread_rwlock_unlock(&lock);
    analysis_release(dropped);
    return a;
}

/* A committed type's analysis at its first use, or when its recognised one will no longer
 * do: recognised by its fingerprint where the caller takes that (`will_do`, or NULL: read),
 * else read (shared by construction) with the fingerprint already asked. */
static analysis *analyse(MPI_Datatype type, uint64_t key, typecache_will_do will_do,
                         void *context, bool *recognised)
{
    fingerprint print;
    const bool printed = fingerprint_of(type, &print);
    analysis *a = will_do && printed ? constructions_recognise(&print) : NULL;
    if (a && !will_do(a, context)) {
        analysis_release(a);
        a = NULL;
    }
    *recognised = a != NULL;
    if (!a && !(a = constructions_analysis(type, printed ? &print : NULL)))
        return NULL;
    return settle(key, a, recognised);
}

static bool is_predefined(MPI_Datatype type)
{
    static const MPI_Datatype predefined[] = {
        MPI_CHAR, MPI_SHORT, MPI_INT, MPI_LONG, MPI_LONG_LONG, MPI_SIGNED_CHAR,
        MPI_UNSIGNED_CHAR, MPI_UNSIGNED_SHORT, MPI_UNSIGNED, MPI_UNSIGNED_LONG,
        MPI_UNSIGNED_LONG_LONG, MPI_FLOAT, MPI_DOUBLE, MPI_LONG_DOUBLE, MPI_WCHAR, MPI_C_BOOL,
        MPI_INT8_T, MPI_INT16_T, MPI_INT32_T, MPI_INT64_T, MPI_UINT8_T, MPI_UINT16_T,
        MPI_UINT32_T, MPI_UINT64_T, MPI_AINT, MPI_COUNT, MPI_OFFSET, MPI_C_COMPLEX,
        MPI_C_FLOAT_COMPLEX, MPI_C_DOUBLE_COMPLEX, MPI_C_LONG_DOUBLE_COMPLEX, MPI_BYTE,
        MPI_PACKED, MPI_FLOAT_INT, MPI_DOUBLE_INT, MPI_LONG_INT, MPI_2INT, MPI_SHORT_INT,
        MPI_LONG_DOUBLE_INT,
    };
    if (type == MPI_DATATYPE_NULL)
        return false;
    for (size_t i = 0; i < sizeof predefined / sizeof predefined[0]; i++)
        if (predefined[i] == type)
            return true;
    return false;
}

static bool mpi_is_running(void)
{
    int initialized = 0, finalized = 1;
    PMPI_Initialized(&initialized);
    PMPI_Finalized(&finalized);
    return initialized && !finalized;
}

/* The analysis this thread found last, and for which key while how many cached types had
 * been freed: a program moving one type again and again finds it without the table's lock
 * (two atomic operations and a probe of the table, about a quarter of what memcomm adds to
 * a call it leaves to the MPI's own path). Until a cached type is freed, the entry is in the
 * table, which holds a reference; only a program that frees a type while another of its
 * threads passes it to a call (erroneous: the handle is invalid from the free on) could
 * meet an analysis released in between, as it would meet the handle freed in the MPI. */
static _Thread_local __attribute__((tls_model("initial-exec"))) struct {
    uint64_t key, generation;
    analysis *value;
} last_found;

static analysis *acquire(MPI_Datatype type, typecache_will_do will_do, void *context,
                         bool *recognised)
{
    uint64_t key = key_of(type);
    const uint64_t generation = typecache_generation();
    *recognised = false;
    if (last_found.value && last_found.key == key && last_found.generation == generation) {
        analysis_retain(last_found.value);
        return last_found.value;
    }
    bool spent;
    analysis *a = peek(key, will_do != NULL, recognised, &spent);
    if (a == &pending) /* recognised only where will_do took it (it counts calls: once) */
        a = analyse(type, key, spent ? NULL : will_do, context, recognised);
    else if (*recognised && !will_do(a, context)) { /* recognised before, for another call */
        analysis_release(a);
        a = analyse(type, key, NULL, NULL, recognised);
    }
    if (*recognised) /* not for last_found, which answers every caller */
        return a;
    if (a && a != &pending) {
        last_found.key = key;
        last_found.generation = generation;
        last_found.value = a;
        return a;
    }
    if (a || !is_predefined(type) || !mpi_is_running())
        return a;
    a = analysis_create(type);
    if (!a)
        return NULL;
    analysis_retain(a); /* one for the cache, one for the caller */
    publish(type, a, false);
    return a;
}

analysis *typecache_acquire(MPI_Datatype type)
{
    bool recognised;
    return acquire(type, NULL, NULL, &recognised);
}

analysis *typecache_acquire_recognised(MPI_Datatype type, typecache_will_do will_do,
                                       void *context, bool *recognised)
{
    return acquire(type, will_do, context, recognised);
}

void typecache_on_commit(MPI_Datatype type)
{
    if (!is_predefined(type)) /* a re-commit finds it cached and changes nothing */
        publish(type, &pending, true); /* analysed at first use: a type never moved costs nothing */
}

void typecache_on_dup(MPI_Datatype from, MPI_Datatype to)
{
    bool recognised, spent;
    analysis *a = peek(key_of(from), false, &recognised, &spent); /* recognised: `pending` */
    if (!a && !(a = typecache_acquire(from))) /* a predefined type, or one memcomm never saw */
        return;
    /* a dup has the same typemap; share the analysis (or wait for it alike) */
    publish(to, a, true);
}

void typecache_fork_lock(void) { pthread_rwlock_wrlock(&lock); }

void typecache_fork_unlock(bool child)
{
    if (child)
        pthread_rwlock_init(&lock, NULL);
    else
        pthread_rwlock_unlock(&lock);
}

void typecache_shutdown(void)
{
    pthread_rwlock_wrlock(&lock);
    for (size_t i = 0; i < cap; i++)
        release_value(table[i].value);
    free(table);
    table = NULL;
    cap = used = 0;
    atomic_fetch_add_explicit(&typecache_freed, 1, memory_order_release); /* for last_found */
    int created = atomic_exchange(&keyval, MPI_KEYVAL_INVALID);
    if (created != MPI_KEYVAL_INVALID)
        PMPI_Type_free_keyval(&created);
    pthread_rwlock_unlock(&lock);
    constructions_shutdown();
}
