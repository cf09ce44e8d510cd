#include "sendpath.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "config.h"
#include "decisions.h"
#include "explain.h"
#include "stats.h"

enum { SIZE_CLASSES = 48, UNDECIDED = -1 };

/* per path, two blocks of turns, a point-to-point turn being two calls (the warm-up block is
 * not recorded) */
enum { MAX_TRIALS = SENDPATH_MAX_PATHS * 2 * SENDPATH_TRIALS_EACH * 2 };
/* a check: blocks of the decided path, the MPI's own twice, the decided (sendpath.h) */
enum { CHECK_BLOCKS = 4, MAX_CHECK_BLOCK = 2 * SENDPATH_TRIALS_EACH };

/* The epochs of a size class of non-blocking calls (sendpath_epoch_path): written under the
 * table's lock; `seen`, `current` and `calls_now` also by a call in the current epoch,
 * and `watch` and `watch_after` by a call on the MPI's own path, which need no lock. */
typedef struct {
    bool began;
    send_choice path; /* the current epoch's */
    double start;
    _Atomic unsigned long seen; /* sendpath_epoch_completions when the current epoch began */
    _Atomic int current;        /* its path */
    _Atomic int calls_now;      /* its calls */
    int calls;                  /* of the epoch before */
    _Atomic int watch;          /* decided on the MPI's own path: WATCH_OFF, or which epoch */
    _Atomic unsigned watch_after; /* see watch_after() */
} epoch_state;

/* A decided MPI's own path is watched in two epochs: the one under way when its count of calls
 * runs out, then one timed whole. */
enum { WATCH_OFF, WATCH_JOINING, WATCH_TIMING };

/* Written under the table's lock. `decided` and `calls` are also read outside it, by a call
 * on a decided path that is not sampled (choose_decided): most calls, which then cost no
 * lock. */
struct size_class_state {
    int next;    /* trials handed out */
    int recorded;
    int paths;   /* alternatives, set by the first choice (before anything is decided) */
    _Atomic int decided; /* UNDECIDED or a path */
    trial trials[MAX_TRIALS];
    trial earlier[MAX_TRIALS]; /* a close first round's, measured again at once */
    int earlier_recorded;
    int round;                  /* of trials, from 0 */
    bool own_first;             /* the trials begin with the MPI's own path */
    uint64_t layout;            /* decisions_layout_key, when MEMCOMM_DECISIONS is set */
    _Atomic unsigned sample_every[TRIAL_SIDES]; /* a decided path's calls of a side: every
                                                   this many is timed (a power of two; 0:
                                                   none; set before `decided`) */
    _Atomic unsigned calls[TRIAL_SIDES]; /* since the decision, per side (a ping-pong's every
                                            4th call would be a receive) */
    int strikes;                /* samples in a row found slow */
    double usual[TRIAL_SIDES];  /* the decided path's usual time per side (0: none) */
    trial samples[TRIAL_SIDES][TRIALS_OVERTAKEN_SAMPLES]; /* the latest, per side, in a ring */
    int sampled[TRIAL_SIDES];                              /* since the decision */
    _Atomic unsigned check_at; /* a decided path other than the MPI's own: its calls (both
                                  sides) when the check begins; 0: none */
    unsigned check_spacing;    /* calls from one check to the next */
    int checking;              /* the check's calls handed out */
    int check_recorded;
    bool confirming;           /* this check confirms one that found the MPI's own faster */
    trial checks[CHECK_BLOCKS * MAX_CHECK_BLOCK];
    epoch_state epoch;                                     /* USE_NONBLOCKING only */
};
typedef struct size_class_state size_class_state;

/* per use and size class, made at its first choice: most types are measured in one or two
 * uses and a size class or two (a class's state is about 1 KiB, and the constructions cache
 * keeps up to 256 analyses) */
struct sendpath_table {
    pthread_mutex_t lock;
    uint64_t layout; /* decisions_layout_key, when MEMCOMM_DECISIONS is set */
    bool own_first;  /* plan_long_blocks: the trials begin with the MPI's own path */
    _Atomic(size_class_state *) classes[PATH_USES][SIZE_CLASSES]; /* made once, under lock */
};

/* powers of two: messages within a factor of two share a measurement */
static int size_class(int64_t bytes)
{
    const int c = bytes > 1 ? 63 - __builtin_clzll((unsigned long long)bytes) : 0;
    return c < SIZE_CLASSES - 1 ? c : SIZE_CLASSES - 1;
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
    if (config_get()->decisions)
        fresh->layout = decisions_layout_key(a->normal, &a->bounds);
    fresh->own_first = plan_long_blocks(&a->plan);
    sendpath_table *expected = NULL;
    if (!atomic_compare_exchange_strong(&a->send_paths, &expected, fresh)) {
        pthread_mutex_destroy(&fresh->lock);
        free(fresh);
        return expected;
    }
    return fresh;
}

static void adopt_saved(size_class_state *s, path_use use, int size_class);

/* A use's size class, made at the first call that asks (under the table's lock): undecided,
 * or decided as a run before decided it (MEMCOMM_DECISIONS); NULL when memory is short. */
static size_class_state *class_of(sendpath_table *t, path_use use, int size_class)
{
    size_class_state *s = atomic_load_explicit(&t->classes[use][size_class],
                                               memory_order_relaxed);
    if (!s && (s = mc_calloc(1, sizeof *s))) {
        s->decided = UNDECIDED;
        s->layout = t->layout;
        s->own_first = t->own_first;
        adopt_saved(s, use, size_class); /* none without a file: its layout key is 0 */
        atomic_store_explicit(&t->classes[use][size_class], s, memory_order_release);
    }
    return s;
}

static bool check_due(const size_class_state *s);

/* Whether a decided path's next call of `side` is one to sample (time) or one of a check, and
 * counted as one of its calls if neither (a sample is counted by sendpath_choose, which times
 * it); another thread's call in between moves the sample by one, which is harmless. */
