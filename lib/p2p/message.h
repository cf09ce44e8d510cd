/* message: a point-to-point message whose datatype memcomm moves itself.
 *
 * A send of a non-contiguous type memcomm handles packs into a pooled buffer and sends the
 * bytes as MPI_PACKED; a receive lands as MPI_PACKED in a pooled buffer and is unpacked into
 * the user's buffer: all of it, or, for a shorter message, its whole instances and the
 * head of the instance it ends in, as the MPI would fill it. (A message can end inside a
 * basic element only when the sender's type signature differs from the receiver's, which
 * MPI calls erroneous; memcomm then writes that element's first bytes, where MPICH writes
 * none of it.) The bytes on the wire are exactly
 * what the MPI's own pack produces (the engine's guarantee), so a peer without memcomm
 * receives or sends the same message, and the status carries the byte count from which the
 * MPI derives MPI_Get_count and MPI_Get_elements for the user's type.
 *
 * Everything else goes to the MPI unchanged: basic and contiguous types (recognized from a
 * small cache of handles known to pass, without locking), types memcomm does not handle,
 * zero counts, NULL buffers (MPI_BOTTOM but with a type of absolute addresses: the Fortran
 * idiom for several arrays in one message), and messages too large for an int count; and
 * messages of a type and size for which the MPI's own datatype path measured faster, at
 * both ends (lib/core/sendpath.h). */
#ifndef MEMCOMM_MESSAGE_H
#define MEMCOMM_MESSAGE_H

#include <mpi.h>
#include <stdbool.h>
#include <stdatomic.h>
#include <stdint.h>
#include <string.h>

#include "../core/analysis.h"
#include "../core/config.h"
#include "../core/sendpath.h"
#include "../base/mpiutil.h"

/* Handles of types nothing in memcomm packs (contiguous, unsupported, empty), direct-mapped.
 * An entry is forgotten when the MPI hands its handle out again for a new type
 * (message_forget_passing, at commit and dup); a stale one that remains (a handle reused
 * behind memcomm's back) only sends that type through the MPI, which is always correct.
 * Inline: a basic-type send asks it first, and pays only a load. */
enum { MESSAGE_PASS_SLOTS = 256 };
extern _Atomic uint64_t message_passing[MESSAGE_PASS_SLOTS];

static inline uint64_t message_key(MPI_Datatype type)
{
    return handle_key(type) + 1; /* 0 marks an empty slot */
}

static inline _Atomic uint64_t *message_pass_slot(uint64_t key)
{
    return &message_passing[handle_hash(key, 8)];
}

/* Whether every call on `type` is known to go to the MPI, point-to-point and collectives. */
static inline bool message_passes(MPI_Datatype type)
{
    const uint64_t key = message_key(type);
    return atomic_load_explicit(message_pass_slot(key), memory_order_relaxed) == key;
}

/* Whether `count` instances of an analysed type lie in one run of memory, in the order they
 * pack: a dense array, or a single block such as the x face of a C-order array. */
bool message_one_run(const analysis *a, int64_t count);

/* Whether memcomm can usefully pack `count` instances of an analysed type at all: a
 * supported, non-empty type that is not one contiguous run. */
bool message_packable(const analysis *a, int64_t count);

/* Whether packing them is expected to beat the MPI's own datatype path before it is
 * measured: packable, and not made of long blocks (which collectives measure as a path of
 * their own, lib/coll/exchange.c). */
bool message_worth_packing(const analysis *a, int64_t count);

/* Remember that calls on `type` go to the MPI, if the analysed type is not packable at any
 * count (a type that is one contiguous run only at count 1 is not remembered). */
static inline void message_mark_passing(MPI_Datatype type, const analysis *a)
{
    if (!message_packable(a, 2))
        atomic_store_explicit(message_pass_slot(message_key(type)), message_key(type),
                              memory_order_relaxed);
}

/* A handle the MPI has just made (commit, dup) may be one it handed out before, for a type
 * that passed: forget that. */
