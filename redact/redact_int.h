/* redact/redact_int.h: what the parts of redact/ share (internal, not installed).
 *
 *   rules.c      rule registry (ids, classes), a rule's hit (count, record, hook), patterns
 *                helpers, user rules (--rules FILE)
 *   pseudonym.c  keyed HMAC-SHA256 tokens, collision handling, distinct counts, key loading
 *   tokens.c     recognising our own tokens (user-1a2b3c4d, [REDACTED:x], ...) so that
 *                redaction is idempotent; writing [REDACTED:x]
 *   secrets.c    secret shapes -> [REDACTED:rule]
 *   vendor.c     vendors' fixed-prefix token shapes (vendor-token), after gitleaks; entropy
 *   net.c        e-mails, URL credentials, IPv4/IPv6, host names
 *   psl.c        the top-level domains of the public-suffix list (Debian's publicsuffix)
 *   paths.c      absolute paths, home directories, site-packages, frames
 *   literals.c   learned user/host literals and deny terms
 *   litset.c     the literal matcher: hashed set by length, caseless, word bounded
 *   scan.c       the per-string scanner pipeline
 *   fields.c     structural rules: what a JSON position means (top-level keys, event fields, args)
 *   rewrite.c    the streaming engine (yajl + verbatim span copy), redact and check modes:
 *                its run loop and entry points; its parts, bottom-up: emit.c (output), spans.c
 *                (positions), findings.c (check mode), frames.c (the container stack),
 *                scalars.c and members.c (the yajl callbacks)
 *   output.c     redacting to a file (common/afile.h), late literals, the second pass
 *   verify.c     the raw scan for literals learned late, and the second pass
 *   check.c      collecting and printing --check findings
 *   report.c     counts per rule, distinct values per class */
#ifndef KS_REDACT_INT_H
#define KS_REDACT_INT_H

#include <stdint.h>
#include <string.h>
#include <yajl/yajl_parse.h>

#include "common/limits.h"
#include "common/regex.h"
#include "common/util.h"
#include "json/repair.h"
#include "kinesift/redact.h"

/* ---- classes ------------------------------------------------------------------------------ */

enum ks_rd_cls {
    KS_CLS_STRUCT = 0, /* structural drops: no token */
    KS_CLS_USER,
    KS_CLS_HOST,
    KS_CLS_EMAIL,
    KS_CLS_JOB,
    KS_CLS_ID,
    KS_CLS_PATH,
    KS_CLS_ADDR,
    KS_CLS_SECRET,     /* irreversible [REDACTED:rule] */
    KS_NCLS
};

const char *ks_rd_cls_name(int cls);
int ks_rd_cls_parse(const char *name); /* -1 when unknown; "secret" and "redact" -> SECRET */

/* ---- rules -------------------------------------------------------------------------------- */

enum ks_rd_rule_id {
    R_METADATA = 0, R_KINETO_LOGS, R_PIP_LIST, R_HOST_NAME, R_USERNAME, R_TRACE_NAME, R_JOB,
    R_TRACE_ID, R_SENSITIVE_KEY, R_DROP_ARG, R_SHAPES, R_ADDR,
    /* secrets */
    R_AWS, R_GITHUB, R_GITLAB, R_HF, R_SLACK_TOKEN, R_SLACK_WEBHOOK, R_JWT, R_OPENAI,
    R_ANTHROPIC, R_GCP, R_NPM, R_PYPI, R_STRIPE, R_PRIVATE_KEY, R_URL_USERINFO, R_GENERIC,
    R_AUTH_HEADER, R_VENDOR,
    /* pseudonyms */
    R_EMAIL, R_HOME_PATH, R_TORCHINDUCTOR, R_SITE_PACKAGES, R_ABS_PATH, R_IPV4, R_IPV6, R_FQDN,
    R_LEARNED_HOST, R_LEARNED_USER, R_DENY, R_LEARNED_JOB,
    R_UNSCANNABLE, /* a pattern failed on a string (PCRE2 match limit): the string goes whole */
    R_NBUILTIN
};

