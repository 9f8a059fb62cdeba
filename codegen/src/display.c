/* disp of a whole array as GNU Octave 7.3 shows it in `format short` (its pr-output.cc, with
 * the 80 columns of a terminal that is no terminal), for real numeric, logical and char arrays
 * of two dimensions. The text has no final newline: disp adds it. With a `name`, as a
 * statement without `;` shows a variable (`m2cu_disp_named`).
 *
 * - An empty array: `[](RxC)`; a char array: each row on a line of its own.
 * - One element: as disp shows a scalar (`m2cu_put_display`, or the integer).
 * - Integer classes and logical: one field width for every column, the digits of the largest
 *   magnitude and one more when an element is negative. An element that is 0, or the minimum of
 *   its class, adds no digits and no sign: Octave takes log10 of abs() in the class, which is
 *   -Inf at 0 and wraps at the minimum.
 * - double and single: from the largest and the smallest finite magnitudes (0 included), in
 *   Octave's three layouts: whole numbers (every finite element is an integer once rounded to
 *   single precision, as Octave tests it: 3.0000000000000004 shows as 3) in `digits + 1`
 *   columns, fixed point with 5 significant digits of the largest and the smallest, or `%.4e`
 *   when the fixed layout would take 8 columns or more (whole numbers) or 10 or more
 *   (fractions); 0 prints as `0`, Inf and NaN as words, all right-aligned.
 * - Columns two blanks apart; when they take more than 80 characters, as many as fit are shown
 *   at a time under `Columns A through B:` (`Columns A and B:`, `Column A:`).
 *
 * Returns 0, or M2CU_E_DISP_EXPONENT when an element shown as `%.4e` has a three-digit exponent
 * (Octave widens those fields its own way, which m2cu does not reproduce). */

/* How one element of a numeric array is written. */
typedef struct {
    char layout;        /* 'n' an integer class, 'w' whole numbers, 'f' fixed, 'e' exponent */
    int fw, rd;         /* field width and digits after the point */
    int wide_exponent;  /* an 'e' element needed three exponent digits */
} m2cu_disp_field;

/* Octave's digits of a positive magnitude: 1 + floor(log10(a)). */
static int m2cu_disp_digits(double a)
{
    return (int)floor(log10(a)) + 1;
}

/* The minimum of an integer class, which Octave's abs() wraps; 0 (never skipped) otherwise. */
static double m2cu_disp_class_min(char kind)
{
    switch (kind) {
    case 'b': return -128.0;
    case 'h': return -32768.0;
    case 'i': return -2147483648.0;
    case 'q': return -9223372036854775808.0;
    default: return 0.0;
    }
}

static m2cu_disp_field m2cu_disp_integers(const m2cu_fmt_arg *a)
{
    m2cu_disp_field f = {'n', 0, 0, 0};
    int digits = 0, negative = 0;
    double least = m2cu_disp_class_min(a->kind);
    for (int64_t k = 0; k < a->n; k++) {
        double v = m2cu_fmt_element(a, k);
        if (v == 0.0 || (least != 0.0 && v == least)) continue;
        int d = m2cu_disp_digits(fabs(v));
        if (d > digits) digits = d;
        if (v < 0) negative = 1;
    }
    f.fw = digits + negative;
    return f;
}

/* ld and rd of Octave's fixed layout for one magnitude's digits `x` (prec 5). */
static void m2cu_disp_fixed_digits(int x, int *ld, int *rd)
{
    const int prec = 5;
    if (x > 0) {
        *ld = x;
        *rd = prec > x ? prec - x : prec;
    } else if (x < 0) {
        *ld = 1;
        *rd = prec > x ? prec - x : prec;
    } else {
        *ld = 1;
        *rd = prec > 1 ? prec - 1 : prec;
    }
}

static m2cu_disp_field m2cu_disp_reals(const m2cu_fmt_arg *a)
{
    m2cu_disp_field f = {'w', 0, 0, 0};
    double largest = 0.0, least = DBL_MAX;
    int finite = 0, whole = 1, inf_or_nan = 0;
    for (int64_t k = 0; k < a->n; k++) {
        double v = m2cu_fmt_element(a, k);
        if (!isfinite(v)) {
            inf_or_nan = 1;
            continue;
        }
        finite = 1;
        if (fabs(v) > largest) largest = fabs(v);
        if (fabs(v) < least) least = fabs(v);
        if ((float)v != floorf((float)v)) whole = 0;
    }
    if (!finite) least = 0.0;
    int x_max = largest == 0.0 ? 0 : m2cu_disp_digits(largest);
    int x_min = least == 0.0 ? 0 : m2cu_disp_digits(least);
    if (whole) {
        int digits = x_max > x_min ? x_max : x_min;
        f.fw = digits <= 0 ? 2 : digits + 1;
        if (inf_or_nan && f.fw < 4) f.fw = 4;
        if (f.fw < 8) return f;
    } else {
        int ld_max, rd_max, ld_min, rd_min;
        m2cu_disp_fixed_digits(x_max, &ld_max, &rd_max);
        m2cu_disp_fixed_digits(x_min, &ld_min, &rd_min);
        f.layout = 'f';
        f.rd = rd_max > rd_min ? rd_max : rd_min;
        f.fw = 1 + (ld_max > ld_min ? ld_max : ld_min) + 1 + f.rd;
        if (inf_or_nan && f.fw < 4) f.fw = 4;
        if (f.fw < 10) return f;
    }
    f.layout = 'e';
    f.fw = 11;
    f.rd = 4;
    return f;
}

