/* redact/emit.c: the engine's output (rewrite.c). The input is copied verbatim, span by span, up
 * to a filtered offset (ks_rw_emit_upto); a token a rule rewrites is replaced by a JSON string
 * re-encoded here (control characters, '"' and '\\' escaped, everything else as is) or by raw text
 * (a keyed Addr number, "__stripped__"). Writes go through a RW_OUTBUF buffer to the caller's
 * write function; a failed write is remembered, never retried. Inside a stripped container
 * nothing is copied, and check mode writes nothing at all. Internal to redact/ (the engine). */
#include "redact/redact_int.h"

#include <string.h>

void ks_rw_out_flush(ks_rw_eng *e)
{
    if (e->out_n && !e->write_failed && e->write(e->wctx, e->out, e->out_n) != 0)
        e->write_failed = 1;
    e->out_n = 0;
}

static void out_put(ks_rw_eng *e, const char *p, size_t n)
{
    if (e->check || !n)
        return;
    e->res->bytes_out += n;
    if (n >= RW_OUTBUF) {
        ks_rw_out_flush(e);
        if (!e->write_failed && e->write(e->wctx, p, n) != 0)
            e->write_failed = 1;
        return;
    }
    if (e->out_n + n > RW_OUTBUF)
        ks_rw_out_flush(e);
    memcpy(e->out + e->out_n, p, n);
    e->out_n += n;
}

/* Copy (or drop, inside a stripped container) the input up to filtered offset off. */
void ks_rw_emit_upto(ks_rw_eng *e, uint64_t off)
{
    if (off <= e->flushed)
        return;
    if (!e->discard)
        out_put(e, e->win + (e->flushed - e->win_base), off - e->flushed);
    e->flushed = off;
}

/* JSON string encoding of a rewritten value, straight into the output */
static const unsigned char needs_escape[256] = {
    [0x00] = 1, [0x01] = 1, [0x02] = 1, [0x03] = 1, [0x04] = 1, [0x05] = 1, [0x06] = 1,
    [0x07] = 1, [0x08] = 1, [0x09] = 1, [0x0a] = 1, [0x0b] = 1, [0x0c] = 1, [0x0d] = 1,
    [0x0e] = 1, [0x0f] = 1, [0x10] = 1, [0x11] = 1, [0x12] = 1, [0x13] = 1, [0x14] = 1,
    [0x15] = 1, [0x16] = 1, [0x17] = 1, [0x18] = 1, [0x19] = 1, [0x1a] = 1, [0x1b] = 1,
    [0x1c] = 1, [0x1d] = 1, [0x1e] = 1, [0x1f] = 1, ['"'] = 1, ['\\'] = 1,
};

static void encode_out(ks_rw_eng *e, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    out_put(e, "\"", 1);
    size_t last = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == 0xed && i + 2 < n && ((unsigned char)s[i + 1] & 0xe0) == 0xa0 &&
            ((unsigned char)s[i + 2] & 0xc0) == 0x80) {
            /* a lone surrogate (yajl decodes "\\udc00" to ED B0 80, which is no UTF-8): written
             * back as the escape it was, so the output is valid UTF-8 and reads the same again */
            unsigned cp = 0xd000u | (((unsigned)s[i + 1] & 0x3fu) << 6) | ((unsigned)s[i + 2] & 0x3fu);
            char u[6] = {'\\', 'u', 'd', hex[(cp >> 8) & 15], hex[(cp >> 4) & 15], hex[cp & 15]};
            out_put(e, s + last, i - last);
            out_put(e, u, 6);
            last = i + 3;
            i += 2;
            continue;
        }
        if (!needs_escape[c])
            continue;
        out_put(e, s + last, i - last);
        last = i + 1;
        switch (c) {
        case '"': out_put(e, "\\\"", 2); break;
        case '\\': out_put(e, "\\\\", 2); break;
        case '\n': out_put(e, "\\n", 2); break;
        case '\r': out_put(e, "\\r", 2); break;
        case '\t': out_put(e, "\\t", 2); break;
        case '\b': out_put(e, "\\b", 2); break;
        case '\f': out_put(e, "\\f", 2); break;
        default: {
            char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            out_put(e, u, 6);
        }
        }
    }
    out_put(e, s + last, n - last);
    out_put(e, "\"", 1);
}

/* Replace the token [start, end) by a JSON string. */
void ks_rw_replace_str(ks_rw_eng *e, uint64_t start, uint64_t end, const char *s, size_t n)
{
    if (e->check || e->discard)
        return;
    ks_rw_emit_upto(e, start);
    encode_out(e, s, n);
    e->flushed = end;
    e->res->strings_rewritten++;
}

void ks_rw_replace_raw(ks_rw_eng *e, uint64_t start, uint64_t end, const char *s, size_t n)
{
    if (e->check || e->discard)
        return;
    ks_rw_emit_upto(e, start);
    out_put(e, s, n);
    e->flushed = end;
}