typedef struct ks_rd_rule {
    const char *id;
    uint8_t cls;
    const char *desc;
} ks_rd_rule;

extern const ks_rd_rule ks_rd_builtin[R_NBUILTIN];

/* A compiled pattern (common/regex.h: PCRE2, JIT when available), bytes not UTF-8. */
typedef struct ks_rd_re {
    ks_regex *re;
    int *fail;     /* set to the PCRE2 error code when a match fails (match or depth limit):
                    * the string being scanned is then replaced whole (scan.c) */
} ks_rd_re;

int ks_rd_re_compile(ks_rd_re *re, const char *pattern, ks_error *err);
void ks_rd_re_free(ks_rd_re *re);
/* Match from offset start: 1 and the ovector (pairs of offsets) on a match, 0 otherwise. A
 * matching error (match or depth limit) is no "no match": it returns 0 and sets *re->fail, and
 * the scanner then replaces the whole string (rule unscannable: fails closed per string). */
int ks_rd_re_match(ks_rd_re *re, const char *s, size_t n, size_t start, const size_t **ov);

typedef struct ks_rd_user_rule {
    char *name;
    int cls;
    ks_rd_re re;
} ks_rd_user_rule;

/* Parse a --rules file: [{"name": ..., "pattern": ..., "class": ...}, ...]. */
int ks_rd_user_rules_load(const char *path, ks_rd_user_rule **rules, size_t *n, ks_error *err);
void ks_rd_user_rules_free(ks_rd_user_rule *rules, size_t n);

/* ---- pseudonyms --------------------------------------------------------------------------- */

typedef struct ks_rd_pseudo ks_rd_pseudo;

ks_rd_pseudo *ks_rd_pseudo_new(const unsigned char *key, size_t len);
void ks_rd_pseudo_free(ks_rd_pseudo *p);
/* Append "<class>-<hex>" (e.g. user-1a2b3c4d) for a value of class cls. */
void ks_rd_pseudo_append(ks_rd_pseudo *p, int cls, const char *v, size_t n, ks_buf *out);
/* Only the hex part (for <path-1a2b3c4d>). */
void ks_rd_pseudo_append_hex(ks_rd_pseudo *p, int cls, const char *v, size_t n, ks_buf *out);
/* Count a value of a class without producing a token (secrets). */
void ks_rd_pseudo_note(ks_rd_pseudo *p, int cls, const char *v, size_t n);
/* Keyed 48-bit value (memory addresses). */
uint64_t ks_rd_pseudo_u48(ks_rd_pseudo *p, const char *v, size_t n);
uint64_t ks_rd_pseudo_distinct(const ks_rd_pseudo *p, int cls);
/* OpenSSL failing (no HMAC, no SHA-256 provider) is no abort: the tokens are zeros from then on,
 * ks_rd_pseudo_failed says so, and *fail (the redactor's flag) is set to KS_RD_FAIL_CRYPTO so the
 * run fails closed. ks_rd_pseudo_test_digest names another digest before the first token: tests
 * use an unknown name to make OpenSSL fail for real. */
#define KS_RD_FAIL_CRYPTO 1 /* PCRE2's match errors, the other values of the flag, are negative */
void ks_rd_pseudo_on_failure(ks_rd_pseudo *p, int *fail);
int ks_rd_pseudo_failed(const ks_rd_pseudo *p);
void ks_rd_pseudo_test_digest(ks_rd_pseudo *p, const char *digest_name);
/* Current token length in hex digits of a class (8, grows to 12, 16 on collisions). */
int ks_rd_pseudo_hexlen(const ks_rd_pseudo *p, int cls);
/* For tests: force the class length and report collisions. */
uint64_t ks_rd_pseudo_collisions(const ks_rd_pseudo *p, int cls);