static bool next_is_sample(size_class_state *s, int side)
{
    if (check_due(s))
        return true;
    const unsigned every = atomic_load_explicit(&s->sample_every[side], memory_order_relaxed);
    if (every &&
        ((atomic_load_explicit(&s->calls[side], memory_order_relaxed) + 1) & (every - 1)) == 0)
        return true;
    atomic_fetch_add_explicit(&s->calls[side], 1, memory_order_relaxed);
    return false;
}

/* The decided path's calls so far, both sides: the two ends of an exchange count alike. */
static unsigned decided_calls(const size_class_state *s)
{
    return atomic_load_explicit(&s->calls[TRIAL_SEND], memory_order_relaxed) +
           atomic_load_explicit(&s->calls[TRIAL_RECEIVE], memory_order_relaxed);
}

/* Whether the next call of a decided path belongs to its check against the MPI's own path
 * (under way until it ends: check_at moves on). */
static bool check_due(const size_class_state *s)
{
    const unsigned at = atomic_load_explicit(&s->check_at, memory_order_relaxed);
    return at && decided_calls(s) + 1 >= at;
}

/* A call on a decided path that is not sampled, told without the table's lock; false when
 * the call needs it (nothing decided, or this call is a sample). */
static bool choose_decided(sendpath_table *t, send_choice *choice, int paths)
{
    size_class_state *s =
        atomic_load_explicit(&t->classes[choice->use][choice->size_class], memory_order_acquire);
    if (!s)
        return false;
    const int decided = atomic_load_explicit(&s->decided, memory_order_acquire);
    if (decided == UNDECIDED || s->paths != paths || next_is_sample(s, choice->side))
        return false;
    choice->path = decided;
    return true;
}

/* Trials run in blocks of SENDPATH_TRIALS_EACH turns of one path, a turn being a send and a
 * receive for point-to-point (in an exchange or a ping-pong the n-th send of one end meets
 * the n-th receive of the other on the same path) and one call for a collective. Blocks in a
 * row keep each end's times clean: a receive also waits for the other end's previous
 * unpack, which the turn before did on its path. They begin with the path the plan expects
 * to win (the MPI's own for long blocks: plan_long_blocks, where only the uses whose decision
 * for it is not checked have trials: decide_own_untried), and go there and back (A B B A,
 * or B A A B; A B C C B A, or C B A A B C), so that what still drifts weighs on every path
 * alike, unless the first pass already decides (trials_decisive: by far, or for the MPI's
 * own). Before them, not timed: a turn of packing takes its cold start (its staging buffers
 * and the user's buffers faulting in, the analysis's first walk: a first receive of a
 * message of 0.2 MB takes 10-30 times the later ones), and where the MPI's own path comes
 * first, a block of it takes its cold start (MPICH 4.0.2's y face of 192^3 doubles: 167 and
 * 140 us its first two round trips, 100 from there on) at no cost the program would not pay
 * without memcomm. Each turn on the slower path is what the trials cost a run: a Fortran
 * ping-pong of 21 round trips on MPICH 4.0.2, packing that y face 8-40% slower than MPICH's
 * own in 9 turns (a warm-up block of packing, two blocks), ran 0.84-0.91x the MPI alone. */
static int trial_block(path_use use)
{
    return (use == USE_POINT_TO_POINT ? 2 : 1) * SENDPATH_TRIALS_EACH;
}

static int trials_per_path(path_use use) { return 2 * trial_block(use); }

/* the warm-up's turn of packing */
static int packed_warm_up(path_use use) { return use == USE_POINT_TO_POINT ? 2 : 1; }

static int warm_up_calls(const size_class_state *s, path_use use)
{
    return packed_warm_up(use) + (s->own_first ? trial_block(use) : 0);
}

/* trials handed out per round: the warm-up, then each path's */
static int trials_in_round(const size_class_state *s, path_use use, int paths)
{
    return warm_up_calls(s, use) + paths * trials_per_path(use);
}

/* A message's two ends follow one decision (sendpath.h): blocking calls and non-blocking
 * epochs alike. */
static bool two_ended(path_use use) { return use == USE_POINT_TO_POINT || use == USE_NONBLOCKING; }

static bool warming_up(const size_class_state *s, int t, path_use use)
{
    return t < warm_up_calls(s, use);
}

static int path_of_trial(const size_class_state *s, int t, path_use use, int paths)
{
    const int own = paths - 1;
    if (t < packed_warm_up(use))
        return 0;
    if (warming_up(s, t, use))
        return own;
    const int block = (t - warm_up_calls(s, use)) / trial_block(use);
    const int there_and_back = block < paths ? block : 2 * paths - 1 - block;
    return s->own_first ? own - there_and_back : there_and_back;
}

static int fixed_path(int paths)
{
    return config_get()->send_path == CONFIG_SEND_BY_MPI ? paths - 1 : 0;
}

/* The path a decided path is checked against: the MPI's own, or for the MPI's own, packing
 * (a collective's third path, packing long blocks too, is left to its trials). */
static int check_other(const size_class_state *s)
{
    return s->decided == s->paths - 1 ? SEND_PACKED : s->paths - 1;
}

static bool decide_own_untried(size_class_state *s, path_use use, int size_class);

