#include "kernels/compare.h"

#include <math.h>

static const kcmp_tol tol_fp32 = {1e-4, 5e-5, 0.999999, 1e-5};
static const kcmp_tol tol_bf16 = {0.25, 5e-2, 0.998, 2e-3};

const kcmp_tol *kcmp_tolerance(int bf16)
{
    return bf16 ? &tol_bf16 : &tol_fp32;
}

void kcmp_tensor(const double *ref, const float *got, size_t n, kcmp_stats *st)
{
    double dot = 0, nr = 0, ng = 0, nd = 0;
    st->max_abs = 0;
    st->ref_scale = 0;
    st->nonfinite = 0;
    for (size_t i = 0; i < n; i++) {
        double r = ref[i], g = got[i];
        if (!isfinite(r) || !isfinite(g)) {
            st->nonfinite++;
            continue;
        }
        double d = fabs(g - r);
        if (d > st->max_abs)
            st->max_abs = d;
        if (fabs(r) > st->ref_scale)
            st->ref_scale = fabs(r);
        nd += (g - r) * (g - r);
        dot += r * g;
        nr += r * r;
        ng += g * g;
    }
    st->max_rel =
        st->ref_scale > 0 ? st->max_abs / st->ref_scale : (st->max_abs > 0 ? INFINITY : 0);
    st->rel_l2 = nr > 0 ? sqrt(nd) / sqrt(nr) : (nd > 0 ? INFINITY : 0);
    st->cosine = nr > 0 && ng > 0 ? dot / (sqrt(nr) * sqrt(ng)) : (nr == ng ? 1.0 : 0.0);
}

int kcmp_ok(const kcmp_stats *st, const kcmp_tol *tol)
{
    return st->nonfinite == 0 && st->max_rel <= tol->max_rel && st->rel_l2 <= tol->rel_l2 &&
           st->cosine >= tol->min_cos;
}

double kcmp_loss_rel(double ref, double got)
{
    if (!isfinite(ref) || !isfinite(got))
        return INFINITY;
    double s = fabs(ref) > 1e-12 ? fabs(ref) : 1e-12;
    return fabs(got - ref) / s;
}
