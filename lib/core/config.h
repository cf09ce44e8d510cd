/* The environment knobs, read once per process. docs/environment.md lists them. */
#ifndef MEMCOMM_CONFIG_H
#define MEMCOMM_CONFIG_H

#include <stdatomic.h>
#include <stdbool.h>

enum { CONFIG_SEND_MEASURE, CONFIG_SEND_PACKED, CONFIG_SEND_BY_MPI };

typedef struct {
    bool disable; /* MEMCOMM_DISABLE=1: every intercepted call goes straight to the MPI */
    bool stats;   /* MEMCOMM_STATS=1: one summary line per rank on stderr at MPI_Finalize */
    bool explain; /* MEMCOMM_EXPLAIN=1: the planner's decision for each committed type */
    bool verify;  /* MEMCOMM_VERIFY (default on): new types checked against the MPI's pack */
    long long pool_bytes; /* MEMCOMM_POOL_BYTES: free message buffers kept for reuse */
    long long inflight_bytes; /* MEMCOMM_INFLIGHT_BYTES: message buffers in use, at most */
    bool huge_pages; /* MEMCOMM_HUGE_PAGES (default on): message buffers of 64 KiB and more in
                      * 2 MiB pages (lib/p2p/bufpool.c) */
    int send_path;        /* MEMCOMM_SEND_PATH: CONFIG_SEND_MEASURE, _PACKED or _BY_MPI */
    const char *decisions; /* MEMCOMM_DECISIONS: the file of earlier runs' path decisions, or
                            * NULL (lib/core/decisions.h) */
} config;

/* Read once; inline, because every intercepted call asks (an 8-byte send takes 0.2 us). */
extern config config_current;
extern atomic_bool config_ready;
void config_read(void);

static inline const config *config_get(void)
{
    if (!atomic_load_explicit(&config_ready, memory_order_acquire))
        config_read();
    return &config_current;
}

#endif
