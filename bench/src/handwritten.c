/* The baseline of m2cu-bench: each workload as the plain sequential C loop a programmer would
 * write, with MATLAB's results (1-based first-index location, counts and bins as doubles).
 * Built once with `cc -std=c99 -O2 -ffp-contract=off -fPIC -shared`, the flags of m2cu's CPU
 * path without -fopenmp, and called through libloading (see handwritten.rs). */
#include <math.h>
#include <stdint.h>

double hw_sum(const double *x, int64_t n)
{
    double s = 0.0;
    for (int64_t i = 0; i < n; i++)
        s += x[i];
    return s;
}

double hw_max(const double *x, int64_t n)
{
    double m = -INFINITY;
    for (int64_t i = 0; i < n; i++)
        if (x[i] > m)
            m = x[i];
    return m;
}

void hw_minloc(const double *x, int64_t n, double *m_out, double *k_out)
{
    double m = INFINITY;
    int64_t k = 0;
    for (int64_t i = 0; i < n; i++)
        if (x[i] < m) {
            m = x[i];
            k = i + 1;
        }
    *m_out = m;
    *k_out = (double)k;
}

double hw_count(const double *x, int64_t n)
{
    int64_t c = 0;
    for (int64_t i = 0; i < n; i++)
        if (x[i] > 0.5)
            c++;
    return (double)c;
}

void hw_histogram(const uint8_t *b, int64_t n, double h[256])
{
    for (int k = 0; k < 256; k++)
        h[k] = 0.0;
    for (int64_t i = 0; i < n; i++)
        h[b[i]] += 1.0;
}

void hw_saxpy(double a, const double *x, double *y, int64_t n)
{
    for (int64_t i = 0; i < n; i++)
        y[i] = a * x[i] + y[i];
}
