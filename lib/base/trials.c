#include "trials.h"

#include <stdbool.h>

enum { MAX_PATHS = 8, MAX_USUAL = 64 };

int trials_decide(const trial trials[], int n, int paths)
{
    if (paths < 2 || paths > MAX_PATHS)
        return paths - 1;
    double score[MAX_PATHS] = {0};
    for (int side = 0; side < TRIAL_SIDES; side++) {
        double usual[MAX_PATHS];
        bool on_every_path = true;
        for (int p = 0; p < paths; p++)
            on_every_path = (usual[p] = trials_usual(trials, n, p, side)) > 0 && on_every_path;
        for (int p = 0; p < paths && on_every_path; p++)
            score[p] += usual[p];
    }
    const int own = paths - 1; /* the MPI's own path */
    int chosen = own;
    for (int p = 0; p < own; p++)
        if (score[p] < (1.0 - TRIALS_MARGIN) * score[own] && score[p] < score[chosen])
            chosen = p;
    return chosen;
}

double trials_usual(const trial trials[], int n, int path, int side)
{
    double found[MAX_USUAL];
    int k = 0;
    for (int t = 0; t < n && k < MAX_USUAL; t++)
        if (trials[t].path == path && trials[t].side == side)
            found[k++] = trials[t].seconds;
    for (int i = 1; i < k; i++) /* a few values: insertion sort */
        for (int j = i; j > 0 && found[j] < found[j - 1]; j--) {
            const double swap = found[j];
            found[j] = found[j - 1];
            found[j - 1] = swap;
        }
    return k ? found[k / 2] : 0;
}