/* HMAC-SHA256 (OpenSSL); for the RFC 4231 tests. Returns 0 or -1. */
int ks_rd_hmac_sha256(const void *key, size_t klen, const void *msg, size_t n,
                      unsigned char out[32]);

/* ---- tokens ------------------------------------------------------------------------------- */

/* Length of one of our own tokens starting exactly at s ("user-1a2b3c4d", "<path-1a2b3c4d>",
 * "email-1a2b3c4d@example.invalid", "[REDACTED:rule]", "__stripped__"), or 0. */
size_t ks_rd_token_at(const char *s, size_t n);
/* 1 when the whole of s is one token. */
int ks_rd_is_token(const char *s, size_t n);
/* Append "[REDACTED:rule]" (the token of a secret) to out. */
void ks_rd_put_redacted(ks_buf *out, const char *rule);
/* 1 when [pos, pos+len) lies inside a token of s. */
int ks_rd_in_token(const char *s, size_t n, size_t pos, size_t len);


/* ---- rewriting a string piece by piece --------------------------------------------------- */

/* Detectors copy the input up to each match, write the replacement, and go on after the match.
 * Nothing is written to out until the first match. */
typedef struct ks_rd_rw {
    ks_buf *out;
    const char *in;
    size_t n, last;
    int changed;
} ks_rd_rw;

static inline void ks_rd_rw_init(ks_rd_rw *w, ks_buf *out, const char *in, size_t n)
{
    w->out = out;
    w->in = in;
    w->n = n;
    w->last = 0;
    w->changed = 0;
}

/* Replace in[s, e): copies in[last, s) and returns the buffer to write the replacement into. A
 * match may start inside the one replaced before it (a drive letter that also ended the path before
 * it: "/tmp/C:\Users\bob"): nothing of the input is copied then, and the two replacements both
 * stand for the bytes they share. */
static inline ks_buf *ks_rd_rw_replace(ks_rd_rw *w, size_t s, size_t e)
{
    if (!w->changed) {
        w->out->n = 0;
        w->changed = 1;
    }
    if (s > w->last)
        ks_buf_put(w->out, w->in + w->last, s - w->last);
    if (e > w->last)
        w->last = e;
    return w->out;
}

static inline int ks_rd_rw_done(ks_rd_rw *w)
{
    if (w->changed)
        ks_buf_put(w->out, w->in + w->last, w->n - w->last);
    return w->changed;
}

/* ---- learned literals ------------------------------------------------------------------- */

typedef struct ks_rd_literal {
    char *text;
    size_t n;
    uint8_t cls;   /* KS_CLS_USER, KS_CLS_HOST, KS_CLS_JOB, KS_CLS_SECRET (deny) */
} ks_rd_literal;

/* The literal matcher (litset.c): indices into a literal array, looked up caseless. */
typedef struct ks_rd_litset {
    uint32_t *slot;            /* open addressing: literal index + 1, 0 empty */
    size_t cap, n;
    size_t *lens;              /* distinct lengths, longest first */
    size_t nlens, lens_cap;
    size_t minlen, maxlen;
    uint8_t first[256];        /* bytes a literal starts with, both cases */
} ks_rd_litset;

void ks_rd_litset_add(ks_rd_litset *ls, const ks_rd_literal *lits, size_t idx);
void ks_rd_litset_free(ks_rd_litset *ls);
/* index of the literal equal (caseless) to s, or -1 */
long ks_rd_litset_get(const ks_rd_litset *ls, const ks_rd_literal *lits, const char *s, size_t n);
/* 0 when no literal can start in s */
int ks_rd_litset_maybe(const ks_rd_litset *ls, const char *s, size_t n);
/* The next word-bounded occurrence at or after from: the literal's index (the longest one at the
 * leftmost position) and its offset in *at, or -1. raw: s is JSON text, a word may start right
 * after an escape. */
long ks_rd_litset_next(const ks_rd_litset *ls, const ks_rd_literal *lits, const char *s,
                       size_t n, size_t from, int raw, size_t *at);

/* ---- Unicode (unicode.c) ------------------------------------------------------------------ */

