#include "machine.h"
#include "../base/units.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

static machine detected;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static const char *names[MACHINE_FIELDS] = {"PAGE_SIZE", "TLB_ENTRIES", "LINE_SIZE", "L1_SIZE",
                                            "L2_SIZE",   "LLC_SIZE",    "SIMD_BYTES",
                                            "STREAM_BYTES", "COPY_BYTES_PER_S", "STLB_ENTRIES",
                                            "TILE_BYTES", "SHUFFLE_BYTES"};

const char *machine_field_name(machine_field f) { return names[f]; }

static void set(machine_field f, int64_t value, const char *source)
{
    if (value > 0) {
        detected.value[f] = value;
        detected.source[f] = source;
    }
}

/* "48K", "2048K", "64" -> bytes; -1 for anything else */
static int64_t parse_size(const char *text)
{
    int64_t v = -1;
    units_parse_size(text, &v);
    return v;
}

static int64_t read_sysfs(int index, const char *file)
{
    char path[128], text[64] = "";
    snprintf(path, sizeof path, "/sys/devices/system/cpu/cpu0/cache/index%d/%s", index, file);
    FILE *f = fopen(path, "r");
    if (!f)
        return -1;
    if (!fgets(text, sizeof text, f))
        text[0] = '\0';
    fclose(f);
    if (!strcmp(file, "type"))
        return !strncmp(text, "Instruction", 11) ? 0 : 1; /* 1: data or unified */
    return parse_size(text);
}

static void detect_caches(void)
{
    for (int index = 0; index < 8; index++) {
        int64_t level = read_sysfs(index, "level");
        if (level < 0)
            break;
        if (read_sysfs(index, "type") == 0)
            continue;
        int64_t size = read_sysfs(index, "size");
        set(MACHINE_LINE, read_sysfs(index, "coherency_line_size"), "sysfs");
        if (level == 1)
            set(MACHINE_L1, size, "sysfs");
        else if (level == 2)
            set(MACHINE_L2, size, "sysfs");
        if (level >= 2)
            set(MACHINE_LLC, size, "sysfs"); /* the last level seen */
    }
}

void machine_amd_tlb_entries(uint32_t leaf5_ebx, uint32_t leaf6_ebx, unsigned family, int64_t *tlb,
                             int64_t *stlb)
{
    /* leaf 5: bits 31:24 associativity, 23:16 entries; leaf 6: 31:28 and 27:16 */
    *tlb = leaf5_ebx >> 24 ? (int64_t)((leaf5_ebx >> 16) & 0xff) : 0;
    *stlb = leaf6_ebx >> 28 ? (int64_t)((leaf6_ebx >> 16) & 0xfff) : 0;
    /* Every AMD core since Zen has 24-43 times the first level's entries in the second
     * (64/1536 to 96/4096). Fewer than 4 times is a hypervisor's figure: the AMD EPYC Zen 5
     * VM reports 128, where a pointer chase over N pages slows at about 4096
     * (docs/results/0.1.0/2026-11-29-zen5-8bbe443). Zen 5 (family 1Ah) then has its 4096;
     * for others the default stays. */
    if (*stlb > 0 && *stlb < 4 * *tlb)
        *stlb = family == 0x1a ? 4096 : 0;
}

#if defined(__x86_64__) || defined(__i386__)
static bool cpu_is_amd(void)
{
    unsigned a, b, c, d;
    return __get_cpuid(0, &a, &b, &c, &d) && b == 0x68747541 && d == 0x69746e65 &&
           c == 0x444d4163; /* AuthenticAMD */
}

static unsigned cpu_family(void)
{
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return 0;
    return ((a >> 8) & 0xf) + (((a >> 8) & 0xf) == 0xf ? (a >> 20) & 0xff : 0);
}
#endif

/* Entries of the first- and second-level data (or unified) TLBs for 4 KiB pages: Intel's
 * cpuid leaf 0x18, else (where it is missing, as on Zen 3, or all zeros, as on the Zen 5 VM)
 * AMD's extended leaves (machine_amd_tlb_entries). */
