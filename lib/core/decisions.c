#include "decisions.h"

#include <errno.h>
#include <inttypes.h>
#include <mpi.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../base/alloc.h"
#include "../base/forklock.h"
#include "config.h"
#include "sendpath.h"

enum { MAX_DECISIONS = 1 << 16, LINE = 1024, SETTING_TEXT = 256 };

#define FILE_HEADER "# memcomm send-path decisions, format 1"
#define SETTING_PREFIX "# setting "

static uint64_t fnv(uint64_t h, const void *bytes, size_t n)
{
    const unsigned char *p = bytes;
    for (size_t i = 0; i < n; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static uint64_t fnv_int(uint64_t h, int64_t v) { return fnv(h, &v, sizeof v); }

static uint64_t tree_key(uint64_t h, const ir_node *n)
{
    if (!n)
        return fnv_int(h, -1);
    h = fnv_int(fnv_int(fnv_int(h, n->kind), n->off), n->size);
    switch (n->kind) {
    case IR_BLOCK:
        return fnv_int(h, n->u.block.len);
    case IR_LOOP:
        return tree_key(fnv_int(fnv_int(h, n->u.loop.count), n->u.loop.stride), n->u.loop.child);
    case IR_SEQ:
        h = fnv_int(h, n->u.seq.n);
        for (int64_t i = 0; i < n->u.seq.n; i++)
            h = tree_key(h, n->u.seq.items[i]);
        return h;
    case IR_LIST:
        h = fnv_int(h, n->u.list.n);
        h = fnv(h, n->u.list.offs, sizeof(int64_t) * (size_t)n->u.list.n);
        return fnv(h, n->u.list.lens, sizeof(int64_t) * (size_t)n->u.list.n);
    }
    return h;
}

uint64_t decisions_layout_key(const ir_node *normal, const decode_bounds *b)
{
    if (b->true_lb >= DECISIONS_ADDRESSES)
        return 0;
    uint64_t h = 0xcbf29ce484222325ull;
    h = fnv_int(fnv_int(fnv_int(h, b->size), b->lb), b->extent);
    h = fnv_int(fnv_int(h, b->true_lb), b->true_extent);
    h = tree_key(h, normal);
    return h ? h : 1;
}

uint64_t decisions_setting_key(const char *description)
{
    return fnv(0xcbf29ce484222325ull, description, strlen(description));
}

/* A use's name in the file: its name in explanations, spaces made dashes. */
static void use_token(int use, char *buf, size_t cap)
{
    snprintf(buf, cap, "%s", sendpath_use_name(use));
    for (char *c = buf; *c; c++)
        if (*c == ' ')
            *c = '-';
}

bool decisions_parse(const char *line, saved_decision *out)
{
    char use[64];
    double send_us, receive_us;
    saved_decision d = {0};
    if (sscanf(line, "%" SCNx64 " %" SCNx64 " %63s %d %d %d %lf %lf", &d.setting, &d.layout, use,
               &d.size_class, &d.paths, &d.path, &send_us, &receive_us) != 8)
        return false;
    d.use = -1;
    for (int u = 0; u < PATH_USES && d.use < 0; u++) {
        char token[64];
        use_token(u, token, sizeof token);
        if (!strcmp(token, use))
            d.use = u;
    }
    if (d.use < 0 || d.size_class < 0 || d.size_class >= 64 || d.paths < 2 ||
        d.paths > SENDPATH_MAX_PATHS || d.path < 0 || d.path >= d.paths || !(send_us >= 0) ||
        !(receive_us >= 0) || send_us > 1e9 || receive_us > 1e9)
        return false;
    d.usual[TRIAL_SEND] = send_us * 1e-6;
    d.usual[TRIAL_RECEIVE] = receive_us * 1e-6;
    *out = d;
    return true;
}

void decisions_format(const saved_decision *d, char *buf, size_t cap)
{
    char use[64];
    use_token(d->use, use, sizeof use);
    snprintf(buf, cap, "%016" PRIx64 " %016" PRIx64 " %s %d %d %d %.3f %.3f", d->setting,
             d->layout, use, d->size_class, d->paths, d->path, d->usual[TRIAL_SEND] * 1e6,
             d->usual[TRIAL_RECEIVE] * 1e6);
}

/* ---- the process's decisions ---- */

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded, noted;
static char setting_text[SETTING_TEXT];
static uint64_t setting;
static saved_decision *kept; /* read from the file (every setting), then this run's */
static int n_kept, cap_kept;
static char **other_settings; /* the file's `# setting` lines of other settings, verbatim */
static int n_other_settings;

/* What the decisions depend on besides the layout: the MPI library and the CPU. */
static void describe_setting(void)
{
    char version[MPI_MAX_LIBRARY_VERSION_STRING] = "";
    int len = 0;
    PMPI_Get_library_version(version, &len);
    version[strcspn(version, "\n")] = '\0';
    char cpu[256] = "unknown CPU";
    FILE *f = fopen("/proc/cpuinfo", "r");
    for (char line[LINE]; f && fgets(line, sizeof line, f);)
        if (!strncmp(line, "model name", 10) && strchr(line, ':')) {
            const char *name = strchr(line, ':') + 1;
            snprintf(cpu, sizeof cpu, "%s", name + strspn(name, " \t"));
            cpu[strcspn(cpu, "\n")] = '\0';
            break;
        }
    if (f)
        fclose(f);
    snprintf(setting_text, sizeof setting_text, "%s; %s", version, cpu);
    for (char *c = setting_text; *c; c++) /* one line (MPICH's version has a tab) */
        if (*c == '\t' || *c == '\r')
            *c = ' ';
    setting = decisions_setting_key(setting_text);
}

uint64_t decisions_setting(void)
{
    pthread_mutex_lock(&lock);
    if (!setting)
        describe_setting();
    const uint64_t key = setting;
    pthread_mutex_unlock(&lock);
    return key;
}

static bool keep(const saved_decision *d)
{
    if (n_kept == cap_kept) {
        const int grown = cap_kept ? 2 * cap_kept : 64;
        saved_decision *more;
        if (grown > MAX_DECISIONS || !(more = mc_realloc(kept, sizeof *kept * (size_t)grown)))
            return false;
        kept = more;
        cap_kept = grown;
    }
    kept[n_kept++] = *d;
    return true;
}

/* A `# setting` line of another setting, kept to be written back: one line. */
static void keep_other_setting(const char *line)
{
    if (!strchr(line, '\n'))
        return; /* longer than the lines this version writes: not one of them */
    char **more = mc_realloc(other_settings, sizeof *more * (size_t)(n_other_settings + 1));
    char *copy = more ? mc_malloc(strlen(line) + 1) : NULL;
    if (more)
        other_settings = more;
    if (copy)
        other_settings[n_other_settings++] = strcpy(copy, line);
}

/* Under the lock: the file's decisions, once. */
static void load(void)
{
    if (loaded)
        return;
    loaded = true;
    if (!setting)
        describe_setting();
    const char *path = config_get()->decisions;
    FILE *f = path ? fopen(path, "r") : NULL;
    char own[40];
    snprintf(own, sizeof own, SETTING_PREFIX "%016" PRIx64 ":", setting);
    for (char line[LINE]; f && fgets(line, sizeof line, f);) {
        saved_decision d;
        if (!strncmp(line, SETTING_PREFIX, strlen(SETTING_PREFIX)) &&
            strncmp(line, own, strlen(own)))
            keep_other_setting(line);
        else if (decisions_parse(line, &d))
            keep(&d);
    }
    if (f)
        fclose(f);
}

static int index_of(uint64_t layout, int use, int size_class)
{
    for (int i = 0; i < n_kept; i++)
        if (kept[i].setting == setting && kept[i].layout == layout && kept[i].use == use &&
            kept[i].size_class == size_class)
            return i;
    return -1;
}

bool decisions_find(uint64_t layout, int use, int size_class, saved_decision *out)
{
    if (!config_get()->decisions || !layout)
        return false;
    pthread_mutex_lock(&lock);
    load();
    const int i = index_of(layout, use, size_class);
    if (i >= 0)
        *out = kept[i];
    pthread_mutex_unlock(&lock);
    return i >= 0;
}

void decisions_note(uint64_t layout, int use, int size_class, int paths, int path,
                    const double usual[TRIAL_SIDES])
{
    if (!config_get()->decisions || !layout)
        return;
    pthread_mutex_lock(&lock);
    load();
    const saved_decision d = {setting, layout, use, size_class, paths, path,
                              {usual[TRIAL_SEND], usual[TRIAL_RECEIVE]}};
    const int i = index_of(layout, use, size_class);
    if (i >= 0)
        kept[i] = d;
    else
        keep(&d);
    noted = true;
    pthread_mutex_unlock(&lock);
}

void decisions_fork_lock(void) { pthread_mutex_lock(&lock); }
void decisions_fork_unlock(bool child) { forklock_release(&lock, child); }

void decisions_save(int rank)
{
    const char *path = config_get()->decisions;
    pthread_mutex_lock(&lock);
    if (path && noted && rank == 0) {
        char temporary[4096];
        const int len = snprintf(temporary, sizeof temporary, "%s.%ld.tmp", path, (long)getpid());
        FILE *f = len > 0 && (size_t)len < sizeof temporary ? fopen(temporary, "w") : NULL;
        bool written = f != NULL;
        if (f) {
            fprintf(f, "%s\n" SETTING_PREFIX "%016" PRIx64 ": %s\n", FILE_HEADER, setting,
                    setting_text);
            for (int i = 0; i < n_other_settings; i++)
                fputs(other_settings[i], f);
            for (int i = 0; i < n_kept; i++) {
                char line[LINE];
                decisions_format(&kept[i], line, sizeof line);
                fprintf(f, "%s\n", line);
            }
            written = fclose(f) == 0;
        }
        if (!written || rename(temporary, path) != 0) {
            fprintf(stderr, "memcomm: cannot write MEMCOMM_DECISIONS=%s: %s\n", path,
                    strerror(errno));
            unlink(temporary);
        }
    }
    pthread_mutex_unlock(&lock);
}