/* Under the table's lock: the path of `choice` (its use, size class and side set) for `s`. */
static void choose_locked(size_class_state *s, send_choice *choice, int paths)
{
    if (!s->paths) {
        s->paths = paths;
        if (decide_own_untried(s, choice->use, choice->size_class)) {
            /* its first call, counted as next_is_sample counts the others */
            atomic_fetch_add_explicit(&s->calls[choice->side], 1, memory_order_relaxed);
            choice->path = paths - 1;
            choice->round = s->round;
            return;
        }
    }
    if (s->decided != UNDECIDED && s->paths == paths && check_due(s)) {
        /* the check: a block of the decided path, two of the other, one of the decided */
        const int block = trial_block(choice->use), b = s->checking / block;
        choice->check = s->checking < CHECK_BLOCKS * block;
        choice->timed = choice->check;
        choice->path = b == 1 || b == 2 ? check_other(s) : s->decided;
        s->checking += choice->check;
    } else if (s->decided != UNDECIDED) {
        /* a sample, or a call of another number of paths */
        choice->path = s->decided < paths ? s->decided : 0;
        choice->timed = s->paths == paths && s->sample_every[choice->side] > 0;
        if (choice->timed)
            atomic_fetch_add_explicit(&s->calls[choice->side], 1, memory_order_relaxed);
    } else if (s->paths == paths && s->next < trials_in_round(s, choice->use, paths)) {
        choice->trial = s->next++;
        choice->timed = !warming_up(s, choice->trial, choice->use);
        choice->path = path_of_trial(s, choice->trial, choice->use, paths);
    } /* else: trials out, not all recorded yet: pack */
    choice->round = s->round;
}

send_choice sendpath_choose(analysis *a, path_use use, int64_t bytes, int paths, int side)
{
    send_choice choice = {.path = fixed_path(paths), .trial = -1, .size_class = size_class(bytes),
                          .use = use, .side = side};
    sendpath_table *t;
    if (config_get()->send_path != CONFIG_SEND_MEASURE || !(t = table_of(a)) || paths < 2 ||
        paths > SENDPATH_MAX_PATHS || choose_decided(t, &choice, paths))
        return choice;
    pthread_mutex_lock(&t->lock);
    size_class_state *s = class_of(t, use, choice.size_class);
    if (s)
        choose_locked(s, &choice, paths);
    pthread_mutex_unlock(&t->lock);
    return choice;
}

static const char *const use_names[PATH_USES] = {
    [USE_POINT_TO_POINT] = "point-to-point",
    [USE_NONBLOCKING] = "non-blocking point-to-point",
    [USE_ALLTOALL] = "Alltoall",
    [USE_ALLTOALLV] = "Alltoallv",
    [USE_ALLTOALLW] = "Alltoallw",
    [USE_NEIGHBOR_ALLTOALL] = "Neighbor_alltoall",
    [USE_NEIGHBOR_ALLTOALLV] = "Neighbor_alltoallv",
    [USE_NEIGHBOR_ALLTOALLW] = "Neighbor_alltoallw",
    [USE_BCAST] = "Bcast",
    [USE_GATHER] = "Gather",
    [USE_GATHERV] = "Gatherv",
    [USE_SCATTER] = "Scatter",
    [USE_SCATTERV] = "Scatterv",
    [USE_ALLGATHER] = "Allgather",
    [USE_ALLGATHERV] = "Allgatherv",
    [USE_NEIGHBOR_ALLGATHER] = "Neighbor_allgather",
    [USE_NEIGHBOR_ALLGATHERV] = "Neighbor_allgatherv",
    [USE_PACK] = "MPI_Pack",
    [USE_UNPACK] = "MPI_Unpack",
    [USE_FILE_WRITE] = "MPI-IO write",
    [USE_FILE_READ] = "MPI-IO read",
};

const char *sendpath_use_name(int use)
{
    return use >= 0 && use < PATH_USES ? use_names[use] : "unknown";
}

static bool packs_itself(path_use use) { return use == USE_PACK || use == USE_UNPACK; }

static const char *path_name(int path, int paths, path_use use)
{
    if (path == paths - 1)
        return "the MPI's own";
    if (packs_itself(use))
        return "memcomm's kernel";
    return path == 0 ? "packed" : "packed, long blocks too";
}

static bool file_access(path_use use) { return use == USE_FILE_WRITE || use == USE_FILE_READ; }

/* Whether a close decision of `use` goes to the MPI's own path in every round. A write: the
 * ranks' writes to one file wait for each other (Linux takes one write to a file at a time;
 * parallel file systems lock its extents), and a rank's trials time only its own calls. On
 * MPICH, two ranks writing 128 MiB each to one file in /dev/shm: the rank whose single staged
 * write went first timed packing 1.13x faster than MPICH's own writes of 512 KiB pieces, the
 * other, waiting for it, 1.46x slower; decided apart, the call ran at 0.64x the MPI alone. */
static bool close_keeps_own(path_use use) { return use == USE_FILE_WRITE; }

static const char *side_name(int side, path_use use)
{
    if (packs_itself(use) || file_access(use))
        return "call";
    if (use == USE_NONBLOCKING)
        return "epoch";
    return side == TRIAL_SEND ? "send" : "receive";
}

/* MEMCOMM_EXPLAIN=1: the lines' subject, a use's size class and its round of trials (0: a
 * decision taken without trials) */
static void explain_subject(char *what, size_t cap, path_use use, int size_class, int round)
{
    int len = snprintf(what, cap, "path of %s, %lld-%lld bytes", use_names[use],
                       1LL << size_class, (2LL << size_class) - 1);
    if (round > 0 && len > 0 && (size_t)len < cap)
        snprintf(what + len, cap - (size_t)len, ", round %d", round);
}

/* MEMCOMM_EXPLAIN=1: each path's usual times and the one chosen, so that a user (or we) can
 * see why a layout stays on the MPI's path. */
