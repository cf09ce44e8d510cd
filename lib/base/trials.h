/* trials: which of a few alternative ways of doing the same call was fastest, from timed
 * trials (pure functions, for the send-path choice in lib/core/sendpath.c).
 *
 * A trial is one call on one side (the sending or the receiving end of a message; a
 * collective has one side) by one alternative. An alternative scores the sum, over the sides
 * timed on every alternative, of each side's usual (median) time: a median is disturbed
 * neither by slow outliers (noise, buffers faulting in) nor by fast ones (a first call after
 * a switch of path can find the other end idle and ready), and in an exchange, where a rank
 * both sends and receives, the sum covers both ends of its messages. The last alternative is
 * the MPI's own path, the one the program would get without memcomm: another wins only by
 * more than TRIALS_MARGIN of its score (and TRIALS_MARGIN_LOW of its lower quartile), so
 * noise does not move a call off it; or by more than TRIALS_MARGIN_SEPARATED when its trials
 * were faster call by call, too (below): WRF's halo
 * on MPICH sent packed in 10.6 us against MPICH's own 11.7 (medians of the trials, one run),
 * under the 10%, where the ping-pong with packing forced ran 9-13% faster in three runs. */
#ifndef MEMCOMM_TRIALS_H
#define MEMCOMM_TRIALS_H

enum { TRIAL_SEND, TRIAL_RECEIVE, TRIAL_SIDES };


#define TRIALS_MARGIN 0.10

/* ... and at the lower quartile by as much: noise only adds time, so a busy neighbour that
 * came during some trials of the MPI's own path and not of the other moves the median of its
 * trials by its whole slowdown, and their lower quartile much less (a path faster in earnest
 * is faster there too). With one block of the MPI's own trials taking 1.6 times as long, the
 * median alone chose packing in 20 seeds of 20, both in 1 (tests/unit/test_sendpath.c). */
#define TRIALS_MARGIN_LOW TRIALS_MARGIN

/* A path whose trials were faster than the MPI's own call by call: on every side timed on
 * both, at least this many trials of each, of which at most this share of the pairs (one
 * trial of the path, one of the faster half of the MPI's own) has the path's the slower. */
#define TRIALS_MARGIN_SEPARATED 0.03
#define TRIALS_SEPARATED_SAMPLES 5
#define TRIALS_SEPARATED_OVERLAP 0.10

/* A path this many times faster than every other after one block of each needs no second
 * block: what drifts between blocks (the second pass cancels it) does not make a factor of
 * two, and the trials of a large message on a slow path cost the most (a 134 MB transpose:
 * 250 ms a call on MPICH's path, 30 ms packed). */
#define TRIALS_DECISIVE 2.0

typedef struct {
    double seconds;
    unsigned char side; /* TRIAL_SEND or TRIAL_RECEIVE */
    unsigned char path; /* the alternative, 0 .. paths-1 */
} trial;

/* The chosen alternative (0 .. paths-1) from `n` trials. */
int trials_decide(const trial trials[], int n, int paths);

/* The chosen alternative of a second round of trials, run at once because the first (`earlier`,
 * `n_earlier` trials) was close: another path than the MPI's own only if the trials of each
 * round choose it (trials_decide), so that a close result that one round's noise tips does
 * not move a call off the MPI's own path. On MPICH the two ends of SPECFEM3D's 290-point
 * exchange (3.5 KB, both paths within 10%) decided apart in one launch of three: one end's
 * second round timed the MPI's own receive at 12.3 us (median), its first at 4.9, the other
 * end's 3.5 and 4.0. */
int trials_decide_again(const trial earlier[], int n_earlier, const trial trials[], int n,
                        int paths);

/* ... and the MPI's own path this many times faster than every other, at the median and at
 * the lower quartile, after one block of each: keeping the program's own path needs less
 * proof than leaving it. A second pass would have to turn the order round and then find
 * another path TRIALS_MARGIN faster, and its block of the slower path is what the trials
 * cost a short run (a Fortran ping-pong of 21 round trips on MPICH 4.0.2: packing a y face
 * 8-40% slower in 6-9 of them, the run 0.84-0.91x the MPI alone). Noise of up to 10% a call
 * cannot make a path 10% faster look 10% slower; a burst of noise over its first block can,
 * and then keeps the MPI's own path: a speed-up lost, never a call made slower. */
