/* defects: what the MPI below does wrong alone in a way memcomm cannot reproduce exactly.
 * The calls such a defect touches go to the MPI unchanged, so that a program gets what it
 * gets from the MPI alone (docs/errors.md lists each defect with its MPI and version). */
#ifndef MEMCOMM_DEFECTS_H
#define MEMCOMM_DEFECTS_H

#include <stdbool.h>

/* Intel MPI 2021's persistent collectives (MPI_Gather_init, MPI_Scatter_init,
 * MPI_Allgather_init ...) take a small send buffer's contents at the _init call instead of at
 * each MPI_Start, and leave some ranks' own blocks uncopied at some starts: what arrives
 * depends on when the MPI read memory memcomm fills only at MPI_Start. */
bool defects_persistent_collectives(void);

/* MPICH 4.0's MPI_Pack and MPI_Unpack reject MPI_BOTTOM (its NULL) as the user's buffer with
 * MPI_ERR_ARG, where a type of absolute addresses makes it legal. */
bool defects_pack_rejects_bottom(void);

#endif
