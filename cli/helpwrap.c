/* cli/helpwrap.c: a help text printed within 80 columns. The help texts are written by hand in
 * the layout cli/dist/gen.py reads (usage lines, then paragraphs; option and table lines start
 * with two spaces, their description after two spaces or more, continuation lines indented
 * further); an item with a line wider than 80 columns is reflowed in that same layout, every
 * other line printed as written:
 *   - a usage line breaks before a "[" and goes on under the first option;
 *   - an option or table line keeps its left part, its description (continuation lines included)
 *     refilled at the description's column;
 *   - a list item ("  - ...") is refilled after its dash;
 *   - prose (lines starting in column 0) is refilled as a paragraph;
 *   - any other indented line breaks at a space, going on two columns further in.
 * So the man pages (made from --help) are wrapped too. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "common/util.h"

#define HELP_WIDTH 80

typedef struct line {
    const char *s;
    size_t n;
} line;

static size_t indent_of(line l)
{
    size_t i = 0;
    while (i < l.n && l.s[i] == ' ')
        i++;
    return i;
}

/* words of text (any run of spaces separates them) written from column `col`, the first line
 * starting at `first` (already written up to there), the others after `col` spaces */
static void fill(FILE *out, const char *text, size_t len, size_t first, size_t col)
{
    size_t at = first, i = 0;
    int any = 0;
    while (i < len) {
        while (i < len && text[i] == ' ')
            i++;
        size_t j = i;
        while (j < len && text[j] != ' ')
            j++;
        if (j == i)
            break;
        size_t w = j - i;
        if (any && at + 1 + w > HELP_WIDTH) {
            fprintf(out, "\n%*s", (int)col, "");
            at = col;
        } else if (any) {
            fputc(' ', out);
            at++;
        }
        fwrite(text + i, 1, w, out);
        at += w;
        any = 1;
        i = j;
    }
    fputc('\n', out);
}

/* an option or table line: two spaces, then something not a space; *desc: the column of its
 * description (after two spaces or more), 0 when the line has none */
static int is_head(line l, size_t *desc)
{
    if (l.n < 3 || l.s[0] != ' ' || l.s[1] != ' ' || l.s[2] == ' ')
        return 0;
    *desc = 0;
    if (l.s[2] == '-' && l.n > 4 && l.s[3] == ' ') { /* "  - a list item" */
        *desc = 4;
        return 1;
    }
    for (size_t i = 3; i + 2 < l.n; i++)
        if (l.s[i] == ' ' && l.s[i + 1] == ' ') {
            size_t j = i;
            while (j < l.n && l.s[j] == ' ')
                j++;
            if (j < l.n)
                *desc = j;
            break;
        }
    return 1;
}

/* col: where the usage's continuation lines start (under the first option) */
static void usage_line(FILE *out, line l, size_t col)
{
    size_t start = 0, at = 0;
    while (l.n - start + at > HELP_WIDTH) {
        size_t room = HELP_WIDTH - at, cut = 0;
        for (size_t i = start + 1; i < l.n && i - start <= room; i++)
            if (l.s[i] == '[' && l.s[i - 1] == ' ')
                cut = i;
        if (!cut)
            for (size_t i = start + 1; i < l.n && i - start <= room; i++)
                if (l.s[i] == ' ')
                    cut = i + 1;
        if (!cut)
            break;
        size_t end = cut;
        while (end > start && l.s[end - 1] == ' ')
            end--;
        fwrite(l.s + start, 1, end - start, out);
        fprintf(out, "\n%*s", (int)col, "");
        at = col;
        start = cut;
    }
    fwrite(l.s + start, 1, l.n - start, out);
    fputc('\n', out);
}

/* the item's text (from column `from` of its first line, whole lines after), words joined */
static char *join(const line *v, size_t n, size_t from, size_t *len)
{
    ks_buf b = {0};
    for (size_t i = 0; i < n; i++) {
        size_t k = i ? 0 : from;
        if (i)
            ks_buf_printf(&b, " ");
        ks_buf_printf(&b, "%.*s", (int)(v[i].n - k), v[i].s + k);
    }
    *len = b.n;
    char *s = ks_xstrdup(b.n ? ks_buf_cstr(&b) : "");
    ks_buf_free(&b);
    return s;
}

static size_t widest(const line *v, size_t n)
{
    size_t w = 0;
    for (size_t i = 0; i < n; i++)
        w = v[i].n > w ? v[i].n : w;
    return w;
}

void ks_cli_help_print(FILE *out, const char *text)
{
    size_t cap = 16, n = 0;
    line *v = ks_xmalloc(cap * sizeof *v);
    for (const char *p = text; *p;) {
        const char *e = strchr(p, '\n');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        KS_GROW(v, cap, n + 1);
        v[n++] = (line){p, len};
        p += len + (e != NULL);
    }
    int in_usage = 1;
    size_t ucol = 8; /* after "usage: kinesift CMD ", or the first continuation line's indent */
    if (n) {
        size_t words = 0;
        for (size_t i = 0; i + 1 < v[0].n && words < 3; i++)
            if (v[0].s[i] == ' ' && v[0].s[i + 1] != ' ')
                words++, ucol = i + 1;
        if (n > 1 && v[1].n && indent_of(v[1]) > 2)
            ucol = indent_of(v[1]);
        if (ucol > HELP_WIDTH / 2)
            ucol = 8;
    }
    for (size_t i = 0; i < n;) {
        line l = v[i];
        if (!l.n) {
            in_usage = 0;
            fputc('\n', out);
            i++;
            continue;
        }
        size_t desc = 0, j = i + 1;
        if (in_usage) {
            if (l.n > HELP_WIDTH)
                usage_line(out, l, ucol);
            else
                fprintf(out, "%.*s\n", (int)l.n, l.s);
            i++;
            continue;
        }
        if (is_head(l, &desc)) {
            /* its continuation lines: indented deeper than two */
            while (j < n && v[j].n && indent_of(v[j]) > 2)
                j++;
            if (widest(v + i, j - i) > HELP_WIDTH) {
                size_t col = desc ? desc : j > i + 1 ? indent_of(v[i + 1]) : 4;
                size_t from = desc ? desc : l.n, len;
                char *t = join(v + i, j - i, from, &len);
                if (desc) {
                    fprintf(out, "%.*s", (int)desc, l.s);
                    fill(out, t, len, desc, col);
                } else {
                    fprintf(out, "%.*s\n%*s", (int)l.n, l.s, (int)col, "");
                    fill(out, t, len, col, col);
                }
                free(t);
            } else
                for (size_t k = i; k < j; k++)
                    fprintf(out, "%.*s\n", (int)v[k].n, v[k].s);
            i = j;
            continue;
        }
        if (!indent_of(l)) {
            while (j < n && v[j].n && !indent_of(v[j]))
                j++;
            if (widest(v + i, j - i) > HELP_WIDTH) {
                size_t len;
                char *t = join(v + i, j - i, 0, &len);
                fill(out, t, len, 0, 0);
                free(t);
            } else
                for (size_t k = i; k < j; k++)
                    fprintf(out, "%.*s\n", (int)v[k].n, v[k].s);
            i = j;
            continue;
        }
        if (l.n > HELP_WIDTH) {
            size_t ind = indent_of(l);
            fprintf(out, "%*s", (int)ind, "");
            fill(out, l.s + ind, l.n - ind, ind, ind + 2);
        } else
            fprintf(out, "%.*s\n", (int)l.n, l.s);
        i++;
    }
    free(v);
}
