/* fortran: the Fortran bindings' calls that complete, start or free a request, commit or
 * duplicate a type, or finalize, for mpif.h and `use mpi` (every mangling the MPIs export:
 * mpi_wait_, mpi_wait, mpi_wait__, MPI_WAIT) and `use mpi_f08` (mpi_wait_f08_).
 *
 * Why: the MPIs' Fortran bindings reach the C library through PMPI_ calls for some or all
 * of these (Open MPI: all of them; MPICH's mpi_f08: completion, start, free, commit,
 * finalize), so a request memcomm carried would complete where memcomm cannot unpack it.
 * Each call family is defined once over its Fortran arguments and a `binding` (what tells
 * one binding's statuses and conventions from another's); the exported names are thin
 * stubs. While no carried request is outstanding, a completion call goes to the binding's
 * own entry point, unchanged; otherwise its arguments are converted as that binding
 * converts them (MPI_*_f2c / c2f, MPI_F_STATUS(ES)_IGNORE, MPI_F08_STATUS(ES)_IGNORE) and
 * the call is memcomm's C one (entry.h). What the binding itself writes that the standard
 * leaves to it (its LOGICAL .true., the base of the indices it returns, whether it writes
 * handles and statuses back when a call fails) is read off the binding: the first two by
 * calling it once on requests that are complete at once, the third by MPI family. Starts,
 * frees of requests memcomm does not hold, commits, duplications and MPI_Finalize always go
 * to the binding's own entry point, with memcomm's work before or after it. */
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/forklock.h"
#include "../base/fortran_names.h"
#include "../core/sendpath.h"
#include "../p2p/requests.h"
#include "entry.h"

typedef MPI_Fint fint;

/* Open MPI's bindings write handles and statuses back only when the call succeeded; the
 * MPICH family's hand the user's own arrays to the C call, which updates them either way. */
#ifdef OPEN_MPI
enum { WRITES_BACK_ON_ERROR = 0 };
#else
enum { WRITES_BACK_ON_ERROR = 1 };
#endif

/* ---- bindings ---- */

/* The calls that return indices, by the base a binding may give them: Waitany and Testany,
 * Waitsome and Testsome, Request_get_status_any, Request_get_status_some. */
typedef enum { BASE_ANY, BASE_SOME, BASE_PEEK_ANY, BASE_PEEK_SOME, INDEX_BASES } index_base;

typedef struct {
    const char *suffix; /* of the binding's own names: "_" (mpif.h, use mpi), "_f08_" */
    bool f08;
    pthread_once_t probed;
    _Atomic bool probe_done;
    fint true_value;         /* the binding's LOGICAL .true. */
    int base[INDEX_BASES];   /* what it adds to a C index, per index_base */
} binding;

static binding f77 = {.suffix = "_", .probed = PTHREAD_ONCE_INIT, .true_value = 1,
                      .base = {1, 1, 1, 1}};
static binding f08 = {.suffix = "_f08_", .f08 = true, .probed = PTHREAD_ONCE_INIT,
                      .true_value = 1, .base = {1, 1, 1, 1}};

/* MPICH's mpif.h constants are known to C only once its Fortran side has run mpirinitf_,
 * which its own entry points do on first use (MPIR_F_NeedInit); so does memcomm. */
static void fortran_constants_ready(void)
{
#ifndef OPEN_MPI
    static _Atomic bool ready = false;
    if (atomic_load_explicit(&ready, memory_order_acquire))
        return;
    int *need_init = dlsym(RTLD_DEFAULT, "MPIR_F_NeedInit");
    void (*init)(void) = (void (*)(void))dlsym(RTLD_DEFAULT, "mpirinitf_");
    if (need_init && *need_init && init) {
        init();
        *need_init = 0;
    }
    atomic_store_explicit(&ready, true, memory_order_release);
#endif
}

static bool status_ignored(const binding *b, const fint *status)
{
#ifdef OPEN_MPI
    (void)b; /* Open MPI's mpi_f08 MPI_STATUS_IGNORE is the mpif.h one */
    return status == MPI_F_STATUS_IGNORE;
#else
    return b->f08 ? (const void *)status == (const void *)MPI_F08_STATUS_IGNORE
                  : status == MPI_F_STATUS_IGNORE;
#endif
}

static bool statuses_ignored(const binding *b, const fint *statuses)
{
#ifdef OPEN_MPI
    (void)b;
    return statuses == MPI_F_STATUSES_IGNORE;
#else
    return b->f08 ? (const void *)statuses == (const void *)MPI_F08_STATUSES_IGNORE
                  : statuses == MPI_F_STATUSES_IGNORE;
#endif
}

/* MPI_Fint of one Fortran status: MPI_STATUS_SIZE, or MPICH's mpi_f08 MPI_Status, which is
 * laid out as the C one (its binding passes it to the C call as it is). */
static size_t status_ints(const binding *b)
{
#ifndef OPEN_MPI
    if (b->f08)
        return sizeof(MPI_F08_status) / sizeof(fint);
#else
    (void)b;
#endif
    return sizeof(MPI_Status) / sizeof(fint);
}

static void status_to_c(const binding *b, const fint *f, MPI_Status *c)
{
#ifndef OPEN_MPI
    if (b->f08) {
        memcpy(c, f, sizeof *c);
        return;
    }
#else
    (void)b;
#endif
    PMPI_Status_f2c(f, c);
}

static void status_to_f(const binding *b, const MPI_Status *c, fint *f)
{
#ifndef OPEN_MPI
    if (b->f08) {
        memcpy(f, c, sizeof *c);
        return;
    }
#else
    (void)b;
#endif
    PMPI_Status_c2f(c, f);
}

#ifndef OPEN_MPI
_Static_assert(sizeof(MPI_F08_status) == sizeof(MPI_Status), "MPICH's f08 status is C's");
#endif

/* ---- the binding's own entry points ---- */

#define FAMILY_ENUM(E, lower, UPPER, ROUTE) E,
enum family { FORTRAN_FAMILIES(FAMILY_ENUM) FAMILIES };
#define FAMILY_NAME(E, lower, UPPER, ROUTE) #lower,
static const char *const family_names[FAMILIES] = {FORTRAN_FAMILIES(FAMILY_NAME)};

typedef void (*entry_fn)(void);
static _Atomic(entry_fn) own[2][FAMILIES];

/* The binding's own entry point of a family (the next definition after memcomm's), or NULL
 * where no Fortran binding is loaded. */
static entry_fn binding_entry(const binding *b, enum family f)
{
    entry_fn fn = atomic_load_explicit(&own[b->f08][f], memory_order_acquire);
    if (fn)
        return fn;
    char name[64];
    snprintf(name, sizeof name, "%s%s", family_names[f], b->suffix);
    fn = (entry_fn)dlsym(RTLD_NEXT, name);
    if (fn)
        atomic_store_explicit(&own[b->f08][f], fn, memory_order_release);
    return fn;
}

typedef void (*wait_fn)(fint *, fint *, fint *);
typedef void (*test_fn)(fint *, fint *, fint *, fint *);
typedef void (*waitall_fn)(fint *, fint *, fint *, fint *);
typedef void (*testall_fn)(fint *, fint *, fint *, fint *, fint *);
typedef void (*waitany_fn)(fint *, fint *, fint *, fint *, fint *);
typedef void (*testany_fn)(fint *, fint *, fint *, fint *, fint *, fint *);
typedef void (*some_fn)(fint *, fint *, fint *, fint *, fint *, fint *);
typedef void (*handle_fn)(fint *, fint *);
typedef void (*count_handles_fn)(fint *, fint *, fint *);
typedef void (*dup_fn)(fint *, fint *, fint *);
typedef void (*finalize_fn)(fint *);

