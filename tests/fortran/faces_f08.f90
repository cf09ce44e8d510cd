! Face exchanges through every completion call, in `use mpi_f08`. With the argument `mixed`
! the face type is built and committed by a `use mpi` subroutine (faces_legacy_type), as a
! program that mixes bindings does; otherwise by mpi_f08 itself. With `c` the requests are
! posted by C (faces_c.c) and completed here. Rank 0 sends column faces
! of an n x n array (a vector type), rank 1 receives them into another array's face; every
! received value, the untouched ones around it and the statuses are checked. Prints one
! line per completion form and exits 1 if any was wrong.
module faces_legacy
contains
  subroutine faces_legacy_type(n, handle)
    use mpi
    implicit none
    integer, intent(in) :: n
    integer, intent(out) :: handle
    integer :: ierr
    call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, handle, ierr)
    call MPI_Type_commit(handle, ierr)
  end subroutine faces_legacy_type
end module faces_legacy

program faces_f08
  use mpi_f08
  use faces_data
  use faces_legacy
  implicit none
  double precision, allocatable :: a(:, :, :)
  type(MPI_Datatype) :: face
  type(MPI_Request) :: req(nreq)
  type(MPI_Status) :: st(nreq), one
  integer :: rank, nranks, mode, i, k, idx, outcount, indices(nreq), bad, failures, legacy
  integer :: count
  logical :: flag, mixed, from_c
  character(len=16) :: arg, modes(12)
  modes = [character(len=16) :: 'wait', 'test', 'waitall', 'waitall-ignore', 'testall', &
           'waitany', 'testany', 'waitsome', 'testsome', 'get_status', 'persistent', &
           'request_free']

  call MPI_Init()
  call MPI_Comm_rank(MPI_COMM_WORLD, rank)
  call MPI_Comm_size(MPI_COMM_WORLD, nranks)
  mixed = .false.
  from_c = .false.
  if (command_argument_count() > 0) then
    call get_command_argument(1, arg)
    mixed = trim(arg) == 'mixed'
    from_c = trim(arg) == 'c'
  end if
  if (mixed) then
    call faces_legacy_type(n, legacy)
    face%MPI_VAL = legacy
  else
    call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, face)
    call MPI_Type_commit(face)
  end if
  allocate(a(n, n, nreq))
  failures = 0

  do mode = 1, size(modes)
    call fill(a, rank)
    if (rank == 0) then
      if (trim(modes(mode)) == 'persistent') then
        do k = 1, nreq
          if (from_c) then
            call faces_c_send_init(a(k, 1, k), face%MPI_VAL, 1, tag0 + k, req(k)%MPI_VAL)
          else
            call MPI_Send_init(a(k, 1, k), 1, face, 1, tag0 + k, MPI_COMM_WORLD, req(k))
          end if
        end do
        do i = 1, 3
          call fill_round(a, i)
          call MPI_Startall(nreq, req)
          call MPI_Waitall(nreq, req, st)
        end do
        do k = 1, nreq
          call MPI_Request_free(req(k))
        end do
      else
        do k = 1, nreq
          if (from_c) then
            call faces_c_isend(a(k, 1, k), face%MPI_VAL, 1, tag0 + k, req(k)%MPI_VAL)
          else
            call MPI_Isend(a(k, 1, k), 1, face, 1, tag0 + k, MPI_COMM_WORLD, req(k))
          end if
        end do
        if (trim(modes(mode)) == 'request_free') then
          do k = 1, nreq
            call MPI_Request_free(req(k))
          end do
        else
          call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE)
        end if
      end if
    else if (rank == 1) then
      select case (trim(modes(mode)))
      case ('persistent')
        do k = 1, nreq
          if (from_c) then
            call faces_c_recv_init(a(k, 1, k), face%MPI_VAL, 0, tag0 + k, req(k)%MPI_VAL)
          else
            call MPI_Recv_init(a(k, 1, k), 1, face, 0, tag0 + k, MPI_COMM_WORLD, req(k))
          end if
        end do
        bad = 0
        do i = 1, 3
          do k = 1, nreq
            call MPI_Start(req(k))
          end do
          do k = 1, nreq
            call MPI_Wait(req(k), st(k))
          end do
          bad = bad + check(a, i, st, .true.)
        end do
        do k = 1, nreq
          call MPI_Request_free(req(k))
        end do
      case default
        call post(a, req, face)
        select case (trim(modes(mode)))
        case ('wait', 'request_free')
          do k = 1, nreq
            call MPI_Wait(req(k), st(k))
          end do
        case ('test')
          do k = 1, nreq
            flag = .false.
            do while (.not. flag)
              call MPI_Test(req(k), flag, st(k))
            end do
          end do
        case ('waitall')
          call MPI_Waitall(nreq, req, st)
        case ('waitall-ignore')
          call MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE)
        case ('testall')
          flag = .false.
          do while (.not. flag)
            call MPI_Testall(nreq, req, flag, st)
          end do
        case ('waitany')
          do i = 1, nreq
            call MPI_Waitany(nreq, req, idx, one)
            if (idx >= 1 .and. idx <= nreq) st(idx) = one
          end do
        case ('testany')
          i = 0
          do while (i < nreq)
            call MPI_Testany(nreq, req, idx, flag, one)
            if (flag .and. idx /= MPI_UNDEFINED) then
              if (idx >= 1 .and. idx <= nreq) st(idx) = one
              i = i + 1
            end if
          end do
        case ('waitsome', 'testsome')
          i = 0
          do while (i < nreq)
            if (trim(modes(mode)) == 'waitsome') then
              call MPI_Waitsome(nreq, req, outcount, indices, st)
            else
              call MPI_Testsome(nreq, req, outcount, indices, st)
            end if
            if (outcount == MPI_UNDEFINED) exit
            i = i + outcount
          end do
        case ('get_status')
          do k = 1, nreq
            flag = .false.
            do while (.not. flag)
              call MPI_Request_get_status(req(k), flag, st(k))
            end do
            call MPI_Wait(req(k), MPI_STATUS_IGNORE)
          end do
        end select
        bad = check(a, 1, st, trim(modes(mode)) /= 'waitall-ignore' .and. &
                    trim(modes(mode)) /= 'waitsome' .and. trim(modes(mode)) /= 'testsome')
      end select
      call report('faces_f08', modes(mode), bad, failures)
    end if
    call MPI_Barrier(MPI_COMM_WORLD)
  end do

  call MPI_Type_free(face)
  call MPI_Finalize()
  if (failures > 0) stop 1

