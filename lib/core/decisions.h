/* decisions: the send-path decisions of earlier runs, kept in a file (MEMCOMM_DECISIONS), so
 * that a program run again skips the trials (lib/core/sendpath.h) of every layout, use and
 * size class an earlier run decided. A run of 21 round trips of a layout whose two paths are
 * close spends 9 of them on the slower path (MPICH 4.0.2, a y face of 192^3 doubles from
 * Fortran: 0.86x the MPI alone, 1.02x with the path fixed); FFTW's wisdom and the MPIs' own
 * tuning files answer the same cost the same way.
 *
 * A decision is kept per setting (the MPI library's version string and the CPU model: one file
 * may serve several MPIs) and layout (a hash of the type's normalized tree and bounds, so a
 * type built again, in this run or another, finds it). A decision taken from the file is
 * watched like one measured (its calls sampled against the usual times it was decided with)
 * and measured again when it no longer holds. At MPI_Finalize rank 0 of MPI_COMM_WORLD writes
 * the file again with what this run decided (other ranks' decisions of layouts rank 0 never
 * moved are not kept); a file it cannot read, or lines it cannot parse, are ignored. */
#ifndef MEMCOMM_DECISIONS_H
#define MEMCOMM_DECISIONS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../base/ir.h"
#include "../base/trials.h"
#include "../decode/decode.h"

typedef struct {
    uint64_t setting; /* decisions_setting_key of the MPI and CPU it was measured on */
    uint64_t layout;  /* decisions_layout_key */
    int use;          /* a path_use (lib/core/sendpath.h) */
    int size_class, paths, path;
    double usual[TRIAL_SIDES]; /* the decided path's median time per side, seconds (0: none) */
} saved_decision;

/* A layout's key: the normalized tree's shape and the type's bounds, hashed (FNV-1a); 0 for a
 * type of absolute addresses (MPI_Get_address displacements from MPI_BOTTOM, a true lower
 * bound beyond DECISIONS_ADDRESSES), whose key would differ from run to run with the
 * addresses, so that its decisions are not kept. */
#define DECISIONS_ADDRESSES (1ll << 40)
uint64_t decisions_layout_key(const ir_node *normal, const decode_bounds *bounds);

/* A setting's key: its description (the MPI library's version, the CPU model), hashed. */
uint64_t decisions_setting_key(const char *description);

/* This process's setting (decisions_setting_key of its MPI library and CPU). */
uint64_t decisions_setting(void);

/* One line of the file: `setting layout use size-class paths path usual-send usual-receive`
 * (keys in hex, the use by its name in the file, times in microseconds). False for a line
 * that is not one (a comment, a line of a later format, damage). */
bool decisions_parse(const char *line, saved_decision *out);
void decisions_format(const saved_decision *d, char *buf, size_t cap);

/* This run's decision of a layout, use and size class, when MEMCOMM_DECISIONS names a file
 * that holds one for this setting (read once, at the first call that asks). */
bool decisions_find(uint64_t layout, int use, int size_class, saved_decision *out);

/* Remember a decision this run measured, for decisions_save. */
void decisions_note(uint64_t layout, int use, int size_class, int paths, int path,
                    const double usual[TRIAL_SIDES]);

/* At MPI_Finalize, on rank `rank` of MPI_COMM_WORLD: rank 0 writes the file (the decisions it
 * read, those of other settings, and this run's, which replace earlier ones) when this run
 * noted any. */
void decisions_save(int rank);

/* Held across fork() (interpose/fork.c), innermost: taken under a send-path table's lock. */
void decisions_fork_lock(void);
void decisions_fork_unlock(bool child);

#endif
