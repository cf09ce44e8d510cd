"""memcomm: memory-aware MPI communication.

The C library (libmemcomm.so) is the engine an MPI program picks up; this package is the
tooling around it: `memcomm` on the command line (see memcomm.cli).
"""

__version__ = "0.1.0"
