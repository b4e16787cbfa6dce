/* redact/pseudonym.c: keyed pseudonyms (docs/redaction.md §3).
 *
 * <h> is the first N hex digits of HMAC-SHA256(key, class || 0x00 || value), computed by OpenSSL
 * libcrypto. N starts at 8; per class, a table keyed by token remembers the digest behind each
 * token, so that two different values meeting on one token (a collision) lengthen that class to
 * 12, then 16 hex digits; tokens given out earlier stay valid. The same table counts distinct
 * values for the report (digests only, never values). A direct-mapped cache of recent values
 * spares the HMAC for the paths and names that repeat in every event.
 *
 * The key: --key-file, else $KINESIFT_REDACT_KEY, else 32 random bytes from getrandom() that are
 * never written anywhere (tokens are then consistent within the run only). libcrypto is loaded at
 * the first HMAC (common/lazylib.h); key copies are wiped with explicit_bzero, which the compiler
 * may not drop. */
#include <errno.h>
#include <openssl/core_names.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "common/lazylib.h"
#include "redact/redact_int.h"

#define CACHE_SLOTS 4096
#define CACHE_MAX_VALUE 512
#define HEX_MIN 8
#define HEX_MAX 32

static const char *const cls_prefix[KS_NCLS] = {
    [KS_CLS_USER] = "user", [KS_CLS_HOST] = "host", [KS_CLS_EMAIL] = "email",
    [KS_CLS_JOB] = "job",   [KS_CLS_ID] = "id",     [KS_CLS_PATH] = "path",
    [KS_CLS_ADDR] = "addr", [KS_CLS_SECRET] = "secret", [KS_CLS_STRUCT] = "structure",
};

typedef struct tok_entry {
    uint8_t used;
    uint8_t hexlen;
    uint8_t digest[16];
} tok_entry;

typedef struct tok_table {
    tok_entry *v;
    size_t cap, n;
    int hexlen;             /* current length for new values */
    uint64_t collisions;
} tok_table;

typedef struct cache_slot {
    uint64_t h;
    char *v;
    uint16_t n;
    uint8_t cls;
    uint8_t hexlen;
    char hex[HEX_MAX + 1];
} cache_slot;

struct ks_rd_pseudo {
    EVP_MAC *mac;
    EVP_MAC_CTX *ctx;      /* set up at the first token: a clean trace never loads OpenSSL's
                              provider */
    unsigned char *key;    /* a copy until then (cleansed afterwards) */
    size_t klen;
    tok_table t[KS_NCLS];
    cache_slot *cache;
    cache_slot one;        /* the answer for a value too long for the cache: this
                              pseudonymiser's own, so redactors on two threads share nothing */
    const char *digest;    /* "SHA256" (another name only in tests, to make OpenSSL fail) */
    int failed;            /* OpenSSL failed once: every later token is zeros, the run fails */
    int *fail;             /* the redactor's failure flag, set to KS_RD_FAIL_CRYPTO then */
};

/* ---- HMAC ------------------------------------------------------------------------------------ */

static EVP_MAC_CTX *hmac_ctx(EVP_MAC **mac, const void *key, size_t klen, const char *digest_name)
{
    ks_error e;
    *mac = NULL;
    if (ks_crypto_load(&e) != KS_OK) /* the redactor said so already */
        return NULL;
    *mac = ks_crypto.EVP_MAC_fetch(NULL, "HMAC", NULL);
    if (!*mac)
        return NULL;
    EVP_MAC_CTX *c = ks_crypto.EVP_MAC_CTX_new(*mac);
    OSSL_PARAM params[] = {
        ks_crypto.OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest_name, 0),
        ks_crypto.OSSL_PARAM_construct_end(),
    };
    if (!c || !ks_crypto.EVP_MAC_init(c, key, klen, params)) {
        ks_crypto.EVP_MAC_CTX_free(c);
        ks_crypto.EVP_MAC_free(*mac);
        *mac = NULL;
        return NULL;
    }
    return c;
}