static void detect_tlb(void)
{
#if defined(__x86_64__) || defined(__i386__)
    unsigned a, b, c, d, subleaves = 0;
    bool found = false;
    if (__get_cpuid_count(0x18, 0, &a, &b, &c, &d))
        subleaves = a;
    for (unsigned s = 0; s <= subleaves && __get_cpuid_count(0x18, s, &a, &b, &c, &d); s++) {
        unsigned type = d & 31, level = (d >> 5) & 7, ways = b >> 16;
        bool data = type == 1 || type == 3, small_pages = b & 1;
        if (data && (level == 1 || level == 2) && small_pages && ways * c > 0) {
            set(level == 1 ? MACHINE_TLB : MACHINE_STLB, (int64_t)ways * c, "cpuid");
            found = true;
        }
    }
    unsigned b5, b6;
    int64_t tlb, stlb;
    if (found || !cpu_is_amd() || !__get_cpuid(0x80000005, &a, &b5, &c, &d) ||
        !__get_cpuid(0x80000006, &a, &b6, &c, &d))
        return;
    machine_amd_tlb_entries(b5, b6, cpu_family(), &tlb, &stlb);
    if (tlb > 0)
        set(MACHINE_TLB, tlb, "cpuid (AMD)");
    if (stlb > 0)
        set(MACHINE_STLB, stlb, "cpuid (AMD)");
#endif
}

static void detect_simd(void)
{
#if defined(__x86_64__)
    __builtin_cpu_init();
    if (__builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
        __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx2"))
        set(MACHINE_SIMD, MACHINE_SIMD_AVX512, "cpuid");
    else if (__builtin_cpu_supports("avx2"))
        set(MACHINE_SIMD, MACHINE_SIMD_AVX2, "cpuid");
#endif
}

/* AMD family 19h (Zen 3 and Zen 4; only Zen 4 has AVX-512) executes 512-bit shuffles as
 * two 256-bit halves. Family 1Ah (Zen 5) has full-width units, yet its 256-bit transposes
 * of doubles pack 1.15-1.45x faster than the 512-bit ones, floats 1.05-1.3x (bench pack,
 * 512^2 to 2048^2, on the AMD EPYC VM; the probe picks the same). */
static void detect_shuffle(void)
{
#if defined(__x86_64__)
    if (detected.value[MACHINE_SIMD] < MACHINE_SIMD_AVX512 || !cpu_is_amd())
        return;
    unsigned family = cpu_family();
    if (family == 0x19)
        set(MACHINE_SHUFFLE, MACHINE_SIMD_AVX2, "cpuid (Zen 4 halves 512-bit shuffles)");
    else if (family == 0x1a)
        set(MACHINE_SHUFFLE, MACHINE_SIMD_AVX2, "cpuid (Zen 5: 256-bit transposes measured faster)");
#endif
}

/* A width the environment asks for, narrowed to one the CPU runs. */
static int64_t supported_simd(int64_t wanted)
{
    int64_t widths[] = {MACHINE_SIMD_AVX512, MACHINE_SIMD_AVX2, MACHINE_SIMD_SCALAR};
    for (int i = 0; i < 3; i++)
        if (widths[i] <= wanted && widths[i] <= detected.value[MACHINE_SIMD])
            return widths[i];
    return MACHINE_SIMD_SCALAR;
}

/* The probe's cache file: MEMCOMM_MACHINE_FILE (empty: none), else under XDG_CACHE_HOME or
 * ~/.cache. */
static bool machine_file_path(char *path, size_t cap)
{
    const char *file = getenv("MEMCOMM_MACHINE_FILE"), *base;
    if (file)
        return *file && snprintf(path, cap, "%s", file) < (int)cap;
    if ((base = getenv("XDG_CACHE_HOME")) && *base)
        return snprintf(path, cap, "%s/memcomm/machine", base) < (int)cap;
    if ((base = getenv("HOME")) && *base)
        return snprintf(path, cap, "%s/.cache/memcomm/machine", base) < (int)cap;
    return false;
}

/* The CPU's model name from /proc/cpuinfo ("" if unknown). */
static void cpu_model(char *name, size_t cap)
{
    name[0] = '\0';
    FILE *f = fopen("/proc/cpuinfo", "r");
    if (!f)
        return;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        char *colon = strchr(line, ':');
        if (strncmp(line, "model name", 10) == 0 && colon) {
            snprintf(name, cap, "%s", colon + 2);
            name[strcspn(name, "\n")] = '\0';
            break;
        }
    }
    fclose(f);
}

