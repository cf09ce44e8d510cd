/* Device memory goes to the MPI unchanged: a buffer the (here, stand-in) CUDA driver reports
 * as device memory is neither packed, unpacked nor carried by memcomm, and the results are
 * the MPI's; host buffers of the same type are still memcomm's. */
#include "../check.h"
#include "memcomm.h"

void fake_cuda_register(const void *p, size_t bytes);

static double device[4096], host[4096];

static unsigned long long handled(void)
{
    memcomm_stats s;
    memcomm_stats_get(&s);
    return s.handled_calls;
}

/* Pack, unpack, a message to self and an all-to-all of `buf` (blocking and not): whether
 * memcomm handled any of it, and whether every pack equals the MPI's. */
static bool moves_like_mpi(double *buf, MPI_Datatype t, bool *by_memcomm)
{
    char mine[8192], ref[8192];
    int pm = 0, pr = 0;
    unsigned long long before = handled();
    bool same = MPI_Pack(buf, 4, t, mine, sizeof mine, &pm, MPI_COMM_SELF) == MPI_SUCCESS &&
                PMPI_Pack(buf, 4, t, ref, sizeof ref, &pr, MPI_COMM_SELF) == MPI_SUCCESS &&
                pm == pr && memcmp(mine, ref, (size_t)pm) == 0;
    pm = 0;
    same = same && MPI_Unpack(ref, pr, &pm, buf, 4, t, MPI_COMM_SELF) == MPI_SUCCESS;
    same = same && MPI_Sendrecv(buf, 4, t, 0, 0, buf + 2048, 4, t, 0, 0, MPI_COMM_SELF,
                                MPI_STATUS_IGNORE) == MPI_SUCCESS;
    same = same && MPI_Alltoall(buf, 4, t, buf + 2048, 4, t, MPI_COMM_SELF) == MPI_SUCCESS;
    MPI_Request r;
    same = same && MPI_Ialltoall(buf, 4, t, buf + 2048, 4, t, MPI_COMM_SELF, &r) == MPI_SUCCESS &&
           MPI_Wait(&r, MPI_STATUS_IGNORE) == MPI_SUCCESS;
    *by_memcomm = handled() > before;
    return same;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    for (int i = 0; i < 4096; i++)
        device[i] = host[i] = i;
    fake_cuda_register(device, sizeof device);
    MPI_Datatype t;
    MPI_Type_vector(16, 1, 8, MPI_DOUBLE, &t);
    MPI_Type_commit(&t);
    bool by_memcomm = true;
    CHECK(moves_like_mpi(device, t, &by_memcomm));
    CHECK(!by_memcomm);
    CHECK(moves_like_mpi(host, t, &by_memcomm));
    CHECK(by_memcomm);
    MPI_Type_free(&t);
    int rc = check_summary("test_device");
    MPI_Finalize();
    return rc;
}
