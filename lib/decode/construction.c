#include "construction.h"

#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "contents.h"

enum { MAX_DEPTH = 64 };

static bool move_to_heap(construction *c, size_t cap)
{
    unsigned char *heap = c->borrowed ? mc_malloc(cap) : mc_realloc(c->bytes, cap);
    if (!heap)
        return false;
    if (c->borrowed)
        memcpy(heap, c->bytes, c->len);
    c->bytes = heap;
    c->cap = cap;
    c->borrowed = false;
    return true;
}

static bool append(construction *c, const void *data, size_t len)
{
    if (len > CONSTRUCTION_MAX_BYTES - c->len)
        return false;
    if (c->len + len > c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap < c->len + len)
            cap *= 2;
        if (!move_to_heap(c, cap))
            return false;
    }
    memcpy(c->bytes + c->len, data, len);
    c->len += len;
    return true;
}

/* `combiner` is set once the type's envelope is read: the caller frees a part it got from
 * MPI_Type_get_contents without asking the MPI again what it is. */
static bool describe(MPI_Datatype type, construction *c, int depth, int *combiner)
{
    contents k;
    if (depth > MAX_DEPTH || !contents_fetch(type, &k))
        return false;
    *combiner = k.combiner;
    if (!contents_is_constructed(k.combiner)) { /* predefined: its handle names it */
        uint64_t handle = 0;
        memcpy(&handle, &type, sizeof type < sizeof handle ? sizeof type : sizeof handle);
        const int64_t named[2] = {k.combiner, (int64_t)handle};
        return append(c, named, sizeof named);
    }
    bool ok = true;
    if (k.combiner != MPI_COMBINER_DUP) { /* a dup is its original */
        const int64_t header[5] = {k.combiner, k.ni, k.na, k.nc, k.nd};
        ok = append(c, header, sizeof header) &&
             append(c, k.ints, sizeof *k.ints * (size_t)k.ni) &&
             append(c, k.addrs, sizeof *k.addrs * (size_t)k.na) &&
             append(c, k.counts, sizeof *k.counts * (size_t)k.nc);
    }
    for (int64_t i = 0; i < k.nd && ok; i++) {
        int part = MPI_UNDEFINED;
        ok = describe(k.types[i], c, depth + 1, &part);
        if (part == MPI_UNDEFINED)
            continue; /* unknown: contents_release asks */
        if (contents_is_constructed(part))
            PMPI_Type_free(&k.types[i]);
        k.types[i] = MPI_DATATYPE_NULL;
    }
    contents_release(&k);
    return ok;
}

/* A hash of the description, 32 bytes a step in four independent lanes: the description of
 * an indexed type of 16,384 blocks is about 200 KB, which a byte at a time (FNV-1a, one
 * multiply's latency per byte) took about 0.3 ms to hash, 2-3% of an exchange phase of
 * ddtbench's LAMMPS layout that re-creates its type every 20 round trips. Equal hashes are
 * compared byte by byte (constructions.c), so the hash only has to spread. */
uint64_t construction_hash(const void *data, size_t len)
{
    const unsigned char *bytes = data;
    const uint64_t odd = 0x9E3779B97F4A7C15ull;
    uint64_t lane[4] = {len, odd, odd * 3, odd * 5}, word;
    size_t i = 0;
    for (; i + 32 <= len; i += 32)
        for (int k = 0; k < 4; k++) {
            memcpy(&word, bytes + i + 8 * (size_t)k, sizeof word);
            lane[k] = (lane[k] ^ word) * odd;
            lane[k] ^= lane[k] >> 29;
        }
    for (; i < len; i++)
        lane[i % 4] = (lane[i % 4] ^ bytes[i]) * odd;
    uint64_t h = lane[0];
    for (int k = 1; k < 4; k++)
        h = (h ^ (lane[k] + (h >> 31))) * odd;
    return h ^ (h >> 32);
}

bool construction_of(MPI_Datatype type, void *scratch, size_t scratch_len, construction *out)
{
    *out = (construction){.bytes = scratch, .cap = scratch ? scratch_len : 0,
                          .borrowed = scratch != NULL};
    int combiner;
    if (!describe(type, out, 0, &combiner)) {
        construction_free(out);
        return false;
    }
    out->hash = construction_hash(out->bytes, out->len);
    return true;
}

bool construction_keep(construction *c)
{
    return !c->borrowed || move_to_heap(c, c->len ? c->len : 1);
}

void construction_free(construction *c)
{
    if (!c->borrowed)
        free(c->bytes);
    memset(c, 0, sizeof *c);
}
