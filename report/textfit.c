/* report/textfit.c: a finished text report made to fit a terminal of a given width. The text
 * writers write whole lines into a buffer (ks_text_begin) in two kinds:
 *   - table rows: cells separated by '\t' (leading spaces are the row's indent). Consecutive
 *     rows are one table: each column as wide as its widest cell, cells right-aligned (a cell
 *     starting with KS_TEXT_LEFT left-aligned), one space apart; the last cell (a name, or empty)
 *     two spaces after the others, left-aligned, and shortened in the middle (" ... ") to what
 *     the width leaves; when less than KS_TEXT_NAME_MIN columns are left, it goes on a line of
 *     its own under the row, four columns further in. What follows KS_TEXT_KEEP in it (" [category]")
 *     is kept whole, only the name before it shortened;
 *   - every other line is prose: wider than the width, it is wrapped at spaces, going on under
 *     the text after its label ("  before: 2 steps", "    next check: Cut ...": a label of one or
 *     two words and a colon; "  GPU 0    busy ...": the first run of two spaces or more), else
 *     two columns further in than the line.
 * ks_text_end writes the result; width 0 aligns the tables and changes nothing else (names
 * whole: JSON and CSV keep them whole anyway). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"
#include "kinesift/report.h"
#include "report/report_util.h"

/* columns of a UTF-8 text: its code points */
static size_t cols(const char *s, size_t n)
{
    size_t c = 0;
    for (size_t i = 0; i < n; i++)
        c += ((unsigned char)s[i] & 0xC0) != 0x80;
    return c;
}

typedef struct cell {
    const char *s;
    size_t n;
    int left;
} cell;

typedef struct row {
    size_t indent;
    cell *c;
    size_t n;
} row;

static void split_row(const char *s, size_t n, row *r)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    r->indent = i;
    r->n = 0;
    size_t cap = 0;
    r->c = NULL;
    for (;;) {
        size_t j = i;
        while (j < n && s[j] != '\t')
            j++;
        cell c = {s + i, j - i, 0};
        if (c.n && c.s[0] == KS_TEXT_LEFT[0])
            c.s++, c.n--, c.left = 1;
        KS_PUSH(r->c, r->n, cap, c);
        if (j >= n)
            break;
        i = j + 1;
    }
}

static void pad(FILE *out, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc(' ', out);
}

static void bpad(ks_buf *b, size_t n)
{
    for (size_t i = 0; i < n; i++)
        ks_buf_putc(b, ' ');
}

/* a row's text without its trailing spaces (empty right-aligned cells at its end) */
static void flush_row(FILE *out, ks_buf *b)
{
    size_t n = b->n;
    while (n && b->p[n - 1] == ' ')
        n--;
    fwrite(b->p, 1, n, out);
    fputc('\n', out);
    b->n = 0;
}

/* the last cell of a row in `room` columns (whole when it fits or room is 0): the name before
 * KS_TEXT_KEEP shortened in the middle, what follows it (" [category]") kept whole */
static void put_name(ks_buf *out, const cell *c, size_t room)
{
    const char *keep = memchr(c->s, KS_TEXT_KEEP[0], c->n);
    size_t nn = keep ? (size_t)(keep - c->s) : c->n, kn = keep ? c->n - nn - 1 : 0;
    size_t kc = keep ? cols(keep + 1, kn) : 0;
    if (!room || cols(c->s, nn) + kc <= room) {
        ks_buf_put(out, c->s, nn);
    } else {
        size_t r = room > kc + 16 ? room - kc : 16;
        char *whole = ks_xmalloc(nn + 1), *buf = ks_xmalloc(nn + 16);
        memcpy(whole, c->s, nn);
        whole[nn] = 0;
        ks_buf_puts(out, ks_text_name(whole, r, buf, nn + 16));
        free(whole);
        free(buf);
    }
    if (keep)
        ks_buf_put(out, keep + 1, kn);
}

/* the columns before row r's last cell with the fixed cells `sel[0 .. nsel)` shown; *shown: how
 * many of them it has */
