/* kinesift/redact.h: scrubbing traces before they are shared (docs/redaction.md).
 *
 * A redactor streams one trace at a time: yajl gives the structure and the byte offset of every
 * token, unchanged byte spans are copied verbatim and only rewritten strings are re-encoded, so
 * every number (ts, dur, ids) keeps its text and the event count and order never change. Rules:
 * structural ones by JSON position (top-level allowlist, event fields, args keys), then string
 * scanners (secrets, e-mails, paths, hosts, IP addresses, learned user/host literals, user rules).
 * Pseudonyms are keyed HMAC-SHA256 tokens (user-1a2b3c4d); secrets become [REDACTED:rule].
 * The same engine in check mode reports, instead of rewriting, every place a rule would change.
 * Redaction is best-effort: see docs/redaction.md for what it does not catch.
 *
 * Threads (kinesift/common.h): a ks_redactor holds caches and the literals it learned, so it
 * belongs to one thread at a time; redactors on different threads are independent (the same key
 * gives the same pseudonyms). The temporary files of every redactor are listed in one registry
 * for ks_redact_cleanup_on_signals, shared and guarded. ks_redact_cleanup_on_signals itself is
 * process-wide: call it once, from the main thread, before other threads start. */
#ifndef KINESIFT_REDACT_H
#define KINESIFT_REDACT_H

#include <stdio.h>

#include "kinesift/source.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The environment variable that may hold the pseudonym key (at least 32 bytes). */
#define KS_REDACT_KEY_ENV "KINESIFT_REDACT_KEY"
#define KS_REDACT_KEY_MIN 32

typedef enum ks_redact_key_source {
    KS_KEY_RANDOM = 0, /* drawn for this run, never written anywhere */
    KS_KEY_FILE,       /* --key-file */
    KS_KEY_ENV         /* KINESIFT_REDACT_KEY */
} ks_redact_key_source;

typedef enum ks_compress {
    KS_COMPRESS_AUTO = 0, /* like the input */
    KS_COMPRESS_NONE,
    KS_COMPRESS_GZIP,
    KS_COMPRESS_ZSTD,
    KS_COMPRESS_XZ,
    KS_COMPRESS_BZIP2
} ks_compress;

typedef struct ks_redact_opts {
    int shapes;                /* also strip Input Dims, Input Strides, Concrete Inputs */
    int keep_logs;             /* keep (and scan) the INFO/WARNING/ERROR log arrays */
    char *const *drop_args;    /* args keys whose value becomes "__stripped__" */
    size_t ndrop_args;
    char *const *keep_args;    /* args keys kept exactly as they are (not scanned) */
    size_t nkeep_args;
    char *const *keep_meta;    /* top-level keys kept (and scanned) instead of stripped */
    size_t nkeep_meta;
    char *const *domains;      /* extra domain suffixes whose host names are pseudonymised */
    size_t ndomains;
    char *const *deny;         /* literal terms always redacted ([REDACTED:deny]) */
    size_t ndeny;
    const char *rules_file;    /* user rules (JSON), or NULL */
    const unsigned char *key;  /* pseudonym key, or NULL for a random one */
    size_t key_len;
} ks_redact_opts;

KS_API void ks_redact_opts_init(ks_redact_opts *o);

/* Load the key: from key_file when not NULL (its bytes, trailing newlines removed), else from
 * $KINESIFT_REDACT_KEY when set, else *key = NULL and *source = KS_KEY_RANDOM. A key shorter
 * than KS_REDACT_KEY_MIN bytes is refused. Free *key with ks_redact_key_free. */
KS_API int ks_redact_key_load(const char *key_file, unsigned char **key, size_t *len,
                              ks_redact_key_source *source, ks_error *err);
KS_API void ks_redact_key_free(unsigned char *key, size_t len);

/* Terms from a file, one per line (blank lines and lines starting with '#' skipped). */
KS_API int ks_redact_read_terms(const char *path, char ***terms, size_t *n, ks_error *err);
KS_API void ks_redact_free_terms(char **terms, size_t n);

typedef struct ks_redactor ks_redactor;