/* the code point at s (its length in *len; a stray byte is itself, length 1) and the one that
 * ends right before s[i] (where it starts in *start) */
uint32_t ks_rd_u8_next(const char *s, size_t n, size_t *len);
uint32_t ks_rd_u8_prev(const char *s, size_t i, size_t *start);
/* a letter or digit of any script: a word goes on (a space, U+2028, a fullwidth colon do not) */
int ks_rd_cp_word(uint32_t cp);
int ks_rd_word_before(const char *s, size_t i);
int ks_rd_word_at(const char *s, size_t n, size_t i);
/* s lowercased into out (n bytes, the same length: code points whose lowercase has another UTF-8
 * length stay as they are) */
void ks_rd_fold(const char *s, size_t n, char *out);
int ks_rd_has_high(const char *s, size_t n);

/* ---- the redactor ----------------------------------------------------------------------- */

/* a rewrite decided by a rule, reported to the engine (counts, check findings) */
typedef void (*ks_rd_hit_fn)(void *ctx, int rule, size_t len);

struct ks_redactor {
    int shapes, keep_logs;
    char **drop_args, **keep_args, **keep_meta, **domains;
    size_t ndrop_args, nkeep_args, nkeep_meta, ndomains;

    ks_rd_pseudo *pn;
    ks_rd_re re_email, re_jwt, re_pem, re_url, re_generic, re_hook, re_bearer;
    ks_rd_user_rule *urules;
    size_t nurules;

    ks_rd_literal *lits;
    size_t nlits, lits_cap;
    ks_rd_litset lset;         /* all of them */
    size_t maxlit;             /* longest literal */
    int failed;                /* OpenSSL failed (KS_RD_FAIL_CRYPTO): the run fails (set
                                * through pn) */
    int re_failed;             /* a PCRE2 match failed on the string being scanned (its error
                                * code, < 0; set through re.fail) */
    uint64_t lit_gen;          /* literals learned so far (ever) */

    uint64_t *counts;          /* per rule: builtin, then user rules */
    size_t nrules;

    /* per stream */
    void (*progress)(void *ctx, const ks_stream *st, uint64_t bytes); /* ks_redact_output's */
    void *progress_ctx;
    uint64_t strings_scanned;
    int late;
    uint64_t *words;           /* Bloom filter of the words of the first strings scanned */
    int learning;              /* 0 while scanning a string's own text is not to learn */
    int muted;                 /* inside a block redact strips: rules still run (and learn),
                                * their rewrites are neither counted nor reported */

    ks_buf sa, sb, tmp;        /* scratch for the scanner pipeline */
    ks_buf norm;               /* paths.c: a string with its Windows paths unescaped */
    struct ks_rd_scache *scache; /* results of recent strings (scan.c) */
    /* rewrites recorded while a string is scanned, replayed on a cache hit */
    struct ks_rd_rec { uint16_t rule; uint32_t len; } rec[256];
    int nrec;                  /* -1: not recording, 257: overflowed */

    ks_rd_hit_fn hit;
    void *hit_ctx;
};

/* rules.c: record a rewrite (count, and the engine's hook); a rule's name and class. Every
 * detector calls ks_rd_hit, so it is in rules.c, below them (not in redactor.c, above). */
void ks_rd_hit(ks_redactor *rd, int rule, size_t len);
const char *ks_rd_rule_name(const ks_redactor *rd, int rule);
int ks_rd_rule_cls(const ks_redactor *rd, int rule);

/* literals.c */
/* Learn a literal of class cls (user or host) found in the trace; too short, numeric or common
 * values are ignored. */
void ks_rd_learn(ks_redactor *rd, int cls, const char *v, size_t n);
/* host-<h> of a host name (hashed in lowercase: host names are caseless) */
void ks_rd_host_token(ks_redactor *rd, const char *v, size_t n, ks_buf *out);
/* Remember the words of a scanned string (the first KS_RD_WORDS_STRINGS of a stream), so that a
 * literal learned later is known to be new when one of its words was never seen. */
