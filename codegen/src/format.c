
/* ---- Conversions of fprintf, sprintf, error and warning formats, as Octave 7.3 prints them ----
 *
 * Shared by formats read at translation time (each conversion is one call here) and formats
 * made at run time (`m2cu_put_format`, which parses the text and calls the same functions). */

/* "%<flags><width>.<precision><length><conv>" into `out` (width, precision < 0: none). */
static void m2cu_conv_spec(char *out, size_t len, const char *flags, int width, int precision, const char *length, char conv)
{
    char w[16] = "", p[16] = "";
    if (width >= 0) snprintf(w, sizeof w, "%d", width);
    if (precision >= 0) snprintf(p, sizeof p, ".%d", precision);
    snprintf(out, len, "%%%s%s%s%s%c", flags, w, p, length, conv);
}

/* NaN or Inf with any conversion: "NaN", "Inf" or "-Inf" ("+NaN", "+Inf" with the + flag) in
 * the field's width, on the left with the - flag; no precision, no 0 padding. */
static void m2cu_put_word(m2cu_text *t, double v, const char *flags, int width)
{
    int plus = strchr(flags, '+') != NULL, left = strchr(flags, '-') != NULL;
    const char *word = isnan(v) ? (plus ? "+NaN" : "NaN") : v < 0 ? "-Inf" : (plus ? "+Inf" : "Inf");
    m2cu_putf(t, left ? "%-*s" : "%*s", width < 0 ? 0 : width, word);
}

/* One number with a numeric conversion: `d`/`i` of a whole value up to 2^63 as an int64
 * (saturated: 2^63 prints 9223372036854775807, anything below -2^63 -9223372036854775808);
 * `u`/`o`/`x`/`X` of a whole value from 0 to 2^64 as a uint64 (2^64 saturated); any other value
 * of these as `%g` with the same flags, width and precision; `f e E g G` as C prints them; NaN and
 * Inf as `m2cu_put_word`. */
static void m2cu_put_conv(m2cu_text *t, double v, const char *flags, int width, int precision, char conv)
{
    char spec[64];
    int whole = v == floor(v);
    if (isnan(v) || isinf(v)) {
        m2cu_put_word(t, v, flags, width);
    } else if ((conv == 'd' || conv == 'i') && whole && v <= 9223372036854775808.0) {
        long long s = v >= 9223372036854775807.0 ? LLONG_MAX : v <= -9223372036854775808.0 ? LLONG_MIN : (long long)v;
        m2cu_conv_spec(spec, sizeof spec, flags, width, precision, "ll", 'd');
        m2cu_putf(t, spec, s);
    } else if ((conv == 'u' || conv == 'o' || conv == 'x' || conv == 'X') && whole && v >= 0 && v <= 18446744073709551616.0) {
        unsigned long long u = v >= 18446744073709551615.0 ? ULLONG_MAX : (unsigned long long)v;
        m2cu_conv_spec(spec, sizeof spec, flags, width, precision, "ll", conv);
        m2cu_putf(t, spec, u);
    } else {
        int floating = conv == 'f' || conv == 'e' || conv == 'E' || conv == 'g' || conv == 'G';
        m2cu_conv_spec(spec, sizeof spec, flags, width, precision, "", floating ? conv : 'g');
        m2cu_putf(t, spec, v);
    }
}

/* `%d`, `%i`, `%u`, `%o`, `%x` or `%X` of an int64 (`s`) or uint64 (`u`, `is_unsigned`) value:
 * every digit, except a value that the conversion's type does not hold (a uint64 above 2^63 - 1
 * for `%d`, a negative int64 for an unsigned conversion), which goes through the double as
 * Octave's does. */
static void m2cu_put_wide(m2cu_text *t, long long s, unsigned long long u, int is_unsigned, const char *flags, int width, int precision, char conv)
{
    char spec[64];
    int unsigned_conv = conv != 'd' && conv != 'i';
    if (is_unsigned && !unsigned_conv && u > 9223372036854775807ULL) {
        m2cu_put_conv(t, (double)u, flags, width, precision, conv);
    } else if (!is_unsigned && unsigned_conv && s < 0) {
        m2cu_put_conv(t, (double)s, flags, width, precision, conv);
    } else {
        m2cu_conv_spec(spec, sizeof spec, flags, width, precision, "ll", unsigned_conv ? conv : 'd');
        if (is_unsigned) m2cu_putf(t, spec, u);
        else m2cu_putf(t, spec, s);
    }
}

