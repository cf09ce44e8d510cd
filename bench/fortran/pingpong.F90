! Ping-pong of Fortran layouts, in `use mpi`: a matrix transpose (an n x n array of doubles
! sent as its rows: a vector type resized to one element, n of them) and the x and y faces
! of an m x m x m block (a(1,:,:) and a(:,1,:)). Each layout goes typed (the derived type
! on both sides) and by hand (pack loops into a contiguous buffer, a contiguous message,
! unpack loops); rank 0 prints one line per layout and method: its name, the bytes, and
! the median round trip in microseconds of `reps` exchanges after one untimed. Run it with
! the MPI alone and under memcomm (bench/fortran/pingpong.sh does both) to compare.
module layouts
  use mpi
  implicit none
  integer, parameter :: n = 1024, m = 192
  integer, parameter :: transpose = 1, x_face = 2, y_face = 3
  double precision, allocatable :: a2(:, :), a3(:, :, :), packed(:)
  integer :: layout, elements
contains
  subroutine pack_it()
    integer :: i, j, k
    select case (layout)
    case (transpose)
      do i = 1, n
        do j = 1, n
          packed((i - 1) * n + j) = a2(i, j)
        end do
      end do
    case (x_face)
      do k = 1, m
        do j = 1, m
          packed((k - 1) * m + j) = a3(1, j, k)
        end do
      end do
    case (y_face)
      do k = 1, m
        do i = 1, m
          packed((k - 1) * m + i) = a3(i, 1, k)
        end do
      end do
    end select
  end subroutine pack_it

  subroutine unpack_it()
    integer :: i, j, k
    select case (layout)
    case (transpose)
      do i = 1, n
        do j = 1, n
          a2(i, j) = packed((i - 1) * n + j)
        end do
      end do
    case (x_face)
      do k = 1, m
        do j = 1, m
          a3(1, j, k) = packed((k - 1) * m + j)
        end do
      end do
    case (y_face)
      do k = 1, m
        do i = 1, m
          a3(i, 1, k) = packed((k - 1) * m + i)
        end do
      end do
    end select
  end subroutine unpack_it
end module layouts

program pingpong
  use layouts
  implicit none
  integer :: rank, ierr, reps, row, t
  integer(kind=MPI_ADDRESS_KIND) :: lb, extent
  character(len=16) :: arg
  call MPI_Init(ierr)
  call MPI_Comm_rank(MPI_COMM_WORLD, rank, ierr)
  reps = 21
  if (command_argument_count() >= 1) then
    call get_command_argument(1, arg)
    read (arg, *) reps
  end if
  allocate(a2(n, n), a3(m, m, m), packed(n * n))
  call random_number(a2)
  call random_number(a3)

  layout = transpose
  elements = n * n
  call MPI_Type_vector(n, 1, n, MPI_DOUBLE_PRECISION, row, ierr)
  lb = 0
  extent = 8
  call MPI_Type_create_resized(row, lb, extent, t, ierr)
  call MPI_Type_commit(t, ierr)
  call time_typed('transpose', a2, n, t)
  call time_by_hand('transpose')
  call MPI_Type_free(t, ierr)
  call MPI_Type_free(row, ierr)

  layout = x_face
  elements = m * m
  call MPI_Type_vector(m * m, 1, m, MPI_DOUBLE_PRECISION, t, ierr)
  call MPI_Type_commit(t, ierr)
  call time_typed('x-face', a3, 1, t)
  call time_by_hand('x-face')
  call MPI_Type_free(t, ierr)

  layout = y_face
  call MPI_Type_vector(m, m, m * m, MPI_DOUBLE_PRECISION, t, ierr)
  call MPI_Type_commit(t, ierr)
  call time_typed('y-face', a3, 1, t)
  call time_by_hand('y-face')
  call MPI_Type_free(t, ierr)
  call MPI_Finalize(ierr)

contains

  ! The derived type on both sides, `count` of it from the array's first element.
  subroutine time_typed(name, a, count, t)
    character(len=*), intent(in) :: name
    double precision, intent(inout) :: a(*)
    integer, intent(in) :: count, t
    double precision :: times(reps), t0
    integer :: r, status(MPI_STATUS_SIZE), ierr
    do r = 0, reps
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t0 = MPI_Wtime()
      if (rank == 0) then
        call MPI_Send(a, count, t, 1, 0, MPI_COMM_WORLD, ierr)
        call MPI_Recv(a, count, t, 1, 0, MPI_COMM_WORLD, status, ierr)
      else if (rank == 1) then
        call MPI_Recv(a, count, t, 0, 0, MPI_COMM_WORLD, status, ierr)
        call MPI_Send(a, count, t, 0, 0, MPI_COMM_WORLD, ierr)
      end if
      if (r > 0) times(r) = MPI_Wtime() - t0
    end do
    call report(name, 'typed', times)
  end subroutine time_typed

  subroutine time_by_hand(name)
    character(len=*), intent(in) :: name
    double precision :: times(reps), t0
    integer :: r, status(MPI_STATUS_SIZE), ierr
    do r = 0, reps
      call MPI_Barrier(MPI_COMM_WORLD, ierr)
      t0 = MPI_Wtime()
      if (rank == 0) then
        call pack_it()
        call MPI_Send(packed, elements, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, ierr)
        call MPI_Recv(packed, elements, MPI_DOUBLE_PRECISION, 1, 0, MPI_COMM_WORLD, status, ierr)
        call unpack_it()
      else if (rank == 1) then
        call MPI_Recv(packed, elements, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, status, ierr)
        call unpack_it()
        call pack_it()
        call MPI_Send(packed, elements, MPI_DOUBLE_PRECISION, 0, 0, MPI_COMM_WORLD, ierr)
      end if
      if (r > 0) times(r) = MPI_Wtime() - t0
    end do
    call report(name, 'by-hand', times)
  end subroutine time_by_hand

  subroutine report(name, method, times)
    character(len=*), intent(in) :: name, method
    double precision, intent(inout) :: times(:)
    double precision :: x
    integer :: i, j
    do i = 2, size(times) ! insertion sort: a few dozen samples
      x = times(i)
      j = i - 1
      do while (j >= 1)
        if (times(j) <= x) exit
        times(j + 1) = times(j)
        j = j - 1
      end do
      times(j + 1) = x
    end do
    if (rank == 0) print '(a,1x,a,1x,i0,1x,f0.1)', name, method, 8 * elements, &
      1d6 * times((size(times) + 1) / 2)
  end subroutine report
end program pingpong
