/* redact/findings.c: check mode's findings (`redact --check`). Every rewrite a rule would make
 * is reported through the redactor's hit callback with its rule, class, event index, JSON path
 * (from the stack of open containers: identifier keys as .key, others quoted, a key that itself
 * had a finding masked) and input byte offset, never the value. Internal to redact/ (the engine). */
#include "redact/redact_int.h"

#include <stdint.h>

static int ident_key(const char *k, size_t n)
{
    if (!n || (k[0] >= '0' && k[0] <= '9'))
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = k[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_'))
            return 0;
    }
    return 1;
}

static void member(ks_buf *b, const ks_rw_frame *f)
{
    if (!f->is_map) {
        ks_buf_printf(b, "[%lld]", (long long)(f->index > 0 ? f->index - 1 : 0));
        return;
    }
    if (f->key_masked) {
        ks_buf_puts(b, "[<key with a finding>]");
        return;
    }
    if (ident_key(f->key, f->keylen)) {
        if (b->n)
            ks_buf_putc(b, '.');
        ks_buf_put(b, f->key, f->keylen);
    } else {
        ks_buf_puts(b, "[\"");
        for (size_t i = 0; i < f->keylen; i++) {
            unsigned char c = (unsigned char)f->key[i];
            if (c == '"' || c == '\\')
                ks_buf_putc(b, '\\');
            if (c < 0x20)
                ks_buf_printf(b, "\\u%04x", c);
            else
                ks_buf_putc(b, (char)c);
        }
        if (f->keylen == RW_KEY_MAX)
            ks_buf_puts(b, "...");
        ks_buf_puts(b, "\"]");
    }
}

static const char *build_path(ks_rw_eng *e)
{
    e->path.n = 0;
    for (size_t i = 1; i <= e->depth; i++)
        member(&e->path, &e->st[i]);
    if (!e->path.n)
        ks_buf_puts(&e->path, "$");
    return ks_buf_cstr(&e->path);
}

void ks_rw_on_hit(void *ctx, int rule, size_t len)
{
    ks_rw_eng *e = ctx;
    if (!e->check)
        return;
    e->res->findings++;
    if (!e->on_finding)
        return;
    ks_redact_finding f;
    f.rule = ks_rd_rule_name(e->rd, rule);
    f.cls = ks_rd_cls_name(ks_rd_rule_cls(e->rd, rule));
    f.event = e->events_frame && e->depth > e->events_depth ? e->events_frame->index - 1 : -1;
    f.path = build_path(e);
    f.byte = ks_rw_in_offset(e, e->tok_start == UINT64_MAX ? e->prev_end : e->tok_start);
    f.length = len;
    f.in_key = e->in_key;
    e->on_finding(e->fctx, &f);
}
