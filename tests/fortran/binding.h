! The binding a test program is built for (cpp), its module or header and its handle and
! status spellings: `use mpi_f08` with -DF08, mpif.h with -DMPIFH, else `use mpi`
! (random_types.F90, collectives.F90, bottom.F90). BINDING_MODULE goes where a `use` goes,
! BINDING_HEADER after `implicit none`.
#if defined(F08)
#define BINDING_MODULE use mpi_f08
#define BINDING_HEADER
#elif defined(MPIFH)
#define BINDING_MODULE
#define BINDING_HEADER include 'mpif.h'
#else
#define BINDING_MODULE use mpi
#define BINDING_HEADER
#endif
#ifdef F08
#define HANDLE(kind) type(MPI_/**/kind)
#define VAL(h) h%MPI_VAL
#define STATUS type(MPI_Status)
#define STATUSES(n) type(MPI_Status) :: sts(n)
#define FIRST(s) s(1)
#define TAG_OF(s) s%MPI_TAG
#define SOURCE_OF(s) s%MPI_SOURCE
#else
#define HANDLE(kind) integer
#define VAL(h) h
#define STATUS integer, dimension(MPI_STATUS_SIZE)
#define STATUSES(n) integer :: sts(MPI_STATUS_SIZE, n)
#define FIRST(s) s(:, 1)
#define TAG_OF(s) s(MPI_TAG)
#define SOURCE_OF(s) s(MPI_SOURCE)
#endif