/* A redactor for a whole run: rules, key, learned literals and counts persist across traces, so
 * the same value gets the same token in every rank file of one invocation. */
KS_API int ks_redactor_new(const ks_redact_opts *o, ks_redactor **out, ks_error *err);
KS_API void ks_redactor_free(ks_redactor *rd);

/* Outcome of one stream. */
typedef struct ks_redact_result {
    uint64_t bytes_in;          /* decompressed input bytes */
    uint64_t bytes_out;         /* bytes written before compression */
    uint64_t events;            /* elements of traceEvents */
    uint64_t strings_rewritten; /* strings and keys re-encoded */
    uint64_t repairs;           /* malformed strings repaired by the reader's pre-filter */
    uint64_t findings;          /* check mode: places a rule would change */
    uint64_t escaped_copies;    /* strings copied verbatim that use \u escapes */
    uint64_t bytes_lexed;       /* bytes yajl lexed, a token cut by a feed counted again from its
                                 * start (the work that must stay linear in the input) */
    int closed_array;           /* a top-level array without its ']' was closed */
    int late_literals;          /* literals were learned after strings had been scanned */
    uint64_t literals_known;    /* ks_redact_file: literals learned in the run so far */
    int passes;                 /* ks_redact_file: 2 when a late literal forced a second pass */
} ks_redact_result;

/* ---- streaming --------------------------------------------------------------------------- */

/* Output callback: returns 0, or -1 on a write error. */
typedef int (*ks_redact_write_fn)(void *ctx, const void *p, size_t n);

/* Redact one stream into w. On malformed input: KS_ERR with the byte/line/column. */
KS_API int ks_redact_stream(ks_redactor *rd, ks_stream *in, ks_redact_write_fn w, void *wctx,
                            ks_redact_result *res, ks_error *err);

/* One place where a rule matches (check mode). The value itself is never given. */
typedef struct ks_redact_finding {
    const char *rule;      /* rule id, e.g. "home-path" */
    const char *cls;       /* class: user, host, email, job, id, path, addr, secret, structure */
    int64_t event;         /* index in traceEvents, -1 outside */
    const char *path;      /* JSON path, e.g. traceEvents[12].args["Call stack"] */
    uint64_t byte;         /* input byte offset of the string or value */
    size_t length;         /* length in bytes of the matched value */
    int in_key;            /* the match is in an object key */
} ks_redact_finding;

typedef void (*ks_redact_finding_fn)(void *ctx, const ks_redact_finding *f);

/* Scan one stream with the same rules without rewriting anything. */
KS_API int ks_redact_check_stream(ks_redactor *rd, ks_stream *in, ks_redact_finding_fn cb, void *ctx,
                                  ks_redact_result *res, ks_error *err);

/* ---- files ------------------------------------------------------------------------------- */

typedef struct ks_redact_output {
    const char *path;      /* output file; NULL for standard output */
    ks_compress compress;  /* KS_COMPRESS_AUTO: like the input stream */
    int force;             /* replace an existing file (never an input) */
    const char *input;     /* the input path (refused as output), or NULL */
    char *const *inputs;   /* every input of the run (all refused as outputs), or NULL */
    size_t ninputs;
    /* called after each read of the input (not of a second pass) with the bytes read so far, as
     * ks_parse_opts.progress; NULL for none */
    void (*progress)(void *ctx, const ks_stream *st, uint64_t bytes);
    void *progress_ctx;
} ks_redact_output;

/* Redact one stream to a file (or stdout): written to a temporary file in the target directory
 * (stdout: in $TMPDIR), checked for literals learned late (a second pass when one survived),
 * then renamed into place. Nothing is left behind on failure. */
KS_API int ks_redact_file(ks_redactor *rd, ks_stream *in, const ks_redact_output *o,
                          ks_redact_result *res, ks_error *err);

/* Several traces, all or nothing: each is redacted into a temporary file (ks_redact_stage), and
 * only when all succeeded are they checked for literals learned after they were written (from a
 * later trace; redacted again when one is there), every target checked again, and all renamed
 * into place (ks_redact_commit_all, which frees them). No output replaces anything before every
 * input was read. On a failure, ks_redact_staged_abort each: nothing is left behind. */
