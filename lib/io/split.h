/* split: the MPI-IO split collectives memcomm carries (MPI_File_read_all_begin ... _end),
 * by file handle.
 *
 * A begin whose memory side memcomm stages (file.h) leaves its access here; the end on the
 * same file finishes it: unpacks a read into the buffer the begin named, gives the staging
 * back. The MPI allows one split collective at a time per file handle, so the handle is the
 * key. Only where every definition of the ends is memcomm's (routes_split_ends_seen), and
 * for at most SPLIT_MAX files at once; beyond that a begin goes to the MPI unchanged, and so
 * does an end memcomm holds nothing for. A file closed with its split collective open
 * (erroneous) drops the access. Thread-safe. */
#ifndef MEMCOMM_SPLIT_H
#define MEMCOMM_SPLIT_H

#include <mpi.h>
#include <stdbool.h>

#include "file.h"

enum { SPLIT_MAX = 16 };

typedef struct split_slot split_slot;

/* A slot for a begin on `fh`, taken before the MPI's begin; NULL when there is no room or
 * the file already has one open (the MPI then reports the erroneous second begin). */
split_slot *split_reserve(MPI_File fh);
void split_unreserve(split_slot *slot);

/* The MPI began the call: the slot takes over `f` and remembers `buf`. */
void split_begun(split_slot *slot, const file_access *f, void *buf);

/* The access the begin on `fh` left, taken out: true with `*f` and `*buf`. */
bool split_take(MPI_File fh, file_access *f, void **buf);

/* MPI_File_close: drop what a begin on `fh` left. */
void split_forget(MPI_File fh);

/* Held across fork() (interpose/fork.c). */
void split_fork_lock(void);
void split_fork_unlock(bool child);

#endif
