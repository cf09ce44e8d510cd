! The arrays of the face programs (faces_f08.f90, faces_f77.F90), whatever their binding:
! rank 0's n x n x nreq array of known values, rank 1's of -1, and the count of values that
! are wrong after rank 1 received row k of array k (a face: a vector type) from rank 0.
module faces_data
  implicit none
  integer, parameter :: n = 320, nreq = 4, tag0 = 7
contains
  subroutine fill(a, rank)
    double precision, intent(out) :: a(:, :, :)
    integer, intent(in) :: rank
    integer :: i, j, k
    do k = 1, nreq
      do j = 1, n
        do i = 1, n
          if (rank == 0) then
            a(i, j, k) = value(i, j, k, 1)
          else
            a(i, j, k) = -1d0
          end if
        end do
      end do
    end do
  end subroutine fill

  ! The faces rank 0 sends in round `round` of the persistent requests.
  subroutine fill_round(a, round)
    double precision, intent(inout) :: a(:, :, :)
    integer, intent(in) :: round
    integer :: j, k
    do k = 1, nreq
      do j = 1, n
        a(k, j, k) = value(k, j, k, round)
      end do
    end do
  end subroutine fill_round

  pure double precision function value(i, j, k, round)
    integer, intent(in) :: i, j, k, round
    value = dble(i) + 1000d0 * dble(j) + 1d7 * dble(k) + 1d9 * dble(round)
  end function value

  ! Wrong values in the received faces and outside them.
  integer function wrong_values(a, round)
    double precision, intent(in) :: a(:, :, :)
    integer, intent(in) :: round
    integer :: i, j, k
    wrong_values = 0
    do k = 1, nreq
      do j = 1, n
        do i = 1, n
          if (i == k) then
            if (a(i, j, k) /= value(i, j, k, round)) wrong_values = wrong_values + 1
          else
            if (a(i, j, k) /= -1d0) wrong_values = wrong_values + 1
          end if
        end do
      end do
    end do
  end function wrong_values

  ! One line per completion form: right, or how many values and statuses were wrong.
  subroutine report(program, mode, bad, failures)
    character(len=*), intent(in) :: program, mode
    integer, intent(in) :: bad
    integer, intent(inout) :: failures
    if (bad == 0) then
      print '(a,1x,a,a)', program, trim(mode), ': right'
    else
      print '(a,1x,a,a,i0,a,i0)', program, trim(mode), ': WRONG, values ', mod(bad, 1000000), &
        ', statuses ', bad / 1000000
      failures = failures + 1
    end if
  end subroutine report
end module faces_data