static void explain_decision(const size_class_state *s, path_use use, int size_class,
                             const char *instead)
{
    char text[1024];
    size_t len = 0;
    const bool one_pass = s->recorded < s->paths * trials_per_path(use); /* trials_decisive */
    for (int p = 0; p < s->paths; p++) {
        len += (size_t)snprintf(text + len, sizeof text - len, "%s:",
                                path_name(p, s->paths, use));
        for (int side = 0; side < TRIAL_SIDES; side++) {
            const double usual = trials_usual(s->trials, s->recorded, p, side);
            if (usual > 0 && len < sizeof text)
                len += (size_t)snprintf(text + len, sizeof text - len, " %s %.1f us (median)",
                                        side_name(side, use), usual * 1e6);
        }
        if (len < sizeof text)
            len += (size_t)snprintf(text + len, sizeof text - len, "\n");
    }
    if (len < sizeof text && instead)
        snprintf(text + len, sizeof text - len, "%s", instead);
    else if (len < sizeof text && s->earlier_recorded &&
             trials_decide(s->trials, s->recorded, s->paths) != s->decided)
        snprintf(text + len, sizeof text - len,
                 "chose %s (this round alone chose %s, the round before did not: a close "
                 "result the rounds disagree on keeps the MPI's own path)",
                 path_name(s->decided, s->paths, use),
                 path_name(trials_decide(s->trials, s->recorded, s->paths), s->paths, use));
    else if (len < sizeof text && close_keeps_own(use) &&
             trials_close(s->trials, s->recorded, s->paths))
        snprintf(text + len, sizeof text - len,
                 "chose %s (a write: a path within %.1fx of another is left to the MPI's own, "
                 "as a rank's times do not show what its writes cost the other ranks' writes "
                 "to the same file)",
                 path_name(s->decided, s->paths, use), TRIALS_CLOSE);
    else if (len < sizeof text && s->round + 1 >= SENDPATH_ROUNDS &&
             trials_close(s->trials, s->recorded, s->paths))
        snprintf(text + len, sizeof text - len,
                 "chose %s (the last round: a path within %.1fx of another is left to the MPI's "
                 "own, as nothing measures it again)",
                 path_name(s->decided, s->paths, use), TRIALS_CLOSE);
    else if (len < sizeof text && one_pass && s->decided == s->paths - 1)
        snprintf(text + len, sizeof text - len,
                 "chose %s after one block of trials of each path (the faster by %.0f%% or "
                 "more, at the median and the lower quartile: no second pass to leave it)",
                 path_name(s->decided, s->paths, use), (TRIALS_OWN_AHEAD - 1) * 100);
    else if (len < sizeof text && one_pass)
        snprintf(text + len, sizeof text - len,
                 "chose %s after one block of trials of each path (%.0fx as fast as every "
                 "other: no second pass)",
                 path_name(s->decided, s->paths, use), TRIALS_DECISIVE);
    else if (len < sizeof text)
        snprintf(text + len, sizeof text - len,
                 "chose %s (another path must beat the MPI's own by %.0f%% of the summed "
                 "medians, or by %.0f%% with its trials faster call by call)",
                 path_name(s->decided, s->paths, use), TRIALS_MARGIN * 100,
                 TRIALS_MARGIN_SEPARATED * 100);
    char what[96];
    explain_subject(what, sizeof what, use, size_class, s->round + 1);
    explain_lines_to_stderr(what, text);
}

/* A decided path's calls are sampled every SENDPATH_SAMPLE_EVERY-th, or less often where a
 * call is short: a sample costs two clock reads and the table's lock twice (about 400
 * instructions), which every 4th call of a 1 us message would pay as 3% of its time. */
static unsigned sample_every(double usual_seconds)
{
    unsigned every = SENDPATH_SAMPLE_EVERY;
    while (every < SENDPATH_SAMPLE_EVERY_MOST && every * usual_seconds < SENDPATH_SAMPLE_SPACING)
        every *= 2;
    return every;
}

/* The next check begins at the decided path's call `at` (0: none), `spacing` calls after the
 * last; none under way. */
static void schedule_check(size_class_state *s, unsigned at, unsigned spacing)
{
    s->checking = s->check_recorded = 0;
    s->confirming = false;
    s->check_spacing = spacing;
    atomic_store_explicit(&s->check_at, at, memory_order_relaxed);
}

static void measure_again(size_class_state *s)
{
    schedule_check(s, 0, 0);
    s->earlier_recorded = 0;
    s->next = s->recorded = 0;
    s->decided = UNDECIDED;
    s->round++;
}

/* a check's spacing, in calls, at most (its count must not wrap) */
#define CHECK_SPACING_MOST 1e8

/* The decided path's calls until its next check: enough that the check's two blocks of the
 * other path, `ahead` times as long as the decided path's, cost SENDPATH_CHECK_SHARE of
 * them, and at least `least` (SENDPATH_CHECK_FIRST blocks where 0). */
static unsigned check_spacing(path_use use, double ahead, double least)
{
    const double block = trial_block(use);
    double calls = 2 * block * (ahead - 1) / SENDPATH_CHECK_SHARE;
    if (!(least > 0))
        least = SENDPATH_CHECK_FIRST * block;
    calls = calls > least ? calls : least;
    return (unsigned)(calls < CHECK_SPACING_MOST ? calls : CHECK_SPACING_MOST);
}

/* How many times as long the path a decision is checked against (check_other) took as the
 * decided `path`, in `n` trials or checks (1 where they do not say). */
static double other_over_decided(const trial t[], int n, int paths, int path)
{
    if (path != paths - 1)
        return trials_own_over(t, n, paths, path);
    const double own_over = trials_own_over(t, n, paths, SEND_PACKED);
    return own_over > 0 ? 1 / own_over : 1;
}

/* Whether a decision of `use` for the MPI's own path is checked against packing: not
 * non-blocking calls' (their epochs watch the MPI's own path in their own way), nor a write's
 * (a close result there keeps the MPI's own path: close_keeps_own). */
static bool own_path_checked(path_use use)
{
    return use != USE_NONBLOCKING && !close_keeps_own(use);
}

/* `path` decided for `use`, with its usual time per side (0: none): its calls from now on
 * are sampled against it, unless not `watched` (the last round), and checked against the
 * other path (check_other) after `spacing` calls (0: never). */