int ks_rd_hmac_sha256(const void *key, size_t klen, const void *msg, size_t n,
                      unsigned char out[32])
{
    EVP_MAC *mac;
    EVP_MAC_CTX *c = hmac_ctx(&mac, key, klen, "SHA256");
    size_t ol = 0;
    if (!c)
        return -1;
    int ok = ks_crypto.EVP_MAC_update(c, msg, n) && ks_crypto.EVP_MAC_final(c, out, &ol, 32) && ol == 32;
    ks_crypto.EVP_MAC_CTX_free(c);
    ks_crypto.EVP_MAC_free(mac);
    return ok ? 0 : -1;
}

/* OpenSSL failed: fail closed. The digest is zeros (never a value's bytes), the redactor's flag
 * makes the run fail (exit 2, nothing written), and the key copy is cleansed. */
static void digest_failed(ks_rd_pseudo *p, unsigned char out[32])
{
    memset(out, 0, 32);
    p->failed = 1;
    if (p->fail)
        *p->fail = KS_RD_FAIL_CRYPTO;
}

static void digest_of(ks_rd_pseudo *p, int cls, const char *v, size_t n, unsigned char out[32])
{
    const char *name = cls_prefix[cls];
    size_t ol = 0;
    if (p->failed) {
        digest_failed(p, out);
        return;
    }
    if (!p->ctx) {
        p->ctx = hmac_ctx(&p->mac, p->key, p->klen, p->digest);
        explicit_bzero(p->key, p->klen);
        if (!p->ctx) {
            digest_failed(p, out);
            return;
        }
    }
    /* a NULL key re-initialises with the key already set */
    if (!ks_crypto.EVP_MAC_init(p->ctx, NULL, 0, NULL) ||
        !ks_crypto.EVP_MAC_update(p->ctx, (const unsigned char *)name, strlen(name) + 1) ||
        !ks_crypto.EVP_MAC_update(p->ctx, (const unsigned char *)v, n) ||
        !ks_crypto.EVP_MAC_final(p->ctx, out, &ol, 32) || ol != 32)
        digest_failed(p, out);
}

void ks_rd_pseudo_on_failure(ks_rd_pseudo *p, int *fail)
{
    p->fail = fail;
}

int ks_rd_pseudo_failed(const ks_rd_pseudo *p)
{
    return p->failed;
}

void ks_rd_pseudo_test_digest(ks_rd_pseudo *p, const char *digest_name)
{
    p->digest = digest_name;
}

ks_rd_pseudo *ks_rd_pseudo_new(const unsigned char *key, size_t len)
{
    ks_rd_pseudo *p = ks_xcalloc(1, sizeof *p);
    p->digest = "SHA256";
    if (key && len) {
        p->key = ks_xmalloc(len);
        memcpy(p->key, key, len);
        p->klen = len;
    } else {
        p->key = ks_xmalloc(32);
        p->klen = 32;
        size_t got = 0;
        while (got < 32) {
            ssize_t r = getrandom(p->key + got, 32 - got, 0);
            if (r < 0 && errno == EINTR)
                continue;
            if (r <= 0) {
                free(p->key);
                free(p);
                return NULL;
            }
            got += (size_t)r;
        }
    }
    for (int c = 0; c < KS_NCLS; c++)
        p->t[c].hexlen = HEX_MIN;
    p->cache = ks_xcalloc(CACHE_SLOTS, sizeof *p->cache);
    return p;
}

void ks_rd_pseudo_free(ks_rd_pseudo *p)
{
    if (!p)
        return;
    if (p->ctx) /* set only once libcrypto was loaded */
        ks_crypto.EVP_MAC_CTX_free(p->ctx);
    if (p->mac)
        ks_crypto.EVP_MAC_free(p->mac);
    explicit_bzero(p->key, p->klen);
    free(p->key);
    for (int c = 0; c < KS_NCLS; c++)
        free(p->t[c].v);
    for (size_t i = 0; i < CACHE_SLOTS; i++)
        free(p->cache[i].v);
    free(p->cache);
    free(p);
}