/* The text so far without its leading and trailing whitespace (space, \t \n \v \f \r), as
 * Octave's strtrim leaves `num2str(x, format)`. */
static void m2cu_trim_text(m2cu_text *t)
{
    size_t first = 0, end = t->n;
    while (end > 0 && t->s[end - 1] != 0 && strchr(" \t\n\v\f\r", t->s[end - 1]) != NULL) end--;
    while (first < end && t->s[first] != 0 && strchr(" \t\n\v\f\r", t->s[first]) != NULL) first++;
    if (t->s == NULL) return;
    memmove(t->s, t->s + first, end - first);
    t->n = end - first;
    t->s[t->n] = 0;
}

/* ---- Formats made at run time: `sprintf(fmt, x)`, `fprintf([repmat('%g ', 1, n) '\n'], A')` ---- */

/* One argument of `m2cu_put_format`: `n` elements at `p` of the class `kind`: 'd' double, 'f'
 * single, 'b'/'B' int8/uint8, 'h'/'H' int16/uint16, 'i'/'I' int32/uint32, 'q'/'Q' int64/uint64
 * (whose integer conversions print every digit), 'l' logical, 'c' char (UTF-16 code units). The
 * first argument is the format. */
typedef struct { const void *p; int64_t n; char kind; } m2cu_fmt_arg;

static double m2cu_fmt_element(const m2cu_fmt_arg *a, int64_t k)
{
    switch (a->kind) {
    case 'd': return ((const double *)a->p)[k];
    case 'f': return ((const float *)a->p)[k];
    case 'b': return ((const int8_t *)a->p)[k];
    case 'B': return ((const uint8_t *)a->p)[k];
    case 'h': return ((const int16_t *)a->p)[k];
    case 'H': return ((const uint16_t *)a->p)[k];
    case 'i': return ((const int32_t *)a->p)[k];
    case 'I': return ((const uint32_t *)a->p)[k];
    case 'q': return (double)((const int64_t *)a->p)[k];
    case 'Q': return (double)((const uint64_t *)a->p)[k];
    case 'l': return ((const bool *)a->p)[k];
    default: return ((const uint16_t *)a->p)[k];
    }
}

/* One element of a parsed format: literal text (code units `text` .. `text + text_n` of the
 * unit buffer) and, when `conv` is not 0, the conversion that follows it. Width and precision:
 * -1 none, -2 `*` (the next value). */
typedef struct {
    int64_t text, text_n;
    char flags[8];
    int width, precision;
    char conv;
} m2cu_fmt_elt;

/* The values of a format, in order: the elements of each argument in column-major order. An
 * argument with no elements is one empty value. `arg` past the last: exhausted. */
typedef struct {
    const m2cu_fmt_arg *args;
    int nargs, arg;
    int64_t at;
} m2cu_fmt_values;

/* A taken value: `n` elements from `at` of argument `a` (n == 0: an empty argument). */
typedef struct { const m2cu_fmt_arg *a; int64_t at, n; } m2cu_fmt_taken;

/* Whether `v` is a character code that `%s` of numbers takes into its text (Octave: 0 to 255). */
static int m2cu_fmt_char_code(double v)
{
    return v == floor(v) && v >= 0 && v <= 255;
}

/* The next value for a conversion: one element, or for `%s` the rest of a char argument (or a
 * run of numbers that are character codes); 0 when the values are exhausted. */
static int m2cu_fmt_take(m2cu_fmt_values *vs, char conv, m2cu_fmt_taken *out)
{
    if (vs->arg >= vs->nargs) return 0;
    const m2cu_fmt_arg *a = &vs->args[vs->arg];
    int64_t n = a->n > 0 ? 1 : 0;
    if (conv == 's' && a->kind == 'c') n = a->n - vs->at;
    else if (conv == 's' && a->n > 0)
        while (vs->at + n < a->n && m2cu_fmt_char_code(m2cu_fmt_element(a, vs->at + n - 1)) && m2cu_fmt_char_code(m2cu_fmt_element(a, vs->at + n))) n++;
    out->a = a;
    out->at = vs->at;
    out->n = n;
    vs->at += n;
    if (vs->at >= a->n) {
        vs->arg++;
        vs->at = 0;
    }
    return 1;
}

/* The run-time error of a format: `<who>: <what>` as the program's error (M2CU_E_USER). */
static int m2cu_fmt_fail(const char *who, const char *what, char *msg, size_t len)
{
    if (msg != NULL && len > 0) snprintf(msg, len, "\x1f%s: %s", who, what);
    return M2CU_E_USER;
}

