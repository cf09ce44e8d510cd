/* A parallel HDF5 program of the usual kind: each rank holds a block of a 2-D field of
 * doubles with ghost cells around it, and writes the interior (a hyperslab of the block, a
 * non-contiguous memory selection that HDF5 hands to MPI-IO as a derived datatype) into its
 * part of a shared dataset, collectively and independently, and every other column of it
 * into a dataset of half the width; then reads each dataset back into a fresh block and
 * prints a checksum of everything it holds, ghost cells included. tests/hdf5/run.sh runs it
 * with the MPI alone and under memcomm: the files and the output must be the same.
 *
 * usage: ghost FILE [NX NY]   (each rank's interior: NX x NY, default 512 x 512) */
#include <hdf5.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { GHOST = 2 };

static int rank, nranks;

/* A checksum of a block, ghost cells included, that sees where each value lies. */
static double checksum(const double *block, hsize_t rows, hsize_t cols)
{
    double sum = 0;
    for (hsize_t i = 0; i < rows; i++)
        for (hsize_t j = 0; j < cols; j++)
            sum += block[i * cols + j] * (double)((i * 7 + j * 13) % 101 + 1);
    return sum;
}

/* The memory selection: the interior of the block, or every other column of it. */
static hid_t memory_space(hsize_t nx, hsize_t ny, int columns)
{
    const hsize_t dims[2] = {nx + 2 * GHOST, ny + 2 * GHOST}, start[2] = {GHOST, GHOST};
    const hsize_t stride[2] = {1, columns ? 2 : 1}, count[2] = {nx, columns ? ny / 2 : ny};
    hid_t space = H5Screate_simple(2, dims, NULL);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, stride, count, NULL);
    return space;
}

/* This rank's rows of the dataset (ranks stacked along the first dimension). */
static hid_t file_space(hid_t dataset, hsize_t nx, hsize_t width)
{
    const hsize_t start[2] = {(hsize_t)rank * nx, 0}, count[2] = {nx, width};
    hid_t space = H5Dget_space(dataset);
    H5Sselect_hyperslab(space, H5S_SELECT_SET, start, NULL, count, NULL);
    return space;
}

static void put(hid_t file, const char *name, const double *block, hsize_t nx, hsize_t ny,
                int columns, H5FD_mpio_xfer_t mode)
{
    const hsize_t width = columns ? ny / 2 : ny, dims[2] = {(hsize_t)nranks * nx, width};
    hid_t fspace = H5Screate_simple(2, dims, NULL), dcpl = H5Pcreate(H5P_DATASET_CREATE);
    H5Pset_obj_track_times(dcpl, 0); /* no times in the file: runs compare byte for byte */
    H5Pset_fill_time(dcpl, H5D_FILL_TIME_NEVER);
    hid_t dataset = H5Dcreate2(file, name, H5T_NATIVE_DOUBLE, fspace, H5P_DEFAULT, dcpl,
                               H5P_DEFAULT);
    hid_t mine = file_space(dataset, nx, width), memory = memory_space(nx, ny, columns);
    hid_t xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, mode);
    if (H5Dwrite(dataset, H5T_NATIVE_DOUBLE, memory, mine, xfer, block) < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    H5Pclose(xfer);
    H5Sclose(memory);
    H5Sclose(mine);
    H5Dclose(dataset);
    H5Pclose(dcpl);
    H5Sclose(fspace);
}

static double get(hid_t file, const char *name, hsize_t nx, hsize_t ny, int columns,
                  H5FD_mpio_xfer_t mode)
{
    const hsize_t rows = nx + 2 * GHOST, cols = ny + 2 * GHOST;
    double *block = malloc(rows * cols * sizeof *block);
    for (hsize_t k = 0; k < rows * cols; k++)
        block[k] = -1;
    hid_t dataset = H5Dopen2(file, name, H5P_DEFAULT);
    hid_t mine = file_space(dataset, nx, columns ? ny / 2 : ny);
    hid_t memory = memory_space(nx, ny, columns), xfer = H5Pcreate(H5P_DATASET_XFER);
    H5Pset_dxpl_mpio(xfer, mode);
    if (H5Dread(dataset, H5T_NATIVE_DOUBLE, memory, mine, xfer, block) < 0)
        MPI_Abort(MPI_COMM_WORLD, 1);
    const double sum = checksum(block, rows, cols);
    H5Pclose(xfer);
    H5Sclose(memory);
    H5Sclose(mine);
    H5Dclose(dataset);
    free(block);
    return sum;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &nranks);
    if (argc < 2) {
        if (rank == 0)
            fprintf(stderr, "usage: ghost FILE [NX NY]\n");
        MPI_Abort(MPI_COMM_WORLD, 2);
    }
    const hsize_t nx = argc > 3 ? (hsize_t)atoll(argv[2]) : 512;
    const hsize_t ny = argc > 3 ? (hsize_t)atoll(argv[3]) : 512;
    const hsize_t rows = nx + 2 * GHOST, cols = ny + 2 * GHOST;
    double *block = malloc(rows * cols * sizeof *block);
    for (hsize_t i = 0; i < rows; i++) /* ghost cells hold values that must not be written */
        for (hsize_t j = 0; j < cols; j++)
            block[i * cols + j] = (i < GHOST || j < GHOST || i >= rows - GHOST ||
                                   j >= cols - GHOST)
                                      ? -1000.0 - rank
                                      : (double)rank * 1e6 + (double)(i * cols + j);
    hid_t fapl = H5Pcreate(H5P_FILE_ACCESS);
    H5Pset_fapl_mpio(fapl, MPI_COMM_WORLD, MPI_INFO_NULL);
    hid_t file = H5Fcreate(argv[1], H5F_ACC_TRUNC, H5P_DEFAULT, fapl);
    put(file, "collective", block, nx, ny, 0, H5FD_MPIO_COLLECTIVE);
    put(file, "independent", block, nx, ny, 0, H5FD_MPIO_INDEPENDENT);
    put(file, "columns", block, nx, ny, 1, H5FD_MPIO_COLLECTIVE);
    H5Fclose(file);
    file = H5Fopen(argv[1], H5F_ACC_RDONLY, fapl);
    const double sums[3] = {get(file, "collective", nx, ny, 0, H5FD_MPIO_COLLECTIVE),
                            get(file, "independent", nx, ny, 0, H5FD_MPIO_INDEPENDENT),
                            get(file, "columns", nx, ny, 1, H5FD_MPIO_COLLECTIVE)};
    H5Fclose(file);
    H5Pclose(fapl);
    double all[3 * 64] = {0};
    MPI_Gather(sums, 3, MPI_DOUBLE, all, 3, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    for (int r = 0; rank == 0 && r < nranks && r < 64; r++)
        printf("rank %d: collective %.17g independent %.17g columns %.17g\n", r, all[3 * r],
               all[3 * r + 1], all[3 * r + 2]);
    free(block);
    MPI_Finalize();
    return 0;
}