static void settle(size_class_state *s, path_use use, int path, const double usual[TRIAL_SIDES],
                   bool watched, unsigned spacing)
{
    const bool checked = watched && (path != s->paths - 1 || own_path_checked(use));
    schedule_check(s, checked ? spacing : 0, spacing);
    s->strikes = 0;
    for (int side = 0; side < TRIAL_SIDES; side++) {
        s->usual[side] = usual[side];
        atomic_store_explicit(&s->sample_every[side],
                              watched && usual[side] > 0 ? sample_every(usual[side]) : 0,
                              memory_order_relaxed);
        s->sampled[side] = 0;
        atomic_store_explicit(&s->calls[side], 0, memory_order_relaxed);
    }
    atomic_store_explicit(&s->decided, path, memory_order_release);
}

/* All trials in: decide, and keep the decided path's usual times for the samples. A close
 * point-to-point decision for packing in the first round is measured again at once, both
 * paths warm (the MPI's own may take a dozen calls to reach its usual time: lib/base/trials.h),
 * and the two ends of an exchange that measured it close both run the round, together. A
 * first round the MPI's own path wins, cold as it was, is kept: measuring again would spend
 * a second round's packed trials for the choice the first made (Open MPI 4.1.4's receive of
 * a 295 KB x face, 310 us against 550-620 packed: one end measured again, and the 21
 * exchanges of a Fortran ping-pong ran 0.63x the MPI alone, the round unfinished). The last round's
 * decision is not sampled, so a close one there goes to the MPI's own path: one end measuring
 * again alone during a burst of noise (its samples slow 3 times in a row) found its MPICH
 * path of WRF's halo at 15.1 us against 13.3 packed, where both ends' usual was 9.9 against
 * 13.4, and would have kept the pair apart for good (28.2 us a round trip against 22.6). */
static void decide(size_class_state *s, path_use use, int size_class)
{
    const bool close = trials_close(s->trials, s->recorded, s->paths);
    if (two_ended(use) && s->round == 0 && close &&
        trials_decide(s->trials, s->recorded, s->paths) != s->paths - 1) {
        if (config_get()->explain) {
            char why[96];
            snprintf(why, sizeof why,
                     "within %.1fx of each other: measured again, both paths warm", TRIALS_CLOSE);
            explain_decision(s, use, size_class, why);
        }
        const int n = s->recorded;
        measure_again(s);
        memcpy(s->earlier, s->trials, sizeof(trial) * (size_t)n);
        s->earlier_recorded = n;
        return;
    }
    const int decided =
        (s->round + 1 >= SENDPATH_ROUNDS || close_keeps_own(use)) && close ? s->paths - 1
        : s->earlier_recorded ? trials_decide_again(s->earlier, s->earlier_recorded, s->trials,
                                                    s->recorded, s->paths)
                              : trials_decide(s->trials, s->recorded, s->paths);
    double usual[TRIAL_SIDES];
    for (int side = 0; side < TRIAL_SIDES; side++)
        usual[side] = trials_usual(s->trials, s->recorded, decided, side);
    settle(s, use, decided, usual, s->round + 1 < SENDPATH_ROUNDS,
           check_spacing(use, other_over_decided(s->trials, s->recorded, s->paths, decided), 0));
    stats_path_decided(s->decided == s->paths - 1);
    decisions_note(s->layout, use, size_class, s->paths, decided, s->usual);
    if (config_get()->explain)
        explain_decision(s, use, size_class, NULL);
}

static unsigned watch_after(const size_class_state *s);

/* A class of two paths whose plan expects the MPI's own path to win (plan_long_blocks: blocks
 * of 1 KiB or more, which the MPI's datatype engine copies as they are) and whose decision for
 * it is checked against packing (own_path_checked) starts on the MPI's own path, decided,
 * without trials: its first check, at SENDPATH_CHECK_FIRST blocks' worth of calls, is its
 * trials. A short run would pay for the trials' packed blocks and never for the check: a
 * Fortran ping-pong of 21 round trips of a y face of 192^3 doubles (blocks of 1.5 KiB), on
 * MPICH 4.0.2 and Open MPI 4.1.4, ran 0.92x the MPI alone with its trials (four packed turns)
 * and 0.95-1.00x with the path fixed to the MPI's own
 * (docs/results/0.1.0/2026-12-04-own-check). */
static bool decide_own_untried(size_class_state *s, path_use use, int size_class)
{
    if (!s->own_first || s->paths != 2 || s->decided != UNDECIDED || s->round > 0 ||
        !own_path_checked(use))
        return false;
    const double unknown[TRIAL_SIDES] = {0, 0}; /* no samples before the check measures */
    settle(s, use, s->paths - 1, unknown, true, check_spacing(use, 1, 0));
    if (config_get()->explain) {
        char text[256];
        snprintf(text, sizeof text,
                 "chose the MPI's own without trials (blocks of %d bytes or more on average, "
                 "which the MPI copies as they are); checked against packing after %u calls",
                 PLAN_LONG_BLOCK_BYTES, s->check_spacing);
        char what[96];
        explain_subject(what, sizeof what, use, size_class, 0);
        explain_lines_to_stderr(what, text);
    }
    return true;
}

/* A decision of a run before (MEMCOMM_DECISIONS) for a class just made: taken as if measured
 * now, with the usual times it was decided with, so its calls are sampled and a path that no
 * longer holds (3 samples in a row at twice its usual time) is measured again. */
static void adopt_saved(size_class_state *s, path_use use, int size_class)
{
    saved_decision d;
    if (!decisions_find(s->layout, use, size_class, &d))
        return;
    s->paths = d.paths;
    settle(s, use, d.path, d.usual, true, check_spacing(use, 1, 0));
    atomic_store_explicit(&s->epoch.watch_after, watch_after(s), memory_order_relaxed);
    stats_path_saved();
    if (config_get()->explain) {
        char text[256];
        snprintf(text, sizeof text,
                 "chose %s, as a run before decided (MEMCOMM_DECISIONS: usual send %.1f us, "
                 "receive %.1f us); no trials",
                 path_name(d.path, d.paths, use), d.usual[TRIAL_SEND] * 1e6,
                 d.usual[TRIAL_RECEIVE] * 1e6);
        char what[96];
        explain_subject(what, sizeof what, use, size_class, 0);
        explain_lines_to_stderr(what, text);
    }
}