static size_t name_at(const row *r, const size_t *w, const size_t *sel, size_t nsel, size_t *shown)
{
    size_t at = r->indent, n = 0;
    for (size_t s = 0; s < nsel && sel[s] < r->n - 1; s++, n++)
        at += w[sel[s]] + (s > 0);
    *shown = n;
    return n ? at + 2 : at;
}

/* the columns a last cell takes whole (its KS_TEXT_KEEP marker not printed); *kc: those of the
 * part after the marker, kept whole when the name is shortened */
static size_t name_cols(const cell *c, size_t *kc)
{
    const char *keep = memchr(c->s, KS_TEXT_KEEP[0], c->n);
    *kc = keep ? cols(keep + 1, c->n - (size_t)(keep - c->s) - 1) : 0;
    return cols(c->s, c->n) - (keep != NULL);
}

/* whether row r's last cell fits beside its fixed cells (shortened to no less than
 * KS_TEXT_NAME_MIN columns): else it goes on a line of its own */
static int name_fits(const row *r, size_t at, size_t width)
{
    const cell *last = &r->c[r->n - 1];
    if (!width || !last->n)
        return 1;
    size_t kc, need = name_cols(last, &kc);
    return at + need <= width || (width > at + kc && width - at - kc >= KS_TEXT_NAME_MIN);
}

/* The rows with the fixed cells `sel[0 .. nsel)` (column numbers, ascending) and each row's last
 * cell. When the last cell of one row does not fit beside its cells, every row's goes on a line
 * of its own under the row, so that the table keeps one layout. */
static void put_rows(FILE *out, const row *rows, size_t nrows, const size_t *w, const size_t *sel, size_t nsel,
                     size_t width)
{
    int under = 0;
    for (size_t i = 0; i < nrows && !under; i++) {
        size_t shown, at = name_at(&rows[i], w, sel, nsel, &shown);
        under = !name_fits(&rows[i], at, width);
    }
    ks_buf b = {0};
    for (size_t i = 0; i < nrows; i++) {
        const row *r = &rows[i];
        size_t shown, at = name_at(r, w, sel, nsel, &shown);
        bpad(&b, r->indent);
        for (size_t s = 0; s < shown; s++) {
            const cell *c = &r->c[sel[s]];
            size_t gap = w[sel[s]] - cols(c->s, c->n);
            if (s)
                ks_buf_putc(&b, ' ');
            if (!c->left)
                bpad(&b, gap);
            ks_buf_put(&b, c->s, c->n);
            if (c->left)
                bpad(&b, gap);
        }
        const cell *last = &r->c[r->n - 1];
        if (!last->n) {
            flush_row(out, &b);
            continue;
        }
        size_t kc, need = name_cols(last, &kc);
        int whole = !width || at + need <= width;
        if (whole ? !under || !shown : !under) { /* beside the row, shortened when not whole */
            ks_buf_puts(&b, shown ? "  " : "");
            put_name(&b, last, whole ? 0 : width - at);
            flush_row(out, &b);
            continue;
        }
        /* under the row */
        flush_row(out, &b);
        size_t in = r->indent + 4;
        bpad(&b, in);
        put_name(&b, last, width > in + KS_TEXT_NAME_MIN ? width - in : KS_TEXT_NAME_MIN);
        flush_row(out, &b);
    }
    ks_buf_free(&b);
}

/* Where the blocks of columns end (ends[0 .. return)), packed into `budget` columns: a block ends
 * where the header row starts a cell (a heading over a group of columns), unless the group alone
 * is too wide (*split set then). */
static size_t pack(const row *head, const size_t *w, size_t ncol, size_t indent, size_t budget, size_t *ends,
                   int *split)
{
    size_t nb = 0;
    *split = 0;
    for (size_t s = 1; s < ncol;) {
        size_t at = indent + w[0], e = s;
        while (e < ncol && (e == s || at + 1 + w[e] <= budget))
            at += 1 + w[e++];
        if (e < ncol) { /* back to the last heading inside the block, if there is one */
            size_t b = e;
            while (b > s && !(b < head->n - 1 && head->c[b].n))
                b--;
            if (b > s)
                e = b;
            else
                *split = 1;
        }
        ends[nb++] = e;
        s = e;
    }
    return nb;
}