/* NAME=value lines written by `memcomm machine --probe`, if its cpu= line is this CPU. */
static void read_probe_file(void)
{
    char path[1024], model[256], line[512];
    if (!machine_file_path(path, sizeof path))
        return;
    FILE *f = fopen(path, "r");
    if (!f)
        return;
    cpu_model(model, sizeof model);
    bool same_cpu = false;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *eq = strchr(line, '=');
        if (line[0] == '#' || !eq)
            continue;
        *eq = '\0';
        if (!strcmp(line, "cpu")) {
            same_cpu = !strcmp(eq + 1, model);
            continue;
        }
        for (int field = 0; field < MACHINE_FIELDS && same_cpu; field++)
            if (!strcmp(line, names[field]) && field != MACHINE_SIMD && parse_size(eq + 1) >= 0)
                set((machine_field)field, parse_size(eq + 1), "probe");
    }
    fclose(f);
}

static void detect(void)
{
    set(MACHINE_PAGE, 4096, "default");
    set(MACHINE_TLB, 64, "default");
    set(MACHINE_STLB, 1536, "default");
    set(MACHINE_LINE, 64, "default");
    set(MACHINE_L1, 32 << 10, "default");
    set(MACHINE_L2, 1 << 20, "default");
    set(MACHINE_LLC, 8 << 20, "default");
    set(MACHINE_SIMD, MACHINE_SIMD_SCALAR, "default");
    set(MACHINE_PAGE, sysconf(_SC_PAGESIZE), "sysconf");
    detect_caches();
    detect_tlb();
    detect_simd();
    detect_shuffle();
    detected.source[MACHINE_COPY] = "not probed";
    read_probe_file();
    for (int f = 0; f < MACHINE_FIELDS; f++) {
        char var[64];
        snprintf(var, sizeof var, "MEMCOMM_%s", names[f]);
        const char *text = getenv(var);
        if (!text || !*text)
            continue;
        int64_t value = parse_size(text);
        if (value < 0) /* not a size: the detected value stays */
            continue;
        set((machine_field)f, f == MACHINE_SIMD || f == MACHINE_SHUFFLE ? supported_simd(value) : value,
            "env");
    }
    /* never wider than the registers the kernels may use, and a width the kernels have (the
     * probe file's or the environment's may be neither) */
    if (detected.source[MACHINE_SHUFFLE] == NULL ||
        detected.value[MACHINE_SHUFFLE] > detected.value[MACHINE_SIMD])
        set(MACHINE_SHUFFLE, detected.value[MACHINE_SIMD], "SIMD_BYTES");
    else
        detected.value[MACHINE_SHUFFLE] = supported_simd(detected.value[MACHINE_SHUFFLE]);
    if (detected.source[MACHINE_TILE] == NULL) /* from the page finally in the model */
        set(MACHINE_TILE, detected.value[MACHINE_PAGE] / 2, "page / 2");
    if (detected.source[MACHINE_STREAM] == NULL) /* from the L2 finally in the model */
        set(MACHINE_STREAM, 4 * detected.value[MACHINE_L2], "4 x L2");
}

const machine *machine_get(void)
{
    pthread_once(&once, detect);
    return &detected;
}
