/* MPI-IO reads and writes: the memory side of every form (lib/io/file.h says what memcomm
 * stages and what it hands to the MPI unchanged): explicit offsets, individual and shared
 * file pointers, collective and ordered, blocking, non-blocking (completed by any completion
 * call, as messages are) and split collective (begin / end), each in its int form and, where
 * the MPI declares them, the MPI-4 large-count form (`_c`).
 *
 * One definition per kind of call, instantiated for each name: NAME is the call without its
 * `MPI_File_` prefix; AT is `OFFSET` for the explicit-offset calls and empty otherwise. */
#include "../base/mpiutil.h"
#include "../io/file.h"
#include "../io/split.h"
#include "../p2p/requests.h"
#include "../p2p/routes.h"
#include "entry.h"
#include "file_forms.h"

#define IS_READ_read true
#define IS_READ_write false

/* Blocking: staged, or the MPI's own path, as measured per type and size (the first calls
 * of each are timed trials of both). */
#define FILE_BLOCKING(DIR, NAME, AT, COUNT_T)                                                  \
    INTERPOSE(int, MPI_File_##NAME,                                                            \
              (MPI_File fh FILE_AT_PARAM(AT), FILE_BUF_##DIR buf, COUNT_T count,               \
               MPI_Datatype type, MPI_Status *status))                                         \
    {                                                                                          \
        file_access f;                                                                         \
        if (!file_takes(fh, buf, count, type, IS_READ_##DIR, &f) ||                            \
            !file_stage(&f, buf, count, true))                                                 \
            return PMPI_File_##NAME(fh FILE_AT_ARG(AT), buf, count, type, status);             \
        MPI_Status own;                                                                        \
        MPI_Status *st = status_or(status, &own);                                              \
        const int rc =                                                                         \
            f.packed ? PMPI_File_##NAME(fh FILE_AT_ARG(AT), f.packed, (COUNT_T)f.elements,     \
                                        f.element, st)                                         \
                     : PMPI_File_##NAME(fh FILE_AT_ARG(AT), buf, count, type, st);             \
        file_end(&f, rc, st, (void *)buf);                                                     \
        return rc;                                                                             \
    }

/* A non-blocking call's staged access as a carried request (lib/p2p/requests.h), in a
 * reserved entry; false when the call goes to the MPI unchanged: nothing staged, or a process
 * where a request could complete unseen (requests_may_start). A read is unpacked by whichever
 * completion call completes it. */
static bool file_request(MPI_File fh, const void *buf, int64_t count, MPI_Datatype type,
                         bool read, file_access *f, carried_request *c, request_entry **slot)
{
    if (!file_takes(fh, buf, count, type, read, f))
        return false;
    if (!requests_may_start() || !file_stage(f, buf, count, false)) {
        file_drop(f);
        return false;
    }
    *c = (carried_request){.receive = read, .file = true, .m = f->m, .packed = f->packed,
                           .buf = (void *)buf, .count = count};
    return (*slot = requests_reserve_for(c)) != NULL;
}

/* Non-blocking: staged as a carried request, or to the MPI, whose handle then retires a stale
 * entry. */
