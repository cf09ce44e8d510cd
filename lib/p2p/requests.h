/* requests: the non-blocking and persistent messages memcomm carries, by request handle.
 *
 * The user holds the MPI's own request for the packed message; this table remembers what
 * memcomm must do when it completes: unpack a receive into the user's buffer, give back the
 * packed buffer. A hash table keyed by the handle, under one lock held only for table
 * updates (never across an MPI call, an unpack or a pack).
 *
 * Completion calls (completion.h) claim the entries of the handles they pass to the MPI,
 * call the MPI without the lock, then finish what the MPI completed and unclaim the rest.
 * A claimed entry belongs to its claimer: if the MPI frees its handle and hands the same
 * value out for a new request before the claimer is done, the new request gets a fresh
 * entry and the claimed one is left to its claimer (the handle's "generation" is the entry).
 *
 * A handle that comes back from the MPI for a new request while an unclaimed entry still
 * holds it means the old request was completed behind memcomm's back (a Fortran binding or
 * another tool calling PMPI_Wait): that entry is dropped (its receive was never unpacked)
 * and counted (stats: stale requests). memcomm sees the new handle only from the calls it
 * intercepts; a handle reused by a call it does not intercept (one-sided, I/O, reductions)
 * and then completed through MPI_Wait would be taken for the stale carried request: this
 * is documented in docs/errors.md.
 *
 * Besides messages, the table holds the non-blocking and persistent collectives memcomm
 * carries (lib/coll/exchange.h), as requests of another kind (carried_work): they unpack at
 * completion whatever the completion call, need no status, and pack at each start.
 *
 * Persistent requests pack the user's data at each start and stay until freed. A request the
 * user frees while active moves to a list of detached requests, completed by memcomm (at
 * later completion calls, and at MPI_Finalize, where what has not finished is handed to the
 * MPI with its buffer kept). Thread-safe. */
#ifndef MEMCOMM_REQUESTS_H
#define MEMCOMM_REQUESTS_H

#include <mpi.h>
#include <stdbool.h>
#include <stdint.h>

#include "message.h"

/* A carried request of another kind than a message (a collective's exchange, lib/coll): what
 * it does at each step in place of a message's, on its own `work`. */
typedef struct {
    void (*start)(void *work);            /* MPI_Start of a persistent request: pack */
    void (*deliver)(void *work, int rc);  /* completed with the request's own code: unpack */
    void (*drop)(void *work);             /* give everything back */
} carried_work;

typedef struct {
    bool receive, persistent;
    bool file; /* a read or write of MPI-IO (lib/io/file.h): a read is delivered as such */
    message m;
    void *packed;
    void *buf; /* the user's buffer: unpacked into (receive) or packed from at each start */
    int64_t count;
    const carried_work *work_ops; /* not NULL: a request of another kind, `work` its state */
    void *work;
} carried_request;

/* Whether completing the request needs its status: a receive's says how much arrived; a
 * collective's holds its own error code where the call's is MPI_ERR_IN_STATUS (MPICH 5.0's
 * MPI_Testall says so of a persistent collective that succeeded). */
static inline bool carried_wants_status(const carried_request *c)
{
    return c->receive || c->work_ops;
}

/* Give back what a carried request holds: its packed buffer and analysis, or its work. */
void carried_request_drop(carried_request *c);

typedef struct request_entry request_entry;
struct request_entry {
    MPI_Request request;
    carried_request c;
    bool in_table;  /* findable by its handle (not superseded, detached or finished) */
    bool claimed;   /* by a completion call, which finishes or unclaims it */
    bool active;    /* started and not completed (non-persistent: from the call) */
    bool delivered; /* a receive unpacked already, when MPI_Request_get_status saw it */
    bool completed; /* by the claiming call (requests_complete) */
    int index;      /* its position in the claiming call's array */
    MPI_Status status; /* read by completion calls that have no status array of their own */
    request_entry *chain, *next_claim, *next_detached;
};

/* Memory for remembering one request, taken before the MPI starts it: once started, a
 * carried request must be finished by memcomm, so running out of memory must happen before
 * (the call then goes to the MPI unchanged). NULL when memory is short, and when the
 * process could complete a request where memcomm cannot see it (routes.h). */
request_entry *requests_reserve(void);

/* Whether memcomm may start a request it would have to finish (routes.h); counted when not.
 * requests_reserve asks it; a caller asks it first to spare the work of a request that could
 * not start (packing a send). */
bool requests_may_start(void);
void requests_unreserve(request_entry *e);

/* requests_reserve for the carried request `c`, made ready before the MPI starts it; NULL
 * when there is no entry, and then `c` is given back and the call goes to the MPI unchanged. */
request_entry *requests_reserve_for(carried_request *c);

/* The MPI started `c` with return code `rc` and `*request`: remember it in the reserved
 * `slot`, or on failure give back both. Returns `rc`. */
int requests_started(int rc, const MPI_Request *request, carried_request *c,
                     request_entry *slot);

/* Remember a request the MPI just returned for a carried message, in a reserved entry
 * (takes over c's message and packed buffer). */
void requests_add(request_entry *e, MPI_Request request, const carried_request *c);

/* A call memcomm passed to the MPI unchanged returned `rc` and, unless `request` is NULL (a
 * blocking call), `*request`: an unclaimed entry still under that handle is stale (see
 * above) and is dropped. Returns `rc`. */
int requests_passed(int rc, const MPI_Request *request);

/* Whether any carried request is outstanding: when not, completion calls go straight to the
 * MPI after this one atomic load. */
bool requests_outstanding(void);

/* The entries of the non-null handles among requests[0..count), claimed, in ascending
 * index order (each knows its index); `with_status` counts those that want their status
 * (carried_wants_status). An entry
 * claimed already (the same handle twice in one array) is not claimed again. */
typedef struct {
    request_entry *first;
    int with_status;
} request_claims;
void requests_claim(int count, const MPI_Request requests[], request_claims *out);

/* The MPI completed claimed `e` with return code `rc` (the request's own) and `status`:
 * unpack a receive that succeeded, was not cancelled and was not unpacked already. Without
 * the lock; requests_return then releases a non-persistent request. */
void requests_complete(request_entry *e, int rc, const MPI_Status *status);

/* Give back every claim of a call, with one lock: completed non-persistent requests leave
 * the table and are released, persistent ones stay (inactive), the others stay as they
 * were; a claimed entry superseded meanwhile (see above) is released. */
void requests_return(request_claims *claims);

/* MPI_Request_get_status and its array forms found claimed `e` complete without completing
 * it. The user may read a receive's buffer from now on, so it is unpacked now, once. */
void requests_peeked(request_entry *e, int rc, const MPI_Status *status);

/* MPI_Start / MPI_Startall: pack carried persistent sends' data now. */
void requests_start(int count, const MPI_Request requests[]);

/* MPI_Request_free: true if `*request` is carried, and then `*rc` is the call's result and
 * `*request` MPI_REQUEST_NULL (an active carried request is completed later, an inactive
 * persistent one freed now). */
bool requests_free(MPI_Request *request, int *rc);

/* Complete the detached requests that have finished (never waits). */
void requests_progress(void);

/* At MPI_Finalize: free the spare entries; complete the detached requests that have
 * finished, and hand the others to the MPI (MPI_Request_free), keeping their buffers, which
 * the MPI may still use. */
void requests_finalize(void);

/* Held across fork() (interpose/fork.c); the child makes the lock anew. */
void requests_fork_lock(void);
void requests_fork_unlock(bool child);

#endif
