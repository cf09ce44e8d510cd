#include "completion.h"

#include <stdlib.h>

#include "../base/alloc.h"
#include "../base/mpiutil.h"
#include "requests.h"

/* ---- what a call did to each claimed request ---- */

/* A non-persistent request is complete when the MPI nulled its handle; a persistent one
 * when the call reported it complete (`reported`: false when the call cannot tell, which
 * only keeps it marked active). */
static void settle(request_entry *e, MPI_Request now, bool reported, int code,
                   const MPI_Status *status)
{
    if (e->c.persistent ? reported : now == MPI_REQUEST_NULL)
        requests_complete(e, code, status);
}

static const MPI_Status *status_at(MPI_Status *statuses, int i)
{
    return statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : &statuses[i];
}

/* The completion code of one request of an array call: with MPI_ERR_IN_STATUS, its own. */
static int code_at(int rc, const MPI_Status *status)
{
    return rc == MPI_ERR_IN_STATUS && status != MPI_STATUS_IGNORE ? status->MPI_ERROR : rc;
}

/* Statuses the MPI writes: the caller's, or (when ignored but a carried request wants one)
 * the call's own. */
enum { SMALL = 16 };
typedef struct {
    MPI_Status small[SMALL], *statuses;
    bool allocated;
} status_array;

static bool statuses_for(status_array *s, int count, MPI_Status *given, int with_status)
{
    s->allocated = false;
    s->statuses = given;
    if (given != MPI_STATUSES_IGNORE || with_status == 0)
        return true;
    if (count <= SMALL) {
        s->statuses = s->small;
        return true;
    }
    s->statuses = mc_malloc(sizeof(MPI_Status) * (size_t)count);
    s->allocated = s->statuses != NULL;
    return s->allocated;
}

static void statuses_done(status_array *s)
{
    if (s->allocated)
        free(s->statuses);
}

/* ---- one request ---- */

int completion_test(MPI_Request *request, int *flag, MPI_Status *status, bool blocking)
{
    request_claims claims;
    requests_claim(1, request, &claims);
    MPI_Status own;
    MPI_Status *st = claims.first ? status_or(status, &own) : status;
    int done = 1;
    const int rc = blocking ? PMPI_Wait(request, st) : PMPI_Test(request, &done, st);
    if (claims.first)
        settle(claims.first, *request, done, rc, st);
    requests_return(&claims);
    if (flag)
        *flag = done;
    requests_progress();
    return rc;
}

/* ---- all ---- */

/* Without a status array: each carried receive waited for alone (its status in its entry),
 * then the rest together. */
static int waitall_one_by_one(int count, MPI_Request requests[], request_claims *claims)
{
    int first_error = MPI_SUCCESS;
    for (request_entry *e = claims->first; e; e = e->next_claim)
        if (carried_wants_status(&e->c)) {
            e->status.MPI_ERROR = PMPI_Wait(&requests[e->index], &e->status);
            if (first_error == MPI_SUCCESS)
                first_error = e->status.MPI_ERROR;
        }
    const int rc = PMPI_Waitall(count, requests, MPI_STATUSES_IGNORE);
    for (request_entry *e = claims->first; e; e = e->next_claim) {
        if (carried_wants_status(&e->c))
            settle(e, requests[e->index], true, e->status.MPI_ERROR, &e->status);
        else
            settle(e, requests[e->index], rc == MPI_SUCCESS, rc, MPI_STATUS_IGNORE);
    }
    return first_error == MPI_SUCCESS ? rc : MPI_ERR_IN_STATUS;
}

/* Without a status array: the carried receives peeked at (statuses in their entries); only
 * when all are complete can the MPI's Testall complete anything memcomm must unpack. */