/* A table whose fixed cells are wider than the width is shown in blocks of columns, one under
 * the other with a blank line between them, as wide tables are printed elsewhere (R's data
 * frames): every block repeats the first column (the row's key: status, rank, step) and the
 * rows' last cells (names). Blocks keep room for the names beside the rows (KS_TEXT_NAME_MIN)
 * when that costs at most one more block and no group of columns under one heading is cut;
 * else the names go under the rows. */
static void table(FILE *out, const char *const *lines, const size_t *lens, size_t nrows, size_t width)
{
    row *rows = ks_xcalloc(nrows, sizeof *rows);
    size_t ncol = 0, indent = 0, name = 0;
    for (size_t i = 0; i < nrows; i++) {
        split_row(lines[i], lens[i], &rows[i]);
        ncol = rows[i].n - 1 > ncol ? rows[i].n - 1 : ncol;
        indent = rows[i].indent > indent ? rows[i].indent : indent;
        size_t kc, need = name_cols(&rows[i].c[rows[i].n - 1], &kc), least = kc + KS_TEXT_NAME_MIN;
        need = need < least ? need : least;
        name = need > name ? need : name;
    }
    size_t *w = ks_xcalloc(ncol + 1, sizeof *w), *sel = ks_xcalloc(ncol + 1, sizeof *sel);
    for (size_t i = 0; i < nrows; i++)
        for (size_t k = 0; k + 1 < rows[i].n; k++) {
            size_t c = cols(rows[i].c[k].s, rows[i].c[k].n);
            w[k] = c > w[k] ? c : w[k];
        }
    size_t fixed = indent;
    for (size_t k = 0; k < ncol; k++)
        fixed += w[k] + (k > 0);
    if (!width || fixed <= width || ncol < 3) {
        for (size_t k = 0; k < ncol; k++)
            sel[k] = k;
        put_rows(out, rows, nrows, w, sel, ncol, width);
    } else {
        size_t *ends = ks_xcalloc(ncol, sizeof *ends), *ends2 = ks_xcalloc(ncol, sizeof *ends2);
        int split, split2 = 1;
        size_t nb = pack(&rows[0], w, ncol, indent, width, ends, &split), nb2 = 0;
        if (name && width > name + 2)
            nb2 = pack(&rows[0], w, ncol, indent, width - name - 2, ends2, &split2);
        if (nb2 && !split2 && nb2 <= nb + 1) {
            memcpy(ends, ends2, nb2 * sizeof *ends);
            nb = nb2;
        }
        for (size_t b = 0, s = 1; b < nb; s = ends[b++]) {
            size_t nsel = 0;
            sel[nsel++] = 0;
            for (size_t k = s; k < ends[b]; k++)
                sel[nsel++] = k;
            if (b)
                fputc('\n', out);
            put_rows(out, rows, nrows, w, sel, nsel, width);
        }
        free(ends);
        free(ends2);
    }
    for (size_t i = 0; i < nrows; i++)
        free(rows[i].c);
    free(rows);
    free(w);
    free(sel);
}

/* the column a wrapped prose line goes on at */
static size_t hang_of(const char *s, size_t n, size_t width)
{
    size_t i = 0;
    while (i < n && s[i] == ' ')
        i++;
    size_t indent = i;
    /* a label of one or two words and a colon: "before: 2 steps", "next check: Cut ..." */
    for (size_t j = i, spaces = 0; j + 1 < n && j < indent + 24; j++) {
        if (s[j] == ' ' && ++spaces > 1)
            break;
        if (s[j] == ':' && s[j + 1] == ' ' && j > indent) {
            size_t k = j + 1;
            while (k < n && s[k] == ' ')
                k++;
            if (k < n && k <= width / 2)
                return k;
            break;
        }
    }
    for (; i + 1 < n; i++)
        if (s[i] != ' ' && s[i + 1] == ' ' && i + 2 < n && s[i + 2] == ' ') {
            size_t j = i + 1;
            while (j < n && s[j] == ' ')
                j++;
            if (j < n && j <= width / 2)
                return j;
            break;
        }
    return indent + 2 <= width / 2 ? indent + 2 : 0;
}

