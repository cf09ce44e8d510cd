"""mpi4py-fft's global redistributions, unchanged: each is one `MPI_Alltoallw` of subarray
types (mpi4py_fft.pencil.Transfer), the call a parallel FFT makes between its 1-D transforms.

For every shape, element type and ordered pair of axes, the program moves seeded data from the
pencil aligned with the first axis to the one aligned with the second (forward) and back
(backward), checks the round trip, and prints one JSON line (rank 0) with the SHA-256 of what
every rank received and the median and total time of each direction's timed calls. Run it with
and without memcomm and compare the digests, or the times:

  memcomm run -n 2 -- python examples/mpi4py_fft_transfers.py --shapes 128x128x128 --reps 21
  MEMCOMM_DISABLE=1 memcomm run -n 2 -- python examples/mpi4py_fft_transfers.py ...

With --warmup 0 the timed calls are a short run's, memcomm's trials included: the first call
of each direction is the check's, the next --reps are timed.

Needs mpi4py-fft (`tests/fetch_mpi4py_fft.sh` builds it; put its site directory on PYTHONPATH).
"""

import argparse
import hashlib
import itertools
import json
import time
from collections.abc import Callable

import numpy as np
from mpi4py import MPI
from mpi4py_fft.pencil import Pencil, Subcomm


def parse_shape(text: str) -> tuple[int, ...]:
    return tuple(int(n) for n in text.split("x"))


def timed(call: Callable[[], None], comm: MPI.Comm, warmup: int, reps: int) -> tuple[float, float]:
    """Median and sum of `reps` calls after `warmup` untimed ones, each started together on
    every rank."""
    for _ in range(warmup):
        call()
    times = []
    for _ in range(reps):
        comm.Barrier()
        start = time.perf_counter()
        call()
        times.append(time.perf_counter() - start)
    return float(np.median(times)), float(np.sum(times))


def one_transfer(
    comm: MPI.Comm,
    shape: tuple[int, ...],
    typecode: str,
    axes: tuple[int, int],
    warmup: int,
    reps: int,
) -> dict[str, object]:
    subcomm = Subcomm(comm, len(shape) - 1)  # pencils: every axis but one distributed
    pencil_a = Pencil(subcomm, shape).pencil(axes[0])
    pencil_b = pencil_a.pencil(axes[1])
    transfer = pencil_a.transfer(pencil_b, typecode)
    seed = [comm.rank, *shape, *axes, ord(typecode)]
    original = np.random.default_rng(seed).random(pencil_a.subshape).astype(typecode)
    a = original.copy()
    # a fill that no received element equals, so a byte left unwritten changes the digest
    b = np.full(pencil_b.subshape, -7, dtype=typecode)
    transfer.forward(a, b)
    received = hashlib.sha256(b.tobytes()).hexdigest()
    a.fill(-7)
    transfer.backward(b, a)
    round_trip = bool(np.array_equal(a, original))
    forward_s, forward_total_s = timed(lambda: transfer.forward(a, b), comm, warmup, reps)
    backward_s, backward_total_s = timed(lambda: transfer.backward(b, a), comm, warmup, reps)
    digests = comm.gather(received, root=0)
    trips = comm.gather(round_trip, root=0)
    transfer.destroy()
    subcomm.destroy()
    return {
        "shape": list(shape),
        "dtype": typecode,
        "axes": list(axes),
        "ranks": comm.size,
        "bytes_per_rank": int(b.nbytes),
        "received_sha256": digests,
        "round_trip": trips,
        "forward_s": forward_s,
        "backward_s": backward_s,
        "forward_total_s": forward_total_s,
        "backward_total_s": backward_total_s,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shapes", default="7x8x9,16x17,33x32x31", help="comma-separated")
    parser.add_argument("--dtypes", default="fdFD", help="numpy type codes")
    # memcomm decides each call's path by timing its first calls (docs/environment.md,
    # MEMCOMM_SEND_PATH): an FFT that runs for long pays that once
    parser.add_argument("--warmup", type=int, default=64, help="untimed calls first")
    parser.add_argument("--reps", type=int, default=5, help="timed calls per direction")
    parser.add_argument("--axes", help="only these pairs, e.g. 0:2,2:0 (default: every pair)")
    args = parser.parse_args()
    comm = MPI.COMM_WORLD
    for shape in map(parse_shape, args.shapes.split(",")):
        for typecode in args.dtypes:
            pairs = list(itertools.permutations(range(len(shape)), 2))
            if args.axes:
                chosen = {tuple(int(a) for a in pair.split(":")) for pair in args.axes.split(",")}
                pairs = [axes for axes in pairs if axes in chosen]
            for axes in pairs:
                line = one_transfer(comm, shape, typecode, axes, args.warmup, args.reps)
                if comm.rank == 0:
                    print(json.dumps(line), flush=True)


if __name__ == "__main__":
    main()