/* MEMCOMM_EXPLAIN=1: why a close decision is measured again */
static void explain_overtaken(const size_class_state *s, path_use use, int size_class)
{
    char text[512];
    size_t len = 0;
    for (int side = 0; side < TRIAL_SIDES && len < sizeof text; side++) {
        const double own = trials_usual(s->trials, s->recorded, s->paths - 1, side);
        if (s->sampled[side] >= TRIALS_OVERTAKEN_SAMPLES && own > 0)
            len += (size_t)snprintf(
                text + len, sizeof text - len,
                "%s: %s %.1f us (median of the latest %d), %s %.1f us in the trials\n",
                side_name(side, use), path_name(s->decided, s->paths, use),
                trials_usual(s->samples[side], TRIALS_OVERTAKEN_SAMPLES, s->decided, side) * 1e6,
                TRIALS_OVERTAKEN_SAMPLES, path_name(s->paths - 1, s->paths, use), own * 1e6);
    }
    if (len < sizeof text)
        snprintf(text + len, sizeof text - len,
                 "the decision was close and its path fell behind the MPI's own: measured again");
    char what[96];
    explain_subject(what, sizeof what, use, size_class, s->round + 1);
    explain_lines_to_stderr(what, text);
}

/* A decided path's sampled call: slow several times in a row, or a close decision's path
 * behind the MPI's own over the latest samples, the trials run again. */
static void check_sample(size_class_state *s, path_use use, int size_class, int side,
                         double seconds)
{
    const double slower =
        two_ended(use) ? SENDPATH_SLOWER : SENDPATH_SLOWER_COLLECTIVE;
    s->samples[side][s->sampled[side]++ % TRIALS_OVERTAKEN_SAMPLES] =
        (trial){seconds, (unsigned char)side, (unsigned char)s->decided};
    trial latest[TRIAL_SIDES * TRIALS_OVERTAKEN_SAMPLES];
    int m = 0;
    for (int d = 0; d < TRIAL_SIDES; d++)
        for (int k = 0; k < s->sampled[d] && k < TRIALS_OVERTAKEN_SAMPLES; k++)
            latest[m++] = s->samples[d][k];
    if (trials_overtaken(s->trials, s->recorded, s->paths, s->decided, latest, m)) {
        if (config_get()->explain)
            explain_overtaken(s, use, size_class);
        measure_again(s);
    } else if (seconds <= slower * s->usual[side]) {
        s->strikes = 0;
    } else if (++s->strikes == SENDPATH_STRIKES) {
        measure_again(s);
    }
}

/* MEMCOMM_EXPLAIN=1: what a check found (`changes`: the other path faster) */
static void explain_check(const size_class_state *s, path_use use, int size_class, bool changes)
{
    const int decided = s->decided, other = check_other(s);
    const char *decided_name = path_name(decided, s->paths, use),
               *other_name = path_name(other, s->paths, use);
    char text[640];
    size_t len = 0;
    const int shown[2] = {other, decided};
    for (int k = 0; k < 2 && len < sizeof text; k++) {
        len += (size_t)snprintf(text + len, sizeof text - len, "%s:",
                                path_name(shown[k], s->paths, use));
        for (int side = 0; side < TRIAL_SIDES && len < sizeof text; side++) {
            const double usual = trials_usual(s->checks, s->check_recorded, shown[k], side);
            if (usual > 0)
                len += (size_t)snprintf(text + len, sizeof text - len, " %s %.1f us (median)",
                                        side_name(side, use), usual * 1e6);
        }
        if (len < sizeof text)
            len += (size_t)snprintf(text + len, sizeof text - len, "\n");
    }
    const double margin =
        (decided == s->paths - 1 ? TRIALS_MARGIN : TRIALS_HOLD_MARGIN) * 100;
    if (len < sizeof text && !changes)
        snprintf(text + len, sizeof text - len,
                 "checked against %s, not %.0f%% faster than %s at the median and the lower "
                 "quartile: %s kept",
                 other_name, margin, decided_name, decided_name);
    else if (len < sizeof text && !s->confirming)
        snprintf(text + len, sizeof text - len,
                 "checked against %s, %.0f%% or more faster than %s at the median and the "
                 "lower quartile: checked again at once, which finds it so only if the other "
                 "end checks too",
                 other_name, margin, decided_name);
    else if (len < sizeof text)
        snprintf(text + len, sizeof text - len,
                 "checked against %s, %.0f%% or more faster than %s at the median and the "
                 "lower quartile again: %s taken",
                 other_name, margin, decided_name, other_name);
    char what[96];
    explain_subject(what, sizeof what, use, size_class, s->round + 1);
    explain_lines_to_stderr(what, text);
}

/* Whether a check's blocks found the other path (check_other) faster than the decided one:
 * the MPI's own by TRIALS_HOLD_MARGIN where packing was decided (trials_holds), packing by
 * the trials' margins where the MPI's own was (trials_beats_own). Trials proved the decision,
 * so the check must prove it wrong. */
static bool check_finds_other_faster(const size_class_state *s)
{
    return s->decided == s->paths - 1
               ? trials_beats_own(s->checks, s->check_recorded, s->paths, check_other(s))
               : !trials_holds(s->checks, s->check_recorded, s->paths, s->decided);
}

