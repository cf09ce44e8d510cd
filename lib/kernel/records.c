/* Records of basic types (struct {int, double}, {float, float, int}, ...) through one byte
 * shuffle per record.
 *
 * A record whose fields lie within 16 bytes and pack into at most 16 is moved with one
 * 16-byte load, one byte shuffle (pshufb) that drops the gaps, and one 16-byte store that
 * the next record's store partly overwrites. Unpack shuffles the other way and stores with a
 * byte mask (AVX-512BW), so the gaps between fields are never written: another thread may
 * own them. The last records, whose wide load or store would reach past the data, go
 * through the list kernel, as do walks with more than the one (count) dimension. */
#include <stdint.h>
#include <string.h>

#include "kernel.h"

#if defined(__x86_64__)
#include <immintrin.h>

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
    memset(out->scatter, 0x80, sizeof out->scatter);
    int64_t at = 0;
    for (int64_t i = 0; i < l->n; i++)
        for (int64_t b = 0; b < l->lens[i]; b++, at++) {
            int64_t byte = l->offs[i] - lo + b;
            out->gather[at] = (uint8_t)byte;
            out->scatter[byte] = (uint8_t)at; /* a later field wins, as in typemap order */
            out->written |= (uint16_t)(1u << byte);
        }
    return true;
}

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

__attribute__((target("avx512f,avx512bw,avx512vl"))) void
kernel_records_unpack(const plan *p, char *typed, int64_t count, char *packed)
{
    plan_strided s;
    if (!plan_records_walk(p, count, &s)) {
        kernel_list_unpack(p, typed, count, packed);
        return;
    }
    const plan_records *r = &p->records;
    const int64_t n = s.count[0], extent = s.stride[0], wide = wide_records(r, n, extent);
    const __m128i scatter = _mm_loadu_si128((const __m128i *)r->scatter);
    const __mmask16 written = r->written;
    char *dst = typed + s.off + r->first;
    for (int64_t i = 0; i < wide; i++, dst += extent, packed += r->size)
        _mm_mask_storeu_epi8(dst, written,
                             _mm_shuffle_epi8(_mm_loadu_si128((const __m128i *)packed), scatter));
    if (wide < n) {
        plan rest = rest_of_walk(p, &s, wide);
        kernel_list_unpack(&rest, typed, 1, packed);
    }
}

#else

bool kernel_records_for(const plan_list *l, plan_records *out)
{
    (void)l;
    memset(out, 0, sizeof *out);
    return false;
}

void kernel_records_pack(const plan *p, char *typed, int64_t count, char *packed)
{
    kernel_list_pack(p, typed, count, packed);
}

void kernel_records_unpack(const plan *p, char *typed, int64_t count, char *packed)
{
    kernel_list_unpack(p, typed, count, packed);
}

#endif