typedef struct ks_redact_staged ks_redact_staged;
KS_API int ks_redact_stage(ks_redactor *rd, ks_stream *in, const ks_redact_output *o,
                           ks_redact_result *res, ks_redact_staged **st, ks_error *err);
KS_API int ks_redact_commit_all(ks_redactor *rd, ks_redact_staged **v, size_t n, size_t *redone,
                                ks_error *err); /* *redone (may be NULL): outputs redacted again */
KS_API void ks_redact_staged_abort(ks_redact_staged *st);

/* Remove the temporary files of redactions in progress when the process gets SIGINT, SIGTERM,
 * SIGHUP, SIGQUIT (or crashes: SIGSEGV, SIGBUS, SIGABRT, SIGFPE), then die of the signal as
 * before. For programs that own their signal handling (the kinesift command does). */
KS_API void ks_redact_cleanup_on_signals(void);

/* The compression of a stream ("gzip", "tar+gzip", "tar/zstd", "none", ...) as ks_compress. */
KS_API ks_compress ks_redact_compress_of(const char *filter);
/* File name suffix for a compression: ".gz", ".zst", ".xz", ".bz2" or "". */
KS_API const char *ks_redact_compress_suffix(ks_compress c);

/* The output name for a stream in a directory: its basename with host names and users
 * pseudonymised and the compression suffix adjusted. Malloc'ed. */
KS_API char *ks_redact_output_name(ks_redactor *rd, const char *stream_name, ks_compress c);

/* ---- check of whole inputs ----------------------------------------------------------------- */

typedef struct ks_redact_check ks_redact_check;

/* Check every trace of a path ("-" for stdin; archives give one trace per member). Keeps the
 * first max_detail findings of each trace and the count per rule of all of them. When literals
 * are learned late in a regular file, the file is read a second time so that earlier occurrences
 * are found too. Returns KS_ERR on an input error (the report keeps the traces done). */
KS_API int ks_redact_check_path(ks_redactor *rd, const char *path, size_t max_detail,
                                ks_redact_check *chk, ks_error *err);
/* After every path: the traces checked before a literal was learned (from a later trace) are
 * searched for it and checked again when it is there, so that a name learned from one rank is
 * found in every rank, as redact would replace it there. KS_ERR on an input error. */
KS_API int ks_redact_check_finish(ks_redactor *rd, ks_redact_check *chk, ks_error *err);
/* 1 when a trace could not be searched for names learned late in it (standard input cannot be
 * read twice): the check is incomplete, and the command fails (exit 2) rather than say clean. */
KS_API int ks_redact_check_incomplete(const ks_redact_check *chk);
KS_API ks_redact_check *ks_redact_check_new(void);
KS_API void ks_redact_check_free(ks_redact_check *chk);
KS_API uint64_t ks_redact_check_total(const ks_redact_check *chk);
KS_API void ks_redact_check_text(FILE *out, const ks_redact_check *chk);
KS_API int ks_redact_check_json(FILE *out, const ks_redact_check *chk); /* 0 or -1 on write error */

/* ---- report ------------------------------------------------------------------------------ */

/* Counts per rule and distinct values per class (never a value), plus the best-effort notice. */
KS_API void ks_redact_report_text(FILE *out, const ks_redactor *rd, ks_redact_key_source key);
KS_API int ks_redact_report_json(FILE *out, const ks_redactor *rd, ks_redact_key_source key);

/* Total replacements so far, and for one rule id (0 for an unknown id). */
KS_API uint64_t ks_redact_count_total(const ks_redactor *rd);
KS_API uint64_t ks_redact_count(const ks_redactor *rd, const char *rule);

/* The built-in rules: id and a one-line description, for help texts and documentation. */
KS_API size_t ks_redact_nrules(void);
KS_API const char *ks_redact_rule_id(size_t i);
KS_API const char *ks_redact_rule_desc(size_t i);

/* The notice printed with every report. */
KS_API extern const char ks_redact_notice[];

#ifdef __cplusplus
}
#endif
#endif
