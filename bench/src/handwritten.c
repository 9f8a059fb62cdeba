/* The baseline of m2cu-bench: each workload as the plain sequential C loop a programmer would
 * write, with MATLAB's results (1-based first-index location, counts and bins as doubles).
 * Built twice, `cc -std=c99 -O2 -ffp-contract=off -fPIC -shared` (what a C programmer would
 * write the build with) and with `-O3 -march=native` in place of `-O2` (the best the compiler
 * does with it), and called through libloading (see handwritten.rs). */
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

void hw_rowsum(const double *A, int64_t m, int64_t n, double *s)
{
    for (int64_t i = 0; i < m; i++)
        s[i] = 0.0;
    for (int64_t j = 0; j < n; j++)
        for (int64_t i = 0; i < m; i++)
            s[i] += A[i + j * m];
}

void hw_prefix(const double *x, int64_t n, double *c)
{
    if (n < 1)
        return;
    c[0] = x[0];
    for (int64_t i = 1; i < n; i++)
        c[i] = c[i - 1] + x[i];
}

/* `steps` Jacobi steps of the 5-point stencil on the m-by-n grid u0, border fixed; the result
 * in u, with v as the other grid. */
void hw_stencil(const double *u0, int64_t m, int64_t n, int64_t steps, double *u, double *v)
{
    double *from = u, *to = v;
    for (int64_t k = 0; k < m * n; k++)
        from[k] = u0[k];
    for (int64_t step = 0; step < steps; step++) {
        for (int64_t k = 0; k < m * n; k++)
            to[k] = from[k];
        for (int64_t j = 1; j < n - 1; j++)
            for (int64_t i = 1; i < m - 1; i++)
                to[i + j * m] = 0.25 * (from[i - 1 + j * m] + from[i + 1 + j * m]
                                        + from[i + (j - 1) * m] + from[i + (j + 1) * m]);
        double *t = from;
        from = to;
        to = t;
    }
    if (from != u)
        for (int64_t k = 0; k < m * n; k++)
            u[k] = from[k];
}