/* Text (`%s`/`%c`, or an empty value with them): code units in the field of `e`. */
static void m2cu_fmt_put_units(m2cu_text *t, const uint16_t *units, int64_t n, const m2cu_fmt_elt *e)
{
    int precision = e->conv == 's' ? e->precision : -1;
    m2cu_put_units(t, units, n, e->width > 0 ? (size_t)e->width : 0, strchr(e->flags, '-') != NULL, precision);
}

/* A taken value with the conversion of `e`. `%c`/`%s` of numbers: character codes print as
 * their characters, NaN and Inf as words, and `%c` of a fraction as `%g` (as Octave does); any
 * other number stops (Octave prints nothing there, MATLAB the number as `%e`). 0, or the error. */
static int m2cu_fmt_put_value(m2cu_text *t, const m2cu_fmt_elt *e, const m2cu_fmt_taken *v, const char *who, char *msg, size_t len)
{
    int text = e->conv == 's' || e->conv == 'c';
    if (v->n == 0) {
        if (text) m2cu_fmt_put_units(t, NULL, 0, e);
        return 0;
    }
    if (text && v->a->kind == 'c') {
        m2cu_fmt_put_units(t, (const uint16_t *)v->a->p + v->at, v->n, e);
        return 0;
    }
    int wide = v->a->kind == 'q' || v->a->kind == 'Q';
    if (wide && !text && strchr("diouxX", e->conv) != NULL) {
        long long s = v->a->kind == 'q' ? ((const int64_t *)v->a->p)[v->at] : 0;
        unsigned long long u = v->a->kind == 'Q' ? ((const uint64_t *)v->a->p)[v->at] : 0;
        m2cu_put_wide(t, s, u, v->a->kind == 'Q', e->flags, e->width, e->precision, e->conv);
        return 0;
    }
    double x = m2cu_fmt_element(v->a, v->at);
    if (!text || isnan(x) || isinf(x) || (e->conv == 'c' && x != floor(x))) {
        m2cu_put_conv(t, x, e->flags, e->width, e->precision, text ? 'g' : e->conv);
        return 0;
    }
    if (!m2cu_fmt_char_code(x)) {
        char what[320];
        snprintf(what, sizeof what, "m2cu: %%%c of the number %.17g, which is not a character code (0 to 255): Octave prints nothing there and MATLAB the number with %%e; print numbers with %%d or %%g, or convert them with num2str", e->conv, x);
        return m2cu_fmt_fail(who, what, msg, len);
    }
    uint16_t *units = (uint16_t *)malloc((size_t)v->n * sizeof(uint16_t));
    if (units == NULL) return M2CU_E_NOMEM;
    for (int64_t k = 0; k < v->n; k++) units[k] = (uint16_t)m2cu_fmt_element(v->a, v->at + k);
    m2cu_fmt_put_units(t, units, v->n, e);
    free(units);
    return 0;
}

/* Octave's warning about an escape it does not know, `\c`: "unrecognized escape sequence '\c'
 * -- converting to 'c'" (`c` 0: its warning about `\x` without digits). */
static void m2cu_fmt_escape_warning(uint16_t c)
{
    char ch[4] = {0, 0, 0, 0};
    m2cu_text w = M2CU_TEXT_INIT;
    if (c == 0) {
        m2cu_put(&w, "malformed hex escape sequence '\\x' -- converting to '\\0'");
    } else {
        m2cu_utf8(c, ch);
        m2cu_put(&w, "unrecognized escape sequence '\\");
        m2cu_put(&w, ch);
        m2cu_put(&w, "' -- converting to '");
        m2cu_put(&w, ch);
        m2cu_put(&w, "'");
    }
    m2cu_warn(&w);
    free(w.s);
}

/* The value of up to `most` digits of base `base` at `u[*i]`, moving `*i` past them. */
static unsigned m2cu_fmt_number(const uint16_t *u, int64_t n, int64_t *i, unsigned base, int most)
{
    unsigned v = 0;
    for (int k = 0; k < most && *i < n; k++, (*i)++) {
        unsigned c = u[*i], d = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : c >= 'A' && c <= 'F' ? c - 'A' + 10 : 99;
        if (d >= base) break;
        v = v * base + d;
    }
    return v;
}