/* Element `k` in its field (without the two blanks before it). */
static void m2cu_disp_element(m2cu_text *t, const m2cu_fmt_arg *a, int64_t k, m2cu_disp_field *f)
{
    char piece[64];
    if (f->layout == 'n') {
        if (a->kind == 'q')
            snprintf(piece, sizeof piece, "%*lld", f->fw, (long long)((const int64_t *)a->p)[k]);
        else if (a->kind == 'Q')
            snprintf(piece, sizeof piece, "%*llu", f->fw, (unsigned long long)((const uint64_t *)a->p)[k]);
        else
            snprintf(piece, sizeof piece, "%*.0f", f->fw, m2cu_fmt_element(a, k));
        m2cu_put(t, piece);
        return;
    }
    double v = m2cu_fmt_element(a, k);
    if (isnan(v)) snprintf(piece, sizeof piece, "%*s", f->fw, "NaN");
    else if (isinf(v)) snprintf(piece, sizeof piece, "%*s", f->fw, v > 0 ? "Inf" : "-Inf");
    else if (v == 0.0) snprintf(piece, sizeof piece, "%*s", f->fw, "0");
    else if (f->layout == 'w') snprintf(piece, sizeof piece, "%*.0f", f->fw, v);
    else if (f->layout == 'f') snprintf(piece, sizeof piece, "%*.*f", f->fw, f->rd, v);
    else {
        snprintf(piece, sizeof piece, "%*.*e", f->fw, f->rd, v);
        if (strlen(strchr(piece, 'e')) > 4) f->wide_exponent = 1;
    }
    m2cu_put(t, piece);
}

/* One element as disp shows a scalar. */
static void m2cu_disp_one(m2cu_text *t, const m2cu_fmt_arg *a)
{
    switch (a->kind) {
    case 'd': case 'f': m2cu_put_display(t, m2cu_fmt_element(a, 0)); break;
    case 'q': m2cu_put_int(t, (long long)((const int64_t *)a->p)[0]); break;
    case 'Q': m2cu_put_uint(t, (unsigned long long)((const uint64_t *)a->p)[0]); break;
    default: m2cu_put_int(t, (long long)m2cu_fmt_element(a, 0)); break;
    }
}

/* The rows of a char array, one line each. */
static void m2cu_disp_chars(m2cu_text *t, const m2cu_fmt_arg *a, int64_t rows, int64_t cols)
{
    uint16_t *line = (uint16_t *)malloc((size_t)(cols > 0 ? cols : 1) * sizeof *line);
    if (line == NULL) return;
    for (int64_t i = 0; i < rows; i++) {
        if (i > 0) m2cu_put(t, "\n");
        for (int64_t j = 0; j < cols; j++) line[j] = ((const uint16_t *)a->p)[i + j * rows];
        m2cu_put_units(t, line, cols, 0, 0, -1);
    }
    free(line);
}

/* `name = ` before a value shown on the same line (an empty array, one element, a char array
 * of at most one row), else `name =` and a blank line before the rows and one after them. */
static int m2cu_disp_named(m2cu_text *t, const char *name, const m2cu_fmt_arg *a, int64_t rows, int64_t cols)
{
    int same_line = a->kind == 'c' ? rows <= 1 : rows * cols <= 1;
    m2cu_put(t, name);
    m2cu_put(t, same_line ? " = " : " =\n\n");
    return same_line;
}

static int m2cu_put_disp_array(m2cu_text *t, m2cu_fmt_arg a, int64_t rows, int64_t cols, const char *name)
{
    char piece[96];
    int block = name != NULL && !m2cu_disp_named(t, name, &a, rows, cols);
    if (a.kind == 'c') {
        m2cu_disp_chars(t, &a, rows, cols);
        if (block) m2cu_put(t, "\n");
        return 0;
    }
    if (rows == 0 || cols == 0) {
        snprintf(piece, sizeof piece, "[](%lldx%lld)", (long long)rows, (long long)cols);
        m2cu_put(t, piece);
        return 0;
    }
    if (rows == 1 && cols == 1) {
        m2cu_disp_one(t, &a);
        return 0;
    }
    int integers = a.kind != 'd' && a.kind != 'f';
    m2cu_disp_field f = integers ? m2cu_disp_integers(&a) : m2cu_disp_reals(&a);
    int64_t width = f.fw + 2, per_chunk = cols;
    if (cols * width > 80) per_chunk = 80 / width > 1 ? 80 / width : 1;
    for (int64_t first = 0; first < cols; first += per_chunk) {
        int64_t last = first + per_chunk < cols ? first + per_chunk : cols;
        if (per_chunk < cols) {
            if (first > 0) m2cu_put(t, "\n");
            if (last - first == 1) snprintf(piece, sizeof piece, " Column %lld:\n\n", (long long)last);
            else if (last - first == 2) snprintf(piece, sizeof piece, " Columns %lld and %lld:\n\n", (long long)first + 1, (long long)last);
            else snprintf(piece, sizeof piece, " Columns %lld through %lld:\n\n", (long long)first + 1, (long long)last);
            m2cu_put(t, piece);
        }
        for (int64_t i = 0; i < rows; i++) {
            for (int64_t j = first; j < last; j++) {
                m2cu_put(t, "  ");
                m2cu_disp_element(t, &a, i + j * rows, &f);
            }
            if (!(last == cols && i == rows - 1)) m2cu_put(t, "\n");
        }
    }
    if (block) m2cu_put(t, "\n");
    return f.wide_exponent ? M2CU_E_DISP_EXPONENT : 0;
}
