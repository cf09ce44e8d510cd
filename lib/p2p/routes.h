/* routes: whether every way this process has of completing, starting or freeing a request
 * reaches memcomm.
 *
 * A carried request must be finished by memcomm: a receive unpacked, a persistent send
 * packed at each start. The MPIs' Fortran bindings reach the C library through PMPI_ calls
 * (all of Open MPI's, some of MPICH's mpi_f08), so memcomm defines those entry points too
 * (interpose/fortran.c). Where the process has a definition of one of them, or of their C
 * names, that is not memcomm's, first in the dynamic linker's order (memcomm linked after the
 * Fortran library, a Fortran family memcomm does not define, a profiling tool preloaded
 * before memcomm whose MPI_Wait calls PMPI_Wait), a request could finish unseen: then memcomm
 * starts no request it would have to finish (requests_reserve says no) and the call goes to
 * the MPI unchanged; blocking calls, which finish inside the call, are still carried. Looked
 * up again whenever a library has been loaded since. */
#ifndef MEMCOMM_ROUTES_H
#define MEMCOMM_ROUTES_H

#include <stdbool.h>
#include <stddef.h>

bool routes_all_seen(void);

/* The first name found whose definition is not memcomm's, with the file defining it, written
 * to `text` ("MPI_Wait of /opt/tool/libtool.so"), or NULL (for MEMCOMM_STATS). */
const char *routes_unseen(char *text, size_t size);

/* Whether every definition of the MPI-IO split collectives' ends (MPI_File_read_all_end ...)
 * is memcomm's: memcomm's own Fortran ones (Open MPI's names), or no Fortran binding of them
 * loaded. Only then does memcomm stage a split collective's begin, which its end must
 * finish. */
bool routes_split_ends_seen(void);

/* Held across fork() (interpose/fork.c), before the request table's lock. */
void routes_fork_lock(void);
void routes_fork_unlock(bool child);

#endif