static int testall_peeking(int count, MPI_Request requests[], int *flag, request_claims *claims)
{
    for (request_entry *e = claims->first; e; e = e->next_claim) {
        int ready = 0;
        if (carried_wants_status(&e->c) &&
            (PMPI_Request_get_status(requests[e->index], &ready, &e->status) != MPI_SUCCESS ||
             !ready)) {
            requests_return(claims);
            *flag = 0;
            return MPI_SUCCESS;
        }
    }
    const int rc = PMPI_Testall(count, requests, flag, MPI_STATUSES_IGNORE);
    for (request_entry *e = claims->first; e; e = e->next_claim) {
        settle(e, requests[e->index], *flag && rc == MPI_SUCCESS, rc,
               carried_wants_status(&e->c) ? &e->status : MPI_STATUS_IGNORE);
    }
    return rc;
}

int completion_testall(int count, MPI_Request requests[], int *flag, MPI_Status statuses[],
                       bool blocking)
{
    request_claims claims;
    requests_claim(count, requests, &claims);
    status_array s;
    int done = 1, rc;
    if (!statuses_for(&s, count, statuses, claims.with_status)) {
        rc = blocking ? waitall_one_by_one(count, requests, &claims)
                      : testall_peeking(count, requests, &done, &claims);
    } else {
        rc = blocking ? PMPI_Waitall(count, requests, s.statuses)
                      : PMPI_Testall(count, requests, &done, s.statuses);
        for (request_entry *e = claims.first, *next; e; e = next) {
            next = e->next_claim;
            const MPI_Status *st = status_at(s.statuses, e->index);
            const int code = code_at(rc, st);
            /* with another error the MPI does not say which completed */
            const bool reported = rc == MPI_SUCCESS ? done
                                  : rc == MPI_ERR_IN_STATUS && st != MPI_STATUS_IGNORE
                                      ? code != MPI_ERR_PENDING
                                      : false;
            settle(e, requests[e->index], reported, code, st);
        }
        statuses_done(&s);
    }
    requests_return(&claims);
    if (flag)
        *flag = done;
    requests_progress();
    return rc;
}

/* ---- any ---- */

int completion_testany(int count, MPI_Request requests[], int *index, int *flag,
                       MPI_Status *status, bool blocking)
{
    request_claims claims;
    requests_claim(count, requests, &claims);
    MPI_Status own;
    MPI_Status *st = claims.with_status ? status_or(status, &own) : status;
    int done = 1;
    const int rc = blocking ? PMPI_Waitany(count, requests, index, st)
                            : PMPI_Testany(count, requests, index, &done, st);
    for (request_entry *e = claims.first; e; e = e->next_claim) {
        const bool chosen = done && *index == e->index;
        settle(e, requests[e->index], chosen, rc, chosen ? st : MPI_STATUS_IGNORE);
    }
    requests_return(&claims);
    if (flag)
        *flag = done;
    requests_progress();
    return rc;
}

/* ---- some ---- */

static bool ascending(const int indices[], int n)
{
    for (int k = 1; k < n; k++)
        if (indices[k] <= indices[k - 1])
            return false;
    return true;
}

/* Where index i is among the completed `indices` (-1: not completed). Claims come in
 * ascending index order, so with ascending indices (as both MPIs return them) one merge
 * pass finds all; otherwise each is searched. */
static int position_of(const int indices[], int n, bool sorted, int i, int *cursor)
{
    if (sorted) {
        while (*cursor < n && indices[*cursor] < i)
            (*cursor)++;
        return *cursor < n && indices[*cursor] == i ? *cursor : -1;
    }
    for (int k = 0; k < n; k++)
        if (indices[k] == i)
            return k;
    return -1;
}

/* Without a status array: one request completed, as the any form would. */
static int testsome_as_any(int incount, MPI_Request requests[], int *outcount, int indices[],
                           bool blocking)
{
    int index, done;
    const int rc = completion_testany(incount, requests, &index, &done, MPI_STATUS_IGNORE,
                                      blocking);
    *outcount = index == MPI_UNDEFINED ? (done ? MPI_UNDEFINED : 0) : 1;
    if (*outcount == 1)
        indices[0] = index;
    return rc;
}