#define FILE_NONBLOCKING(DIR, NAME, AT, COUNT_T)                                               \
    INTERPOSE(int, MPI_File_##NAME,                                                            \
              (MPI_File fh FILE_AT_PARAM(AT), FILE_BUF_##DIR buf, COUNT_T count,               \
               MPI_Datatype type, MPI_Request *request))                                       \
    {                                                                                          \
        file_access f;                                                                         \
        carried_request c;                                                                     \
        request_entry *slot;                                                                   \
        if (!file_request(fh, buf, count, type, IS_READ_##DIR, &f, &c, &slot))                 \
            return requests_passed(                                                            \
                PMPI_File_##NAME(fh FILE_AT_ARG(AT), buf, count, type, request), request);     \
        return requests_started(PMPI_File_##NAME(fh FILE_AT_ARG(AT), c.packed,                 \
                                                 (COUNT_T)f.elements, f.element, request),     \
                                request, &c, slot);                                            \
    }

/* Split collectives: the begin stages, the end on the same file finishes (lib/io/split.h);
 * only where every definition of the ends is memcomm's. */
#define FILE_SPLIT(DIR, NAME, AT, SUFFIX, COUNT_T)                                             \
    INTERPOSE(int, MPI_File_##NAME##_begin##SUFFIX,                                            \
              (MPI_File fh FILE_AT_PARAM(AT), FILE_BUF_##DIR buf, COUNT_T count,               \
               MPI_Datatype type))                                                             \
    {                                                                                          \
        file_access f;                                                                         \
        split_slot *slot = NULL;                                                               \
        if (!file_takes(fh, buf, count, type, IS_READ_##DIR, &f))                              \
            return PMPI_File_##NAME##_begin##SUFFIX(fh FILE_AT_ARG(AT), buf, count, type);     \
        if (!routes_split_ends_seen() || !(slot = split_reserve(fh)) ||                        \
            !file_stage(&f, buf, count, false)) {                                              \
            if (slot)                                                                          \
                split_unreserve(slot);                                                         \
            file_drop(&f);                                                                     \
            return PMPI_File_##NAME##_begin##SUFFIX(fh FILE_AT_ARG(AT), buf, count, type);     \
        }                                                                                      \
        const int rc = PMPI_File_##NAME##_begin##SUFFIX(fh FILE_AT_ARG(AT), f.packed,          \
                                                        (COUNT_T)f.elements, f.element);       \
        if (rc == MPI_SUCCESS) {                                                               \
            split_begun(slot, &f, (void *)buf);                                                \
        } else {                                                                               \
            split_unreserve(slot);                                                             \
            file_drop(&f);                                                                     \
        }                                                                                      \
        return rc;                                                                             \
    }

/* The end of any split collective: it finishes what its begin staged (into the buffer the
 * begin named, where the MPI put the data too), else it goes to the MPI as it came. */
#define FILE_SPLIT_END(DIR, NAME)                                                              \
    INTERPOSE(int, MPI_File_##NAME##_end,                                                      \
              (MPI_File fh, FILE_BUF_##DIR buf, MPI_Status *status))                           \
    {                                                                                          \
        file_access f;                                                                         \
        void *begun;                                                                           \
        if (!split_take(fh, &f, &begun))                                                       \
            return PMPI_File_##NAME##_end(fh, buf, status);                                    \
        MPI_Status own;                                                                        \
        MPI_Status *st = status_or(status, &own);                                              \
        const int rc = PMPI_File_##NAME##_end(fh, f.packed, st);                               \
        file_end(&f, rc, st, begun);                                                           \
        return rc;                                                                             \
    }

/* Every form, with int counts and, where the MPI declares them, MPI_Count ones (_c). */
#define INT_BLOCKING(DIR, NAME, UPPER, AT) FILE_BLOCKING(DIR, NAME, AT, int)
#define INT_NONBLOCKING(DIR, NAME, UPPER, AT) FILE_NONBLOCKING(DIR, NAME, AT, int)
#define INT_SPLIT(DIR, NAME, UPPER, AT) FILE_SPLIT(DIR, NAME, AT, , int) FILE_SPLIT_END(DIR, NAME)
FILE_BLOCKING_FORMS(INT_BLOCKING)
FILE_NONBLOCKING_FORMS(INT_NONBLOCKING)
FILE_SPLIT_FORMS(INT_SPLIT)
#if MEMCOMM_HAVE_FILE_LARGE_COUNT /* a split begin's _c comes after _begin (MPI 4.1) */
#define LARGE_BLOCKING(DIR, NAME, UPPER, AT) FILE_BLOCKING(DIR, NAME##_c, AT, MPI_Count)
#define LARGE_NONBLOCKING(DIR, NAME, UPPER, AT) FILE_NONBLOCKING(DIR, NAME##_c, AT, MPI_Count)
#define LARGE_SPLIT(DIR, NAME, UPPER, AT) FILE_SPLIT(DIR, NAME, AT, _c, MPI_Count)
FILE_BLOCKING_FORMS(LARGE_BLOCKING)
FILE_NONBLOCKING_FORMS(LARGE_NONBLOCKING)
FILE_SPLIT_FORMS(LARGE_SPLIT)
#endif

/* A file closed with a split collective open (erroneous) drops what its begin staged. */
INTERPOSE(int, MPI_File_close, (MPI_File * fh))
{
    if (fh)
        split_forget(*fh);
    return PMPI_File_close(fh);
}
