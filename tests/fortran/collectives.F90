! Random derived types (random_types.c) through this binding's collectives on every rank:
! `use mpi_f08` built with -DF08, mpif.h with -DMPIFH, `use mpi` with neither. Each type goes
! through one collective form, by its number (Alltoall, Allgather, Gather, Scatter, Bcast,
! the v and w forms, blocking and non-blocking); each rank prints a checksum of its whole
! receive buffer, one line per type, for runs with the MPI alone and under memcomm to be
! compared line for line. Not MPI_Ialltoallw on Open MPI 4: its Fortran binding frees the C
! type arrays it made before the request completes, and the program crashes (MPI alone).
#include "binding.h"
program collectives
  BINDING_MODULE
  implicit none
  BINDING_HEADER
  integer, parameter :: forms = 14
  integer(1), allocatable :: sbuf(:), rbuf(:)
  HANDLE(Datatype) :: t
  HANDLE(Datatype), allocatable :: types(:)
  HANDLE(Request) :: req(1)
  integer, allocatable :: counts(:), displs(:), bytes(:)
  integer(kind=MPI_ADDRESS_KIND) :: extent
  integer :: rank, nranks, g, cases, seed, count, origin, span, ierr, i, form, used
  integer(8) :: sum
  logical :: flag, ialltoallw
  character(len=32) :: arg
  character(len=MPI_MAX_LIBRARY_VERSION_STRING) :: library
  integer :: length

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks, ierr)
  cases = 300
  seed = 2
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) cases
  end if
  call MPI_Get_library_version(library, length, ierr)
  ialltoallw = index(library, 'Open MPI v4') == 0
  allocate(counts(nranks), displs(nranks), bytes(nranks), types(nranks))
  used = 0
  do g = 0, cases - 1
    call random_type_for_peers(seed, g, nranks, VAL(t), count, origin, span, extent)
    if (VAL(t) == VAL(MPI_DATATYPE_NULL)) cycle
    used = used + 1
    allocate(sbuf(span), rbuf(span))
    do i = 1, span
      sbuf(i) = int(mod(i * 7 + g * 13 + rank * 29, 251) - 125, 1)
    end do
    rbuf = int(-91, 1)
    do i = 1, nranks
      counts(i) = count
      displs(i) = (i - 1) * count
      bytes(i) = int((i - 1) * count * extent)
      types(i) = t
    end do
    form = mod(g, forms)
    if (form == 10 .and. .not. ialltoallw) form = 9
    select case (form)
    case (0)
      call MPI_Alltoall(sbuf(origin), count, t, rbuf(origin), count, t, MPI_COMM_WORLD, ierr)
    case (1)
      call MPI_Ialltoall(sbuf(origin), count, t, rbuf(origin), count, t, MPI_COMM_WORLD, &
                         req(1), ierr)
      call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    case (2)
      call MPI_Allgather(sbuf(origin), count, t, rbuf(origin), count, t, MPI_COMM_WORLD, ierr)
    case (3)
      call MPI_Iallgather(sbuf(origin), count, t, rbuf(origin), count, t, MPI_COMM_WORLD, &
                          req(1), ierr)
      flag = .false.
      do while (.not. flag)
        call MPI_Test(req(1), flag, MPI_STATUS_IGNORE, ierr)
      end do
    case (4)
      call MPI_Gather(sbuf(origin), count, t, rbuf(origin), count, t, 0, MPI_COMM_WORLD, ierr)
    case (5)
      call MPI_Scatter(sbuf(origin), count, t, rbuf(origin), count, t, 1, MPI_COMM_WORLD, ierr)
    case (6)
      if (rank == 2 .or. nranks < 3) rbuf = sbuf
      call MPI_Bcast(rbuf(origin), count, t, min(2, nranks - 1), MPI_COMM_WORLD, ierr)
    case (7)
      call MPI_Alltoallv(sbuf(origin), counts, displs, t, rbuf(origin), counts, displs, t, &
                         MPI_COMM_WORLD, ierr)
    case (8)
      call MPI_Ialltoallv(sbuf(origin), counts, displs, t, rbuf(origin), counts, displs, t, &
                          MPI_COMM_WORLD, req(1), ierr)
      call MPI_Waitall(1, req, MPI_STATUSES_IGNORE, ierr)
    case (9)
      call MPI_Alltoallw(sbuf(origin), counts, bytes, types, rbuf(origin), counts, bytes, &
                         types, MPI_COMM_WORLD, ierr)
    case (10)
      call MPI_Ialltoallw(sbuf(origin), counts, bytes, types, rbuf(origin), counts, bytes, &
                          types, MPI_COMM_WORLD, req(1), ierr)
      call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
    case (11)
      call MPI_Gatherv(sbuf(origin), count, t, rbuf(origin), counts, displs, t, &
                       min(1, nranks - 1), MPI_COMM_WORLD, ierr)
    case (12)
      call MPI_Scatterv(sbuf(origin), counts, displs, t, rbuf(origin), count, t, 0, &
                        MPI_COMM_WORLD, ierr)
    case (13)
      call MPI_Allgatherv(sbuf(origin), count, t, rbuf(origin), counts, displs, t, &
                          MPI_COMM_WORLD, ierr)
    end select
    sum = 0
    do i = 1, span
      sum = mod(sum * 31 + int(rbuf(i), 8) + 128, 1000000007_8)
    end do
    print '(a,i0,a,i0,a,i0,a,i0)', 'type ', g, ' form ', form, ' rank ', rank, ': sum ', sum
    deallocate(sbuf, rbuf)
    call MPI_Type_free(t, ierr)
  end do
  if (rank == 0) print '(a,i0,a,i0)', 'types used ', used, ' of ', cases
  call MPI_Finalize(ierr)
end program collectives