/* The binding's .true. and index bases, from its own Test, Waitany, Testany, Waitsome,
 * Testsome (and the MPI-4.1 Request_get_status_any and _some) of requests that are complete
 * at once (receives from MPI_PROC_NULL). MPICH 4.0's mpi_f08 Waitany, for one, returns C's
 * 0-based indices. */
typedef struct {
    enum family family;
    index_base base; /* BASE_ANY, BASE_PEEK_ANY: one index; else an outcount and indices */
} indexed_call;

static const indexed_call indexed_calls[] = {
    {WAITANY, BASE_ANY},        {TESTANY, BASE_ANY},
    {WAITSOME, BASE_SOME},      {TESTSOME, BASE_SOME},
#if MEMCOMM_HAS_STATUS_ARRAYS
    {GET_STATUS_ANY, BASE_PEEK_ANY}, {GET_STATUS_SOME, BASE_PEEK_SOME},
#endif
};

static binding *probing;
static void probe_binding(void)
{
    binding *b = probing;
    fint status[16], ierr, flag = 0, index, outcount, indices[1], one = 1;
    fint null = PMPI_Request_c2f(MPI_REQUEST_NULL);
    test_fn test = (test_fn)binding_entry(b, TEST);
    if (test) {
        test(&null, &flag, status, &ierr);
        if (ierr == MPI_SUCCESS && flag != 0)
            b->true_value = flag;
    }
    for (size_t i = 0; i < sizeof indexed_calls / sizeof *indexed_calls; i++) {
        const indexed_call *call = &indexed_calls[i];
        entry_fn fn = binding_entry(b, call->family);
        MPI_Request c;
        if (!fn || PMPI_Irecv(NULL, 0, MPI_BYTE, MPI_PROC_NULL, 0, MPI_COMM_SELF, &c))
            continue;
        fint h = PMPI_Request_c2f(c);
        index = outcount = -1;
        const bool any = call->base == BASE_ANY || call->base == BASE_PEEK_ANY;
        if (call->family == WAITANY)
            ((waitany_fn)fn)(&one, &h, &index, status, &ierr);
        else if (any) /* Testany, Request_get_status_any */
            ((testany_fn)fn)(&one, &h, &index, &flag, status, &ierr);
        else
            ((some_fn)fn)(&one, &h, &outcount, indices, status, &ierr);
        const fint told = any ? index : outcount == 1 ? indices[0] : -1;
        if (ierr == MPI_SUCCESS && (told == 0 || told == 1))
            b->base[call->base] = told;
        c = PMPI_Request_f2c(h);
        if (c != MPI_REQUEST_NULL) /* not completed by the binding: not left behind */
            PMPI_Request_free(&c);
    }
}

static pthread_mutex_t probe_lock = PTHREAD_MUTEX_INITIALIZER;
static void probed(binding *b)
{
    if (atomic_load_explicit(&b->probe_done, memory_order_acquire))
        return;
    pthread_mutex_lock(&probe_lock);
    probing = b;
    pthread_once(&b->probed, probe_binding);
    pthread_mutex_unlock(&probe_lock);
    atomic_store_explicit(&b->probe_done, true, memory_order_release);
}

void fortran_fork_lock(void) { pthread_mutex_lock(&probe_lock); }

void fortran_fork_unlock(bool child) { forklock_release(&probe_lock, child); }

/* ---- converted arguments ---- */

static void set_ierr(fint *ierr, int rc)
{
    if (ierr)
        *ierr = rc;
}

static fint logical(const binding *b, int c) { return c ? b->true_value : 0; }

enum { SMALL = 16 };
typedef struct {
    MPI_Request small_requests[SMALL], *requests;
    MPI_Status small_statuses[SMALL], *statuses;
    void *allocated;
} converted;

/* C requests and statuses for `count` Fortran ones (no statuses where `statuses` is NULL
 * or the binding's MPI_STATUSES_IGNORE); false when memory is short, as it is for the MPI's
 * own binding. */
static bool convert_in(const binding *b, int count, const fint *requests, const fint *statuses,
                       converted *cv)
{
    cv->allocated = NULL;
    cv->requests = cv->small_requests;
    cv->statuses =
        !statuses || statuses_ignored(b, statuses) ? MPI_STATUSES_IGNORE : cv->small_statuses;
    const size_t n = count > 0 ? (size_t)count : 0;
    if (n > SMALL) {
        const bool with_statuses = cv->statuses != MPI_STATUSES_IGNORE;
        const size_t each = sizeof(MPI_Request) + (with_statuses ? sizeof(MPI_Status) : 0);
        char *mem = mc_malloc(n * each);
        if (!mem)
            return false;
        cv->allocated = mem;
        cv->requests = (MPI_Request *)(void *)mem;
        if (with_statuses)
            cv->statuses = (MPI_Status *)(void *)(mem + n * sizeof(MPI_Request));
    }
    for (size_t i = 0; i < n; i++) {
        cv->requests[i] = PMPI_Request_f2c(requests[i]);
        if (cv->statuses != MPI_STATUSES_IGNORE)
            status_to_c(b, statuses + i * status_ints(b), &cv->statuses[i]);
    }
    return true;
}

static void requests_out(int count, const converted *cv, fint *requests)
{
    for (int i = 0; i < count; i++)
        requests[i] = PMPI_Request_c2f(cv->requests[i]);
}

static void statuses_out(const binding *b, int count, const converted *cv, fint *statuses)
{
    if (cv->statuses == MPI_STATUSES_IGNORE)
        return;
    for (int i = 0; i < count; i++)
        status_to_f(b, &cv->statuses[i], statuses + (size_t)i * status_ints(b));
}

static void convert_done(converted *cv) { free(cv->allocated); }

/* Memory short: what the MPI's binding does then (Open MPI: MPI_ERR_NO_MEM through
 * MPI_COMM_WORLD's error handler). */
static void no_memory(fint *ierr)
{
    PMPI_Comm_call_errhandler(MPI_COMM_WORLD, MPI_ERR_NO_MEM);
    set_ierr(ierr, MPI_ERR_NO_MEM);
}

/* One status, unless ignored: the C call's own, read in from the Fortran one (the MPICH
 * family's C call writes into the user's status itself, leaving what it does not set). */
typedef struct {
    MPI_Status c, *p;
} one_status;
static void status_in(const binding *b, fint *status, one_status *s)
{
    s->p = status_ignored(b, status) ? MPI_STATUS_IGNORE : &s->c;
    if (s->p != MPI_STATUS_IGNORE)
        status_to_c(b, status, &s->c);
}
static void status_out(const binding *b, const one_status *s, fint *status)
{
    if (s->p != MPI_STATUS_IGNORE)
        status_to_f(b, &s->c, status);
}

/* ---- the call families ---- */

