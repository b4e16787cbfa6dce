/* parser/repair.c: the repairing pre-filter (see repair.h). It tracks only one bit of JSON state,
 * "inside a string", and decides with a short look-ahead:
 *   - a '"' inside a string closes it only when the next non-blank byte is one of , : } ] (or the
 *     input ends); otherwise it is an unescaped quote and becomes \" (valid JSON never differs);
 *   - a ',' outside strings followed by ']' or '}' is a trailing comma and is dropped;
 *   - raw control bytes, invalid escapes and invalid UTF-8 inside strings are re-encoded.
 * Clean runs are copied with memcpy, so the cost on valid input is one table-driven scan. */
#include "parser/repair.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "common/util.h"

#define LOOKAHEAD_MAX 4096 /* blanks scanned before a decision is forced */

/* 1 for bytes that need attention inside a string */
static unsigned char in_str_special[256];
/* 1 for bytes that need attention outside strings */
static unsigned char out_str_special[256];
static unsigned char blank[256];
static pthread_once_t tables_once = PTHREAD_ONCE_INIT;

static void build_tables(void)
{
    for (int c = 0; c < 256; c++) {
        in_str_special[c] = (c < 0x20 || c == '"' || c == '\\' || c >= 0x80);
        out_str_special[c] = (c == '"' || c == ',');
        blank[c] = (c == ' ' || c == '\t' || c == '\n' || c == '\r');
    }
}

static void init_tables(void)
{
    pthread_once(&tables_once, build_tables);
}

void ks_repair_init(ks_repair *r)
{
    memset(r, 0, sizeof *r);
    init_tables();
}

void ks_repair_free(ks_repair *r)
{
    free(r->out);
    free(r->map);
    memset(r, 0, sizeof *r);
}

void ks_repair_reset(ks_repair *r)
{
    r->in_string = 0;
}

const char *ks_repair_kind_id(int kind)
{
    switch (kind) {
    case KS_REPAIR_QUOTE: return "parse.repaired_unescaped_quote";
    case KS_REPAIR_CONTROL: return "parse.repaired_control_character";
    case KS_REPAIR_ESCAPE: return "parse.repaired_invalid_escape";
    case KS_REPAIR_UTF8: return "parse.repaired_invalid_utf8";
    case KS_REPAIR_COMMA: return "parse.trailing_comma";
    }
    return "parse.repair";
}

static void note(ks_repair *r, int kind, size_t in_off)
{
    r->count[kind]++;
    if (r->on_repair)
        r->on_repair(r->ctx, kind, in_off);
}

static void map_add(ks_repair *r, size_t out, size_t in)
{
    KS_GROW(r->map, r->map_cap, r->nmap + 1);
    r->map[r->nmap].out = out;
    r->map[r->nmap].in = in;
    r->nmap++;
}

/* Length of a UTF-8 sequence at s: k > 0 valid, 0 invalid, -1 cut by the end of the buffer. */
static int utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    int k;
    if (c >= 0xc2 && c <= 0xdf)
        k = 2;
    else if (c >= 0xe0 && c <= 0xef)
        k = 3;
    else if (c >= 0xf0 && c <= 0xf4)
        k = 4;
    else
        return 0;
    for (int j = 1; j < k; j++) {
        if ((size_t)j >= n)
            return -1;
        if ((s[j] & 0xc0) != 0x80)
            return 0;
    }
    if (k == 3 && ((c == 0xe0 && s[1] < 0xa0) || (c == 0xed && s[1] >= 0xa0)))
        return 0;
    if (k == 4 && ((c == 0xf0 && s[1] < 0x90) || (c == 0xf4 && s[1] >= 0x90)))
        return 0;
    return k;
}