static void prose(FILE *out, const char *s, size_t n, size_t width)
{
    if (!width || cols(s, n) <= width) {
        fwrite(s, 1, n, out);
        fputc('\n', out);
        return;
    }
    size_t hang = hang_of(s, n, width), at = 0, i = 0;
    /* the line's own indent first */
    while (i < n && s[i] == ' ')
        fputc(' ', out), i++, at++;
    int first_word = 1;
    while (i < n) {
        size_t sp = i;
        while (i < n && s[i] == ' ')
            i++;
        size_t j = i;
        while (j < n && s[j] != ' ')
            j++;
        if (j == i)
            break;
        size_t spaces = i - sp, wc = cols(s + i, j - i);
        if (!first_word && at + spaces + wc > width) {
            fputc('\n', out);
            pad(out, hang);
            at = hang;
            spaces = 0;
        }
        pad(out, spaces);
        at += spaces;
        /* a word wider than the room left: cut it where the line ends */
        const char *p = s + i;
        size_t left = j - i;
        while (at + cols(p, left) > width && width > at + 8) {
            size_t room = width - at, k = 0, c = 0;
            while (k < left && c < room) {
                k++;
                while (k < left && ((unsigned char)p[k] & 0xC0) == 0x80)
                    k++;
                c++;
            }
            fwrite(p, 1, k, out);
            fputc('\n', out);
            pad(out, hang);
            at = hang;
            p += k;
            left -= k;
        }
        fwrite(p, 1, left, out);
        at += cols(p, left);
        first_word = 0;
        i = j;
    }
    fputc('\n', out);
}

void ks_text_fit(FILE *out, const char *text, size_t len, size_t width)
{
    size_t cap = 0, n = 0;
    const char **lines = NULL;
    size_t *lens = NULL, lcap = 0, nl = 0;
    for (size_t i = 0; i < len;) {
        const char *e = memchr(text + i, '\n', len - i);
        size_t l = e ? (size_t)(e - (text + i)) : len - i;
        const char *p = text + i;
        KS_PUSH(lines, n, cap, p);
        KS_PUSH(lens, nl, lcap, l);
        i += l + 1;
    }
    for (size_t i = 0; i < n;) {
        if (memchr(lines[i], '\t', lens[i])) {
            size_t j = i;
            while (j < n && memchr(lines[j], '\t', lens[j]))
                j++;
            table(out, lines + i, lens + i, j - i, width);
            i = j;
            continue;
        }
        /* the table markers mean nothing in prose: left out */
        char *clean = ks_xmalloc(lens[i] + 1);
        size_t k = 0;
        for (size_t j = 0; j < lens[i]; j++)
            if (lines[i][j] != KS_TEXT_LEFT[0] && lines[i][j] != KS_TEXT_KEEP[0])
                clean[k++] = lines[i][j];
        prose(out, clean, k, width);
        free(clean);
        i++;
    }
    free(lines);
    free(lens);
}

FILE *ks_text_begin(ks_text_buf *b, FILE *out)
{
    b->data = NULL;
    b->len = 0;
    b->f = open_memstream(&b->data, &b->len);
    return b->f ? b->f : out; /* no memory for the buffer: written as it comes */
}

int ks_text_end(ks_text_buf *b, FILE *out, size_t width)
{
    if (!b->f)
        return ferror(out) ? -1 : 0;
    fclose(b->f);
    b->f = NULL;
    if (width == KS_TEXT_RAW)
        fwrite(b->data, 1, b->len, out);
    else
        ks_text_fit(out, b->data, b->len, width);
    free(b->data);
    b->data = NULL;
    return ferror(out) ? -1 : 0;
}
