/* C halves of the Fortran face tests: requests posted from C (through memcomm's C entry
 * points) that the Fortran program completes with its own binding's calls, as a Fortran
 * code using a C library does. Fortran handles in, Fortran handles out. */
#include <mpi.h>

typedef int (*post_fn)(void *, int, MPI_Datatype, int, int, MPI_Comm, MPI_Request *);

static void post(post_fn fn, void *buf, const MPI_Fint *type, const MPI_Fint *peer,
                 const MPI_Fint *tag, MPI_Fint *request)
{
    MPI_Request c = MPI_REQUEST_NULL;
    fn(buf, 1, MPI_Type_f2c(*type), *peer, *tag, MPI_COMM_WORLD, &c);
    *request = MPI_Request_c2f(c);
}

static int isend(void *b, int n, MPI_Datatype t, int p, int g, MPI_Comm c, MPI_Request *r)
{
    return MPI_Isend(b, n, t, p, g, c, r);
}
static int send_init(void *b, int n, MPI_Datatype t, int p, int g, MPI_Comm c, MPI_Request *r)
{
    return MPI_Send_init(b, n, t, p, g, c, r);
}

void faces_c_irecv_(void *buf, MPI_Fint *type, MPI_Fint *peer, MPI_Fint *tag, MPI_Fint *req)
{
    post(MPI_Irecv, buf, type, peer, tag, req);
}
void faces_c_isend_(void *buf, MPI_Fint *type, MPI_Fint *peer, MPI_Fint *tag, MPI_Fint *req)
{
    post(isend, buf, type, peer, tag, req);
}
void faces_c_recv_init_(void *buf, MPI_Fint *type, MPI_Fint *peer, MPI_Fint *tag,
                        MPI_Fint *req)
{
    post(MPI_Recv_init, buf, type, peer, tag, req);
}
void faces_c_send_init_(void *buf, MPI_Fint *type, MPI_Fint *peer, MPI_Fint *tag,
                        MPI_Fint *req)
{
    post(send_init, buf, type, peer, tag, req);
}