static int is_hex(unsigned char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

/* Index of the first non-blank byte at or after i (at most LOOKAHEAD_MAX ahead), or n. */
static size_t skip_blanks(const unsigned char *in, size_t i, size_t n, int *capped)
{
    size_t lim = n - i > LOOKAHEAD_MAX ? i + LOOKAHEAD_MAX : n;
    while (i < lim && blank[in[i]])
        i++;
    *capped = (i == lim && lim < n);
    return i;
}

size_t ks_repair_run(ks_repair *r, const char *input, size_t n, int eof)
{
    const unsigned char *in = (const unsigned char *)input;
    KS_GROW(r->out, r->out_cap, ks_mul(n, 6) + 16);
    unsigned char *out = (unsigned char *)r->out;
    size_t i = 0, o = 0;
    r->nmap = 0;
    map_add(r, 0, 0);
    int in_string = r->in_string;

    while (i < n) {
        if (!in_string) {
            size_t j = i;
            while (j < n && !out_str_special[in[j]])
                j++;
            memcpy(out + o, in + i, j - i);
            o += j - i;
            i = j;
            if (i == n)
                break;
            if (in[i] == '"') {
                out[o++] = '"';
                i++;
                in_string = 1;
                continue;
            }
            /* ',' */
            int capped;
            size_t k = skip_blanks(in, i + 1, n, &capped);
            if (k == n && !eof)
                goto stop;
            if (!capped && k < n && (in[k] == ']' || in[k] == '}')) {
                note(r, KS_REPAIR_COMMA, i);
                i++;
                map_add(r, o, i);
                continue;
            }
            out[o++] = ',';
            i++;
            continue;
        }
        /* inside a string */
        size_t j = i;
        while (j < n && !in_str_special[in[j]])
            j++;
        memcpy(out + o, in + i, j - i);
        o += j - i;
        i = j;
        if (i == n)
            break;
        unsigned char c = in[i];
        if (c == '"') {
            int capped;
            size_t k = skip_blanks(in, i + 1, n, &capped);
            if (k == n && !eof)
                goto stop;
            if (capped || k == n || in[k] == ',' || in[k] == ':' || in[k] == '}' || in[k] == ']') {
                out[o++] = '"';
                i++;
                in_string = 0;
                continue;
            }
            note(r, KS_REPAIR_QUOTE, i);
            out[o++] = '\\';
            out[o++] = '"';
            i++;
            map_add(r, o, i);
            continue;
        }
        if (c == '\\') {
            if (i + 1 >= n) {
                if (!eof)
                    goto stop;
            } else {
                unsigned char d = in[i + 1];
                if (d == '"' || d == '\\' || d == '/' || d == 'b' || d == 'f' || d == 'n' ||
                    d == 'r' || d == 't') {
                    out[o++] = c;
                    out[o++] = d;
                    i += 2;
                    continue;
                }
                if (d == 'u') {
                    if (i + 6 > n && !eof)
                        goto stop;
                    if (i + 6 <= n && is_hex(in[i + 2]) && is_hex(in[i + 3]) && is_hex(in[i + 4]) &&
                        is_hex(in[i + 5])) {
                        memcpy(out + o, in + i, 6);
                        o += 6;
                        i += 6;
                        continue;
                    }
                }
            }
            /* invalid escape: the backslash was meant literally (Windows path) */
            note(r, KS_REPAIR_ESCAPE, i);
            out[o++] = '\\';
            out[o++] = '\\';
            i++;
            map_add(r, o, i);
            continue;
        }
        if (c < 0x20) {
            static const char hex[] = "0123456789abcdef";
            note(r, KS_REPAIR_CONTROL, i);
            out[o++] = '\\';
            out[o++] = 'u';
            out[o++] = '0';
            out[o++] = '0';
            out[o++] = (unsigned char)hex[c >> 4];
            out[o++] = (unsigned char)hex[c & 15];
            i++;
            map_add(r, o, i);
            continue;
        }
        /* c >= 0x80 */
        int k = utf8_len(in + i, n - i);
        if (k < 0 && !eof)
            goto stop;
        if (k > 0) {
            memcpy(out + o, in + i, (size_t)k);
            o += (size_t)k;
            i += (size_t)k;
            continue;
        }
        note(r, KS_REPAIR_UTF8, i);
        out[o++] = 0xef;
        out[o++] = 0xbf;
        out[o++] = 0xbd;
        i++;
        map_add(r, o, i);
    }
stop:
    r->in_string = in_string;
    r->out_len = o;
    return i;
}

size_t ks_repair_in_offset(const ks_repair *r, size_t out_off)
{
    /* binary search for the last map entry with out <= out_off */
    size_t lo = 0, hi = r->nmap;
    while (hi - lo > 1) {
        size_t mid = (lo + hi) / 2;
        if (r->map[mid].out <= out_off)
            lo = mid;
        else
            hi = mid;
    }
    const ks_repair_map *m = &r->map[lo];
    return m->in + (out_off - m->out);
}
