#include "blocks.h"

#include <stdlib.h>

#include "../base/alloc.h"
#include "../core/config.h"

bool parties_everyone(MPI_Comm comm, parties *p)
{
    int inter = 1;
    if (config_get()->disable || comm == MPI_COMM_NULL ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter ||
        PMPI_Comm_size(comm, &p->peers) != MPI_SUCCESS ||
        PMPI_Comm_rank(comm, &p->rank) != MPI_SUCCESS)
        return false;
    p->send = p->recv = p->peers;
    return true;
}

bool parties_neighbours(MPI_Comm comm, parties *p)
{
    int topology = MPI_UNDEFINED, rank = 0, dims = 0, weighted = 0;
    if (config_get()->disable || comm == MPI_COMM_NULL ||
        PMPI_Topo_test(comm, &topology) != MPI_SUCCESS)
        return false;
    if (topology == MPI_CART) {
        if (PMPI_Cartdim_get(comm, &dims) != MPI_SUCCESS)
            return false;
        p->send = p->recv = 2 * dims;
    } else if (topology == MPI_GRAPH) {
        if (PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
            PMPI_Graph_neighbors_count(comm, rank, &p->send) != MPI_SUCCESS)
            return false;
        p->recv = p->send;
    } else if (topology == MPI_DIST_GRAPH) {
        if (PMPI_Dist_graph_neighbors_count(comm, &p->recv, &p->send, &weighted) !=
            MPI_SUCCESS)
            return false;
    } else {
        return false;
    }
    p->peers = p->send > p->recv ? p->send : p->recv;
    p->rank = EXCHANGE_SELF_UNKNOWN;
    return p->peers > 0;
}

coll_block *blocks_of(int n, int capacity, void *buf, MPI_Datatype type,
                             const void *counts, const void *displs, const MPI_Datatype *types,
                             const exchange_form *form, int64_t one_count)
{
    coll_block *b = mc_calloc((size_t)capacity, sizeof *b);
    MPI_Aint lb = 0, extent = 0;
    if (!b || (!types && PMPI_Type_get_extent(type, &lb, &extent) != MPI_SUCCESS)) {
        free(b);
        return NULL;
    }
    for (int i = 0; i < n; i++) {
        const int64_t count = !counts             ? one_count
                              : form->large_counts ? (int64_t)((const MPI_Count *)counts)[i]
                                                   : ((const int *)counts)[i];
        const int64_t displ = !displs             ? i * one_count
                              : form->aint_displs ? (int64_t)((const MPI_Aint *)displs)[i]
                                                  : ((const int *)displs)[i];
        b[i] = (coll_block){(char *)buf + (types ? displ : displ * extent), count,
                            types ? types[i] : type};
    }
    for (int i = n; i < capacity; i++)
        b[i] = (coll_block){NULL, 0, MPI_DATATYPE_NULL};
    return b;
}

coll_block *block_at(int at, int capacity, void *buf, int64_t count, MPI_Datatype type)
{
    coll_block *b = mc_calloc((size_t)capacity, sizeof *b);
    if (!b)
        return NULL;
    for (int i = 0; i < capacity; i++)
        b[i] = (coll_block){NULL, 0, MPI_DATATYPE_NULL};
    b[at] = (coll_block){buf, count, type};
    return b;
}

bool blocks_exchange(exchange **x, int peers, bool sends, coll_block *send, bool receives,
                     coll_block *recv, const exchange_form *form)
{
    *x = (!sends || send) && (!receives || recv) ? exchange_start(peers, send, recv, form)
                                                 : NULL;
    free(send);
    free(recv);
    return *x != NULL;
}
