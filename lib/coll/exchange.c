#include "exchange.h"

#include <limits.h>
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "../base/forklock.h"
#include "../core/defects.h"
#include "../core/device.h"
#include "../core/sendpath.h"
#include "../core/stats.h"
#include "../core/typecache.h"
#include "../kernel/kernel.h"
#include "../plan/overlap.h"
#include "../p2p/bufpool.h"
#include "../p2p/message.h"

/* One side's blocks analysed: bytes per block, offsets in the staging buffer, the total. False
 * if a block is one memcomm cannot pack (or unpack exactly, `receive`), or, in a non-blocking
 * or persistent call (`scheduled`), one of a type of no bytes or of negative extent: Open MPI
 * 5.0's schedules of those calls send or receive a block only if its span in memory is
 * positive, which such a block's may not be while its packed bytes are, or the other way
 * round (the MPI alone then drops the block, or a typed send of no bytes meets no receive). */
static bool analyse_side(const coll_block *blocks, int peers, bool receive, bool scheduled,
                         analysis **types, int64_t *bytes, int64_t *offset, int64_t *total,
                         bool *worth, bool *packable)
{
    *total = 0;
    const bool gpu = device_runtime_loaded(); /* once a side, not a block */
    for (int i = 0; i < peers; i++) {
        const coll_block *b = &blocks[i];
        bytes[i] = 0;
        offset[i] = *total;
        if (b->count == 0)
            continue;
        analysis *a = typecache_acquire(b->type);
        types[i] = a;
        /* MPI_BOTTOM (NULL) only with a type of absolute addresses */
        if (!a || (!b->buf && !analysis_at_addresses(a)) ||
            (gpu && device_memory(analysis_data_at(a, b->buf))))
            return false;
        if (!a->supported ||
            (scheduled && (a->bounds.size == 0 || a->bounds.extent < 0)) ||
            __builtin_mul_overflow(b->count, a->bounds.size, &bytes[i]) ||
            __builtin_add_overflow(*total, bytes[i], total) || *total > INT_MAX ||
            (receive && !analysis_unpack_disjoint(a, b->count)))
            return false;
        if (bytes[i] > 0 && message_worth_packing(a, b->count))
            *worth = true;
        else /* a type nothing packs: the next call skips all this (message_passes) */
            message_mark_passing(b->type, a);
        if (bytes[i] > 0 && message_packable(a, b->count))
            *packable = true;
    }
    return true;
}

typedef struct {
    const char *lo, *hi;
    int block;
} span;