int completion_testsome(int incount, MPI_Request requests[], int *outcount, int indices[],
                        MPI_Status statuses[], bool blocking)
{
    request_claims claims;
    requests_claim(incount, requests, &claims);
    status_array s;
    if (!statuses_for(&s, incount, statuses, claims.with_status)) {
        requests_return(&claims);
        return testsome_as_any(incount, requests, outcount, indices, blocking);
    }
    const int rc = blocking ? PMPI_Waitsome(incount, requests, outcount, indices, s.statuses)
                            : PMPI_Testsome(incount, requests, outcount, indices, s.statuses);
    const int n = *outcount == MPI_UNDEFINED ? 0 : *outcount;
    const bool sorted = ascending(indices, n);
    int cursor = 0;
    for (request_entry *e = claims.first; e; e = e->next_claim) {
        const int k = position_of(indices, n, sorted, e->index, &cursor);
        const MPI_Status *st = k >= 0 ? status_at(s.statuses, k) : MPI_STATUS_IGNORE;
        const int code = code_at(rc, st);
        settle(e, requests[e->index], k >= 0 && code != MPI_ERR_PENDING, code, st);
    }
    requests_return(&claims);
    statuses_done(&s);
    requests_progress();
    return rc;
}

/* ---- peeks ---- */

int completion_peek(MPI_Request request, int *flag, MPI_Status *status)
{
    request_claims claims;
    requests_claim(1, &request, &claims);
    MPI_Status own;
    MPI_Status *st = claims.first ? status_or(status, &own) : status;
    const int rc = PMPI_Request_get_status(request, flag, st);
    if (claims.first && *flag)
        requests_peeked(claims.first, rc, st);
    requests_return(&claims);
    return rc;
}

#if MEMCOMM_HAS_STATUS_ARRAYS
/* A receive found complete by an array peek: unpacked, with its status read again when the
 * caller's statuses do not hold it. */
static void peeked_at(request_entry *e, MPI_Request request, int code, const MPI_Status *status)
{
    int ready = 0;
    if (status == MPI_STATUS_IGNORE && carried_wants_status(&e->c) &&
        PMPI_Request_get_status(request, &ready, &e->status) == MPI_SUCCESS && ready)
        status = &e->status;
    requests_peeked(e, code, status);
}

int completion_peek_array(char kind, int count, const MPI_Request requests[], int *index,
                          int *flag, int *outcount, int indices[], MPI_Status statuses[])
{
    request_claims claims;
    requests_claim(count, requests, &claims);
    int rc;
    if (kind == 'a') {
        rc = PMPI_Request_get_status_any(count, (MPI_Request *)requests, index, flag, statuses);
        for (request_entry *e = claims.first; e; e = e->next_claim)
            if (*flag && *index == e->index)
                peeked_at(e, requests[e->index], rc,
                          statuses == MPI_STATUSES_IGNORE ? MPI_STATUS_IGNORE : statuses);
    } else if (kind == 'l') {
        rc = PMPI_Request_get_status_all(count, (MPI_Request *)requests, flag, statuses);
        for (request_entry *e = claims.first; e && *flag; e = e->next_claim) {
            const MPI_Status *st = status_at(statuses, e->index);
            peeked_at(e, requests[e->index], code_at(rc, st), st);
        }
    } else {
        rc = PMPI_Request_get_status_some(count, (MPI_Request *)requests, outcount, indices,
                                          statuses);
        const int n = *outcount == MPI_UNDEFINED ? 0 : *outcount;
        const bool sorted = ascending(indices, n);
        int cursor = 0;
        for (request_entry *e = claims.first; e; e = e->next_claim) {
            const int k = position_of(indices, n, sorted, e->index, &cursor);
            const MPI_Status *st = k >= 0 ? status_at(statuses, k) : MPI_STATUS_IGNORE;
            if (k >= 0)
                peeked_at(e, requests[e->index], code_at(rc, st), st);
        }
    }
    requests_return(&claims);
    return rc;
}
#endif