static void f_wait(binding *b, fint *request, fint *status, fint *ierr)
{
    entry_fn own_call;
    sendpath_epoch_boundary();
    if (!requests_outstanding() && (own_call = binding_entry(b, WAIT))) {
        ((wait_fn)own_call)(request, status, ierr);
        return;
    }
    fortran_constants_ready();
    MPI_Request c = PMPI_Request_f2c(*request);
    one_status s;
    status_in(b, status, &s);
    const int rc = mc_MPI_Wait(&c, s.p);
    if (rc == MPI_SUCCESS || WRITES_BACK_ON_ERROR) {
        *request = PMPI_Request_c2f(c);
        status_out(b, &s, status);
    }
    set_ierr(ierr, rc);
}

static void f_test(binding *b, fint *request, fint *flag, fint *status, fint *ierr)
{
    entry_fn own_call;
    sendpath_epoch_boundary();
    if (!requests_outstanding() && (own_call = binding_entry(b, TEST))) {
        ((test_fn)own_call)(request, flag, status, ierr);
        return;
    }
    fortran_constants_ready();
    probed(b);
    MPI_Request c = PMPI_Request_f2c(*request);
    one_status s;
    status_in(b, status, &s);
    int done = 0;
    const int rc = mc_MPI_Test(&c, &done, s.p);
    if (rc == MPI_SUCCESS || WRITES_BACK_ON_ERROR) {
        *request = PMPI_Request_c2f(c);
        *flag = logical(b, done);
        status_out(b, &s, status);
    }
    set_ierr(ierr, rc);
}

/* The three forms of each array completion call: Wait* (blocking), Test* and, where the MPI
 * has them (MPI 4.1), Request_get_status_* (peeking: the requests stay as they are). */
typedef enum { WAITING, TESTING, PEEKING } completion_form;

#if !MEMCOMM_HAS_STATUS_ARRAYS /* no peeking forms: never asked for */
#define GET_STATUS_ANY FAMILIES
#define GET_STATUS_ALL FAMILIES
#define GET_STATUS_SOME FAMILIES
#endif

static enum family family_of(completion_form form, enum family waiting, enum family testing,
                             enum family peeking)
{
    return form == WAITING ? waiting : form == TESTING ? testing : peeking;
}

/* The binding's own entry point of `f` while no carried request is outstanding; else NULL,
 * and the call is memcomm's (the binding's constants and conventions read first). */
static entry_fn own_while_idle(binding *b, completion_form form, enum family f)
{
    if (form != PEEKING)
        sendpath_epoch_boundary();
    entry_fn own_call;
    if (!requests_outstanding() && f < FAMILIES && (own_call = binding_entry(b, f)))
        return own_call;
    fortran_constants_ready();
    probed(b);
    return NULL;
}

static void f_all(binding *b, completion_form form, fint *count, fint *requests, fint *flag,
                  fint *statuses, fint *ierr)
{
    entry_fn own_call =
        own_while_idle(b, form, family_of(form, WAITALL, TESTALL, GET_STATUS_ALL));
    if (own_call) {
        if (form == WAITING)
            ((waitall_fn)own_call)(count, requests, statuses, ierr);
        else
            ((testall_fn)own_call)(count, requests, flag, statuses, ierr);
        return;
    }
    converted cv;
    if (!convert_in(b, *count, requests, statuses, &cv)) {
        no_memory(ierr);
        return;
    }
    int done = 0, rc = MPI_ERR_INTERN;
    if (form == WAITING)
        rc = mc_MPI_Waitall(*count, cv.requests, cv.statuses);
    else if (form == TESTING)
        rc = mc_MPI_Testall(*count, cv.requests, &done, cv.statuses);
#if MEMCOMM_HAS_STATUS_ARRAYS
    else
        rc = mc_MPI_Request_get_status_all(*count, cv.requests, &done, cv.statuses);
#endif
    if (rc == MPI_SUCCESS || WRITES_BACK_ON_ERROR) {
        requests_out(*count, &cv, requests);
        statuses_out(b, *count, &cv, statuses);
        if (form != WAITING)
            *flag = logical(b, done);
    }
    convert_done(&cv);
    set_ierr(ierr, rc);
}

static void f_any(binding *b, completion_form form, fint *count, fint *requests, fint *index,
                  fint *flag, fint *status, fint *ierr)
{
    entry_fn own_call =
        own_while_idle(b, form, family_of(form, WAITANY, TESTANY, GET_STATUS_ANY));
    if (own_call) {
        if (form == WAITING)
            ((waitany_fn)own_call)(count, requests, index, status, ierr);
        else
            ((testany_fn)own_call)(count, requests, index, flag, status, ierr);
        return;
    }
    converted cv;
    if (!convert_in(b, *count, requests, NULL, &cv)) {
        no_memory(ierr);
        return;
    }
    one_status s;
    status_in(b, status, &s);
    int c_index = MPI_UNDEFINED, done = 0, rc = MPI_ERR_INTERN;
    if (form == WAITING)
        rc = mc_MPI_Waitany(*count, cv.requests, &c_index, s.p);
    else if (form == TESTING)
        rc = mc_MPI_Testany(*count, cv.requests, &c_index, &done, s.p);
#if MEMCOMM_HAS_STATUS_ARRAYS
    else
        rc = mc_MPI_Request_get_status_any(*count, cv.requests, &c_index, &done, s.p);
#endif
    if (rc == MPI_SUCCESS || WRITES_BACK_ON_ERROR) {
        requests_out(*count, &cv, requests);
        const int base = b->base[form == PEEKING ? BASE_PEEK_ANY : BASE_ANY];
        *index = c_index == MPI_UNDEFINED ? MPI_UNDEFINED : c_index + base;
        if (form != WAITING)
            *flag = logical(b, done);
        status_out(b, &s, status);
    }
    convert_done(&cv);
    set_ierr(ierr, rc);
}

static void f_some(binding *b, completion_form form, fint *incount, fint *requests,
                   fint *outcount, fint *indices, fint *statuses, fint *ierr)
{
    entry_fn own_call =
        own_while_idle(b, form, family_of(form, WAITSOME, TESTSOME, GET_STATUS_SOME));
    if (own_call) {
        ((some_fn)own_call)(incount, requests, outcount, indices, statuses, ierr);
        return;
    }
    converted cv;
    if (!convert_in(b, *incount, requests, statuses, &cv)) {
        no_memory(ierr);
        return;
    }
    int c_out = 0, rc = MPI_ERR_INTERN;
    int *c_indices = (int *)indices; /* MPI_Fint is int in every MPI memcomm builds on */
    if (form == WAITING)
        rc = mc_MPI_Waitsome(*incount, cv.requests, &c_out, c_indices, cv.statuses);
    else if (form == TESTING)
        rc = mc_MPI_Testsome(*incount, cv.requests, &c_out, c_indices, cv.statuses);
#if MEMCOMM_HAS_STATUS_ARRAYS
    else
        rc = mc_MPI_Request_get_status_some(*incount, cv.requests, &c_out, c_indices,
                                            cv.statuses);
#endif
    if (rc == MPI_SUCCESS || WRITES_BACK_ON_ERROR) {
        requests_out(*incount, &cv, requests);
        *outcount = c_out;
        if (c_out != MPI_UNDEFINED) {
            const int base = b->base[form == PEEKING ? BASE_PEEK_SOME : BASE_SOME];
            for (int i = 0; i < c_out; i++)
                indices[i] = c_indices[i] + base;
            statuses_out(b, c_out, &cv, statuses);
        }
    }
    convert_done(&cv);
    set_ierr(ierr, rc);
}
_Static_assert(sizeof(MPI_Fint) == sizeof(int), "Fortran INTEGER indices are C ints");

