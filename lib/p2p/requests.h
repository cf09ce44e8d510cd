/* requests: the non-blocking and persistent messages memcomm carries, by request handle.
 *
 * The user holds the MPI's own request for the packed message; this table remembers what
 * memcomm must do when it completes: unpack a receive into the user's buffer, give back the
 * packed buffer. Completion calls pass the handles they held before the MPI completed them
 * (the MPI sets non-persistent ones to MPI_REQUEST_NULL). Persistent requests pack the
 * user's data at each start and stay until freed. A request the user frees before it
 * completes is kept here and completed later (at the next completion call, or at
 * MPI_Finalize), so its buffer outlives the transfer. Thread-safe. */
#ifndef MEMCOMM_REQUESTS_H
#define MEMCOMM_REQUESTS_H

#include <mpi.h>
#include <stdbool.h>

#include "message.h"

typedef struct {
    bool receive, persistent;
    message m;
    void *packed;
    void *buf; /* the user's buffer: unpacked into (receive) or packed from at each start */
    int count;
} carried_request;

/* Memory for remembering one request, taken before the MPI starts it: once started, a
 * carried request must be finished by memcomm, so running out of memory must happen before
 * (the call then goes to the MPI unchanged). NULL when memory is short. */
typedef struct entry requests_entry;
requests_entry *requests_reserve(void);
void requests_unreserve(requests_entry *e);

/* Remember a request the MPI just returned for a carried message, in a reserved entry
 * (takes over m and packed). */
void requests_add(requests_entry *e, MPI_Request request, const carried_request *c);

/* Whether any carried request is outstanding: when not, completion calls go straight to the
 * MPI. */
bool requests_outstanding(void);

/* Completion calls test the MPI with the table locked, and tell it what completed before
 * unlocking: between the MPI freeing a handle and memcomm forgetting it, no other thread can
 * be given that handle for a new request and complete it (it needs the lock to be added). */
void requests_lock(void);
void requests_unlock(void);
/* After fork(), in the child: the lock made anew (interpose/fork.c). */
void requests_fork_child(void);

/* With the lock held: the MPI completed the request that was `before` (return code `rc`, its
 * status): unpack a receive that succeeded and was not cancelled; release what a
 * non-persistent request held. */
void requests_complete_locked(MPI_Request before, int rc, const MPI_Status *status);

/* With the lock held: MPI_Request_get_status found `request` complete without completing
 * it. The user may read a receive's buffer from now on, so it is unpacked now, once. */
void requests_peeked_locked(MPI_Request request, int rc, const MPI_Status *status);

/* MPI_Start of a persistent request: pack a carried send's data now. */
void requests_start(MPI_Request request);

/* MPI_Request_free: true if memcomm took over freeing `*request` (set to MPI_REQUEST_NULL);
 * an active carried request is completed later, an inactive persistent one freed now. */
bool requests_free(MPI_Request *request);

/* Complete freed requests that have finished; at MPI_Finalize, wait for all of them. */
void requests_progress(bool wait);

#endif
