#include "construction.h"

#include <stdlib.h>
#include <string.h>

#include "../base/alloc.h"
#include "contents.h"

enum { MAX_DEPTH = 64 };

static bool append(construction *c, const void *data, size_t len)
{
    if (len > CONSTRUCTION_MAX_BYTES - c->len)
        return false;
    if (c->len + len > c->cap) {
        size_t cap = c->cap ? c->cap : 256;
        while (cap < c->len + len)
            cap *= 2;
        unsigned char *grown = mc_realloc(c->bytes, cap);
        if (!grown)
            return false;
        c->bytes = grown;
        c->cap = cap;
    }
    memcpy(c->bytes + c->len, data, len);
    c->len += len;
    return true;
}

static bool append_i64(construction *c, int64_t v) { return append(c, &v, sizeof v); }

static bool describe(MPI_Datatype type, construction *c, int depth)
{
    int combiner;
    if (depth > MAX_DEPTH || contents_combiner(type, &combiner) != MPI_SUCCESS)
        return false;
    if (!contents_is_constructed(combiner)) { /* predefined: its handle names it */
        uint64_t handle = 0;
        memcpy(&handle, &type, sizeof type < sizeof handle ? sizeof type : sizeof handle);
        return append_i64(c, combiner) && append_i64(c, (int64_t)handle);
    }
    contents k;
    if (!contents_fetch(type, &k))
        return false;
    bool ok;
    if (combiner == MPI_COMBINER_DUP) {
        ok = describe(k.types[0], c, depth + 1);
    } else {
        ok = append_i64(c, combiner) && append_i64(c, k.ni) && append_i64(c, k.na) &&
             append_i64(c, k.nc) && append_i64(c, k.nd) &&
             append(c, k.ints, sizeof *k.ints * (size_t)k.ni) &&
             append(c, k.addrs, sizeof *k.addrs * (size_t)k.na) &&
             append(c, k.counts, sizeof *k.counts * (size_t)k.nc);
        for (int64_t i = 0; i < k.nd && ok; i++)
            ok = describe(k.types[i], c, depth + 1);
    }
    contents_release(&k);
    return ok;
}

/* A hash of the description, 32 bytes a step in four independent lanes: the description of
 * an indexed type of 16,384 blocks is about 200 KB, which a byte at a time (FNV-1a, one
 * multiply's latency per byte) took about 0.3 ms to hash, 2-3% of an exchange phase of
 * ddtbench's LAMMPS layout that re-creates its type every 20 round trips. Equal hashes are
 * compared byte by byte (constructions.c), so the hash only has to spread. */
static uint64_t hash_bytes(const unsigned char *bytes, size_t len)
{
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

bool construction_of(MPI_Datatype type, construction *out)
{
    memset(out, 0, sizeof *out);
    if (!describe(type, out, 0)) {
        construction_free(out);
        return false;
    }
    out->hash = hash_bytes(out->bytes, out->len);
    return true;
}

void construction_free(construction *c)
{
    free(c->bytes);
    memset(c, 0, sizeof *c);
}