/* The format's code units with MATLAB's escapes processed, as Octave's `do_string_escapes`:
 * `\a \b \f \n \r \t \v \\ \" \'`, octal `\ooo` (1 to 3 digits), hex `\xhh` (1 or 2; none is
 * NUL, with Octave's warning), any other escaped character as itself (with Octave's warning),
 * and a final lone backslash kept. Writes at most `n` units to `out`; their count. */
static int64_t m2cu_fmt_unescape(const uint16_t *f, int64_t n, uint16_t *out)
{
    int64_t m = 0;
    for (int64_t i = 0; i < n;) {
        uint16_t c = f[i++];
        if (c != '\\' || i >= n) { out[m++] = c; continue; }
        uint16_t e = f[i++];
        switch (e) {
        case 'a': out[m++] = 7; break;
        case 'b': out[m++] = 8; break;
        case 'f': out[m++] = 12; break;
        case 'n': out[m++] = 10; break;
        case 'r': out[m++] = 13; break;
        case 't': out[m++] = 9; break;
        case 'v': out[m++] = 11; break;
        case '\\': case '"': case '\'': out[m++] = e; break;
        case 'x': {
            int64_t start = i;
            out[m++] = (uint16_t)m2cu_fmt_number(f, n, &i, 16, 2);
            if (i == start) m2cu_fmt_escape_warning(0);
            break;
        }
        default:
            if (e >= '0' && e <= '7') {
                i--;
                out[m++] = (uint16_t)m2cu_fmt_number(f, n, &i, 8, 3);
            } else {
                m2cu_fmt_escape_warning(e);
                out[m++] = e;
            }
        }
    }
    return m;
}

/* A width or precision written in digits at `u[*j]`: -1 (none) when it passes INT_MAX, as
 * Octave ignores it. */
static int m2cu_fmt_field(const uint16_t *u, int64_t n, int64_t *j)
{
    long long v = 0;
    int64_t start = *j;
    while (*j < n && u[*j] >= '0' && u[*j] <= '9') {
        if (v <= INT_MAX) v = v * 10 + (u[*j] - '0');
        (*j)++;
    }
    return *j == start ? 0 : v > INT_MAX ? -1 : (int)v;
}

/* Whether the ASCII character `c` is one of `set` (never a NUL or a wider unit). */
static int m2cu_fmt_in(uint16_t c, const char *set)
{
    return c != 0 && c < 128 && strchr(set, (char)c) != NULL;
}

/* Parses the escaped format `u` into elements (literal text and the conversion after it; text
 * after the last conversion is an element of its own), the text's units in `lit` (`%%` as
 * `%`). `elts` has room for n + 1 elements, `lit` for n units. 1, or 0 for a format that Octave
 * rejects ("invalid format specified"): a `%` that ends the text or starts no conversion of
 * `d i o u x X c s f e E g G`, or a length modifier the conversion does not take. */
static int m2cu_fmt_parse(const uint16_t *u, int64_t n, uint16_t *lit, m2cu_fmt_elt *elts, int64_t *nelts, int64_t *nconv)
{
    int64_t l = 0, start = 0;
    *nelts = *nconv = 0;
    for (int64_t i = 0; i < n;) {
        if (u[i] != '%') { lit[l++] = u[i++]; continue; }
        m2cu_fmt_elt e;
        memset(&e, 0, sizeof e);
        e.width = e.precision = -1;
        int64_t j = i + 1;
        size_t nflags = 0;
        for (; j < n && m2cu_fmt_in(u[j], "-+ 0#"); j++)
            if (strchr(e.flags, (char)u[j]) == NULL && nflags < sizeof e.flags - 1) e.flags[nflags++] = (char)u[j];
        if (j < n && u[j] == '*') { e.width = -2; j++; }
        else if (j < n && u[j] >= '0' && u[j] <= '9') e.width = m2cu_fmt_field(u, n, &j);
        if (j < n && u[j] == '.') {
            j++;
            if (j < n && u[j] == '*') { e.precision = -2; j++; }
            else e.precision = m2cu_fmt_field(u, n, &j);
        }
        char length = j < n && m2cu_fmt_in(u[j], "hlL") ? (char)u[j++] : 0;
        if (j >= n) return 0;
        if (u[j] == '%') { lit[l++] = '%'; i = j + 1; continue; }
        if (!m2cu_fmt_in(u[j], "diouxXcsfeEgG")) return 0;
        if (length == 'L' ? !m2cu_fmt_in(u[j], "feEgG") : length != 0 && !m2cu_fmt_in(u[j], "diouxXc")) return 0;
        e.conv = (char)u[j];
        e.text = start;
        e.text_n = l - start;
        elts[(*nelts)++] = e;
        (*nconv)++;
        start = l;
        i = j + 1;
    }
    if (l > start || *nelts == 0) {
        m2cu_fmt_elt e;
        memset(&e, 0, sizeof e);
        e.text = start;
        e.text_n = l - start;
        elts[(*nelts)++] = e;
    }
    return 1;
}