/* All of a check's calls in: the decided path kept, checked again after twice the calls (or
 * more, at the difference the check measured); or, where the other path was found faster,
 * checked again at once, and the other path taken (with the check's times as its usual) if
 * that check finds it faster too. Each end of an exchange checks from its own times, and one
 * end changing alone would leave the two apart (one end packing into the other's MPI receive
 * ran 0.78-0.82x the MPI alone on Open MPI, too little for the samples to see): an end whose
 * first check found the other path faster and whose peer's did not times the other path in
 * its second against the peer's decided one, and keeps its own. A change is checked in turn,
 * no sooner than twice the calls this check came after, so that paths within noise of each
 * other cannot make checks come ever more often. */
static void conclude_check(size_class_state *s, path_use use, int size_class)
{
    const bool changes = check_finds_other_faster(s);
    const bool from_own = s->decided == s->paths - 1;
    if (!changes || s->confirming)
        stats_path_checked(from_own, changes);
    if (config_get()->explain)
        explain_check(s, use, size_class, changes);
    if (changes && !s->confirming) {
        s->confirming = true;
        s->checking = s->check_recorded = 0; /* check_at stays due */
        return;
    }
    if (!changes) {
        const unsigned spacing = check_spacing(
            use, other_over_decided(s->checks, s->check_recorded, s->paths, s->decided),
            2.0 * s->check_spacing);
        schedule_check(s, decided_calls(s) + spacing, spacing);
        return;
    }
    /* the check is now what the decision rests on (its usual times, the close watch) */
    const int taken = check_other(s);
    memcpy(s->trials, s->checks, sizeof(trial) * (size_t)s->check_recorded);
    s->recorded = s->check_recorded;
    s->earlier_recorded = 0;
    double usual[TRIAL_SIDES];
    for (int side = 0; side < TRIAL_SIDES; side++)
        usual[side] = trials_usual(s->trials, s->recorded, taken, side);
    const unsigned spacing =
        check_spacing(use, other_over_decided(s->trials, s->recorded, s->paths, taken),
                      2.0 * s->check_spacing);
    settle(s, use, taken, usual, true, spacing);
    decisions_note(s->layout, use, size_class, s->paths, taken, s->usual);
}

/* Under the table's lock: the time a call or an epoch chosen by choose_locked took. */
static void record_locked(size_class_state *s, const send_choice *c, double seconds)
{
    if (c->round != s->round) {
        /* timed for a round since ended */
    } else if (c->check) {
        if (s->decided != UNDECIDED && s->check_recorded < CHECK_BLOCKS * MAX_CHECK_BLOCK)
            s->checks[s->check_recorded++] =
                (trial){seconds, (unsigned char)c->side, (unsigned char)c->path};
        if (s->check_recorded == CHECK_BLOCKS * trial_block(c->use))
            conclude_check(s, c->use, c->size_class);
    } else if (c->trial >= 0) {
        s->trials[s->recorded++] =
            (trial){seconds, (unsigned char)c->side, (unsigned char)c->path};
        /* after the first pass, a decisive difference needs no second */
        const bool first_pass_in = s->recorded == s->paths * trial_block(c->use);
        if (s->recorded == s->paths * trials_per_path(c->use) ||
            (first_pass_in && trials_decisive(s->trials, s->recorded, s->paths)))
            decide(s, c->use, c->size_class);
    } else if (s->decided != UNDECIDED) {
        check_sample(s, c->use, c->size_class, c->side, seconds);
    }
}

void sendpath_record(analysis *a, const send_choice *c, double seconds)
{
    sendpath_table *t = atomic_load_explicit(&a->send_paths, memory_order_acquire);
    if (!c->timed || !t)
        return;
    pthread_mutex_lock(&t->lock);
    record_locked(t->classes[c->use][c->size_class], c, seconds); /* made by the choice */
    pthread_mutex_unlock(&t->lock);
}

/* ---- non-blocking epochs ---- */

_Atomic bool sendpath_epochs_timed;
_Atomic unsigned long sendpath_epoch_completions;

/* The MPI's own path, decided, is watched after this many of its calls (counted in
 * calls[TRIAL_SEND]); 0: never (the last round). Set with the decision, from the calls of the
 * epoch that ended the trials: about every SENDPATH_SAMPLE_EVERY_MOST-th epoch. */
static unsigned watch_after(const size_class_state *s)
{
    const unsigned calls = s->epoch.calls > 0 ? (unsigned)s->epoch.calls : 1;
    return s->sample_every[TRIAL_SEND] ? SENDPATH_SAMPLE_EVERY_MOST * calls : 0;
}

/* A call on the decided MPI's own path that is not watched, counted (a count that runs out
 * begins a watch: false). Threads' counts may race: a lost count only delays a watch. */
static bool own_path_unwatched(size_class_state *s)
{
    if (atomic_load_explicit(&s->decided, memory_order_acquire) != SEND_BY_MPI ||
        atomic_load_explicit(&s->epoch.watch, memory_order_relaxed) != WATCH_OFF)
        return false;
    const unsigned after = atomic_load_explicit(&s->epoch.watch_after, memory_order_relaxed);
    if (!after)
        return true;
    const unsigned calls = atomic_load_explicit(&s->calls[TRIAL_SEND], memory_order_relaxed) + 1;
    atomic_store_explicit(&s->calls[TRIAL_SEND], calls, memory_order_relaxed);
    return calls < after;
}

bool sendpath_epoch_class_passes(sendpath_class *s)
{
    return config_get()->send_path == CONFIG_SEND_MEASURE && s->paths == 2 &&
           own_path_unwatched(s);
}

/* A call that needs no lock: one in the current epoch (no completion call since the last
 * call), or on the decided MPI's own path while it is not watched. */