#define KS_RD_WORDS_STRINGS 8192
void ks_rd_words_add(ks_redactor *rd, const char *s, size_t n);
void ks_rd_words_reset(ks_redactor *rd);
void ks_rd_add_deny(ks_redactor *rd, const char *v, size_t n);
int ks_rd_det_literals(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
/* 0 when no literal can occur in s (no word starts with a literal's first byte) */
int ks_rd_literals_maybe(const ks_redactor *rd, const char *s, size_t n);
/* Literals learned after generation gen, into *ls (empty at the call); returns how many. */
size_t ks_rd_literals_since(ks_redactor *rd, uint64_t gen, ks_rd_litset *ls);

/* vendor.c: a vendor token of a fixed-prefix shape at s (gitleaks' shapes): its length, or 0;
 * ks_rd_vendor_firsts: a table of the bytes such a token can start with; the Shannon entropy
 * (bits per byte) that vendor.c and secrets.c check */
size_t ks_rd_vendor_token(const char *s, size_t n, int glued); /* glued: after a letter or digit */
const unsigned char *ks_rd_vendor_firsts(void);
double ks_rd_entropy(const char *s, size_t n);
/* secrets.c */
int ks_rd_det_secrets(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
int ks_rd_det_regex_secrets(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
int ks_rd_det_generic(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
int ks_rd_det_url_userinfo(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
int ks_rd_det_bearer(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
/* NAME=value, NAME: value, --name value where NAME names a secret (ks_rd_sensitive_key) */
int ks_rd_det_keyed(ks_redactor *rd, const char *in, size_t n, ks_buf *out);

/* net.c */
int ks_rd_det_email(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
int ks_rd_det_ipv4(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
int ks_rd_det_ipv6(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
int ks_rd_det_fqdn(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
/* psl.c: 1 when the label s (n bytes) is the last label of a public-suffix rule (caseless; any
 * alphabetic label when the list could not be read, which is said once on standard error) */
int ks_rd_psl_tld(const char *s, size_t n);

/* paths.c */
int ks_rd_det_paths(ks_redactor *rd, const char *in, size_t n, ks_buf *out);
/* Learn the user of a home directory value (HOME=/home/bob). */
void ks_rd_learn_home(ks_redactor *rd, const char *v, size_t n);
/* traceName: the basename, its handler host part (<host>_<pid>.<ts>.pt.trace.json) as a
 * host token. Appends to out; learns the host. */
void ks_rd_trace_name(ks_redactor *rd, const char *v, size_t n, ks_buf *out);

/* rules.c: user rules */
int ks_rd_det_user_rules(ks_redactor *rd, const char *in, size_t n, ks_buf *out);

/* scan.c */
/* Run the scanners on a decoded string. Returns 1 with the new text in (*res, *rn) (valid until
 * the next call) when anything changed, else 0. */
int ks_rd_scan(ks_redactor *rd, const char *s, size_t n, const char **res, size_t *rn);
void ks_rd_scache_free(ks_redactor *rd);

/* fields.c: what a key means */
enum ks_rd_role {
    ROLE_SCAN = 0,     /* scanners on every string below */
    ROLE_SKIP,         /* never touched (event structure, --keep-arg) */
    ROLE_NAME,         /* event name: scanners unless ProfilerStep#N */
    ROLE_SENSITIVE,    /* value replaced whatever its shape */
    ROLE_STRIP,        /* value becomes "__stripped__" (rule in the frame) */
    ROLE_HOSTNAME,     /* whole value -> host token (learned) */
    ROLE_USERNAME,     /* whole value -> user token (learned) */
    ROLE_JOB,          /* whole value -> job token */
    ROLE_ID,           /* whole value -> id token */
    ROLE_TRACENAME,    /* basename + host part */
    ROLE_ADDR,         /* number -> keyed 52-bit integer */
    ROLE_EVENTS,       /* the traceEvents array */
    ROLE_ARGS,         /* an event's args */
    ROLE_ID2           /* an event's id2 object: never touched */
};

/* learning inside stripped blocks */
enum ks_rd_learn_kind { LEARN_NONE = 0, LEARN_HOST, LEARN_USER, LEARN_HOME, LEARN_UNAME, LEARN_JOB };

int ks_rd_top_role(const ks_redactor *rd, const char *k, size_t n, int *rule);
int ks_rd_event_role(const char *k, size_t n);
int ks_rd_args_role(const ks_redactor *rd, const char *k, size_t n, int *rule);
/* any depth: sensitive keys, pip lists; ROLE_SCAN otherwise */
int ks_rd_inner_role(const char *k, size_t n, int *rule);
/* keys the trace format defines (Kineto args, M args): never rewritten, the analyses read them */
int ks_rd_known_arg_key(const char *k, size_t n);
int ks_rd_sensitive_key(const char *k, size_t n);
int ks_rd_learn_key(const char *k, size_t n, int parent_is_uname);

/* ---- the streaming engine (ks_rw_: rewrite.c and the files it is split into) ---------------
 * Layered bottom-up, each file calling only those before it: emit.c (output), spans.c
 * (positions), findings.c (check mode), frames.c (the container stack), scalars.c (scalar
 * callbacks), members.c (keys and containers), rewrite.c (the window, feeding, the end,
 * ks_rd_run). One engine runs one stream on one thread. */
#define RW_OUTBUF (256 * 1024) /* output buffer of the engine */
/* the parser accepts JSON nested this deep (parser/parser_int.h MAX_SKIP_DEPTH): redact must too */
#define RW_MAX_DEPTH KS_LIMIT_JSON_DEPTH
#define RW_KEY_MAX KS_LIMIT_RD_KEY

enum ks_rw_kind { RW_ROOT = 0, RW_TOP, RW_EVENTS, RW_EVENT, RW_ARGS, RW_OTHER };

typedef struct ks_rw_frame {
    uint8_t is_map;
    uint8_t kind;
    uint8_t role;       /* the container's own role (SCAN, SKIP, SENSITIVE in check mode) */
    uint8_t learn;      /* LEARN_UNAME for a uname map */
    uint8_t in_meta;    /* below a top-level key other than traceEvents */
    /* the member being read: set by its key (maps) */
    uint8_t vrole, vlearn;
    uint16_t vrule;
    int64_t index;      /* arrays: elements begun */
    uint32_t nredacted; /* maps: keys rewritten to a [REDACTED:rule] text so far */
    char key[RW_KEY_MAX + 1];
    uint8_t keylen, key_masked;
} ks_rw_frame;

/* the meaning of a key in a kind of container, remembered: keys repeat in every event */
#define RW_KC_SLOTS 1024
#define RW_KC_KEY 40
typedef struct ks_rw_key_slot {
    uint8_t used, kind, role, scan, n;
    uint16_t rule;
    char k[RW_KC_KEY];
} ks_rw_key_slot;

typedef struct ks_rw_eng {
    ks_redactor *rd;
    ks_rw_key_slot *kc;
    int check;
    yajl_handle h;
    ks_error *err;
    int failed;
    ks_redact_result *res;
    const char *name;

    /* window over the filtered stream */
    char *win;
    size_t win_len, win_cap;
    uint64_t win_base;       /* filtered offset of win[0] */
    uint64_t run_base;       /* filtered offset of the current yajl run */
    uint64_t flushed;        /* output done (or discarded) up to here */
    uint64_t prev_end;       /* end of the last token known complete (a flush point) */
    unsigned nvals;          /* values since the last flush point */
    int seen;                /* any value at all */
    int completing;          /* inside yajl_complete_parse */
    int discard;             /* inside a stripped container: bytes are dropped */
    size_t discard_depth;

    /* input offsets, for messages */
    ks_repair rep;
    uint64_t run_in_base;    /* input offset of the current run */
    char *inbuf;
    size_t in_len, in_cap;
    uint64_t in_base;
    uint64_t lines_before;
    int64_t last_nl;

    ks_rw_frame *st;
    size_t depth, cap;
    int64_t events;          /* elements of the events array */
    size_t pem_depth;        /* a private key began in a string value in a container this deep
                              * and has not ended: 0 when none (scalars.c pem_element) */
    unsigned pem_strings;    /* values taken for its lines so far */
    ks_rw_frame *events_frame;
    size_t events_depth;

    /* output */
    ks_redact_write_fn write;
    void *wctx;
    char *out;
    size_t out_n;
    int write_failed;

    /* check */
    ks_redact_finding_fn on_finding;
    void *fctx;
    int in_key;
    uint64_t tok_start;      /* start of the token being scanned (UINT64_MAX: unknown) */
    ks_buf path;
    ks_buf enc;              /* scratch */
} ks_rw_eng;

typedef struct ks_rw_vctx {
    int role, rule, learn, in_meta;
    ks_rw_frame *parent;
} ks_rw_vctx;

/* ---- emit.c */
void ks_rw_out_flush(ks_rw_eng *e);
void ks_rw_emit_upto(ks_rw_eng *e, uint64_t off);
void ks_rw_replace_str(ks_rw_eng *e, uint64_t start, uint64_t end, const char *s, size_t n);
void ks_rw_replace_raw(ks_rw_eng *e, uint64_t start, uint64_t end, const char *s, size_t n);
/* ---- spans.c */
uint64_t ks_rw_tok_end(ks_rw_eng *e);
uint64_t ks_rw_string_start_n(ks_rw_eng *e, uint64_t end, const char *s, size_t n);
uint64_t ks_rw_string_start(ks_rw_eng *e, uint64_t end);
void ks_rw_mark(ks_rw_eng *e, uint64_t end);
uint64_t ks_rw_in_offset(ks_rw_eng *e, uint64_t f);
void ks_rw_line_col(const ks_rw_eng *e, uint64_t abs, uint64_t *line, uint64_t *col);
/* ---- findings.c */
void ks_rw_on_hit(void *ctx, int rule, size_t len);
/* ---- frames.c */
void ks_rw_value_ctx(ks_rw_eng *e, ks_rw_vctx *v);
int ks_rw_push(ks_rw_eng *e, int is_map, int kind, int role, int learn, int in_meta);
void ks_rw_learn_value(ks_rw_eng *e, int learn, const char *s, size_t n);
/* ---- scalars.c */
void ks_rw_note_copy(ks_rw_eng *e, const char *s);
int ks_rw_on_string(void *ctx, const unsigned char *us, size_t n);
int ks_rw_on_number(void *ctx, const char *s, size_t n);
int ks_rw_on_null(void *ctx);
int ks_rw_on_bool(void *ctx, int b);
/* ---- members.c */
int ks_rw_on_key(void *ctx, const unsigned char *uk, size_t n);
int ks_rw_on_start_map(void *ctx);
int ks_rw_on_start_array(void *ctx);
int ks_rw_on_end(void *ctx);

/* rewrite.c: the engine */
typedef struct ks_rd_engine_opts {
    int check;
    ks_redact_write_fn write;
    void *wctx;
    ks_redact_finding_fn on_finding;
    void *fctx;
} ks_rd_engine_opts;
int ks_rd_run(ks_redactor *rd, ks_stream *in, const ks_rd_engine_opts *eo, ks_redact_result *res,
              ks_error *err);

/* verify.c: 1 when any literal of ls occurs in the decompressed bytes of path (word bounded,
 * caseless, also right after a JSON escape), 0 when none, KS_ERR on a read error. */
int ks_rd_raw_scan(ks_redactor *rd, const char *path, const ks_rd_litset *ls, ks_error *err);
int ks_rd_raw_scan_stream(ks_redactor *rd, ks_stream *st, const ks_rd_litset *ls, ks_error *err);

#endif
