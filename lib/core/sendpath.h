/* sendpath: whether memcomm packs a message of a type it carries, or leaves it to the MPI's own
 * datatype path, measured per type and message size; likewise for each collective memcomm
 * carries and for MPI_Pack and MPI_Unpack (a "use": the same type may win in a send and lose
 * in an Alltoall, and memcomm's kernel may lose to the MPI's own pack of some layouts).
 *
 * Packing costs copies of its own: pack, the contiguous transfer, unpack, one after the
 * other, where an MPI that pipelines its datatype engine (Open MPI) packs into the transport
 * on one core while the receiver unpacks on another. Which wins depends on the MPI, the layout
 * and the size, so memcomm measures it. A point-to-point message has two ends, and what one
 * costs depends on what the other does (on MPICH a packed send into the MPI's own datatype
 * receive is slower than either path alone), so both ends follow one decision per type and
 * size class, sends and receives alike: the first blocking calls of each are timed trials,
 * in blocks of one path (lib/core/sendpath.c says in which order), and lib/base/trials.h
 * decides from the sum of the median send and the median receive time. Both ranks of an
 * exchange time the same turns and reach the same decision unless the two paths
 * are within noise, where the margin favours the MPI's own; and if they still decide apart,
 * the samples below find it. Non-blocking calls use a decided path; until there is one, their
 * own path, timed by epochs (sendpath_epoch_path; the MPI_PACKED bytes match either end's
 * path).
 * MEMCOMM_SEND_PATH=packed or =mpi fixes the path of every use; =measure is the default. */
#ifndef MEMCOMM_SENDPATH_H
#define MEMCOMM_SENDPATH_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include "../base/trials.h"
#include "analysis.h"

typedef enum { SEND_PACKED, SEND_BY_MPI } send_path;

/* What is timed: a point-to-point send or receive, a collective (the whole call, every rank's
 * packing and unpacking included, keyed by the analysis of its largest packed block), one
 * MPI_Pack or MPI_Unpack call, or one blocking MPI-IO read or write (the whole call, the file
 * system's part included; each rank decides for its own memory). */
typedef enum {
    USE_POINT_TO_POINT,
    USE_NONBLOCKING, /* epochs of non-blocking point-to-point calls (sendpath_epoch_join) */
    USE_ALLTOALL,
    USE_ALLTOALLV,
    USE_ALLTOALLW,
    USE_NEIGHBOR_ALLTOALL,
    USE_NEIGHBOR_ALLTOALLV,
    USE_NEIGHBOR_ALLTOALLW,
    USE_BCAST,
    USE_GATHER,
    USE_GATHERV,
    USE_SCATTER,
    USE_SCATTERV,
    USE_ALLGATHER,
    USE_ALLGATHERV,
    USE_NEIGHBOR_ALLGATHER,
    USE_NEIGHBOR_ALLGATHERV,
    USE_PACK, /* MPI_Pack: memcomm's kernel or the MPI's own, one side (TRIAL_SEND) */
    USE_UNPACK,
    USE_FILE_WRITE, /* the memory side of an MPI-IO write: staged packed, or the MPI's own */
    USE_FILE_READ,
    PATH_USES
} path_use;

/* A choice among `paths` alternatives: 0 is packing (SEND_PACKED), the last is the MPI's own
 * path (SEND_BY_MPI for a send's two); a collective may have a third, packing long blocks
 * too (lib/coll/exchange.c). */
enum { SENDPATH_MAX_PATHS = 3, SENDPATH_TRIALS_EACH = 3 };
enum { SENDPATH_SAMPLE_EVERY = 4, SENDPATH_STRIKES = 3, SENDPATH_SLOWER = 2, SENDPATH_ROUNDS = 3 };
/* ... or less often for short calls: every 4th, 8th, ... up to every 64th, the first that
 * spaces samples by at least SENDPATH_SAMPLE_SPACING seconds of the path's usual calls */
enum { SENDPATH_SAMPLE_EVERY_MOST = 64 };
#define SENDPATH_SAMPLE_SPACING 50e-6
#define SENDPATH_SLOWER_COLLECTIVE 1.25
/* A decided path is checked against the other now and then (packing against the MPI's own,
 * the MPI's own against packing): blocks of the decided path, the other, the other and the
 * decided, timed at once (trials_holds, trials_beats_own; each path has one block after a
 * change of path and one without), after SENDPATH_CHECK_FIRST blocks' worth of its calls or
 * more: as many as make the check's blocks of the slower path cost SENDPATH_CHECK_SHARE of
 * the calls between checks at the difference its trials measured; twice as many after each
 * check it passes, or that changes it. */
enum { SENDPATH_CHECK_FIRST = 16 };
#define SENDPATH_CHECK_SHARE 0.01

typedef struct {
    int path;
    int trial; /* >= 0: this call is timed as trial `trial` of its size class; -1: not */
    bool timed; /* a trial, or a decided path's call sampled: time it, sendpath_record */
    int size_class;
    path_use use;
    int side;  /* TRIAL_SEND or TRIAL_RECEIVE (lib/base/trials.h) */
    int round; /* of trials: a call timed for an earlier round is not recorded */
    bool check; /* a call of a decided path's check against the MPI's own (below) */
} send_choice;

/* The path for a blocking call (`use`; `side`: TRIAL_SEND, or TRIAL_RECEIVE for a receive)
 * moving `bytes` of this type, among `paths` (2 or 3; the same for every call of a use, type
 * and size). The first calls are trials, in blocks of one path. */
send_choice sendpath_choose(analysis *a, path_use use, int64_t bytes, int paths, int side);

