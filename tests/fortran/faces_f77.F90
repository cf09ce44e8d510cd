! Face exchanges through every completion call, in `use mpi` or (built with -DMPIFH) mpif.h:
! the same program as faces_f08.f90, with integer handles and statuses. With the argument `c`
! the requests are posted by C (faces_c.c) and completed here. Built with -DSTATUS_ARRAYS (an
! MPI of 4.1 or later), also through MPI_Request_get_status_any, _all and _some.
program faces_f77
#ifndef MPIFH
  use mpi
#endif
  use faces_data
  implicit none
#ifdef MPIFH
  include 'mpif.h'
#endif
  double precision, allocatable :: a(:, :, :)
  integer :: face, req(nreq), st(MPI_STATUS_SIZE, nreq), one(MPI_STATUS_SIZE)
  integer :: each(MPI_STATUS_SIZE, nreq)
  integer :: rank, mode, i, k, idx, outcount, indices(nreq), bad, failures, ierr
  logical :: flag, from_c
#ifdef STATUS_ARRAYS
  character(len=16) :: arg, modes(15)
#else
  character(len=16) :: arg, modes(12)
#endif
#ifdef MPIFH
  character(len=*), parameter :: program = 'faces_mpifh'
#else
  character(len=*), parameter :: program = 'faces_use_mpi'
#endif
  modes = [character(len=16) :: 'wait', 'test', 'waitall', 'waitall-ignore', 'testall', &
           'waitany', 'testany', 'waitsome', 'testsome', 'get_status', 'persistent', &
#ifdef STATUS_ARRAYS
           'get_status_any', 'get_status_all', 'get_status_some', &
#endif
           'request_free']

  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  from_c = .false.
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    from_c = trim(arg) == 'c'
  end if
  call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, face, ierr)
  call MPI_Type_commit(face, ierr)
  allocate(a(n, n, nreq))
  failures = 0

  do mode = 1, size(modes)
    call fill(a, rank)
    if (rank == 0) then
      if (trim(modes(mode)) == 'persistent') then
        do k = 1, nreq
          if (from_c) then
            call faces_c_send_init(a(k, 1, k), face, 1, tag0 + k, req(k))
          else
            call MPI_Send_init(a(k, 1, k), 1, face, 1, tag0 + k, MPI_COMM_WORLD, req(k), ierr)
          end if
        end do
        do i = 1, 3
          call fill_round(a, i)
          call MPI_Startall(nreq, req, ierr)
          call MPI_Waitall(nreq, req, st, ierr)
        end do
        do k = 1, nreq
          call MPI_Request_free(req(k), ierr)
        end do
      else
        do k = 1, nreq
          if (from_c) then
            call faces_c_isend(a(k, 1, k), face, 1, tag0 + k, req(k))
          else
            call MPI_Isend(a(k, 1, k), 1, face, 1, tag0 + k, MPI_COMM_WORLD, req(k), ierr)
          end if
        end do
        if (trim(modes(mode)) == 'request_free') then
          do k = 1, nreq
            call MPI_Request_free(req(k), ierr)
          end do
        else
          call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE, ierr)
        end if
      end if
    else if (rank == 1) then
      select case (trim(modes(mode)))
      case ('persistent')
        do k = 1, nreq
          if (from_c) then
            call faces_c_recv_init(a(k, 1, k), face, 0, tag0 + k, req(k))
          else
            call MPI_Recv_init(a(k, 1, k), 1, face, 0, tag0 + k, MPI_COMM_WORLD, req(k), ierr)
          end if
        end do
        bad = 0
        do i = 1, 3
          do k = 1, nreq
            call MPI_Start(req(k), ierr)
          end do
          do k = 1, nreq
            call MPI_Wait(req(k), st(:, k), ierr)
          end do
          bad = bad + check(a, i, st, .true.)
        end do
        do k = 1, nreq
          call MPI_Request_free(req(k), ierr)
        end do
      case default
        do k = 1, nreq
          if (from_c) then
            call faces_c_irecv(a(k, 1, k), face, 0, tag0 + k, req(k))
          else
            call MPI_Irecv(a(k, 1, k), 1, face, 0, tag0 + k, MPI_COMM_WORLD, req(k), ierr)
          end if
        end do
        select case (trim(modes(mode)))
        case ('wait', 'request_free')
          do k = 1, nreq
            call MPI_Wait(req(k), st(:, k), ierr)
          end do
        case ('test')
          do k = 1, nreq
            flag = .false.
            do while (.not. flag)
              call MPI_Test(req(k), flag, st(:, k), ierr)
            end do
          end do
        case ('waitall')
          call MPI_Waitall(nreq, req, st, ierr)
        case ('waitall-ignore')
          call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE, ierr)
        case ('testall')
          flag = .false.
          do while (.not. flag)
            call MPI_Testall(nreq, req, flag, st, ierr)
          end do
        case ('waitany')
          do i = 1, nreq
            call MPI_Waitany(nreq, req, idx, one, ierr)
            if (idx >= 1 .and. idx <= nreq) st(:, idx) = one
          end do
        case ('testany')
          i = 0
          do while (i < nreq)
            call MPI_Testany(nreq, req, idx, flag, one, ierr)
            if (flag .and. idx /= MPI_UNDEFINED) then
              if (idx >= 1 .and. idx <= nreq) st(:, idx) = one
              i = i + 1
            end if
          end do
        case ('waitsome', 'testsome')
          i = 0
          do while (i < nreq)
            if (trim(modes(mode)) == 'waitsome') then
              call MPI_Waitsome(nreq, req, outcount, indices, st, ierr)
            else
              call MPI_Testsome(nreq, req, outcount, indices, st, ierr)
            end if
            if (outcount == MPI_UNDEFINED) exit
            i = i + outcount
          end do
        case ('get_status')
          do k = 1, nreq
            flag = .false.
            do while (.not. flag)
              call MPI_Request_get_status(req(k), flag, st(:, k), ierr)
            end do
            call MPI_Wait(req(k), MPI_STATUS_IGNORE, ierr)
          end do
