! The handle and status spellings of the binding a test program is built for (cpp):
! `use mpi_f08` with -DF08, else mpif.h or `use mpi` (random_types.F90, collectives.F90).
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