/* ---- token tables -------------------------------------------------------------------------- */

static uint64_t prefix_hash(const uint8_t *d, int hexlen)
{
    return ks_hash(d, (size_t)(hexlen + 1) / 2) ^ (uint64_t)hexlen * 0x9e3779b97f4a7c15ULL;
}

/* same token: the first hexlen hex digits agree */
static int same_prefix(const uint8_t *a, const uint8_t *b, int hexlen)
{
    int full = hexlen / 2;
    if (memcmp(a, b, (size_t)full))
        return 0;
    return !(hexlen & 1) || (a[full] >> 4) == (b[full] >> 4);
}

static tok_entry *tt_find(tok_table *t, const uint8_t *d, int hexlen)
{
    if (!t->cap)
        return NULL;
    size_t i = prefix_hash(d, hexlen) & (t->cap - 1);
    for (;;) {
        tok_entry *e = &t->v[i];
        if (!e->used)
            return NULL;
        if (e->hexlen == hexlen && same_prefix(e->digest, d, hexlen))
            return e;
        i = (i + 1) & (t->cap - 1);
    }
}

static void tt_insert(tok_table *t, const uint8_t *d, int hexlen);

static void tt_grow(tok_table *t)
{
    tok_entry *old = t->v;
    size_t oc = t->cap;
    t->cap = oc ? oc * 2 : 64;
    t->v = ks_xcalloc(t->cap, sizeof *t->v);
    t->n = 0;
    for (size_t i = 0; i < oc; i++)
        if (old[i].used)
            tt_insert(t, old[i].digest, old[i].hexlen);
    free(old);
}

static void tt_insert(tok_table *t, const uint8_t *d, int hexlen)
{
    if ((t->n + 1) * 2 > t->cap)
        tt_grow(t);
    size_t i = prefix_hash(d, hexlen) & (t->cap - 1);
    while (t->v[i].used)
        i = (i + 1) & (t->cap - 1);
    t->v[i].used = 1;
    t->v[i].hexlen = (uint8_t)hexlen;
    memcpy(t->v[i].digest, d, 16);
    t->n++;
}

/* The token length for a digest: the one it was given before, else the class's current length,
 * lengthened while another value holds that token. */
static int assign(tok_table *t, const uint8_t *d)
{
    for (int l = HEX_MIN; l <= t->hexlen; l += 4) {
        tok_entry *e = tt_find(t, d, l);
        if (e && !memcmp(e->digest, d, 16))
            return l;
    }
    for (;;) {
        tok_entry *e = tt_find(t, d, t->hexlen);
        if (!e) {
            tt_insert(t, d, t->hexlen);
            return t->hexlen;
        }
        t->collisions++;
        if (t->hexlen >= HEX_MAX) /* 128 bits of digest stored: equal values */
            return t->hexlen;
        t->hexlen += 4;
    }
}

/* ---- the cache ------------------------------------------------------------------------------ */

static void to_hex(const uint8_t *d, int hexlen, char *out)
{
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < hexlen; i++)
        out[i] = hx[(d[i / 2] >> ((i & 1) ? 0 : 4)) & 15];
    out[hexlen] = 0;
}

static const cache_slot *lookup(ks_rd_pseudo *p, int cls, const char *v, size_t n)
{
    uint64_t h = ks_hash(v, n) ^ ((uint64_t)cls << 56);
    cache_slot *s = &p->cache[h & (CACHE_SLOTS - 1)];
    if (s->v && s->h == h && s->cls == cls && s->n == n && !memcmp(s->v, v, n))
        return s;
    unsigned char d[32];
    digest_of(p, cls, v, n, d);
    int hexlen = cls == KS_CLS_ADDR ? 12 : assign(&p->t[cls], d);
    if (n > CACHE_MAX_VALUE)
        s = &p->one;
    else {
        free(s->v);
        s->v = ks_xmalloc(n ? n : 1);
        memcpy(s->v, v, n);
        s->n = (uint16_t)n;
        s->h = h;
        s->cls = (uint8_t)cls;
    }
    s->hexlen = (uint8_t)hexlen;
    to_hex(d, hexlen, s->hex);
    return s;
}

