/* Records of basic types (struct {int, double}, {float, float, int}, ...): packed by one byte
 * shuffle each, unpacked by plain copies of exactly the record's bytes.
 *
 * A record whose fields lie within 16 bytes and pack into at most 16 is packed with one
 * 16-byte load, one byte shuffle (pshufb) that drops the gaps, and one 16-byte store that
 * the next record's store partly overwrites. Unpack never writes the gaps between fields
 * (another thread may own them): each run of bytes that is contiguous in both the record and
 * the packed bytes is one or two plain copies of 1, 2, 4 or 8 bytes (two that overlap within
 * the run when its length is no power of two), done piece by piece over a few records at a
 * time so that each loop has one copy size. A 16-byte store under a byte mask (AVX-512BW),
 * the first way, ran at half the speed of the plain copies on an AMD EPYC Zen 5 VM (1 Mi
 * {int, double} records from memory: 7.1-10.8 GB/s, plain copies 15.9-18.2, a hand-written
 * loop 14.4-18.8; throwaway program, docs/results/0.1.0/2026-11-29-zen5-bb8d655). The last
 * records of a pack, whose wide load or store would reach past the data, go through the list
 * kernel, as do walks with more than the one (count) dimension. */
#include <stdint.h>
#include <string.h>

#include "kernel.h"

/* The plain copies that unpack a record whose byte b comes from packed byte scatter[b]
 * (-1: not written). */
static void unpack_pieces(const int scatter[16], plan_records *out)
{
    out->npieces = 0;
    for (int b = 0; b < 16;) {
        if (scatter[b] < 0) {
            b++;
            continue;
        }
        int len = 1;
        while (b + len < 16 && scatter[b + len] == scatter[b] + len)
            len++;
        int size = 8;
        while (size > len)
            size /= 2;
        out->pieces[out->npieces++] =
            (plan_record_piece){(uint8_t)b, (uint8_t)scatter[b], (uint8_t)size};
        if (size < len) /* the run's last `size` bytes, overlapping the first copy */
            out->pieces[out->npieces++] = (plan_record_piece){
                (uint8_t)(b + len - size), (uint8_t)(scatter[b] + len - size), (uint8_t)size};
        b += len;
    }
}

bool kernel_records_for(const plan_list *l, plan_records *out)
{
    memset(out, 0, sizeof *out);
    int64_t lo = INT64_MAX, hi = INT64_MIN, size = 0;
    for (int64_t i = 0; i < l->n; i++) {
        if (l->lens[i] == 0)
            continue;
        lo = l->offs[i] < lo ? l->offs[i] : lo;
        hi = l->offs[i] + l->lens[i] > hi ? l->offs[i] + l->lens[i] : hi;
        size += l->lens[i];
    }
    if (size == 0 || size > 16 || hi - lo > 16)
        return false;
    out->first = lo;
    out->span = hi - lo;
    out->size = size;
    memset(out->gather, 0x80, sizeof out->gather); /* 0x80: pshufb writes a zero */
    int scatter[16];
    for (int b = 0; b < 16; b++)
        scatter[b] = -1;
    int64_t at = 0;
    for (int64_t i = 0; i < l->n; i++)
        for (int64_t b = 0; b < l->lens[i]; b++, at++) {
            int64_t byte = l->offs[i] - lo + b;
            out->gather[at] = (uint8_t)byte;
            scatter[byte] = (int)at; /* a later field wins, as in typemap order */
        }
    unpack_pieces(scatter, out);
    return true;
}

#if defined(__x86_64__)
#include <immintrin.h>

/* How many of `n` records, `extent` apart, the wide walk may take: the 16-byte load of
 * record i stays below the end of the last record's data, and its 16-byte packed store (or
 * load) below the end of the packed bytes. */
static int64_t wide_records(const plan_records *r, int64_t n, int64_t extent)
{
    int64_t wide = n;
    while (wide > 0 && ((wide - 1) * extent + 16 > (n - 1) * extent + r->span ||
                        (wide - 1) * r->size + 16 > n * r->size))
        wide--;
    return wide;
}

/* The records after the first `done` of the walk `s`, as a plan of one instance for the list
 * kernel. */
static plan rest_of_walk(const plan *p, const plan_strided *s, int64_t done)
{
    plan rest = *p;
    rest.strided = *s;
    rest.strided.count[0] = s->count[0] - done;
    rest.strided.off += done * s->stride[0];
    return rest;
}

__attribute__((target("ssse3"))) void kernel_records_pack(const plan *p, char *typed,
                                                          int64_t count, char *packed)
{
    plan_strided s;
    if (!plan_records_walk(p, count, &s)) {
        kernel_list_pack(p, typed, count, packed);
        return;
    }
    const plan_records *r = &p->records;
    const int64_t n = s.count[0], extent = s.stride[0], wide = wide_records(r, n, extent);
    const __m128i gather = _mm_loadu_si128((const __m128i *)r->gather);
    const char *src = typed + s.off + r->first;
    for (int64_t i = 0; i < wide; i++, src += extent, packed += r->size)
        _mm_storeu_si128((__m128i *)packed,
                         _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)src), gather));
    if (wide < n) {
        plan rest = rest_of_walk(p, &s, wide);
        kernel_list_pack(&rest, typed, 1, packed);
    }
}

#else

void kernel_records_pack(const plan *p, char *typed, int64_t count, char *packed)
{
    kernel_list_pack(p, typed, count, packed);
}

#endif

/* Records per round of pieces: each piece's loop runs over these few records, which stay in L1
 * for the next piece (in the throwaway program above, warm: 16 and 64 records 18.4-20.1 GB/s,
 * 256 9.6-17.4, 1024 12.3-13.6; 32 from memory 15.9-18.2). */
#define RECORDS_PER_ROUND 32

/* One piece of `size` bytes, `n` records `extent` apart. */
#define COPY_PIECE(type, to, from, n, extent, size_of_record)                                      \
    for (int64_t i = 0; i < (n); i++) {                                                            \
        type v;                                                                                    \
        memcpy(&v, (from) + i * (size_of_record), sizeof v);                                       \
        memcpy((to) + i * (extent), &v, sizeof v);                                                 \
    }

void kernel_records_unpack(const plan *p, char *typed, int64_t count, char *packed)
{
    plan_strided s;
    if (!plan_records_walk(p, count, &s)) {
        kernel_list_unpack(p, typed, count, packed);
        return;
    }
    const plan_records *r = &p->records;
    const int64_t n = s.count[0], extent = s.stride[0], size = r->size;
    char *record = typed + s.off + r->first;
    for (int64_t done = 0; done < n; done += RECORDS_PER_ROUND) {
        const int64_t m = n - done < RECORDS_PER_ROUND ? n - done : RECORDS_PER_ROUND;
        char *dst = record + done * extent;
        const char *src = packed + done * size;
        for (int64_t k = 0; k < r->npieces; k++) {
            const plan_record_piece q = r->pieces[k];
            switch (q.size) {
            case 8:
                COPY_PIECE(uint64_t, dst + q.to, src + q.from, m, extent, size)
                break;
            case 4:
                COPY_PIECE(uint32_t, dst + q.to, src + q.from, m, extent, size)
                break;
            case 2:
                COPY_PIECE(uint16_t, dst + q.to, src + q.from, m, extent, size)
                break;
            default:
                COPY_PIECE(uint8_t, dst + q.to, src + q.from, m, extent, size)
            }
        }
    }
}