static void f_get_status(binding *b, fint *request, fint *flag, fint *status, fint *ierr)
{
    entry_fn own_call;
    if (!requests_outstanding() && (own_call = binding_entry(b, GET_STATUS))) {
        ((test_fn)own_call)(request, flag, status, ierr);
        return;
    }
    fortran_constants_ready();
    probed(b);
    one_status s;
    status_in(b, status, &s);
    int done = 0;
    const int rc = mc_MPI_Request_get_status(PMPI_Request_f2c(*request), &done, s.p);
    if (rc == MPI_SUCCESS || WRITES_BACK_ON_ERROR) {
        *flag = logical(b, done);
        status_out(b, &s, status);
    }
    set_ierr(ierr, rc);
}

/* The rest go to the binding's own entry point, with memcomm's work before or after it;
 * where no binding defines one (memcomm's name is then the only one), to the C call. */

static void f_request_free(binding *b, fint *request, fint *ierr)
{
    MPI_Request c = PMPI_Request_f2c(*request);
    int rc;
    if (requests_outstanding() && c != MPI_REQUEST_NULL && requests_free(&c, &rc)) {
        *request = PMPI_Request_c2f(c);
        set_ierr(ierr, rc);
        return;
    }
    entry_fn own_call = binding_entry(b, REQUEST_FREE);
    if (own_call) {
        ((handle_fn)own_call)(request, ierr);
        return;
    }
    rc = PMPI_Request_free(&c);
    *request = PMPI_Request_c2f(c);
    set_ierr(ierr, rc);
}

static void f_startall(binding *b, fint *count, fint *requests, fint *ierr, bool one)
{
    entry_fn own_call = binding_entry(b, one ? START : STARTALL);
    if (own_call && !requests_outstanding()) {
        if (one)
            ((handle_fn)own_call)(requests, ierr);
        else
            ((count_handles_fn)own_call)(count, requests, ierr);
        return;
    }
    converted cv;
    if (!convert_in(b, *count, requests, NULL, &cv)) {
        no_memory(ierr);
        return;
    }
    starting(*count, cv.requests);
    if (!own_call) {
        set_ierr(ierr, PMPI_Startall(*count, cv.requests));
        requests_out(*count, &cv, requests);
    } else if (one) {
        ((handle_fn)own_call)(requests, ierr);
    } else {
        ((count_handles_fn)own_call)(count, requests, ierr);
    }
    convert_done(&cv);
}

static void f_type_commit(binding *b, fint *type, fint *ierr)
{
    fint rc;
    entry_fn own_call = binding_entry(b, TYPE_COMMIT);
    if (own_call) {
        ((handle_fn)own_call)(type, &rc);
    } else {
        MPI_Datatype c = PMPI_Type_f2c(*type);
        rc = PMPI_Type_commit(&c);
        *type = PMPI_Type_c2f(c);
    }
    if (rc == MPI_SUCCESS)
        type_committed(PMPI_Type_f2c(*type));
    set_ierr(ierr, rc);
}

static void f_type_dup(binding *b, fint *oldtype, fint *newtype, fint *ierr)
{
    fint rc;
    entry_fn own_call = binding_entry(b, TYPE_DUP);
    if (own_call) {
        ((dup_fn)own_call)(oldtype, newtype, &rc);
    } else {
        MPI_Datatype c;
        rc = PMPI_Type_dup(PMPI_Type_f2c(*oldtype), &c);
        if (rc == MPI_SUCCESS)
            *newtype = PMPI_Type_c2f(c);
    }
    if (rc == MPI_SUCCESS)
        type_duplicated(PMPI_Type_f2c(*oldtype), PMPI_Type_f2c(*newtype));
    set_ierr(ierr, rc);
}

static void f_finalize(binding *b, fint *ierr)
{
    finalizing();
    entry_fn own_call = binding_entry(b, FINALIZE);
    if (own_call)
        ((finalize_fn)own_call)(ierr);
    else
        set_ierr(ierr, PMPI_Finalize());
}

/* ---- the exported names: mpif.h / use mpi in four manglings, mpi_f08 in one ---- */