/* A `*` width or precision: the next value, a whole number from 0 to INT_MAX. 1 when taken, 0
 * when the values are exhausted, -1 (the error written) for another value. */
static int m2cu_fmt_star(m2cu_fmt_values *vs, int *field, const char *who, char *msg, size_t len)
{
    m2cu_fmt_taken v;
    if (!m2cu_fmt_take(vs, 'd', &v)) return 0;
    double x = v.n > 0 ? m2cu_fmt_element(v.a, v.at) : -1;
    if (!(x == floor(x) && x >= 0 && x <= INT_MAX)) {
        m2cu_fmt_fail(who, "invalid field width, must be integer >= 0 and <= INT_MAX", msg, len);
        return -1;
    }
    *field = (int)x;
    return 1;
}

/* Prints the parsed format over the values as Octave 7.3 does: each element prints its text,
 * then its conversion of the next value; after the last element the format starts over while
 * values remain. Output stops at the first conversion (or `*`) that finds the values exhausted,
 * after that element's text, and at the end of the format when they are exhausted there. A
 * format without conversions prints once. 0, or the error's status. */
static int m2cu_fmt_print(m2cu_text *t, const uint16_t *lit, const m2cu_fmt_elt *elts, int64_t nelts, int64_t nconv, m2cu_fmt_values *vs, const char *who, char *msg, size_t len)
{
    for (int64_t k = 0;;) {
        m2cu_fmt_elt e = elts[k];
        m2cu_put_units(t, lit + e.text, e.text_n, 0, 0, -1);
        if (e.conv != 0) {
            int got = 1;
            if (e.width == -2) got = m2cu_fmt_star(vs, &e.width, who, msg, len);
            if (got == 1 && e.precision == -2) got = m2cu_fmt_star(vs, &e.precision, who, msg, len);
            if (got != 1) return got < 0 ? M2CU_E_USER : 0;
            m2cu_fmt_taken v;
            if (!m2cu_fmt_take(vs, e.conv, &v)) return 0;
            int status = m2cu_fmt_put_value(t, &e, &v, who, msg, len);
            if (status != 0) return status;
        }
        if (++k == nelts) {
            if (nconv == 0 || vs->arg >= vs->nargs) return 0;
            k = 0;
        }
    }
}

/* `fprintf`, `sprintf`, `error` or `warning` (`who`) of a format made at run time: `args[0]` is
 * the format (char), the other `nargs - 1` are its values. Appends the text to `t`; 0, or the
 * status of the error (its message in `msg` for M2CU_E_USER): Octave's "<who>: invalid format
 * specified", a `*` that takes no width, `%s` of a number that is no character code. */
static int m2cu_put_format(m2cu_text *t, const m2cu_fmt_arg *args, int nargs, const char *who, char *msg, size_t len)
{
    int64_t n = args[0].n, nelts, nconv;
    uint16_t *units = (uint16_t *)malloc((size_t)(n + 1) * sizeof(uint16_t));
    uint16_t *lit = (uint16_t *)malloc((size_t)(n + 1) * sizeof(uint16_t));
    m2cu_fmt_elt *elts = (m2cu_fmt_elt *)malloc((size_t)(n + 1) * sizeof(m2cu_fmt_elt));
    int status = units == NULL || lit == NULL || elts == NULL ? M2CU_E_NOMEM : 0;
    if (status == 0) {
        int64_t m = m2cu_fmt_unescape((const uint16_t *)args[0].p, n, units);
        if (!m2cu_fmt_parse(units, m, lit, elts, &nelts, &nconv)) {
            status = m2cu_fmt_fail(who, "invalid format specified", msg, len);
        } else {
            m2cu_fmt_values vs = {args + 1, nargs - 1, 0, 0};
            status = m2cu_fmt_print(t, lit, elts, nelts, nconv, &vs, who, msg, len);
        }
    }
    free(units);
    free(lit);
    free(elts);
    return status;
}