#ifdef STATUS_ARRAYS
        case ('get_status_any')
          ! each request found complete is then freed by MPI_Wait, so that the next call
          ! looks at the others; an index out of range (a binding's 0-based one) ends it
          st = 0
          do i = 1, nreq
            flag = .false.
            do while (.not. flag)
              call MPI_Request_get_status_any(nreq, req, idx, flag, one, ierr)
            end do
            if (idx < 1 .or. idx > nreq) exit
            st(:, idx) = one
            call MPI_Wait(req(idx), MPI_STATUS_IGNORE, ierr)
          end do
          call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE, ierr)
        case ('get_status_all')
          flag = .false.
          do while (.not. flag)
            call MPI_Request_get_status_all(nreq, req, flag, st, ierr)
          end do
          call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE, ierr)
        case ('get_status_some')
          st = 0
          i = 0
          do while (i < nreq)
            call MPI_Request_get_status_some(nreq, req, outcount, indices, each, ierr)
            if (outcount == MPI_UNDEFINED) exit
            if (any(indices(1:outcount) < 1 .or. indices(1:outcount) > nreq)) exit
            do k = 1, outcount
              st(:, indices(k)) = each(:, k)
              call MPI_Wait(req(indices(k)), MPI_STATUS_IGNORE, ierr)
            end do
            i = i + outcount
          end do
          call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE, ierr)
#endif
        end select
        bad = check(a, 1, st, trim(modes(mode)) /= 'waitall-ignore' .and. &
                    trim(modes(mode)) /= 'waitsome' .and. trim(modes(mode)) /= 'testsome')
      end select
      call report(program, modes(mode), bad, failures)
    end if
    call MPI_Barrier(MPI_COMM_WORLD, ierr)
  end do

  call MPI_Type_free(face, ierr)
  call MPI_Finalize(ierr)
  if (failures > 0) stop 1

contains

  ! Wrong values (faces_data), and with `statuses` a million for each status whose source,
  ! tag or count is wrong.
  integer function check(a, round, st, statuses)
    double precision, intent(in) :: a(:, :, :)
    integer, intent(in) :: round, st(MPI_STATUS_SIZE, nreq)
    logical, intent(in) :: statuses
    integer :: k, got, ierr
    check = wrong_values(a, round)
    if (.not. statuses) return
    do k = 1, nreq
      call MPI_Get_count(st(:, k), face, got, ierr)
      if (st(MPI_SOURCE, k) /= 0 .or. st(MPI_TAG, k) /= tag0 + k .or. got /= 1) &
        check = check + 1000000
    end do
  end function check
end program faces_f77
