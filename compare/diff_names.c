/* compare/diff_names.c: kernel name normalisation for diff and gate: the same kernel compiled
 * for other template arguments (vectorized_elementwise_kernel<4, FillFunctor<float>, ...>) or
 * printed with its argument list is one row once normalised. */
#include <string.h>

#include "common/util.h"
#include "kinesift/compare.h"

/* 1 when every '<' has its '>' (and never more '>' than '<' so far). */
static int angles_balance(const char *s)
{
    long depth = 0;
    for (; *s; s++) {
        if (*s == '<')
            depth++;
        else if (*s == '>' && --depth < 0)
            return 0;
    }
    return depth == 0;
}

/* Copy s without its <...> groups (outermost level; their contents go with them). */
static void strip_angles(const char *s, ks_buf *out)
{
    long depth = 0;
    for (; *s; s++) {
        if (*s == '<')
            depth++;
        else if (*s == '>')
            depth--;
        else if (depth == 0)
            ks_buf_putc(out, *s);
    }
}

/* 1 when the parentheses of p[0..n) balance. */
static int parens_balance(const char *p, size_t n)
{
    long depth = 0;
    for (size_t i = 0; i < n; i++) {
        if (p[i] == '(')
            depth++;
        else if (p[i] == ')' && --depth < 0)
            return 0;
    }
    return depth == 0;
}

/* Length of p[0..n) without a trailing balanced (...) group and the spaces before it. */
static size_t strip_trailing_args(const char *p, size_t n)
{
    if (!parens_balance(p, n))
        return n;
    while (n && p[n - 1] == ' ')
        n--;
    if (!n || p[n - 1] != ')')
        return n;
    long depth = 0;
    for (size_t i = n; i-- > 0;) {
        if (p[i] == ')')
            depth++;
        else if (p[i] == '(' && --depth == 0) {
            size_t m = i;
            while (m && p[m - 1] == ' ')
                m--;
            return m ? m : n; /* a name that is only "(...)" stays */
        }
    }
    return n; /* unbalanced: keep */
}

char *ks_kernel_name_normalize(const char *name)
{
    ks_buf b = {0};
    if (angles_balance(name))
        strip_angles(name, &b);
    else
        ks_buf_puts(&b, name);
    const char *p = ks_buf_cstr(&b);
    size_t n = strip_trailing_args(p, b.n);
    size_t start = 0;
    while (start < n && p[start] == ' ')
        start++;
    if (n - start > 5 && !strncmp(p + start, "void ", 5))
        start += 5;
    while (start < n && p[start] == ' ')
        start++;
    char *r = n > start ? ks_xstrndup(p + start, n - start) : ks_xstrdup(name);
    ks_buf_free(&b);
    return r;
}
