! MPI-IO from Fortran in this binding (`use mpi_f08` built with -DF08, mpif.h with -DMPIFH,
! `use mpi` with neither): each rank writes the n x n interior of its (0:n+1, 0:n+1) array,
! ghost cells left out (a subarray memory type), and reads it back into an array whose
! elements are all -1, by every form: explicit offset, individual and shared file pointer,
! collective, ordered, non-blocking and split collective. One line per form and rank, "right"
! or "WRONG" (the interior read back, the ghost cells untouched, the status's count), then a
! checksum of the whole file, for runs with the MPI alone and under memcomm to be compared.
! usage: io FILE
#include "binding.h"
program io
  BINDING_MODULE
  implicit none
  BINDING_HEADER
  integer, parameter :: n = 48, forms = 14
  character(len=16), parameter :: names(forms) = [character(len=16) :: 'at', 'at_all', &
      'individual', 'all', 'shared', 'ordered', 'iat', 'iat_all', 'iindividual', 'iall', &
      'ishared', 'split_at_all', 'split_all', 'split_ordered']
  double precision :: a(0:n + 1, 0:n + 1), b(0:n + 1, 0:n + 1)
  double precision, allocatable :: whole(:)
  HANDLE(Datatype) :: interior
  HANDLE(File) :: fh
  STATUS :: st
  integer :: rank, ranks, ierr, form, got, sizes(2), subs(2), starts(2), i, j
  integer(kind=MPI_OFFSET_KIND) :: at, bytes, total
  character(len=256) :: path
  double precision :: checksum

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  call MPI_Comm_size(MPI_COMM_WORLD, ranks, ierr)
  call get_command_argument(1, path)
  sizes = n + 2
  subs = n
  starts = 1
  call MPI_Type_create_subarray(2, sizes, subs, starts, MPI_ORDER_FORTRAN, &
                                MPI_DOUBLE_PRECISION, interior, ierr)
  call MPI_Type_commit(interior, ierr)
  call MPI_File_open(MPI_COMM_WORLD, path, MPI_MODE_CREATE + MPI_MODE_RDWR, MPI_INFO_NULL, &
                     fh, ierr)
  bytes = 8_MPI_OFFSET_KIND * n * n
  do form = 1, forms
    at = ((form - 1) * ranks + rank) * bytes
    do j = 0, n + 1
      do i = 0, n + 1
        a(i, j) = 1000000d0 * form + 10000d0 * rank + 100d0 * j + i
      end do
    end do
    call write_form(form)
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
    b = -1d0
    call read_form(form)
    call MPI_Get_count(st, interior, got, ierr)
    print '(a, a, a, i0, a, a, i0)', 'io ', trim(names(form)), ' rank ', rank, &
          merge(': right', ': WRONG', all(b(1:n, 1:n) == a(1:n, 1:n)) .and. ghosts_untouched()), &
          ' count ', got
  end do
  call MPI_File_close(fh, ierr)
  if (rank == 0) then
    total = forms * ranks * n * n
    allocate(whole(total))
    call MPI_File_open(MPI_COMM_SELF, path, MPI_MODE_RDONLY, MPI_INFO_NULL, fh, ierr)
    call MPI_File_read_at(fh, 0_MPI_OFFSET_KIND, whole, int(total), MPI_DOUBLE_PRECISION, st, &
                          ierr)
    call MPI_File_close(fh, ierr)
    checksum = 0
    do i = 1, int(total)
      checksum = checksum + whole(i) * mod(i, 7)
    end do
    print '(a, f0.1)', 'io file checksum ', checksum
  end if
  call MPI_Type_free(interior, ierr)
  call MPI_Finalize(ierr)
contains
  logical function ghosts_untouched()
    ghosts_untouched = all(b(0, :) == -1d0) .and. all(b(n + 1, :) == -1d0) .and. &
                       all(b(:, 0) == -1d0) .and. all(b(:, n + 1) == -1d0)
  end function ghosts_untouched

  ! The shared file pointer's forms in rank order, so that where each rank's data lands (and
  ! what it reads back) does not depend on which rank comes first.
  subroutine shared_turns(write, nonblocking)
    logical, intent(in) :: write, nonblocking
    HANDLE(Request) :: req
    integer :: r
    call MPI_File_seek_shared(fh, at - rank * bytes, MPI_SEEK_SET, ierr)
    do r = 0, ranks - 1
      if (r == rank) then
        if (write .and. nonblocking) then
          call MPI_File_iwrite_shared(fh, a, 1, interior, req, ierr)
          call MPI_Wait(req, st, ierr)
        else if (write) then
          call MPI_File_write_shared(fh, a, 1, interior, st, ierr)
        else if (nonblocking) then
          call MPI_File_iread_shared(fh, b, 1, interior, req, ierr)
          call MPI_Wait(req, st, ierr)
        else
          call MPI_File_read_shared(fh, b, 1, interior, st, ierr)
        end if
      end if
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
    end do
  end subroutine shared_turns

  subroutine write_form(f)
    integer, intent(in) :: f
    HANDLE(Request) :: req
    select case (f)
    case (1)
      call MPI_File_write_at(fh, at, a, 1, interior, st, ierr)
    case (2)
      call MPI_File_write_at_all(fh, at, a, 1, interior, st, ierr)
    case (3)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_write(fh, a, 1, interior, st, ierr)
    case (4)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_write_all(fh, a, 1, interior, st, ierr)
    case (5)
      call shared_turns(.true., .false.)
    case (6)
      call MPI_File_seek_shared(fh, at - rank * bytes, MPI_SEEK_SET, ierr)
      call MPI_File_write_ordered(fh, a, 1, interior, st, ierr)
    case (7)
      call MPI_File_iwrite_at(fh, at, a, 1, interior, req, ierr)
      call MPI_Wait(req, st, ierr)
    case (8)
      call MPI_File_iwrite_at_all(fh, at, a, 1, interior, req, ierr)
      call MPI_Wait(req, st, ierr)
    case (9)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_iwrite(fh, a, 1, interior, req, ierr)
      call MPI_Wait(req, st, ierr)
    case (10)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_iwrite_all(fh, a, 1, interior, req, ierr)
      call MPI_Wait(req, st, ierr)
    case (11)
      call shared_turns(.true., .true.)
    case (12)
      call MPI_File_write_at_all_begin(fh, at, a, 1, interior, ierr)
      call MPI_File_write_at_all_end(fh, a, st, ierr)
    case (13)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_write_all_begin(fh, a, 1, interior, ierr)
      call MPI_File_write_all_end(fh, a, st, ierr)
    case (14)
      call MPI_File_seek_shared(fh, at - rank * bytes, MPI_SEEK_SET, ierr)
      call MPI_File_write_ordered_begin(fh, a, 1, interior, ierr)
      call MPI_File_write_ordered_end(fh, a, st, ierr)
    end select
  end subroutine write_form

  subroutine read_form(f)
    integer, intent(in) :: f
    HANDLE(Request) :: req
    select case (f)
    case (1)
      call MPI_File_read_at(fh, at, b, 1, interior, st, ierr)
    case (2)
      call MPI_File_read_at_all(fh, at, b, 1, interior, st, ierr)
    case (3)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_read(fh, b, 1, interior, st, ierr)
    case (4)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_read_all(fh, b, 1, interior, st, ierr)
    case (5)
      call shared_turns(.false., .false.)
    case (6)
      call MPI_File_seek_shared(fh, at - rank * bytes, MPI_SEEK_SET, ierr)
      call MPI_File_read_ordered(fh, b, 1, interior, st, ierr)
    case (7)
      call MPI_File_iread_at(fh, at, b, 1, interior, req, ierr)
      call MPI_Wait(req, st, ierr)
    case (8)
      call MPI_File_iread_at_all(fh, at, b, 1, interior, req, ierr)
      call MPI_Wait(req, st, ierr)
    case (9)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_iread(fh, b, 1, interior, req, ierr)
      call MPI_Wait(req, st, ierr)
    case (10)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_iread_all(fh, b, 1, interior, req, ierr)
      call MPI_Wait(req, st, ierr)
    case (11)
      call shared_turns(.false., .true.)
    case (12)
      call MPI_File_read_at_all_begin(fh, at, b, 1, interior, ierr)
      call MPI_File_read_at_all_end(fh, b, st, ierr)
    case (13)
      call MPI_File_seek(fh, at, MPI_SEEK_SET, ierr)
      call MPI_File_read_all_begin(fh, b, 1, interior, ierr)
      call MPI_File_read_all_end(fh, b, st, ierr)
    case (14)
      call MPI_File_seek_shared(fh, at - rank * bytes, MPI_SEEK_SET, ierr)
      call MPI_File_read_ordered_begin(fh, b, 1, interior, ierr)
      call MPI_File_read_ordered_end(fh, b, st, ierr)
    end select
  end subroutine read_form
end program io