void ks_rd_pseudo_append_hex(ks_rd_pseudo *p, int cls, const char *v, size_t n, ks_buf *out)
{
    const cache_slot *s = lookup(p, cls, v, n);
    ks_buf_put(out, s->hex, s->hexlen);
}

void ks_rd_pseudo_append(ks_rd_pseudo *p, int cls, const char *v, size_t n, ks_buf *out)
{
    ks_buf_puts(out, cls_prefix[cls]);
    ks_buf_putc(out, '-');
    ks_rd_pseudo_append_hex(p, cls, v, n, out);
}

void ks_rd_pseudo_note(ks_rd_pseudo *p, int cls, const char *v, size_t n)
{
    (void)lookup(p, cls, v, n);
}

uint64_t ks_rd_pseudo_u48(ks_rd_pseudo *p, const char *v, size_t n)
{
    const cache_slot *s = lookup(p, KS_CLS_ADDR, v, n);
    return strtoull(s->hex, NULL, 16);
}

uint64_t ks_rd_pseudo_distinct(const ks_rd_pseudo *p, int cls)
{
    return p->t[cls].n;
}

int ks_rd_pseudo_hexlen(const ks_rd_pseudo *p, int cls)
{
    return p->t[cls].hexlen;
}

uint64_t ks_rd_pseudo_collisions(const ks_rd_pseudo *p, int cls)
{
    return p->t[cls].collisions;
}

/* ---- keys ----------------------------------------------------------------------------------- */

static int read_key_file(const char *path, unsigned char **key, size_t *len, ks_error *err)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return ks_error_set(err, "%s: %s", path, strerror(errno));
    unsigned char *b = ks_xmalloc(4097);
    size_t n = fread(b, 1, 4097, f);
    int bad = ferror(f);
    fclose(f);
    if (bad || n > 4096) {
        explicit_bzero(b, 4097);
        free(b);
        return ks_error_set(err, "%s: %s", path, bad ? "read error" : "key file over 4096 bytes");
    }
    while (n && (b[n - 1] == '\n' || b[n - 1] == '\r'))
        n--;
    *key = b;
    *len = n;
    return KS_OK;
}

int ks_redact_key_load(const char *key_file, unsigned char **key, size_t *len,
                       ks_redact_key_source *source, ks_error *err)
{
    *key = NULL;
    *len = 0;
    *source = KS_KEY_RANDOM;
    const char *what;
    if (key_file) {
        if (read_key_file(key_file, key, len, err) != KS_OK)
            return KS_ERR;
        *source = KS_KEY_FILE;
        what = key_file;
    } else {
        const char *env = getenv(KS_REDACT_KEY_ENV);
        if (!env || !*env)
            return KS_OK;
        *len = strlen(env);
        *key = ks_xmalloc(*len + 1);
        memcpy(*key, env, *len + 1);
        *source = KS_KEY_ENV;
        what = "$" KS_REDACT_KEY_ENV;
    }
    if (*len < KS_REDACT_KEY_MIN) {
        ks_redact_key_free(*key, *len);
        *key = NULL;
        *len = 0;
        return ks_error_set(err,
                            "%s: the key must be at least %d bytes (e.g. openssl rand -hex 32)",
                            what, KS_REDACT_KEY_MIN);
    }
    return KS_OK;
}

void ks_redact_key_free(unsigned char *key, size_t len)
{
    if (!key)
        return;
    explicit_bzero(key, len);
    free(key);
}