static bool epoch_path_at_once(size_class_state *s, unsigned long completions, int *path)
{
    epoch_state *e = &s->epoch;
    if (own_path_unwatched(s)) {
        *path = SEND_BY_MPI;
        return true;
    }
    if (atomic_load_explicit(&s->decided, memory_order_acquire) == SEND_BY_MPI &&
        atomic_load_explicit(&e->watch, memory_order_relaxed) == WATCH_OFF)
        return false; /* its count ran out: a watch begins */
    if (atomic_load_explicit(&e->seen, memory_order_acquire) != completions)
        return false;
    *path = atomic_load_explicit(&e->current, memory_order_relaxed);
    atomic_fetch_add_explicit(&e->calls_now, 1, memory_order_relaxed);
    return true;
}

/* Under the table's lock, at the first call after a completion call: the epoch before ends
 * (recorded if timed) and a new one begins, with its path (a trial, a packed path's sample,
 * a watch's timed epoch). */
static void next_epoch(size_class_state *s, int size_class, int undecided, double now)
{
    epoch_state *e = &s->epoch;
    e->calls = atomic_exchange_explicit(&e->calls_now, 0, memory_order_relaxed);
    const int was_decided = s->decided;
    if (e->began && e->path.timed)
        record_locked(s, &e->path, now - e->start);
    if (s->decided != was_decided)
        atomic_store_explicit(&e->watch_after, watch_after(s), memory_order_relaxed);
    send_choice c = {.path = undecided, .trial = -1, .size_class = size_class,
                     .use = USE_NONBLOCKING, .side = TRIAL_SEND};
    if (s->decided != SEND_BY_MPI)
        e->watch = WATCH_OFF;
    if (s->decided == SEND_BY_MPI) {
        /* watched: the epoch under way when the count ran out, then one timed whole */
        c.path = SEND_BY_MPI;
        c.timed = e->watch == WATCH_JOINING;
        e->watch = e->watch == WATCH_OFF ? WATCH_JOINING : c.timed ? WATCH_TIMING : WATCH_OFF;
        if (e->watch == WATCH_OFF)
            atomic_store_explicit(&s->calls[TRIAL_SEND], 0, memory_order_relaxed);
    } else if (s->decided != UNDECIDED && !next_is_sample(s, TRIAL_SEND)) {
        c.path = s->decided;
    } else { /* a packed path's sample, or a trial, whose warm-up takes `undecided` */
        choose_locked(s, &c, 2);
        if (c.trial >= 0 && warming_up(s, c.trial, USE_NONBLOCKING))
            c.path = undecided;
    }
    c.round = s->round;
    e->path = c;
    e->start = now;
    e->began = true;
    atomic_store_explicit(&e->current, c.path, memory_order_relaxed);
}

int sendpath_epoch_path(analysis *a, int64_t bytes, int undecided, sendpath_clock clock)
{
    sendpath_table *t;
    if (config_get()->send_path != CONFIG_SEND_MEASURE)
        return fixed_path(2);
    if (!(t = table_of(a)))
        return undecided;
    const int cls = size_class(bytes);
    const unsigned long completions =
        atomic_load_explicit(&sendpath_epoch_completions, memory_order_relaxed);
    size_class_state *s =
        atomic_load_explicit(&t->classes[USE_NONBLOCKING][cls], memory_order_acquire);
    int path;
    if (s && epoch_path_at_once(s, completions, &path))
        return path;
    pthread_mutex_lock(&t->lock);
    s = class_of(t, USE_NONBLOCKING, cls);
    path = undecided;
    if (s) {
        atomic_store_explicit(&sendpath_epochs_timed, true, memory_order_relaxed);
        epoch_state *e = &s->epoch;
        if (!e->began || atomic_load_explicit(&e->seen, memory_order_relaxed) != completions ||
            (s->decided == SEND_BY_MPI && e->watch == WATCH_OFF)) {
            next_epoch(s, cls, undecided, clock());
            atomic_store_explicit(&e->seen, completions, memory_order_release);
        }
        atomic_fetch_add_explicit(&e->calls_now, 1, memory_order_relaxed);
        path = e->path.path;
    }
    pthread_mutex_unlock(&t->lock);
    return path;
}

sendpath_class *sendpath_class_of(analysis *a, path_use use, int64_t bytes)
{
    sendpath_table *t = atomic_load_explicit(&a->send_paths, memory_order_acquire);
    return t ? atomic_load_explicit(&t->classes[use][size_class(bytes)], memory_order_acquire)
             : NULL;
}

bool sendpath_class_passes(sendpath_class *s, int paths, int side)
{
    return config_get()->send_path == CONFIG_SEND_MEASURE &&
           atomic_load_explicit(&s->decided, memory_order_acquire) == paths - 1 &&
           s->paths == paths && !next_is_sample(s, side);
}

bool sendpath_class_passes_unread(sendpath_class *s, int paths, int side)
{
    if (config_get()->send_path != CONFIG_SEND_MEASURE ||
        atomic_load_explicit(&s->decided, memory_order_acquire) != paths - 1 ||
        s->paths != paths || check_due(s))
        return false;
    atomic_fetch_add_explicit(&s->calls[side], 1, memory_order_relaxed);
    return true;
}

int sendpath_untimed(analysis *a, path_use use, int64_t bytes, int paths, int undecided)
{
    sendpath_table *t = atomic_load_explicit(&a->send_paths, memory_order_acquire);
    if (config_get()->send_path != CONFIG_SEND_MEASURE)
        return fixed_path(paths);
    if (!t)
        return undecided;
    size_class_state *s =
        atomic_load_explicit(&t->classes[use][size_class(bytes)], memory_order_acquire);
    const int decided =
        s ? atomic_load_explicit(&s->decided, memory_order_acquire) : UNDECIDED;
    return decided == UNDECIDED || decided >= paths ? undecided : decided;
}

void sendpath_free(analysis *a)
{
    sendpath_table *t = atomic_load(&a->send_paths);
    if (t) {
        for (int u = 0; u < PATH_USES; u++)
            for (int c = 0; c < SIZE_CLASSES; c++)
                free(t->classes[u][c]);
        pthread_mutex_destroy(&t->lock);
        free(t);
    }
}