contains

  subroutine post(a, req, face)
    double precision, intent(inout) :: a(:, :, :)
    type(MPI_Request), intent(out) :: req(:)
    type(MPI_Datatype), intent(in) :: face
    integer :: k
    do k = 1, nreq
      if (from_c) then
        call faces_c_irecv(a(k, 1, k), face%MPI_VAL, 0, tag0 + k, req(k)%MPI_VAL)
      else
        call MPI_Irecv(a(k, 1, k), 1, face, 0, tag0 + k, MPI_COMM_WORLD, req(k))
      end if
    end do
  end subroutine post

  ! Wrong values (faces_data), and with `statuses` a million for each status whose source,
  ! tag or count is wrong.
  integer function check(a, round, st, statuses)
    double precision, intent(in) :: a(:, :, :)
    integer, intent(in) :: round
    type(MPI_Status), intent(in) :: st(:)
    logical, intent(in) :: statuses
    integer :: k, got
    check = wrong_values(a, round)
    if (.not. statuses) return
    do k = 1, nreq
      call MPI_Get_count(st(k), face, got)
      if (st(k)%MPI_SOURCE /= 0 .or. st(k)%MPI_TAG /= tag0 + k .or. got /= 1) &
        check = check + 1000000
    end do
  end function check
end program faces_f08