#define TRIALS_OWN_AHEAD 1.10

/* Whether the trials so far (one block of each path) already decide: the chosen
 * alternative's score is below every other's by TRIALS_DECISIVE, or the chosen is the MPI's
 * own and ahead of every other by TRIALS_OWN_AHEAD. */
int trials_decisive(const trial trials[], int n, int paths);

/* A decision is close when another path's score is within this factor of the chosen one's.
 * Only a close decision can differ between the two ends of an exchange (each end's own noise
 * moves it), or turn on which path warmed up first: MPICH's own send of WRF's halo (73 KB)
 * took 17-22 us in its first 7 calls, 11-13 in the next 8 and 9.5-10 from there on, against
 * 12-14 packed, and the first trials chose packing on some ranks. Only there is measuring again
 * worth its trials. */
#define TRIALS_CLOSE 1.5
enum { TRIALS_OVERTAKEN_SAMPLES = 7 };

/* Whether the decision from these trials is close. */
int trials_close(const trial trials[], int n, int paths);

/* Whether `chosen`, a path other than the MPI's own chosen by a close decision from `n`
 * trials, has since fallen behind the MPI's own path: on every side timed on both paths in the
 * trials there are at least TRIALS_OVERTAKEN_SAMPLES of the latest sampled calls (`samples`,
 * `m` of them, each marked with its side and `chosen`), and the sum over those sides of the
 * samples' median exceeds the MPI's own path's score on them. That is what the ends of an
 * exchange that decided apart see on the packing end (MPICH, WRF's halo: each end on its own
 * path ran 15% slower than both on the MPI's own), where a 2x slowdown never comes. */
int trials_overtaken(const trial trials[], int n, int paths, int chosen, const trial samples[],
                     int m);

/* Whether `chosen`, a path other than the MPI's own that trials decided, still holds in a
 * check (sendpath.h): in blocks of the MPI's own path and of `chosen` timed at once
 * (`checks`, n of them), the MPI's own path is not faster by TRIALS_HOLD_MARGIN of `chosen`'s
 * score at both the median and the lower quartile. The trials proved the decision; the check
 * must prove it wrong, as both ends of an exchange check it, each from its own times, and
 * where the paths run alike, a rule that asked packing to stay ahead by a margin can send one
 * end back and leave the other packing: one end packing into the other's MPI receive ran
 * 0.78-0.82x the MPI alone on Open MPI 5.0.11 (LAMMPS's 16,384 atoms, SPECFEM3D's 65,536
 * points; both ends packing, 1.14-1.25x), too little slower for the samples (twice the usual
 * time) to see. */
#define TRIALS_HOLD_MARGIN 0.03
int trials_holds(const trial checks[], int n, int paths, int chosen);

/* Whether `other`, a path other than the MPI's own, beats a decided MPI's own path in a
 * check (sendpath.h): in the blocks of both timed at once (`checks`, n of them), by the
 * margins a round of trials asks (trials_decide). Trials can decide for the MPI's own path
 * while packing is still cold (its staging buffers, the MPI's contiguous path for that size
 * never used yet), where the program has warmed the MPI's own: on Open MPI 5.0.11 such a
 * decision after one block of each left NAS LU's i face of u(5,33,33,33) at 1.00x the MPI
 * alone, where packing forced ran it at 1.96x (docs/results/0.1.0/2026-12-04-check). */
int trials_beats_own(const trial checks[], int n, int paths, int other);

/* The MPI's own path's score over `chosen`'s, from `n` trials or checks: how many times as
 * long the MPI's own path took (1 where no side was timed on both, or `chosen` is the MPI's
 * own). */
double trials_own_over(const trial trials[], int n, int paths, int chosen);

/* The usual time of one side's calls on one alternative: the median of its trials (0 when it
 * had none). A decided path's later calls are compared with it. */
double trials_usual(const trial trials[], int n, int path, int side);

#endif