/* The time a timed call took. A point-to-point decision within TRIALS_CLOSE of another path
 * in its first round is measured again at once (lib/base/trials.h says why). A path, once
 * decided, has every SENDPATH_SAMPLE_EVERY-th blocking call on each side (fewer for short
 * calls: SENDPATH_SAMPLE_SPACING) timed against its
 * trials' usual time: when SENDPATH_STRIKES samples in a row take more than SENDPATH_SLOWER
 * times that (SENDPATH_SLOWER_COLLECTIVE for any other use), or a close decision's path is
 * overtaken (trials_overtaken: its latest samples slower than the MPI's own path was in the
 * trials), the trials run again (at most SENDPATH_ROUNDS rounds; the last round, which nothing
 * samples, leaves a close decision to the MPI's own path). That is how the ends of an exchange
 * that decided differently find each other: the slowed end measures again, with the other
 * end's path fixed, and settles on the path that meets it. Point-to-point, one end sending
 * packed into the other's MPI receive ran several times the time of either path (MPICH). A
 * collective's ranks decide apart where packing wins by about the margin: each rank times
 * the call from its own arrival: the two ranks of Open MPI's halo of 128^3
 * (Neighbor_alltoallw) found packing 9% and 16% faster, and decided apart in 4 launches of
 * 7, where one packing and the other not ran at 0.57-0.89x the MPI's own path.
 * The samples compare a path with what the trials measured, so trials that a burst of noise
 * made the MPI's own path look slow in, or an MPI's own path that has become faster since,
 * leave the decision standing; a decided path that is not the MPI's own is therefore also
 * checked against it (SENDPATH_CHECK_FIRST), both ends of an exchange at the same call (they
 * count their calls alike), and goes back to the MPI's own path where that is found faster
 * (trials_holds); and trials that timed packing while it was still cold leave the MPI's own
 * path decided, which is checked against packing in turn (trials_beats_own; not for
 * non-blocking epochs, nor for writes). */
void sendpath_record(analysis *a, const send_choice *c, double seconds);

/* The path for a call that is not timed (non-blocking, persistent, MPI_Mrecv, an
 * MPI_Sendrecv of two types) among `paths`: the one the blocking calls decided, `undecided`
 * until then. */
int sendpath_untimed(analysis *a, path_use use, int64_t bytes, int paths, int undecided);

/* Non-blocking point-to-point calls of a type and size no blocking call has decided
 * (sendpath_untimed): a call's own time says nothing of its message, so memcomm times epochs.
 * An epoch of a size class begins with its first call after a completion call (MPI_Wait,
 * MPI_Waitall, ... in any binding, sendpath_epoch_boundary) and lasts until the next such
 * call of the class: a halo exchange's posts, its Waitall and what the program does until its
 * next exchange. Every call in an epoch takes the epoch's path, and its length is one trial
 * of USE_NONBLOCKING; both ends of an exchange count their epochs alike, as they count
 * blocking calls. Measured from one start to the next, an epoch times the MPI's own path
 * with no request of it remembered, exactly as the program runs it without memcomm (and
 * work between exchanges, the same on both paths, only makes the paths closer, which keeps
 * the MPI's own). A decided packed path's epochs are sampled as blocking calls are; the
 * decided MPI's own path costs no lock, but about every SENDPATH_SAMPLE_EVERY_MOST-th epoch
 * two are timed (the one under way, then one whole) and checked as a sample. `undecided`
 * is the path of the warm-up epochs and of a call nothing can measure; `clock` is read only
 * when an epoch begins (PMPI_Wtime; tests inject theirs). */
typedef double (*sendpath_clock)(void);
int sendpath_epoch_path(analysis *a, int64_t bytes, int undecided, sendpath_clock clock);

/* A completion call: the next call of each class begins an epoch. One relaxed load while no
 * class has epochs. */
extern _Atomic bool sendpath_epochs_timed;
extern _Atomic unsigned long sendpath_epoch_completions;
static inline void sendpath_epoch_boundary(void)
{
    if (atomic_load_explicit(&sendpath_epochs_timed, memory_order_relaxed))
        atomic_store_explicit(
            &sendpath_epoch_completions,
            atomic_load_explicit(&sendpath_epoch_completions, memory_order_relaxed) + 1,
            memory_order_relaxed);
}

/* The measurements of one use and size class of a type, for a caller that keeps a pointer
 * to them while the analysis lives (lib/interpose/p2p.c's per-thread memo); NULL when there
 * are none yet. */
typedef struct size_class_state sendpath_class;
sendpath_class *sendpath_class_of(analysis *a, path_use use, int64_t bytes);

/* Whether the next blocking call of `side` in `c` goes to the MPI's own path, untimed: the
 * decision is the MPI's own path among `paths`, and this call is not one to sample. Counted
 * as one of the decided path's calls if so; false tells the caller to ask sendpath_choose. */
bool sendpath_class_passes(sendpath_class *c, int paths, int side);

/* The same for a blocking call of a type recognised by its fingerprint and not read
 * (lib/p2p/message.c): a call due for a sample passes too, counted (reading the type to time
 * it would cost what recognising saves), so that both ends of an exchange count their calls
 * alike whichever of their types they read; false only where a check is due or nothing is
 * decided for the MPI's own path. */
bool sendpath_class_passes_unread(sendpath_class *c, int paths, int side);

/* Whether the next non-blocking call of `c` (USE_NONBLOCKING's) goes to the decided MPI's
 * own path at once, and counted if so (sendpath_class_passes for epochs). */
bool sendpath_epoch_class_passes(sendpath_class *c);

/* A use's name, as explanations and the decisions file (lib/core/decisions.h) give it. */
const char *sendpath_use_name(int use);

/* Free an analysis's measurements (analysis_release). */
void sendpath_free(analysis *a);

#endif