static int by_start(const void *x, const void *y)
{
    const span *a = x, *b = y;
    return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* The bytes block `b` (of analysed type `a`) may write. */
static span span_of(const coll_block *b, const analysis *a, int block)
{
    const decode_bounds *t = &a->bounds;
    const int64_t reach = (b->count - 1) * t->extent;
    const char *first = (const char *)b->buf + t->true_lb;
    return (span){first + (reach < 0 ? reach : 0), first + t->true_extent + (reach > 0 ? reach : 0),
                  block};
}

/* The receive blocks of a call, as the exact test below sees them: each non-empty block's
 * analysis, count and offset from the first one's buffer. */
enum { SHAPE_PEERS = 32, SHAPES = 8 };
typedef struct {
    int blocks;
    analysis *types[SHAPE_PEERS]; /* retained while the shape is kept */
    int64_t counts[SHAPE_PEERS], offsets[SHAPE_PEERS];
    bool disjoint;
} call_shape;

static call_shape shapes[SHAPES]; /* the last few shapes tested, round robin */
static int shapes_kept, shapes_next;
static pthread_mutex_t shapes_lock = PTHREAD_MUTEX_INITIALIZER;

void exchange_fork_lock(void) { pthread_mutex_lock(&shapes_lock); }

void exchange_fork_unlock(bool child) { forklock_release(&shapes_lock, child); }

/* False if the call has more blocks than a shape holds. */
static bool shape_of(const coll_block *recv, analysis *const *types, int peers, call_shape *c)
{
    c->blocks = 0;
    const char *origin = NULL;
    for (int i = 0; i < peers; i++) {
        if (recv[i].count <= 0 || types[i]->bounds.size <= 0)
            continue;
        if (c->blocks == SHAPE_PEERS)
            return false;
        origin = origin ? origin : recv[i].buf;
        c->types[c->blocks] = types[i];
        c->counts[c->blocks] = recv[i].count;
        c->offsets[c->blocks++] = (int64_t)((intptr_t)recv[i].buf - (intptr_t)origin);
    }
    return true;
}

static bool same_shape(const call_shape *x, const call_shape *y)
{
    return x->blocks == y->blocks &&
           !memcmp(x->types, y->types, sizeof x->types[0] * (size_t)x->blocks) &&
           !memcmp(x->counts, y->counts, sizeof x->counts[0] * (size_t)x->blocks) &&
           !memcmp(x->offsets, y->offsets, sizeof x->offsets[0] * (size_t)x->blocks);
}

/* Exactly, within lib/plan/overlap.c's budget: the blocks as one sequence of loops over
 * their types' trees, each at its offset, every run enumerated and sorted. */
static bool shape_disjoint(const call_shape *c)
{
    ir_arena arena;
    ir_arena_init(&arena, 1 << 16);
    const ir_node **items = ir_arena_alloc(&arena, sizeof *items * (size_t)c->blocks);
    bool built = items != NULL;
    for (int b = 0; b < c->blocks && built; b++)
        built = (items[b] = ir_loop(&arena, c->offsets[b], c->counts[b],
                                    c->types[b]->bounds.extent, c->types[b]->normal)) != NULL;
    const ir_node *all = built ? ir_seq(&arena, 0, c->blocks, items) : NULL;
    const bool disjoint = all && overlap_instance_disjoint(all);
    ir_arena_free(&arena);
    return disjoint;
}

/* Blocks whose bounding spans interleave (a halo's ghost faces, subarrays of one array)
 * tested exactly. A halo of 256^3 has 131,072 runs to sort, more work than the call, so the
 * answer is kept per call shape, with the shape's analyses retained so that a freed type's
 * address cannot stand for another (at most SHAPES shapes: bounded memory). */
static bool interleaved_disjoint(const coll_block *recv, analysis *const *types, int peers)
{
    call_shape c;
    if (!shape_of(recv, types, peers, &c))
        return false;
    pthread_mutex_lock(&shapes_lock);
    for (int k = 0; k < shapes_kept; k++)
        if (same_shape(&shapes[k], &c)) {
            const bool disjoint = shapes[k].disjoint;
            pthread_mutex_unlock(&shapes_lock);
            return disjoint;
        }
    pthread_mutex_unlock(&shapes_lock);
    c.disjoint = shape_disjoint(&c); /* unlocked: two threads may both work it out */
    for (int b = 0; b < c.blocks; b++)
        analysis_retain(c.types[b]);
    pthread_mutex_lock(&shapes_lock);
    call_shape old = {0};
    if (shapes_kept == SHAPES)
        old = shapes[shapes_next];
    else
        shapes_kept++;
    shapes[shapes_next] = c;
    shapes_next = (shapes_next + 1) % SHAPES;
    pthread_mutex_unlock(&shapes_lock);
    for (int b = 0; b < old.blocks; b++)
        analysis_release(old.types[b]);
    return c.disjoint;
}

/* Whether no two receive blocks write the same byte. Blocks whose spans do not meet are
 * disjoint; blocks that interleave (Alltoall of a transpose's columns: each peer's block
 * starts one column after the last) are disjoint if they are all of one type and together
 * are one run of consecutive instances, which a single unpack of the total count writes;
 * others are tested exactly (interleaved_disjoint). */
static bool receives_disjoint(const coll_block *recv, analysis *const *types, int peers)
{
    span *spans = mc_malloc((size_t)peers * sizeof *spans);
    if (!spans)
        return false;
    int n = 0;
    for (int i = 0; i < peers; i++)
        if (recv[i].count > 0 && types[i]->bounds.size > 0)
            spans[n++] = span_of(&recv[i], types[i], i);
    qsort(spans, (size_t)n, sizeof *spans, by_start);
    bool apart = true;
    for (int k = 1; k < n && apart; k++)
        apart = spans[k].lo >= spans[k - 1].hi;
    if (apart) {
        free(spans);
        return true;
    }
    /* one run: the same analysis, each block where the instances before it end */
    analysis *a = types[spans[0].block];
    const char *next = recv[spans[0].block].buf;
    int64_t total = 0;
    bool run = a->bounds.extent > 0;
    for (int k = 0; k < n && run; k++) {
        const coll_block *b = &recv[spans[k].block];
        run = types[spans[k].block] == a && b->buf == next;
        next += b->count * a->bounds.extent;
        total += b->count;
    }
    free(spans);
    return (run && analysis_unpack_disjoint(a, total)) || interleaved_disjoint(recv, types, peers);
}

static void give_back(exchange *x)
{
    for (int i = 0; i < 2 * x->peers; i++)
        analysis_release(x->types[i]);
    bufpool_give(x->send_staging);
    bufpool_give(x->recv_staging);
    bufpool_give(x->self_staging);
    if (x->entry)
        requests_unreserve(x->entry);
    free(x); /* one allocation holds it and every per-peer array */
}

/* A blocking call handed to the MPI unchanged because its path is decided as the MPI's own,
 * kept (one per use) so that the same call again asks the path choice alone: its blocks are
 * not analysed again, nor its receive blocks tested for overlap. That took 2 us a call for a
 * halo's 12 types, 5% of Open MPI's Neighbor_alltoallw of 64^3 doubles (0.95x of the call
 * without memcomm; Intel Xeon VM, 2026-11-27). The same call: the same blocks (buffers,
 * counts, type handles) and form, and no cached type freed since (a handle then may name
 * another type). The path choice is still asked, so that every sample it takes of the
 * decided path is taken (lib/core/sendpath.h). */
enum { KEPT_PEERS = 16 };
typedef struct {
    int peers;
    exchange_form form;
    coll_block send[KEPT_PEERS], recv[KEPT_PEERS];
    uint64_t generation;
    analysis *key; /* retained while kept; NULL: nothing kept */
    int64_t bytes;
    int paths;
} unchanged_call;

static unchanged_call kept_calls[PATH_USES]; /* under shapes_lock */

static bool same_form(const exchange_form *a, const exchange_form *b)
{
    return a->rank == b->rank && a->uniform == b->uniform && a->use == b->use &&
           a->large_counts == b->large_counts && a->aint_displs == b->aint_displs &&
           a->by_element == b->by_element && a->in_place == b->in_place && a->kind == b->kind;
}

static bool same_blocks(const coll_block *kept, const coll_block *blocks, int peers)
{
    for (int i = 0; i < peers; i++) {
        const coll_block b = blocks ? blocks[i] : (coll_block){NULL, 0, MPI_DATATYPE_NULL};
        if (kept[i].buf != b.buf || kept[i].count != b.count || kept[i].type != b.type)
            return false;
    }
    return true;
}

/* The call kept for this one, if it is the same: its key (retained), bytes and paths. */
static bool kept_call(int peers, const coll_block *send, const coll_block *recv,
                      const exchange_form *form, unchanged_call *out)
{
    if (form->kind != EXCHANGE_BLOCKING || peers > KEPT_PEERS)
        return false;
    pthread_mutex_lock(&shapes_lock);
    const unchanged_call *k = &kept_calls[form->use];
    const bool same = k->key && k->peers == peers && same_form(&k->form, form) &&
                      k->generation == typecache_generation() &&
                      same_blocks(k->send, send, peers) && same_blocks(k->recv, recv, peers);
    if (same) {
        *out = *k;
        analysis_retain(out->key);
    }
    pthread_mutex_unlock(&shapes_lock);
    return same;
}

static void keep_call(const exchange *x, const exchange_form *form, int64_t bytes, int paths)
{
    if (form->kind != EXCHANGE_BLOCKING || x->peers > KEPT_PEERS)
        return;
    unchanged_call c = {.peers = x->peers, .form = *form, .key = x->key, .bytes = bytes,
                        .paths = paths, .generation = typecache_generation()};
    memcpy(c.send, x->send, sizeof *x->send * (size_t)x->peers);
    memcpy(c.recv, x->recv, sizeof *x->recv * (size_t)x->peers);
    analysis_retain(c.key);
    pthread_mutex_lock(&shapes_lock);
    analysis *old = kept_calls[form->use].key;
    kept_calls[form->use] = c;
    pthread_mutex_unlock(&shapes_lock);
    analysis_release(old);
}

_Static_assert(sizeof(MPI_Count) == 8 && sizeof(MPI_Aint) == 8, "argument arrays of 8 bytes");

/* The analysis of a side's first non-empty block: in the calls that count by element, the
 * side's one type. NULL if the side is empty. */
static analysis *element_of(analysis *const *types, int peers)
{
    for (int i = 0; i < peers; i++)
        if (types[i])
            return types[i];
    return NULL;
}

/* The type a packed side's blocks go as: MPI_PACKED, or the stand-in of the side's type;
 * MPI_DATATYPE_NULL if none could be made. */
static MPI_Datatype packed_type(analysis *element, bool by_element)
{
    if (!by_element)
        return MPI_PACKED;
    return element ? analysis_stand_in(element) : MPI_DATATYPE_NULL;
}

/* Entry `i` of one of the MPI's argument arrays: int64 (MPI_Count, MPI_Aint) when `wide`,
 * else int (every value fits one: see above). */
static void put_argument(void *array, int i, bool wide, int64_t value)
{
    if (wide)
        ((int64_t *)array)[i] = value;
    else
        ((int *)array)[i] = (int)value;
}

/* Where a block of one run of memory (message_one_run) starts. */
static char *run_start(const coll_block *b, const analysis *a)
{
    return (char *)b->buf + a->plan.strided.off;
}

/* The counts and offsets as the MPI's argument arrays (all fit an int: see above): int or
 * MPI_Count counts, int or MPI_Aint displacements, as the call's form takes them, in bytes or
 * in elements of the stand-ins. False if a stand-in could not be made. */
static bool fill_arguments(exchange *x, const exchange_form *form)
{
    const int n = x->peers;
    analysis *element[2] = {element_of(x->types, n), element_of(x->types + n, n)};
    const MPI_Datatype send_type = packed_type(element[0], form->by_element),
                       recv_type = packed_type(element[1], form->by_element);
    if ((x->send_packed && send_type == MPI_DATATYPE_NULL) ||
        (x->recv_packed && recv_type == MPI_DATATYPE_NULL))
        return false;
    const int64_t *from[4] = {x->send_bytes, x->send_offset, x->recv_bytes, x->recv_offset};
    void *to[4] = {x->send_counts, x->send_displs, x->recv_counts, x->recv_displs};
    const bool packed[2] = {x->send_packed, x->recv_packed};
    const coll_block *user[2] = {x->send, x->recv};
    for (int k = 0; k < 4; k++) {
        const bool wide = k % 2 == 0 ? form->large_counts : form->aint_displs;
        const analysis *a = element[k / 2];
        /* a side the MPI gets as the user gave it needs only its counts, the own block's
         * zeroed, and only when memcomm copies that block itself */
        if (!packed[k / 2] && (k % 2 == 1 || x->self < 0))
            continue;
        for (int i = 0; i < n; i++) {
            int64_t value = x->self == i && k % 2 == 0 ? 0
                            : packed[k / 2]        ? from[k][i]
                                                   : user[k / 2][i].count;
            if (form->by_element && packed[k / 2]) /* whole elements: every block a multiple */
                value = a && a->bounds.size > 0 ? value / a->bounds.size : 0;
            put_argument(to[k], i, wide, value);
        }
    }
    for (int i = 0; i < n; i++) {
        x->send_types[i] = send_type;
        x->recv_types[i] = recv_type;
    }
    return true;
}

/* The lowest run of a side the MPI would get as the user gave it, if the side can go as its
 * runs in place: every block but the own one (`skip`) empty or one run of memory, the runs'
 * starts within reach of the form's displacements from the lowest; else NULL. */
static char *side_runs(const coll_block *blocks, analysis *const *types, const int64_t *bytes,
                       int peers, int skip, bool wide_displs)
{
    char *lo = NULL, *hi = NULL;
    for (int i = 0; i < peers; i++) {
        if (bytes[i] == 0 || i == skip)
            continue;
        if (!message_one_run(types[i], blocks[i].count))
            return NULL;
        char *run = run_start(&blocks[i], types[i]);
        lo = !lo || run < lo ? run : lo;
        hi = !hi || run > hi ? run : hi;
    }
    return lo && (wide_displs || hi - lo <= INT_MAX) ? lo : NULL;
}

/* A side in runs as the MPI's argument arrays: bytes, offsets from the lowest run, and
 * MPI_PACKED for each peer (the own block's count 0). */
static void fill_runs(exchange *x, const exchange_form *form, bool send)
{
    const coll_block *blocks = send ? x->send : x->recv;
    analysis *const *types = send ? x->types : x->types + x->peers;
    const int64_t *bytes = send ? x->send_bytes : x->recv_bytes;
    void *counts = send ? x->send_counts : x->recv_counts,
         *displs = send ? x->send_displs : x->recv_displs;
    MPI_Datatype *sent_as = send ? x->send_types : x->recv_types;
    const char *lowest = send ? x->send_runs : x->recv_runs;
    for (int i = 0; i < x->peers; i++) {
        const bool moved = bytes[i] > 0 && i != x->self;
        put_argument(counts, i, form->large_counts, moved ? bytes[i] : 0);
        put_argument(displs, i, form->aint_displs,
                     moved ? run_start(&blocks[i], types[i]) - lowest : 0);
        sent_as[i] = MPI_PACKED;
    }
}

/* Pack side `blocks` (analysed in `types`) into `staging` of `total` bytes, at each block's
 * offset; `skip` is a peer not to pack (-1: none). */
static void pack_side(const coll_block *blocks, analysis *const *types, const int64_t *bytes,
                      const int64_t *offset, int peers, int skip, char *staging, int64_t total)
{
    for (int i = 0; i < peers; i++)
        if (bytes[i] > 0 && i != skip)
            kernel_pack_staging(&types[i]->plan, blocks[i].buf, blocks[i].count,
                                staging + offset[i], total);
}

/* Whether the block the rank sends itself goes straight between its blocks (one of them is
 * one run of memory), or through a buffer of its packed bytes (x->self_staging). */
static bool self_direct(const exchange *x)
{
    return message_one_run(x->types[x->self], x->send[x->self].count) ||
           message_one_run(x->types[x->peers + x->self], x->recv[x->self].count);
}

/* The block the rank sends itself, from its send block straight into its receive block:
 * packed into the receive block when that is one run of memory (an FFT's slab), unpacked from
 * the send block when that is, else through x->self_staging (self_direct). One copy where
 * the MPI's call (MPICH 5: a typed copy at a quarter of memcpy's speed on 512^3 slabs, a
 * throwaway program, not kept) or packing it into the staging and out again would make two. */
static void copy_self(exchange *x)
{
    const coll_block *from = &x->send[x->self], *to = &x->recv[x->self];
    analysis *sent = x->types[x->self], *received = x->types[x->peers + x->self];
    if (x->self_staging) {
        sent->plan.pack(&sent->plan, from->buf, from->count, x->self_staging);
        received->plan.unpack(&received->plan, to->buf, to->count, x->self_staging);
    } else if (message_one_run(received, to->count)) {
        sent->plan.pack(&sent->plan, from->buf, from->count, run_start(to, received));
    } else {
        received->plan.unpack(&received->plan, to->buf, to->count, run_start(from, sent));
    }
    stats_handled(x->send_bytes[x->self]);
}

/* Pack what the MPI reads from the staging buffers, the packed send side and MPI_IN_PLACE's
 * block, and copy the block the rank sends itself. */
static void exchange_pack(exchange *x)
{
    const int peers = x->peers;
    if (x->send_packed) {
        pack_side(x->send, x->types, x->send_bytes, x->send_offset, peers, x->self,
                  x->send_staging, x->send_total);
        stats_handled(x->send_total);
    }
    if (x->self >= 0)
        copy_self(x);
    const int own = x->in_place;
    if (x->recv_packed && own >= 0 && own < peers && x->recv_bytes[own] > 0) {
        /* the MPI reads it from the staging */
        kernel_pack_staging(&x->types[peers + own]->plan, x->recv[own].buf, x->recv[own].count,
                            x->recv_staging + x->recv_offset[own], x->recv_bytes[own]);
        stats_handled(x->recv_bytes[own]);
    }
}

/* Which sides a path packs. */
typedef struct {
    bool send, recv;
} sides;

/* The sides packed when the blocks that `pack` says are worth it are packed. The rank's own
 * block must not go from MPI_PACKED into the user's type: MPICH 5.0.2 fails that
 * self-message for some types ("signature does not match") where the same bytes from another
 * rank arrive; the other way round is safe. So while the own block goes through the MPI
 * (`self_through_mpi`), a packed send side packs the receive side too, or is not packed. */
static sides packed_sides(bool send_usable, bool recv_usable, bool self_through_mpi,
                          bool send_worth, bool recv_worth)
{
    sides s;
    s.send = send_usable && send_worth && (!self_through_mpi || recv_usable);
    s.recv = recv_usable && (recv_worth || (s.send && self_through_mpi));
    return s;
}

/* The analysis of the block with the most bytes among the sides `packed` packs: what the
 * path choice is keyed by. */
static analysis *heaviest(const exchange *x, sides packed)
{
    analysis *key = NULL;
    int64_t most = 0;
    for (int i = 0; i < 2 * x->peers; i++) {
        const bool sent = i < x->peers;
        const int64_t bytes = sent ? x->send_bytes[i] : x->recv_bytes[i - x->peers];
        if ((sent ? packed.send : packed.recv) && bytes > most) {
            most = bytes;
            key = x->types[i];
        }
    }
    return key;
}

/* Whether a choice leaves the call to the MPI unchanged: its own path, neither a trial nor
 * a sample. */
static bool unchanged_choice(const send_choice *c, int paths)
{
    return c->path == paths - 1 && c->trial < 0 && !c->timed;
}

/* The path, by measurement (lib/core/sendpath.h) among: packing the sides with short blocks
 * (what point-to-point would pack), packing every side with any gap (long blocks too: the
 * MPI's collectives copy those slowly on some sizes), and the MPI's own path; the ones that
 * pack something, once each. Sets the sides packed; false if there is nothing to choose or
 * the MPI's path is decided (a blocking call's timed trial or sample of it is carried with
 * no side packed, to be timed when the call returns). */
static bool choose_path(exchange *x, const exchange_form *form, sides short_blocks,
                        sides any_gap, int64_t send_total, int64_t recv_total,
                        const unchanged_call *kept, const send_choice *kept_choice)
{
    sides paths[SENDPATH_MAX_PATHS];
    int n = 0;
    if (short_blocks.send || short_blocks.recv)
        paths[n++] = short_blocks;
    if ((any_gap.send || any_gap.recv) &&
        (n == 0 || any_gap.send != short_blocks.send || any_gap.recv != short_blocks.recv))
        paths[n++] = any_gap;
    if (n == 0)
        return false;
    paths[n++] = (sides){false, false}; /* the MPI's own */
    x->key = heaviest(x, paths[0]);     /* the same key whichever path this call takes */
    const int64_t bytes = send_total + recv_total;
    if (kept && kept->key == x->key && kept->bytes == bytes && kept->paths == n)
        x->choice = *kept_choice; /* asked already, for the same key */
    else if (form->kind == EXCHANGE_BLOCKING)
        x->choice = sendpath_choose(x->key, form->use, bytes, n, TRIAL_SEND);
    else
        x->choice = (send_choice){.path = sendpath_untimed(x->key, form->use, bytes, n, 0),
                                  .trial = -1, .use = form->use, .side = TRIAL_SEND};
    x->send_packed = paths[x->choice.path].send;
    x->recv_packed = paths[x->choice.path].recv;
    if (!unchanged_choice(&x->choice, n))
        return true;
    keep_call(x, form, bytes, n);
    return false;
}

static exchange *start(int peers, const coll_block *send, const coll_block *recv,
                       const exchange_form *form, const unchanged_call *kept,
                       const send_choice *kept_choice);

/* A kept call's sample (or trial) of the MPI's own path: the user's arguments, timed, with
 * the key for the record (its reference, given back with the exchange); nothing analysed. */
static exchange *timed_unchanged(const unchanged_call *kept, const send_choice *choice)
{
    exchange *x = mc_calloc(1, sizeof *x + sizeof(analysis *) * 2);
    if (!x)
        return NULL;
    *x = (exchange){.peers = 1, .kind = EXCHANGE_BLOCKING, .self = -1, .in_place = -1,
                    .key = kept->key, .choice = *choice};
    x->types = (analysis **)(x + 1);
    x->types[0] = kept->key; /* released by give_back */
    return x;
}

exchange *exchange_start(int peers, const coll_block *send, const coll_block *recv,
                         const exchange_form *form)
{
    if (peers <= 0 || (form->kind == EXCHANGE_PERSISTENT && defects_persistent_collectives()))
        return NULL;
    unchanged_call kept;
    if (!kept_call(peers, send, recv, form, &kept))
        return start(peers, send, recv, form, NULL, NULL);
    const send_choice choice = sendpath_choose(kept.key, form->use, kept.bytes, kept.paths,
                                               TRIAL_SEND);
    if (unchanged_choice(&choice, kept.paths)) {
        analysis_release(kept.key);
        return NULL;
    }
    if (choice.path == kept.paths - 1) { /* a sample: the key's reference goes with it */
        exchange *x = timed_unchanged(&kept, &choice);
        if (!x)
            analysis_release(kept.key);
        return x;
    }
    exchange *x = start(peers, send, recv, form, &kept, &choice);
    analysis_release(kept.key);
    return x;
}

/* The call analysed; `kept`: the same call was kept, and `kept_choice` asked for it. */
static exchange *start(int peers, const coll_block *send, const coll_block *recv,
                       const exchange_form *form, const unchanged_call *kept,
                       const send_choice *kept_choice)
{
    const size_t n = (size_t)peers, each = sizeof(int64_t); /* an int array uses half */
    const int rank = form->rank;
    /* one allocation for the exchange and every per-peer array */
    exchange *x = mc_calloc(1, sizeof *x + n * (2 * sizeof(analysis *) + 4 * sizeof(int64_t) +
                                                2 * sizeof(coll_block) + 4 * each +
                                                2 * sizeof(MPI_Datatype)));
    if (!x)
        return NULL;
    *x = (exchange){.peers = peers, .kind = form->kind, .in_place = form->in_place};
    x->types = (analysis **)(x + 1);
    x->send_bytes = (int64_t *)(x->types + 2 * n);
    x->send_offset = x->send_bytes + n;
    x->recv_bytes = x->send_offset + n;
    x->recv_offset = x->recv_bytes + n;
    x->send = (coll_block *)(x->recv_offset + n);
    x->recv = x->send + n;
    x->send_counts = x->recv + n;
    x->send_displs = (char *)x->send_counts + n * each;
    x->recv_counts = (char *)x->send_displs + n * each;
    x->recv_displs = (char *)x->recv_counts + n * each;
    x->send_types = (MPI_Datatype *)((char *)x->recv_displs + n * each);
    x->recv_types = x->send_types + n;
    int64_t send_total = 0, recv_total = 0;
    bool send_worth = false, recv_worth = false;
    static const coll_block none = {NULL, 0, MPI_DATATYPE_NULL};
    bool valid = true; /* a negative count: the MPI's error, for the call as it was made */
    for (int i = 0; i < peers; i++) {
        x->send[i] = send ? send[i] : none;
        x->recv[i] = recv ? recv[i] : none;
        valid = valid && x->recv[i].count >= 0 && x->send[i].count >= 0;
    }
    if (!valid) {
        free(x);
        return NULL;
    }
    bool send_packable = false, recv_packable = false;
    const bool scheduled = form->kind != EXCHANGE_BLOCKING;
    const bool send_usable =
        send && analyse_side(send, peers, false, scheduled, x->types, x->send_bytes,
                             x->send_offset, &send_total, &send_worth, &send_packable);
    const bool recv_usable = analyse_side(x->recv, peers, true, scheduled, x->types + n,
                                          x->recv_bytes, x->recv_offset, &recv_total,
                                          &recv_worth, &recv_packable) &&
                             receives_disjoint(x->recv, x->types + n, peers);
    /* a block the MPI delivers from the caller to itself (MPI_IN_PLACE's is not moved) */
    bool self_received = rank >= 0 && rank < peers && rank != form->in_place &&
                         x->recv[rank].count > 0;
    for (int i = 0; rank == EXCHANGE_SELF_UNKNOWN && i < peers; i++)
        self_received = self_received || x->recv[i].count > 0;
    /* the block a rank sends itself, copied by memcomm from its send block to its receive
     * block (copy_self) on every path that packs, and left out of the MPI's call, when both
     * are memcomm's to move and agree on its size */
    const bool self_copied = !form->uniform && !form->by_element && rank >= 0 &&
                             self_received && send_usable && recv_usable &&
                             x->send_bytes[rank] > 0 &&
                             x->send_bytes[rank] == x->recv_bytes[rank];
    const bool self_through_mpi = self_received && !self_copied;
    if (!choose_path(x, form,
                     packed_sides(send_usable, recv_usable, self_through_mpi, send_worth,
                                  recv_worth),
                     packed_sides(send_usable, recv_usable, self_through_mpi, send_packable,
                                  recv_packable),
                     send_total, recv_total, kept, kept_choice)) {
        give_back(x);
        return NULL;
    }
    x->self = self_copied && (x->send_packed || x->recv_packed) ? rank : -1; /* not the MPI's */
    if (x->self >= 0) { /* close the gaps it leaves in the staging */
        const int64_t bytes = x->send_bytes[x->self];
        send_total -= x->send_packed ? bytes : 0;
        recv_total -= x->recv_packed ? bytes : 0;
        for (int i = x->self + 1; i < peers; i++) {
            x->send_offset[i] -= bytes;
            x->recv_offset[i] -= bytes;
        }
        if (!self_direct(x) && !(x->self_staging = bufpool_take(bytes))) {
            give_back(x);
            return NULL;
        }
    }
    if (!form->uniform && !form->by_element && x->send_packed != x->recv_packed) {
        if (x->recv_packed && send_usable)
            x->send_runs = side_runs(x->send, x->types, x->send_bytes, peers, x->self,
                                     form->aint_displs);
        else if (x->send_packed && recv_usable)
            x->recv_runs = side_runs(x->recv, x->types + n, x->recv_bytes, peers, x->self,
                                     form->aint_displs);
    }
    if (x->send_packed) /* never NULL: MPICH checks that it differs from the receive buffer */
        x->send_staging = bufpool_take(send_total > 0 ? send_total : 1);
    if (x->recv_packed)
        x->recv_staging = bufpool_take(recv_total > 0 ? recv_total : 1);
    /* a request's entry is reserved now: once the MPI started it, memcomm must finish it */
    if (form->kind != EXCHANGE_BLOCKING)
        x->entry = requests_reserve();
    if ((x->send_packed && !x->send_staging) || (x->recv_packed && !x->recv_staging) ||
        (form->kind != EXCHANGE_BLOCKING && !x->entry) || !fill_arguments(x, form)) {
        give_back(x);
        return NULL;
    }
    if (x->send_runs || x->recv_runs)
        fill_runs(x, form, x->send_runs != NULL);
    x->send_total = send_total;
    if (form->kind != EXCHANGE_PERSISTENT) /* a persistent call packs at each start */
        exchange_pack(x);
    return x;
}

/* Unpack what arrived, if the MPI's call (or request) succeeded. */
static void unpack_received(exchange *x, int rc)
{
    int64_t unpacked = 0;
    for (int i = 0; rc == MPI_SUCCESS && x->recv_packed && i < x->peers; i++) {
        if (x->recv_bytes[i] == 0 || i == x->in_place || i == x->self) /* the caller's data, */
            continue;                                                /* or copied already */
        const plan *p = &x->types[x->peers + i]->plan;
        p->unpack(p, x->recv[i].buf, x->recv[i].count, x->recv_staging + x->recv_offset[i]);
        unpacked += x->recv_bytes[i];
    }
    if (unpacked > 0)
        stats_handled(unpacked);
}

/* An exchange as a request of another kind (lib/p2p/requests.h). */
static void start_work(void *work) { exchange_pack(work); }
static void deliver_work(void *work, int rc) { unpack_received(work, rc); }
static void drop_work(void *work) { give_back(work); }
static const carried_work exchange_work = {start_work, deliver_work, drop_work};

int exchange_called(exchange *x, int rc, double start, const MPI_Request *request)
{
    if (x->kind == EXCHANGE_BLOCKING) {
        unpack_received(x, rc);
        if (x->choice.timed && rc == MPI_SUCCESS)
            sendpath_record(x->key, &x->choice, PMPI_Wtime() - start);
        give_back(x);
    } else if (rc != MPI_SUCCESS) {
        give_back(x);
    } else {
        request_entry *entry = x->entry;
        x->entry = NULL; /* the table's now */
        const carried_request c = {.persistent = x->kind == EXCHANGE_PERSISTENT,
                                   .work_ops = &exchange_work,
                                   .work = x};
        requests_add(entry, *request, &c);
    }
    return rc;
}
