"""A matrix transpose sent with a derived datatype from mpi4py (unchanged MPI code).

    MEMCOMM_STATS=1 .venv/bin/memcomm run -n 2 -- .venv/bin/python examples/transpose.py

Rank 0 sends the columns of an N x N matrix of doubles as one message of a column type;
rank 1 receives them as plain doubles and checks that it got the transpose."""

import sys

import numpy as np
from mpi4py import MPI

comm = MPI.COMM_WORLD
n = int(sys.argv[1]) if len(sys.argv) > 1 else 512
column = MPI.DOUBLE.Create_vector(n, 1, n).Create_resized(0, 8).Commit()
matrix = np.arange(n * n, dtype="d").reshape(n, n)
if comm.rank == 0:
    comm.Send([matrix, n, column], dest=1)
elif comm.rank == 1:
    received = np.empty((n, n))
    comm.Recv([received, n * n, MPI.DOUBLE], source=0)
    ok = np.array_equal(received, matrix.T)
    print(f"transpose of {n}x{n} doubles: {'right' if ok else 'WRONG'}")
    sys.exit(0 if ok else 1)
column.Free()