static inline void message_forget_passing(MPI_Datatype type)
{
    const uint64_t key = message_key(type);
    _Atomic uint64_t *slot = message_pass_slot(key);
    uint64_t seen = atomic_load_explicit(slot, memory_order_relaxed);
    if (seen == key)
        atomic_compare_exchange_strong_explicit(slot, &seen, 0, memory_order_relaxed,
                                                memory_order_relaxed);
}

typedef struct {
    analysis *analysis; /* retained until message_done */
    int64_t bytes;      /* packed size of the call's count */
} message;

/* Whether memcomm carries (buf, count, type) of a type not known to pass, received into when
 * `receive` (a receive whose entries overlap goes to the MPI); if so, `m` holds the
 * analysis. */
bool message_takes_analysed(const void *buf, int64_t count, MPI_Datatype type, bool receive,
                            message *m);
/* The same for a point-to-point call, whose type may be recognised by its fingerprint
 * (lib/core/typecache.h): a re-created type of a layout whose point-to-point calls the MPI's
 * own path was measured to move faster goes to the MPI without its construction being read.
 * `counted`: a blocking call that the decision counts (a send, a receive, or an exchange of one
 * type both ways as its send: sendpath_class_passes_unread), so that its checks begin at the
 * same call on both ends whichever of their types each end read. */
bool message_takes_point_to_point(const void *buf, int64_t count, MPI_Datatype type,
                                  bool receive, bool counted, message *m);

/* A call memcomm does not carry, told without a call of its own: memcomm disabled, the peer
 * MPI_PROC_NULL, or a type known to pass (basic types after their first call). */
static inline bool message_passes_at_once(MPI_Datatype type, int peer)
{
    return config_get()->disable || peer == MPI_PROC_NULL || message_passes(type);
}

/* Whether memcomm carries one side of a point-to-point call with `peer`: never when it
 * passes at once (a call to MPI_PROC_NULL the MPI completes at once); types known to pass
 * cost one inlined load. */
static inline bool message_carries(const void *buf, int64_t count, MPI_Datatype type, int peer,
                                   bool receive, bool counted, message *m)
{
    return !message_passes_at_once(type, peer) &&
           message_takes_point_to_point(buf, count, type, receive, counted, m);
}

/* Whether a call that is not a timed trial leaves this message (or the memory side of an
 * MPI-IO call) to the MPI's own datatype path: the path measured for its `use`, type and size
 * (lib/core/sendpath.h) is the MPI's; until there is one, only types of long blocks. */
bool message_left_to_mpi(const message *m, path_use use);

/* The path of this message while nothing is measured: the MPI's own for types of long
 * blocks, packed otherwise. */
int message_undecided_path(const message *m);

/* A pooled buffer for the packed bytes of a message whose instances are at `buf`; NULL when
 * memory is short or `buf` is a GPU's memory, which memcomm's kernels cannot touch (the
 * caller then hands the call to the MPI). Only a call memcomm packs asks: whether a
 * pointer is a GPU's costs a look at the loaded objects (dl_iterate_phdr, about 230
 * instructions and two locks), which a call left to the MPI's own path does not pay. Give
 * the buffer back with bufpool_give. */
void *message_staging(const message *m, const void *buf);

/* Pack `count` instances at `buf` into message_staging's buffer; NULL when there is none. */
void *message_pack(const message *m, const void *buf, int64_t count);

/* Unpack the first `received` (> 0, <= m->bytes) packed bytes into the instances at `buf`:
 * the whole instances, and the head of the one they end in. */
void message_unpack(const message *m, const void *packed, int64_t received, void *buf);

/* A receive into `packed` finished with return code `rc` and `status`: unpack what arrived
 * into `buf`, unless the receive failed or was cancelled (the status then says nothing
 * reliable) or reports more than the buffer holds. */
void message_deliver(const message *m, const void *packed, int rc, const MPI_Status *status,
                     void *buf);

/* A read from a file into `packed` finished: as message_deliver, but the status's cancelled
 * flag is not read. File operations are not cancelled, and the MPIs leave that flag of a
 * file read's status as they found it: ROMIO sets only the count of the status it is given,
 * Open MPI's completion of a non-blocking read copies an unset one. */
void message_deliver_read(const message *m, const void *packed, int rc,
                          const MPI_Status *status, void *buf);

void message_done(message *m);

#endif
