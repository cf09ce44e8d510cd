! Several arrays in one message from MPI_BOTTOM (as LAMMPS's Fortran exchange sends its
! atoms): every other atom's position x(3,:) and velocity v(3,:) and its tag, as a struct of
! absolute addresses (MPI_Get_address), in this binding: `use mpi_f08` built with -DF08,
! mpif.h with -DMPIFH, `use mpi` with neither. Rank 0 sends, rank 1 receives, by a blocking
! send and a non-blocking receive, a non-blocking send and a blocking receive, and
! MPI_Sendrecv both ways; one line per form, "right" or "WRONG", for runs with the MPI alone
! and under memcomm to be compared.
#include "binding.h"
program bottom
  BINDING_MODULE
  implicit none
  BINDING_HEADER
  integer, parameter :: atoms = 2048
  double precision :: x(3, atoms), v(3, atoms)
  integer :: tag(atoms)
  HANDLE(Datatype) :: half3, halfi, t, parts(3)
  HANDLE(Request) :: req
  STATUS :: st
  integer(kind=MPI_ADDRESS_KIND) :: where(3)
  integer :: lens(3), rank, ierr, form, peer, a, wrong
  character(len=24), parameter :: names(3) = [character(len=24) :: 'send-irecv', 'isend-recv', &
                                              'sendrecv']

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  peer = 1 - rank
  call MPI_Type_vector(atoms / 2, 3, 6, MPI_DOUBLE_PRECISION, half3, ierr)
  call MPI_Type_vector(atoms / 2, 1, 2, MPI_INTEGER, halfi, ierr)
  call MPI_Get_address(x, where(1), ierr)
  call MPI_Get_address(v, where(2), ierr)
  call MPI_Get_address(tag, where(3), ierr)
  lens = 1
  parts = [half3, half3, halfi]
  call MPI_Type_create_struct(3, lens, where, parts, t, ierr)
  call MPI_Type_commit(t, ierr)
  do form = 1, 3
    call fill(rank == 0 .or. form == 3)
    select case (form)
    case (1)
      if (rank == 0) then
        call MPI_Send(MPI_BOTTOM, 1, t, peer, form, MPI_COMM_WORLD, ierr)
      else
        call MPI_Irecv(MPI_BOTTOM, 1, t, peer, form, MPI_COMM_WORLD, req, ierr)
        call MPI_Wait(req, st, ierr)
      end if
    case (2)
      if (rank == 0) then
        call MPI_Isend(MPI_BOTTOM, 1, t, peer, form, MPI_COMM_WORLD, req, ierr)
        call MPI_Wait(req, st, ierr)
      else
        call MPI_Recv(MPI_BOTTOM, 1, t, peer, form, MPI_COMM_WORLD, st, ierr)
      end if
    case (3)
      call MPI_Sendrecv_replace(MPI_BOTTOM, 1, t, peer, form, peer, form, MPI_COMM_WORLD, st, &
                                ierr)
    end select
    if (rank == 1 .or. form == 3) then
      wrong = 0
      do a = 1, atoms
        if (mod(a, 2) == 1) then
          wrong = wrong + count(x(:, a) /= value(peer, a)) + &
                  count(v(:, a) /= -value(peer, a)) + merge(1, 0, tag(a) /= 7 * a + peer)
        else
          wrong = wrong + count(x(:, a) /= -1d0) + count(v(:, a) /= -1d0) + &
                  merge(1, 0, tag(a) /= -1)
        end if
      end do
      print '(a, i0, a, a, a)', 'bottom rank ', rank, ' ', trim(names(form)), &
            merge(': right', ': WRONG', wrong == 0)
    end if
  end do
  call MPI_Type_free(t, ierr)
  call MPI_Type_free(half3, ierr)
  call MPI_Type_free(halfi, ierr)
  call MPI_Finalize(ierr)
contains
  ! rank r's position components of atom a
  function value(r, a) result(val)
    integer, intent(in) :: r, a
    double precision :: val(3)
    integer :: k
    val = [(1000000d0 * r + 3 * a + k, k = 1, 3)]
  end function value

  ! a sender's arrays (`sends`), or a receiver's: every element -1, for what arrives to be told
  ! from what did not; the exchanged (odd) atoms of a sender hold its values
  subroutine fill(sends)
    logical, intent(in) :: sends
    integer :: b
    x = -1d0
    v = -1d0
    tag = -1
    if (.not. sends) return
    do b = 1, atoms, 2
      x(:, b) = value(rank, b)
      v(:, b) = -value(rank, b)
      tag(b) = 7 * b + rank
    end do
  end subroutine fill
end program bottom