#define FORTRAN_NAMES(lower, UPPER, PARAMS, CALL)                                              \
    EXPORT void lower##_ PARAMS { CALL(&f77); }                                                \
    EXPORT void lower PARAMS __attribute__((alias(#lower "_")));                               \
    EXPORT void lower##__ PARAMS __attribute__((alias(#lower "_")));                           \
    EXPORT void UPPER PARAMS __attribute__((alias(#lower "_")));                               \
    EXPORT void lower##_f08_ PARAMS { CALL(&f08); }

#define WAIT_CALL(b) f_wait(b, request, status, ierr)
FORTRAN_NAMES(mpi_wait, MPI_WAIT, (fint *request, fint *status, fint *ierr), WAIT_CALL)
#define TEST_CALL(b) f_test(b, request, flag, status, ierr)
FORTRAN_NAMES(mpi_test, MPI_TEST, (fint *request, fint *flag, fint *status, fint *ierr),
              TEST_CALL)
#define WAITALL_CALL(b) f_all(b, WAITING, count, requests, NULL, statuses, ierr)
FORTRAN_NAMES(mpi_waitall, MPI_WAITALL,
              (fint *count, fint *requests, fint *statuses, fint *ierr), WAITALL_CALL)
#define TESTALL_CALL(b) f_all(b, TESTING, count, requests, flag, statuses, ierr)
FORTRAN_NAMES(mpi_testall, MPI_TESTALL,
              (fint *count, fint *requests, fint *flag, fint *statuses, fint *ierr),
              TESTALL_CALL)
#define WAITANY_CALL(b) f_any(b, WAITING, count, requests, index, NULL, status, ierr)
FORTRAN_NAMES(mpi_waitany, MPI_WAITANY,
              (fint *count, fint *requests, fint *index, fint *status, fint *ierr),
              WAITANY_CALL)
#define TESTANY_CALL(b) f_any(b, TESTING, count, requests, index, flag, status, ierr)
FORTRAN_NAMES(mpi_testany, MPI_TESTANY,
              (fint *count, fint *requests, fint *index, fint *flag, fint *status, fint *ierr),
              TESTANY_CALL)
#define WAITSOME_CALL(b) f_some(b, WAITING, incount, requests, outcount, indices, statuses, ierr)
FORTRAN_NAMES(mpi_waitsome, MPI_WAITSOME,
              (fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses,
               fint *ierr),
              WAITSOME_CALL)
#define TESTSOME_CALL(b) f_some(b, TESTING, incount, requests, outcount, indices, statuses, ierr)
FORTRAN_NAMES(mpi_testsome, MPI_TESTSOME,
              (fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses,
               fint *ierr),
              TESTSOME_CALL)
#define GET_STATUS_CALL(b) f_get_status(b, request, flag, status, ierr)
FORTRAN_NAMES(mpi_request_get_status, MPI_REQUEST_GET_STATUS,
              (fint *request, fint *flag, fint *status, fint *ierr), GET_STATUS_CALL)
#if MEMCOMM_HAS_STATUS_ARRAYS
#define PEEK_ANY_CALL(b) f_any(b, PEEKING, count, requests, index, flag, status, ierr)
FORTRAN_NAMES(mpi_request_get_status_any, MPI_REQUEST_GET_STATUS_ANY,
              (fint *count, fint *requests, fint *index, fint *flag, fint *status, fint *ierr),
              PEEK_ANY_CALL)
#define PEEK_ALL_CALL(b) f_all(b, PEEKING, count, requests, flag, statuses, ierr)
FORTRAN_NAMES(mpi_request_get_status_all, MPI_REQUEST_GET_STATUS_ALL,
              (fint *count, fint *requests, fint *flag, fint *statuses, fint *ierr),
              PEEK_ALL_CALL)
#define PEEK_SOME_CALL(b) f_some(b, PEEKING, incount, requests, outcount, indices, statuses, ierr)
FORTRAN_NAMES(mpi_request_get_status_some, MPI_REQUEST_GET_STATUS_SOME,
              (fint *incount, fint *requests, fint *outcount, fint *indices, fint *statuses,
               fint *ierr),
              PEEK_SOME_CALL)
#endif
#define REQUEST_FREE_CALL(b) f_request_free(b, request, ierr)
FORTRAN_NAMES(mpi_request_free, MPI_REQUEST_FREE, (fint *request, fint *ierr),
              REQUEST_FREE_CALL)
#define START_CALL(b) f_startall(b, &(fint){1}, request, ierr, true)
FORTRAN_NAMES(mpi_start, MPI_START, (fint *request, fint *ierr), START_CALL)
#define STARTALL_CALL(b) f_startall(b, count, requests, ierr, false)
FORTRAN_NAMES(mpi_startall, MPI_STARTALL, (fint *count, fint *requests, fint *ierr),
              STARTALL_CALL)
#define TYPE_COMMIT_CALL(b) f_type_commit(b, type, ierr)
FORTRAN_NAMES(mpi_type_commit, MPI_TYPE_COMMIT, (fint *type, fint *ierr), TYPE_COMMIT_CALL)
#define TYPE_DUP_CALL(b) f_type_dup(b, oldtype, newtype, ierr)
FORTRAN_NAMES(mpi_type_dup, MPI_TYPE_DUP, (fint *oldtype, fint *newtype, fint *ierr),
              TYPE_DUP_CALL)
#define FINALIZE_CALL(b) f_finalize(b, ierr)
FORTRAN_NAMES(mpi_finalize, MPI_FINALIZE, (fint *ierr), FINALIZE_CALL)

/* ---- Open MPI: sends, receives, packs ----
 *
 * Open MPI's Fortran bindings make these calls through PMPI_ as well, so memcomm defines
 * them too, converting as Open MPI's binding does (ompi/mpi/fortran/mpif-h): handles by
 * MPI_*_f2c, the Fortran MPI_BOTTOM (the common block mpi_fortran_bottom) to C's, and
 * handles and statuses written back only when the call succeeded. The MPICH family's
 * bindings call the C MPI_ functions, which memcomm carries already. */
#ifdef OPEN_MPI

/* The binding's MPI_BOTTOM and MPI_IN_PLACE (common blocks), which OMPI_F2C_BOTTOM and
 * OMPI_F2C_IN_PLACE turn into C's before the C call. */
static void *sentinel(int which)
{
    static void *_Atomic found[2];
    static _Atomic bool looked;
    if (!atomic_load_explicit(&looked, memory_order_acquire)) {
        atomic_store(&found[0], dlsym(RTLD_DEFAULT, "mpi_fortran_bottom_"));
        atomic_store(&found[1], dlsym(RTLD_DEFAULT, "mpi_fortran_in_place_"));
        atomic_store_explicit(&looked, true, memory_order_release);
    }
    return atomic_load_explicit(&found[which], memory_order_relaxed);
}

static void *c_buffer(void *buf)
{
    void *bottom = sentinel(0);
    return bottom && buf == bottom ? MPI_BOTTOM : buf;
}

/* A buffer that may be MPI_IN_PLACE (the send side of most collectives, the receive side of
 * Scatter and Scatterv at the root). */
static void *c_buffer_or_in_place(void *buf)
{
    void *in_place = sentinel(1);
    return in_place && buf == in_place ? MPI_IN_PLACE : c_buffer(buf);
}

typedef int (*c_send_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm);
typedef int (*c_start_fn)(const void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static void f_send(c_send_fn send, void *buf, fint *count, fint *type, fint *dest, fint *tag,
                   fint *comm, fint *ierr)
{
    set_ierr(ierr, send(c_buffer(buf), *count, PMPI_Type_f2c(*type), *dest, *tag,
                        PMPI_Comm_f2c(*comm)));
}

static void f_recv(void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
                   fint *status, fint *ierr)
{
    one_status s;
    status_in(&f77, status, &s);
    const int rc = mc_MPI_Recv(c_buffer(buf), *count, PMPI_Type_f2c(*type), *source, *tag,
                               PMPI_Comm_f2c(*comm), s.p);
    if (rc == MPI_SUCCESS)
        status_out(&f77, &s, status);
    set_ierr(ierr, rc);
}

static void f_start_message(c_start_fn start, void *buf, fint *count, fint *type, fint *peer,
                            fint *tag, fint *comm, fint *request, fint *ierr)
{
    MPI_Request c = MPI_REQUEST_NULL;
    const int rc = start(c_buffer(buf), *count, PMPI_Type_f2c(*type), *peer, *tag,
                         PMPI_Comm_f2c(*comm), &c);
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(c);
    set_ierr(ierr, rc);
}

/* Receives' C forms take a buffer that is not const; the table holds both kinds. */
static int irecv(const void *buf, int count, MPI_Datatype type, int source, int tag,
                 MPI_Comm comm, MPI_Request *request)
{
    return mc_MPI_Irecv((void *)buf, count, type, source, tag, comm, request);
}
static int recv_init(const void *buf, int count, MPI_Datatype type, int source, int tag,
                     MPI_Comm comm, MPI_Request *request)
{
    return mc_MPI_Recv_init((void *)buf, count, type, source, tag, comm, request);
}

static void f_sendrecv(void *sendbuf, fint *sendcount, fint *sendtype, fint *dest,
                       fint *sendtag, void *recvbuf, fint *recvcount, fint *recvtype,
                       fint *source, fint *recvtag, fint *comm, fint *status, fint *ierr)
{
    one_status s;
    status_in(&f77, status, &s);
    const int rc = mc_MPI_Sendrecv(c_buffer(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
                                   *dest, *sendtag, c_buffer(recvbuf), *recvcount,
                                   PMPI_Type_f2c(*recvtype), *source, *recvtag,
                                   PMPI_Comm_f2c(*comm), s.p);
    if (rc == MPI_SUCCESS)
        status_out(&f77, &s, status);
    set_ierr(ierr, rc);
}

static void f_sendrecv_replace(void *buf, fint *count, fint *type, fint *dest, fint *sendtag,
                               fint *source, fint *recvtag, fint *comm, fint *status,
                               fint *ierr)
{
    one_status s;
    status_in(&f77, status, &s);
    const int rc = mc_MPI_Sendrecv_replace(c_buffer(buf), *count, PMPI_Type_f2c(*type), *dest,
                                           *sendtag, *source, *recvtag, PMPI_Comm_f2c(*comm),
                                           s.p);
    if (rc == MPI_SUCCESS)
        status_out(&f77, &s, status);
    set_ierr(ierr, rc);
}

static void f_mrecv(void *buf, fint *count, fint *type, fint *message, fint *status, fint *ierr)
{
    one_status s;
    status_in(&f77, status, &s);
    MPI_Message c = PMPI_Message_f2c(*message);
    const int rc = mc_MPI_Mrecv(c_buffer(buf), *count, PMPI_Type_f2c(*type), &c, s.p);
    if (rc == MPI_SUCCESS) {
        *message = PMPI_Message_c2f(c);
        status_out(&f77, &s, status);
    }
    set_ierr(ierr, rc);
}

static void f_imrecv(void *buf, fint *count, fint *type, fint *message, fint *request,
                     fint *ierr)
{
    MPI_Message c = PMPI_Message_f2c(*message);
    MPI_Request r = MPI_REQUEST_NULL;
    const int rc = mc_MPI_Imrecv(c_buffer(buf), *count, PMPI_Type_f2c(*type), &c, &r);
    if (rc == MPI_SUCCESS) {
        *message = PMPI_Message_c2f(c);
        *request = PMPI_Request_c2f(r);
    }
    set_ierr(ierr, rc);
}

static void f_pack(void *inbuf, fint *incount, fint *type, void *outbuf, fint *outsize,
                   fint *position, fint *comm, fint *ierr)
{
    int pos = *position;
    const int rc = mc_MPI_Pack(c_buffer(inbuf), *incount, PMPI_Type_f2c(*type), outbuf,
                               *outsize, &pos, PMPI_Comm_f2c(*comm));
    if (rc == MPI_SUCCESS)
        *position = pos;
    set_ierr(ierr, rc);
}

static void f_unpack(void *inbuf, fint *insize, fint *position, void *outbuf, fint *outcount,
                     fint *type, fint *comm, fint *ierr)
{
    int pos = *position;
    const int rc = mc_MPI_Unpack(inbuf, *insize, &pos, c_buffer(outbuf), *outcount,
                                 PMPI_Type_f2c(*type), PMPI_Comm_f2c(*comm));
    if (rc == MPI_SUCCESS)
        *position = pos;
    set_ierr(ierr, rc);
}

/* Open MPI's mpi_f08 takes the same arguments for these (its buffers ignore type, kind and
 * rank, its handles are the mpif.h ones, its statuses mpif.h's), ierror optional. */
#define OMPI_NAMES(lower, UPPER, PARAMS, CALL)                                                 \
    EXPORT void lower##_ PARAMS { CALL; }                                                      \
    EXPORT void lower PARAMS __attribute__((alias(#lower "_")));                               \
    EXPORT void lower##__ PARAMS __attribute__((alias(#lower "_")));                           \
    EXPORT void UPPER PARAMS __attribute__((alias(#lower "_")));                               \
    EXPORT void lower##_f08_ PARAMS __attribute__((alias(#lower "_")));

#define SEND_PARAMS                                                                            \
    (void *buf, fint *count, fint *type, fint *dest, fint *tag, fint *comm, fint *ierr)
#define SEND_NAMES(lower, UPPER, C)                                                            \
    OMPI_NAMES(lower, UPPER, SEND_PARAMS, f_send(C, buf, count, type, dest, tag, comm, ierr))
SEND_NAMES(mpi_send, MPI_SEND, mc_MPI_Send)
SEND_NAMES(mpi_ssend, MPI_SSEND, mc_MPI_Ssend)
SEND_NAMES(mpi_rsend, MPI_RSEND, mc_MPI_Rsend)
SEND_NAMES(mpi_bsend, MPI_BSEND, mc_MPI_Bsend)

#define START_PARAMS                                                                           \
    (void *buf, fint *count, fint *type, fint *peer, fint *tag, fint *comm, fint *request,     \
     fint *ierr)
#define START_NAMES(lower, UPPER, C)                                                           \
    OMPI_NAMES(lower, UPPER, START_PARAMS,                                                     \
               f_start_message(C, buf, count, type, peer, tag, comm, request, ierr))
START_NAMES(mpi_isend, MPI_ISEND, mc_MPI_Isend)
START_NAMES(mpi_issend, MPI_ISSEND, mc_MPI_Issend)
START_NAMES(mpi_irsend, MPI_IRSEND, mc_MPI_Irsend)
START_NAMES(mpi_ibsend, MPI_IBSEND, mc_MPI_Ibsend)
START_NAMES(mpi_send_init, MPI_SEND_INIT, mc_MPI_Send_init)
START_NAMES(mpi_ssend_init, MPI_SSEND_INIT, mc_MPI_Ssend_init)
START_NAMES(mpi_rsend_init, MPI_RSEND_INIT, mc_MPI_Rsend_init)
START_NAMES(mpi_bsend_init, MPI_BSEND_INIT, mc_MPI_Bsend_init)
START_NAMES(mpi_irecv, MPI_IRECV, irecv)
START_NAMES(mpi_recv_init, MPI_RECV_INIT, recv_init)

OMPI_NAMES(mpi_recv, MPI_RECV,
           (void *buf, fint *count, fint *type, fint *source, fint *tag, fint *comm,
            fint *status, fint *ierr),
           f_recv(buf, count, type, source, tag, comm, status, ierr))
OMPI_NAMES(mpi_sendrecv, MPI_SENDRECV,
           (void *sendbuf, fint *sendcount, fint *sendtype, fint *dest, fint *sendtag,
            void *recvbuf, fint *recvcount, fint *recvtype, fint *source, fint *recvtag,
            fint *comm, fint *status, fint *ierr),
           f_sendrecv(sendbuf, sendcount, sendtype, dest, sendtag, recvbuf, recvcount,
                      recvtype, source, recvtag, comm, status, ierr))
OMPI_NAMES(mpi_sendrecv_replace, MPI_SENDRECV_REPLACE,
           (void *buf, fint *count, fint *type, fint *dest, fint *sendtag, fint *source,
            fint *recvtag, fint *comm, fint *status, fint *ierr),
           f_sendrecv_replace(buf, count, type, dest, sendtag, source, recvtag, comm, status,
                              ierr))
OMPI_NAMES(mpi_mrecv, MPI_MRECV,
           (void *buf, fint *count, fint *type, fint *message, fint *status, fint *ierr),
           f_mrecv(buf, count, type, message, status, ierr))
OMPI_NAMES(mpi_imrecv, MPI_IMRECV,
           (void *buf, fint *count, fint *type, fint *message, fint *request, fint *ierr),
           f_imrecv(buf, count, type, message, request, ierr))
OMPI_NAMES(mpi_pack, MPI_PACK,
           (void *inbuf, fint *incount, fint *type, void *outbuf, fint *outsize,
            fint *position, fint *comm, fint *ierr),
           f_pack(inbuf, incount, type, outbuf, outsize, position, comm, ierr))
OMPI_NAMES(mpi_unpack, MPI_UNPACK,
           (void *inbuf, fint *insize, fint *position, void *outbuf, fint *outcount,
            fint *type, fint *comm, fint *ierr),
           f_unpack(inbuf, insize, position, outbuf, outcount, type, comm, ierr))


/* ---- Open MPI: collectives, blocking and non-blocking ----
 * Each Fortran entry point converts as Open MPI's binding does (MPI_IN_PLACE where that
 * binding converts it) and calls memcomm's C call; a non-blocking one hands its request
 * back when the call succeeded. Counts and displacements are MPI_Fint (int) arrays, and
 * the neighbourhood Alltoallw's displacements MPI_Aint ones, as in C. */

/* `c` by address: it is read after the call that sets it, whatever the order in which a
 * call's arguments are evaluated. */
static void started_request(int rc, const MPI_Request *c, fint *request, fint *ierr)
{
    if (rc == MPI_SUCCESS)
        *request = PMPI_Request_c2f(*c);
    set_ierr(ierr, rc);
}

#define UNPAREN(...) __VA_ARGS__
/* The blocking and the non-blocking form of a collective: PARAMS, the Fortran parameters
 * before the communicator; ARGS, the C arguments made of them. */
#define COLLECTIVE(lower, UPPER, ilower, IUPPER, NAME, INAME, PARAMS, ARGS)                    \
    OMPI_NAMES(lower, UPPER, (UNPAREN PARAMS, fint *comm, fint *ierr),                         \
               set_ierr(ierr, mc_MPI_##NAME(UNPAREN ARGS, PMPI_Comm_f2c(*comm))))              \
    OMPI_NAMES(ilower, IUPPER, (UNPAREN PARAMS, fint *comm, fint *request, fint *ierr),        \
               MPI_Request c = MPI_REQUEST_NULL;                                               \
               started_request(mc_MPI_##INAME(UNPAREN ARGS, PMPI_Comm_f2c(*comm), &c), &c,  \
                                  request, ierr))

#define ONE_EACH_PARAMS                                                                        \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount,           \
     fint *recvtype)
#define ONE_EACH_ARGS(SEND)                                                                    \
    (SEND(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), c_buffer(recvbuf), *recvcount,       \
     PMPI_Type_f2c(*recvtype))
COLLECTIVE(mpi_alltoall, MPI_ALLTOALL, mpi_ialltoall, MPI_IALLTOALL, Alltoall, Ialltoall,
           ONE_EACH_PARAMS, ONE_EACH_ARGS(c_buffer_or_in_place))
COLLECTIVE(mpi_allgather, MPI_ALLGATHER, mpi_iallgather, MPI_IALLGATHER, Allgather, Iallgather,
           ONE_EACH_PARAMS, ONE_EACH_ARGS(c_buffer_or_in_place))
COLLECTIVE(mpi_neighbor_alltoall, MPI_NEIGHBOR_ALLTOALL, mpi_ineighbor_alltoall,
           MPI_INEIGHBOR_ALLTOALL, Neighbor_alltoall, Ineighbor_alltoall, ONE_EACH_PARAMS,
           ONE_EACH_ARGS(c_buffer))
COLLECTIVE(mpi_neighbor_allgather, MPI_NEIGHBOR_ALLGATHER, mpi_ineighbor_allgather,
           MPI_INEIGHBOR_ALLGATHER, Neighbor_allgather, Ineighbor_allgather, ONE_EACH_PARAMS,
           ONE_EACH_ARGS(c_buffer))

#define ROOTED_PARAMS                                                                          \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcount,           \
     fint *recvtype, fint *root)
#define ROOTED_ARGS(SEND, RECV)                                                                \
    (SEND(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), RECV(recvbuf), *recvcount,           \
     PMPI_Type_f2c(*recvtype), *root)
COLLECTIVE(mpi_gather, MPI_GATHER, mpi_igather, MPI_IGATHER, Gather, Igather, ROOTED_PARAMS,
           ROOTED_ARGS(c_buffer_or_in_place, c_buffer))
COLLECTIVE(mpi_scatter, MPI_SCATTER, mpi_iscatter, MPI_ISCATTER, Scatter, Iscatter,
           ROOTED_PARAMS, ROOTED_ARGS(c_buffer, c_buffer_or_in_place))

#define V_EACH_PARAMS                                                                          \
    (void *sendbuf, fint *sendcounts, fint *sdispls, fint *sendtype, void *recvbuf,            \
     fint *recvcounts, fint *rdispls, fint *recvtype)
#define V_EACH_ARGS(SEND)                                                                      \
    (SEND(sendbuf), sendcounts, sdispls, PMPI_Type_f2c(*sendtype), c_buffer(recvbuf),          \
     recvcounts, rdispls, PMPI_Type_f2c(*recvtype))
COLLECTIVE(mpi_alltoallv, MPI_ALLTOALLV, mpi_ialltoallv, MPI_IALLTOALLV, Alltoallv, Ialltoallv,
           V_EACH_PARAMS, V_EACH_ARGS(c_buffer_or_in_place))
COLLECTIVE(mpi_neighbor_alltoallv, MPI_NEIGHBOR_ALLTOALLV, mpi_ineighbor_alltoallv,
           MPI_INEIGHBOR_ALLTOALLV, Neighbor_alltoallv, Ineighbor_alltoallv, V_EACH_PARAMS,
           V_EACH_ARGS(c_buffer))

#define TO_ROOT_PARAMS                                                                         \
    (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts,          \
     fint *displs, fint *recvtype)
#define TO_ROOT_ARGS(SEND)                                                                     \
    (SEND(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype), c_buffer(recvbuf), recvcounts,       \
     displs, PMPI_Type_f2c(*recvtype))
COLLECTIVE(mpi_allgatherv, MPI_ALLGATHERV, mpi_iallgatherv, MPI_IALLGATHERV, Allgatherv,
           Iallgatherv, TO_ROOT_PARAMS, TO_ROOT_ARGS(c_buffer_or_in_place))
COLLECTIVE(mpi_neighbor_allgatherv, MPI_NEIGHBOR_ALLGATHERV, mpi_ineighbor_allgatherv,
           MPI_INEIGHBOR_ALLGATHERV, Neighbor_allgatherv, Ineighbor_allgatherv, TO_ROOT_PARAMS,
           TO_ROOT_ARGS(c_buffer))
COLLECTIVE(mpi_gatherv, MPI_GATHERV, mpi_igatherv, MPI_IGATHERV, Gatherv, Igatherv,
           (void *sendbuf, fint *sendcount, fint *sendtype, void *recvbuf, fint *recvcounts,
            fint *displs, fint *recvtype, fint *root),
           (c_buffer_or_in_place(sendbuf), *sendcount, PMPI_Type_f2c(*sendtype),
            c_buffer(recvbuf), recvcounts, displs, PMPI_Type_f2c(*recvtype), *root))
COLLECTIVE(mpi_scatterv, MPI_SCATTERV, mpi_iscatterv, MPI_ISCATTERV, Scatterv, Iscatterv,
           (void *sendbuf, fint *sendcounts, fint *displs, fint *sendtype, void *recvbuf,
            fint *recvcount, fint *recvtype, fint *root),
           (c_buffer(sendbuf), sendcounts, displs, PMPI_Type_f2c(*sendtype),
            c_buffer_or_in_place(recvbuf), *recvcount, PMPI_Type_f2c(*recvtype), *root))
COLLECTIVE(mpi_bcast, MPI_BCAST, mpi_ibcast, MPI_IBCAST, Bcast, Ibcast,
           (void *buffer, fint *count, fint *type, fint *root),
           (c_buffer(buffer), *count, PMPI_Type_f2c(*type), *root))

/* Alltoallw: a type per peer, converted into arrays of the call's own (Open MPI's binding
 * allocates them too: as many as the communicator's size, the remote group's for an
 * intercommunicator; none for the send side in place). `neighbours`: the neighbourhood
 * form, whose displacements are MPI_Aint. */
static void f_alltoallw(bool neighbours, bool nonblocking, void *sendbuf, fint *sendcounts,
                        void *sdispls, fint *sendtypes, void *recvbuf, fint *recvcounts,
                        void *rdispls, fint *recvtypes, fint *comm, fint *request, fint *ierr)
{
    MPI_Comm k = PMPI_Comm_f2c(*comm);
    int size = 0, inter = 0;
    PMPI_Comm_test_inter(k, &inter);
    if (inter)
        PMPI_Comm_remote_size(k, &size);
    else
        PMPI_Comm_size(k, &size);
    void *send = neighbours ? c_buffer(sendbuf) : c_buffer_or_in_place(sendbuf);
    const size_t n = size > 0 ? (size_t)size : 1;
    MPI_Datatype *types = mc_malloc(2 * n * sizeof *types);
    if (!types) {
        no_memory(ierr);
        return;
    }
    for (int i = 0; i < size; i++) {
        types[i] = send == MPI_IN_PLACE ? MPI_DATATYPE_NULL : PMPI_Type_f2c(sendtypes[i]);
        types[n + (size_t)i] = PMPI_Type_f2c(recvtypes[i]);
    }
    const MPI_Datatype *st = send == MPI_IN_PLACE ? NULL : types, *rt = types + n;
    MPI_Request c = MPI_REQUEST_NULL;
    int rc;
    if (neighbours)
        rc = nonblocking ? mc_MPI_Ineighbor_alltoallw(send, sendcounts, sdispls, st,
                                                      c_buffer(recvbuf), recvcounts, rdispls,
                                                      rt, k, &c)
                         : mc_MPI_Neighbor_alltoallw(send, sendcounts, sdispls, st,
                                                     c_buffer(recvbuf), recvcounts, rdispls,
                                                     rt, k);
    else
        rc = nonblocking ? mc_MPI_Ialltoallw(send, sendcounts, sdispls, st, c_buffer(recvbuf),
                                             recvcounts, rdispls, rt, k, &c)
                         : mc_MPI_Alltoallw(send, sendcounts, sdispls, st, c_buffer(recvbuf),
                                            recvcounts, rdispls, rt, k);
    free(types);
    if (nonblocking)
        started_request(rc, &c, request, ierr);
    else
        set_ierr(ierr, rc);
}

#define W_PARAMS                                                                               \
    (void *sendbuf, fint *sendcounts, void *sdispls, fint *sendtypes, void *recvbuf,           \
     fint *recvcounts, void *rdispls, fint *recvtypes, fint *comm, fint *ierr)
#define IW_PARAMS                                                                              \
    (void *sendbuf, fint *sendcounts, void *sdispls, fint *sendtypes, void *recvbuf,           \
     fint *recvcounts, void *rdispls, fint *recvtypes, fint *comm, fint *request, fint *ierr)
#define W_ARGS sendbuf, sendcounts, sdispls, sendtypes, recvbuf, recvcounts, rdispls, recvtypes
OMPI_NAMES(mpi_alltoallw, MPI_ALLTOALLW, W_PARAMS,
           f_alltoallw(false, false, W_ARGS, comm, NULL, ierr))
OMPI_NAMES(mpi_ialltoallw, MPI_IALLTOALLW, IW_PARAMS,
           f_alltoallw(false, true, W_ARGS, comm, request, ierr))
OMPI_NAMES(mpi_neighbor_alltoallw, MPI_NEIGHBOR_ALLTOALLW, W_PARAMS,
           f_alltoallw(true, false, W_ARGS, comm, NULL, ierr))
OMPI_NAMES(mpi_ineighbor_alltoallw, MPI_INEIGHBOR_ALLTOALLW, IW_PARAMS,
           f_alltoallw(true, true, W_ARGS, comm, request, ierr))

/* ---- Open MPI: MPI-IO reads and writes ----
 * Every form memcomm carries in C (file_forms.h), converted as Open MPI's binding converts
 * it: the file handle by MPI_File_f2c, the explicit offset an INTEGER(KIND=MPI_OFFSET_KIND)
 * (C's MPI_Offset), statuses and requests as for messages. */
#if MEMCOMM_HAVE_MPI_IO
static void file_done(int rc, const one_status *s, fint *status, fint *ierr)
{
    if (rc == MPI_SUCCESS)
        status_out(&f77, s, status);
    set_ierr(ierr, rc);
}

#define F_AT_PARAM_OFFSET , MPI_Offset *offset
#define F_AT_ARG_OFFSET , *offset
#define F_AT_PARAM_
#define F_AT_ARG_
#define F_AT_PARAM(AT) F_AT_PARAM_##AT
#define F_AT_ARG(AT) F_AT_ARG_##AT
/* The C call's leading arguments: the file, the offset, the buffer, the count, the type. */
#define F_FILE_ARGS(AT)                                                                        \
    PMPI_File_f2c(*fh) F_AT_ARG(AT), c_buffer(buf), *count, PMPI_Type_f2c(*type)

#define F_FILE_BLOCKING(DIR, NAME, UPPER, AT)                                                  \
    OMPI_NAMES(mpi_file_##NAME, MPI_FILE_##UPPER,                                              \
               (fint *fh F_AT_PARAM(AT), void *buf, fint *count, fint *type, fint *status,     \
                fint *ierr),                                                                   \
               one_status s; status_in(&f77, status, &s);                                      \
               file_done(mc_MPI_File_##NAME(F_FILE_ARGS(AT), s.p), &s, status, ierr))
#define F_FILE_NONBLOCKING(DIR, NAME, UPPER, AT)                                               \
    OMPI_NAMES(mpi_file_##NAME, MPI_FILE_##UPPER,                                              \
               (fint *fh F_AT_PARAM(AT), void *buf, fint *count, fint *type, fint *request,    \
                fint *ierr),                                                                   \
               MPI_Request c = MPI_REQUEST_NULL;                                               \
               started_request(mc_MPI_File_##NAME(F_FILE_ARGS(AT), &c), &c, request, ierr))
#define F_FILE_SPLIT(DIR, NAME, UPPER, AT)                                                     \
    OMPI_NAMES(mpi_file_##NAME##_begin, MPI_FILE_##UPPER##_BEGIN,                              \
               (fint *fh F_AT_PARAM(AT), void *buf, fint *count, fint *type, fint *ierr),      \
               set_ierr(ierr, mc_MPI_File_##NAME##_begin(F_FILE_ARGS(AT))))                    \
    OMPI_NAMES(mpi_file_##NAME##_end, MPI_FILE_##UPPER##_END,                                  \
               (fint *fh, void *buf, fint *status, fint *ierr), one_status s;                  \
               status_in(&f77, status, &s);                                                    \
               file_done(mc_MPI_File_##NAME##_end(PMPI_File_f2c(*fh), c_buffer(buf), s.p), &s, \
                         status, ierr))
FILE_BLOCKING_FORMS(F_FILE_BLOCKING)
FILE_NONBLOCKING_FORMS(F_FILE_NONBLOCKING)
FILE_SPLIT_FORMS(F_FILE_SPLIT)
#endif

#endif
