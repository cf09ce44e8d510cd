! Random derived types (random_types.c: the C tests' generator) sent from rank 0 and
! received on rank 1 through this binding's calls: `use mpi_f08` built with -DF08, mpif.h
! with -DMPIFH, `use mpi` with neither. Each type goes through one of the send forms and
! one of the receive and completion forms, by its number; rank 1 prints a checksum of its
! whole receive buffer (gaps included) and the status, one line per type, so that runs
! with the MPI alone and under memcomm can be compared line for line.
#include "binding.h"
program random_types
  BINDING_MODULE
  implicit none
  BINDING_HEADER
  integer, parameter :: receive_forms = 11, send_forms = 4
  integer(1), allocatable :: buf(:)
  HANDLE(Datatype) :: t
  HANDLE(Request) :: req(1)
  HANDLE(Message) :: msg
  STATUS :: st
  STATUSES(1)
  integer :: rank, g, cases, seed, count, origin, span, ierr, got, i, idx, outcount, ind(1)
  integer :: form, used
  integer(8) :: sum
  logical :: flag
  character(len=32) :: arg

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  cases = 300
  seed = 1
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) cases
  end if
  if (command_argument_count() >= 2) then
    call get_command_argument(2, arg)
    read (arg, *) seed
  end if
  used = 0
  do g = 0, cases - 1
    call random_type(seed, g, VAL(t), count, origin, span)
    if (VAL(t) == VAL(MPI_DATATYPE_NULL)) cycle
    used = used + 1
    allocate(buf(span))
    if (rank == 0) then
      do i = 1, span
        buf(i) = int(mod(i * 7 + g * 13, 251) - 125, 1)
      end do
      form = mod(g, send_forms)
      select case (form)
      case (0)
        call MPI_Send(buf(origin), count, t, 1, g, MPI_COMM_WORLD, ierr)
      case (1)
        call MPI_Isend(buf(origin), count, t, 1, g, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Wait(req(1), st, ierr)
      case (2)
        call MPI_Ssend(buf(origin), count, t, 1, g, MPI_COMM_WORLD, ierr)
      case (3)
        call MPI_Send_init(buf(origin), count, t, 1, g, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Start(req(1), ierr)
        call MPI_Wait(req(1), st, ierr)
        call MPI_Request_free(req(1), ierr)
      end select
    else if (rank == 1) then
      buf = int(-91, 1)
      form = mod(g / send_forms, receive_forms)
      if (form == 0) then
        call MPI_Recv(buf(origin), count, t, 0, g, MPI_COMM_WORLD, st, ierr)
      else if (form == 1) then
        call MPI_Mprobe(0, g, MPI_COMM_WORLD, msg, st, ierr)
        call MPI_Mrecv(buf(origin), count, t, msg, st, ierr)
      else if (form == 2) then
        call MPI_Recv_init(buf(origin), count, t, 0, g, MPI_COMM_WORLD, req(1), ierr)
        call MPI_Start(req(1), ierr)
        call MPI_Wait(req(1), st, ierr)
        call MPI_Request_free(req(1), ierr)
      else
        call MPI_Irecv(buf(origin), count, t, 0, g, MPI_COMM_WORLD, req(1), ierr)
        select case (form)
        case (3)
          call MPI_Wait(req(1), st, ierr)
        case (4)
          flag = .false.
          do while (.not. flag)
            call MPI_Test(req(1), flag, st, ierr)
          end do
        case (5)
          call MPI_Waitall(1, req, sts, ierr)
          st = FIRST(sts)
        case (6)
          flag = .false.
          do while (.not. flag)
            call MPI_Testall(1, req, flag, sts, ierr)
          end do
          st = FIRST(sts)
        case (7)
          call MPI_Waitany(1, req, idx, st, ierr)
        case (8)
          flag = .false.
          do while (.not. flag)
            call MPI_Testany(1, req, idx, flag, st, ierr)
          end do
        case (9)
          outcount = 0
          do while (outcount == 0)
            call MPI_Testsome(1, req, outcount, ind, sts, ierr)
          end do
          st = FIRST(sts)
        case (10)
          flag = .false.
          do while (.not. flag)
            call MPI_Request_get_status(req(1), flag, st, ierr)
          end do
          call MPI_Wait(req(1), MPI_STATUS_IGNORE, ierr)
        end select
      end if
      call MPI_Get_count(st, t, got, ierr)
      sum = 0
      do i = 1, span
        sum = mod(sum * 31 + int(buf(i), 8) + 128, 1000000007_8)
      end do
      print '(a,i0,a,i0,a,i0,a,i0,a,i0,a,i0)', 'type ', g, ' form ', form, ': sum ', sum, &
        ' count ', got, ' source ', SOURCE_OF(st), ' tag ', TAG_OF(st)
    end if
    deallocate(buf)
    call MPI_Type_free(t, ierr)
  end do
  if (rank == 1) print '(a,i0,a,i0)', 'types used ', used, ' of ', cases
  call MPI_Finalize(ierr)
end program random_types
