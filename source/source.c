/* source/source.c: input sources (see kinesift/source.h). Compression is detected by content; a
 * raw stream is one trace, a tar/zip/7z/cpio archive one trace per regular member whose name
 * contains ".json", each member itself decompressed through a nested reader so rank0.json.gz
 * inside a tar works.
 *
 * Two inputs are read here without libarchive, which is then not even loaded (common/lazylib.h:
 * it costs ~3 ms of every start): a file or buffer whose first bytes are surely JSON (plain),
 * and one that is a gzip stream whose first decoded bytes are (gzip, decoded by gunzip.c). Why
 * that is the answer libarchive gives: "surely JSON" is '{' or '[' after an optional byte order
 * mark and white space, with no NUL byte in the first 4 KiB, and for a plain input no zip end record
 * in its last 64 KiB; libarchive's readers kept here (tar, zip, 7z, cpio) start with their magic
 * or a header holding NUL bytes, or (zip, read from its end) have that record, so it finds no
 * format, and its raw reader takes the bytes as they are. Anything else, standard input, and a
 * gzip stream that cannot be decoded that far go through libarchive as before (its messages for
 * damaged, empty or unknown input). */
#include "kinesift/source.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/lazylib.h"
#include "common/util.h"
#include "source/gunzip.h"
#include "source/stream.h"

#define BLOCK (1024 * 1024)
#define SNIFF 4096 /* bytes looked at to tell JSON without libarchive */

struct ks_stream {
    ks_source *src;
    char *name;
    struct archive *inner; /* member decompressor (archives only) */
    ks_gunzip *gz;         /* a plain gzip stream or member, decoded and verified here */
    int damaged;           /* a checksum or length did not match */
    uint64_t offset;
    char filter[96];
};

/* Compressed bytes as they come: from a file or standard input (fd), from memory, or from the
 * current archive member. Standard input and members record what libarchive takes while it
 * identifies the stream, so that a gzip stream can be decoded from its first byte here. */
typedef struct raw_in {
    int fd;                 /* -1: none */
    const unsigned char *mem;
    size_t mem_len, mem_pos;
    char *block;            /* fd reads */
    int recording;
    ks_buf rec;
} raw_in;

struct ks_source {
    char *path;
    struct archive *a;      /* NULL: read here without libarchive (own_filter says how) */
    const char *own_filter; /* "none" or "gzip" when a is NULL */
    int is_archive;
    int regular;            /* path names a regular file */
    int direct;             /* plain bytes read here: a regular file with read(2) from in.fd,
                             * or the buffer (in.mem); libarchive would copy every byte twice */
    int started, done;
    uint64_t file_size;
    uint64_t skipped;       /* archive members that are not traces */
    int pending_header;     /* first header already read (raw or first member) */
    struct archive_entry *entry;
    ks_stream st;
    raw_in in;              /* the gzip decoder's input; standard input's and members' records */
    /* compressed bytes consumed, updated after each read: the progress line reads it while the
     * parser's reader thread is inside libarchive */
    _Atomic uint64_t raw_offset;
};

static struct archive *new_reader(void)
{
    struct archive *a = ks_ar.archive_read_new();
    if (!a)
        return NULL;
    ks_ar.archive_read_support_filter_all(a);
    return a;
}

static int fail_archive(struct archive *a, const char *path, ks_error *err)
{
    (void)path;
    const char *m = a ? ks_ar.archive_error_string(a) : NULL;
    return ks_error_set(err, "%s", m ? m : "cannot read input");
}

static void filters_of(struct archive *a, char *buf, size_t n, const char *prefix);

/* libarchive's words for a compressed stream that ends too soon: bzip2, zstd, gzip, lz4 say
 * "truncated"; liblzma (xz, lzma) says it can make no progress. */
static int says_truncated(const char *m)
{
    return m && (strstr(m, "runcated") || strstr(m, "No progress is possible") ||
                 strstr(m, "Premature end"));
}

/* A decoder's failure in words, with its codec and the compressed byte where it was found (what
 * the decompressor had consumed: libarchive counts it exactly). Returns 1 when the data is
 * damaged (a checksum or the coded data itself is wrong: what was decoded before may be wrong
 * too), 0 when the stream is only cut short or the failure is not the decoder's. */
static int decode_failure(struct archive *a, const char *hint, uint64_t size, char *buf, size_t n)
{
    const char *m = ks_ar.archive_error_string(a);
    char codec[96];
    filters_of(a, codec, sizeof codec, NULL);
    if (!strcmp(codec, "none") && hint) /* failed before libarchive set its filter up */
        snprintf(codec, sizeof codec, "%s", hint);
    la_int64_t at = ks_ar.archive_filter_bytes(a, -1);
    if (at < 0)
        at = 0;
    if (!strcmp(codec, "none") || ks_ar.archive_errno(a) == EIO) { /* not the decoder's */
        snprintf(buf, n, "%s", m ? m : "read error");
        return 0;
    }
    if (says_truncated(m)) {
        /* at the end of the input by definition (a failed open has no count: the input size) */
        snprintf(buf, n, "%s stream is truncated at compressed byte %llu", codec,
                 (unsigned long long)(at ? (uint64_t)at : size));
        return 0;
    }
    if (!at && size) /* the open decodes a first block before it can tell where */
        snprintf(buf, n, "%s stream damaged in its first %llu compressed bytes (%s): the data is damaged",
                 codec, (unsigned long long)size, m ? m : "decoder error");
    else
        /* where the reading stood when the decoder failed: what it had taken before the failing
         * call (liblzma, libzstd: the damage lies a little after) or with it (libbz2) */
        snprintf(buf, n, "%s stream damaged, found at compressed byte %lld (%s): the data is damaged",
                 codec, (long long)at, m ? m : "decoder error");
    return 1;
}

/* 1 when libarchive decoded every compressed byte (size of them) to nothing: it calls that an
 * unrecognised format, its raw reader taking any byte at all (a compressed empty file, not a
 * damaged one); what it was in words */
static int decoded_to_nothing(struct archive *a, uint64_t size, char *buf, size_t n)
{
    const char *m = ks_ar.archive_error_string(a);
    char codec[96];
    filters_of(a, codec, sizeof codec, NULL);
    la_int64_t at = ks_ar.archive_filter_bytes(a, -1);
    if (!m || strcmp(m, "Unrecognized archive format") != 0 || !strcmp(codec, "none") || !size || at < 0 ||
        (uint64_t)at < size)
        return 0;
    snprintf(buf, n, "the %s stream holds no data", codec);
    return 1;
}

/* The codec whose magic p[0..n) starts with, or NULL: for an input too short for libarchive to
 * recognise (it then reads it as plain bytes). */
static const char *compressed_magic(const unsigned char *p, size_t n)
{
    if (n >= 2 && p[0] == 0x1f && p[1] == 0x8b)
        return "gzip";
    if (n >= 3 && !memcmp(p, "BZh", 3) && (n == 3 || (p[3] >= '1' && p[3] <= '9')))
        return "bzip2";
    if (n >= 4 && !memcmp(p, "\xfd" "7zXZ", n < 6 ? n : 6))
        return "xz";
    if (n >= 4 && !memcmp(p, "\x28\xb5\x2f\xfd", 4))
        return "zstd";
    return NULL;
}

static void filters_of(struct archive *a, char *buf, size_t n, const char *prefix)
{
    size_t o = 0;
    buf[0] = 0;
    if (prefix && *prefix)
        o += (size_t)snprintf(buf, n, "%s", prefix);
    int k = ks_ar.archive_filter_count(a);
    for (int i = 0; i < k; i++) {
        const char *f = ks_ar.archive_filter_name(a, i);
        if (!f || !strcmp(f, "none"))
            continue;
        if (o < n)
            o += (size_t)snprintf(buf + o, n - o, "%s%s", o ? "+" : "", f);
    }
    if (!buf[0])
        snprintf(buf, n, "none");
}

/* read(2), again when a signal interrupted it */
static ssize_t read_fd(int fd, void *buf, size_t n)
{
    ssize_t r;
    do
        r = read(fd, buf, n);
    while (r < 0 && errno == EINTR);
    return r;
}

static ssize_t fd_read(raw_in *in, const void **buf, ks_error *err)
{
    if (!in->block)
        in->block = ks_xmalloc(BLOCK);
    ssize_t n = read_fd(in->fd, in->block, BLOCK);
    if (n < 0)
        return ks_error_set(err, "%s", strerror(errno)), -1;
    *buf = in->block;
    return n;
}

/* The input file opened again, to be read here rather than through libarchive. */
static int open_here(ks_source *s, ks_error *err)
{
    s->in.fd = open(s->path, O_RDONLY | O_CLOEXEC);
    return s->in.fd < 0 ? ks_error_set(err, "%s", strerror(errno)) : KS_OK;
}

static la_ssize_t stdin_read(struct archive *a, void *ctx, const void **buf)
{
    ks_source *s = ctx;
    ks_error err;
    ssize_t n = fd_read(&s->in, buf, &err);
    if (n < 0) {
        ks_ar.archive_set_error(a, EIO, "%s", err.msg);
        return -1;
    }
    if (s->in.recording)
        ks_buf_put(&s->in.rec, *buf, (size_t)n);
    return (la_ssize_t)n;
}

/* the filters are exactly `want` ("gzip": one gzip; "none": no filter, the bytes are the file's) */
static int filters_are(struct archive *a, const char *want)
{
    char f[96];
    filters_of(a, f, sizeof f, NULL);
    return !strcmp(f, want);
}

/* the gzip decoder's input from a file, standard input or memory */
static ssize_t pull_raw(void *ctx, const void **buf, ks_error *err)
{
    raw_in *in = ctx;
    if (in->mem) {
        size_t n = in->mem_len - in->mem_pos;
        *buf = in->mem + in->mem_pos;
        in->mem_pos = in->mem_len;
        return (ssize_t)n;
    }
    return fd_read(in, buf, err);
}

/* nothing at all came from the file, the buffer or standard input */
static int source_is_empty(const ks_source *s)
{
    if (s->in.mem)
        return s->in.mem_len == 0;
    if (s->in.fd == 0)
        return s->in.rec.n == 0;
    return s->file_size == 0;
}

/* The first bytes of a plain (unfiltered) input: from memory, standard input's record, or the
 * file. */
static size_t first_bytes(const ks_source *s, unsigned char *buf, size_t n)
{
    if (s->in.mem) {
        size_t k = s->in.mem_len < n ? s->in.mem_len : n;
        memcpy(buf, s->in.mem, k);
        return k;
    }
    if (s->in.fd == 0) {
        size_t k = s->in.rec.n < n ? s->in.rec.n : n;
        memcpy(buf, s->in.rec.p, k);
        return k;
    }
    int fd = open(s->path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t k = pread(fd, buf, n, 0);
    close(fd);
    return k > 0 ? (size_t)k : 0;
}

/* bytes of the file or buffer, or what standard input gave so far */
static uint64_t input_size(const ks_source *s)
{
    return s->in.mem ? s->in.mem_len : s->in.fd == 0 ? s->in.rec.n : s->file_size;
}

/* the codec the input's first bytes announce, or NULL */
static const char *magic_of(const ks_source *s)
{
    unsigned char head[6];
    return compressed_magic(head, first_bytes(s, head, sizeof head));
}

/* An input that libarchive reads as plain bytes although it starts like a compressed stream is
 * one cut too short to be recognised (a 12-byte bzip2): say so rather than report a JSON
 * lexical error at byte 0. */
static int refuse_short_compressed(ks_source *s, ks_error *err)
{
    if (!filters_are(s->a, "none"))
        return KS_OK;
    const char *codec = magic_of(s);
    if (!codec)
        return KS_OK;
    uint64_t size = input_size(s);
    if (size >= 64) /* standard input: what libarchive took so far; long is not cut short */
        return KS_OK; /* long enough to be recognised: something else that starts alike */
    return ks_error_set(err, "cannot decompress the input: %s stream is truncated at compressed byte %llu",
                        codec, (unsigned long long)size);
}

/* JSON in UTF-16 or UTF-32 (a Windows editor's "Unicode", PowerShell's > redirection): named,
 * rather than reported as a lexical error or a truncated trace. Told by a byte order mark, or by
 * the zero bytes beside the first ASCII characters ('{' 00 '"' 00 ...). */
static const char *wide_encoding(const unsigned char *b, size_t n, const char **bom)
{
    *bom = "";
    if (n >= 4 && !memcmp(b, "\xff\xfe\0\0", 4))
        return *bom = " (byte order mark FF FE 00 00)", "UTF-32LE";
    if (n >= 4 && !memcmp(b, "\0\0\xfe\xff", 4))
        return *bom = " (byte order mark 00 00 FE FF)", "UTF-32BE";
    if (n >= 2 && b[0] == 0xff && b[1] == 0xfe)
        return *bom = " (byte order mark FF FE)", "UTF-16LE";
    if (n >= 2 && b[0] == 0xfe && b[1] == 0xff)
        return *bom = " (byte order mark FE FF)", "UTF-16BE";
    if (n >= 4 && b[0] && b[0] < 0x80 && !b[1] && b[2] && b[2] < 0x80 && !b[3])
        return "UTF-16LE";
    if (n >= 4 && !b[0] && b[1] && b[1] < 0x80 && !b[2] && b[3] && b[3] < 0x80)
        return "UTF-16BE";
    return NULL;
}

static int refuse_wide(ks_source *s, ks_error *err)
{
    if (!filters_are(s->a, "none"))
        return KS_OK;
    unsigned char head[4];
    const char *bom, *enc = wide_encoding(head, first_bytes(s, head, sizeof head), &bom);
    if (!enc)
        return KS_OK;
    return ks_error_set(err, "the input is %s text%s, not UTF-8 JSON: convert it first (iconv -f %s -t UTF-8)",
                        enc, bom, enc);
}

static int open_common(ks_source *s, ks_error *err)
{
    /* Peek at the first header to decide between a single raw stream and an archive. */
    int r = ks_ar.archive_read_next_header(s->a, &s->entry);
    la_int64_t seen = ks_ar.archive_filter_bytes(s->a, -1);
    if (r == ARCHIVE_EOF && seen > 0) /* tar's end-of-archive test: zero blocks */
        return ks_error_set(err, "no trace: the input starts with NUL bytes (a zeroed file, or an empty tar archive)");
    if (r == ARCHIVE_EOF || (r < ARCHIVE_WARN && seen == 0 && source_is_empty(s)))
        return ks_error_set(err, "empty input");
    if (r < ARCHIVE_WARN) {
        char what[512];
        decode_failure(s->a, magic_of(s), input_size(s), what, sizeof what);
        return ks_error_set(err, "cannot decompress the input: %s", what);
    }
    s->is_archive = ks_ar.archive_format(s->a) != ARCHIVE_FORMAT_RAW;
    if (!s->is_archive && (refuse_short_compressed(s, err) != KS_OK || refuse_wide(s, err) != KS_OK))
        return KS_ERR;
    s->pending_header = 1;
    if (!s->is_archive && filters_are(s->a, "gzip")) {
        /* decode it here, from its first byte, with its checksums verified */
        if (s->in.recording) {
            s->st.gz = ks_gunzip_new(s->in.rec.p, s->in.rec.n, pull_raw, &s->in);
        } else if (s->in.mem) {
            s->st.gz = ks_gunzip_new(NULL, 0, pull_raw, &s->in);
        } else {
            if (open_here(s, err) != KS_OK)
                return KS_ERR;
            s->st.gz = ks_gunzip_new(NULL, 0, pull_raw, &s->in);
        }
    } else if (!s->is_archive && s->regular && filters_are(s->a, "none")) {
        if (open_here(s, err) != KS_OK)
            return KS_ERR;
        s->direct = 1;
    }
    s->in.recording = 0;
    ks_buf_free(&s->in.rec);
    la_int64_t b = ks_ar.archive_filter_bytes(s->a, -1);
    atomic_store_explicit(&s->raw_offset, b > 0 ? (uint64_t)b : 0, memory_order_relaxed);
    return KS_OK;
}

static struct archive *new_outer(void)
{
    struct archive *a = new_reader();
    if (!a)
        return NULL;
    ks_ar.archive_read_support_format_tar(a);
    ks_ar.archive_read_support_format_zip(a);
    ks_ar.archive_read_support_format_7zip(a);
    ks_ar.archive_read_support_format_cpio(a);
    ks_ar.archive_read_support_format_raw(a); /* lowest bid: anything else is one plain stream */
    return a;
}

int ks_source_libarchive_only;

/* 1 when p[0..n) surely starts a JSON text: '{' or '[' after an optional UTF-8 byte order mark
 * and white space, and no NUL byte (JSON text has none; the archive headers libarchive would
 * recognise have some, or start with a magic that is not JSON) */
static int looks_like_json(const unsigned char *p, size_t n)
{
    if (memchr(p, 0, n))
        return 0;
    size_t i = n >= 3 && !memcmp(p, "\xef\xbb\xbf", 3) ? 3 : 0;
    while (i < n && (p[i] == ' ' || p[i] == '\t' || p[i] == '\n' || p[i] == '\r'))
        i++;
    return i < n && (p[i] == '{' || p[i] == '[');
}

/* The end of a zip archive ("PK\5\6") in the last 64 KiB + 22 bytes of the file or buffer: where
 * libarchive's zip reader looks for one (a zip may have anything before it, JSON too). */
static int ends_like_zip(const ks_source *s)
{
    enum { TAIL = 65536 + 22 };
    static const char eocd[4] = {'P', 'K', 5, 6};
    if (s->in.mem) {
        size_t k = s->in.mem_len < TAIL ? s->in.mem_len : TAIL;
        return memmem(s->in.mem + s->in.mem_len - k, k, eocd, 4) != NULL;
    }
    unsigned char *b = ks_xmalloc(TAIL);
    uint64_t from = s->file_size > TAIL ? s->file_size - TAIL : 0;
    ssize_t k = pread(s->in.fd, b, TAIL, (off_t)from);
    int z = k > 0 && memmem(b, (size_t)k, eocd, 4) != NULL;
    free(b);
    return z;
}

/* s->in back at its first byte */
static int rewind_in(raw_in *in)
{
    in->mem_pos = 0;
    return in->mem || lseek(in->fd, 0, SEEK_SET) == 0 ? 0 : -1;
}

/* The gzip stream in s->in decodes, from its first byte, to SNIFF bytes (or all of it) that are
 * surely JSON, or whole to nothing (read here: the parse says the input is empty, where libarchive
 * would call it an unrecognised format). s->in is left at its first byte again. */
static int gzip_is_json(ks_source *s)
{
    ks_gunzip *g = ks_gunzip_new(NULL, 0, pull_raw, &s->in);
    unsigned char buf[SNIFF];
    size_t n = 0;
    int bad = 0, integrity = 0;
    ks_error e;
    while (n < sizeof buf) {
        ssize_t r = ks_gunzip_read(g, buf + n, sizeof buf - n, &integrity, &e);
        if (r <= 0) {
            bad = r < 0; /* libarchive then says what is wrong, as before */
            break;
        }
        n += (size_t)r;
    }
    ks_gunzip_free(g);
    return rewind_in(&s->in) == 0 && !bad && (n == 0 || looks_like_json(buf, n));
}

/* A regular file or a buffer read here, without libarchive, when its first bytes allow (see the
 * top of the file): 1 when set up, 0 when libarchive must read it (s->in as it was). */
static int open_own(ks_source *s)
{
    unsigned char head[SNIFF];
    const unsigned char *p = head;
    size_t n;
    if (ks_source_libarchive_only)
        return 0;
    if (s->in.mem) {
        p = s->in.mem;
        n = s->in.mem_len < SNIFF ? s->in.mem_len : SNIFF;
    } else {
        ks_error ignored;
        if (open_here(s, &ignored) != KS_OK) {
            s->in.fd = -1;
            return 0; /* libarchive says why */
        }
        ssize_t k = pread(s->in.fd, head, SNIFF, 0);
        n = k > 0 ? (size_t)k : 0;
    }
    if (looks_like_json(p, n) && !ends_like_zip(s)) {
        s->direct = 1;
        s->own_filter = "none";
        return 1;
    }
    if (ks_gunzip_magic(p, n) && gzip_is_json(s)) {
        s->st.gz = ks_gunzip_new(NULL, 0, pull_raw, &s->in);
        s->own_filter = "gzip";
        return 1;
    }
    if (!s->in.mem && s->in.fd > 0)
        close(s->in.fd);
    s->in.fd = -1;
    return 0;
}

/* libarchive loaded and its reader made: KS_OK, or KS_ERR (err set, s closed) */
static int archive_reader(ks_source *s, ks_error *err)
{
    if (ks_archive_load(err) != KS_OK) {
        ks_source_close(s);
        return KS_ERR;
    }
    s->a = new_outer();
    if (!s->a) {
        ks_source_close(s);
        return ks_error_set(err, "cannot create a reader");
    }
    return KS_OK;
}

int ks_source_open(const char *path, ks_source **out, ks_error *err)
{
    *out = NULL;
    ks_source *s = ks_xcalloc(1, sizeof *s);
    s->in.fd = -1;
    s->path = ks_xstrdup(path);
    int r;
    if (!strcmp(path, "-")) {
        if (archive_reader(s, err) != KS_OK)
            return KS_ERR;
        s->in.recording = 1;
        s->in.fd = 0;
        r = ks_ar.archive_read_open(s->a, s, NULL, stdin_read, NULL);
    } else {
        struct stat sb;
        if (stat(path, &sb) != 0) {
            int e = errno;
            ks_source_close(s);
            return ks_error_set(err, "%s", strerror(e));
        }
        if (S_ISDIR(sb.st_mode)) {
            ks_source_close(s);
            return ks_error_set(err, "is a directory");
        }
        s->file_size = (uint64_t)sb.st_size;
        s->regular = S_ISREG(sb.st_mode);
        if (s->regular && open_own(s)) {
            *out = s;
            return KS_OK;
        }
        if (archive_reader(s, err) != KS_OK)
            return KS_ERR;
        r = ks_ar.archive_read_open_filename(s->a, path, BLOCK);
    }
    if (r != ARCHIVE_OK) {
        /* a damaged or cut compressed stream fails here too: say so, not "empty" */
        char what[512];
        if (strcmp(path, "-") ? s->file_size == 0 : s->in.rec.n == 0)
            ks_error_set(err, "empty input");
        else if (decoded_to_nothing(s->a, input_size(s), what, sizeof what))
            ks_error_set(err, "empty input: %s", what);
        else {
            decode_failure(s->a, magic_of(s), input_size(s), what, sizeof what);
            ks_error_set(err, "cannot decompress the input: %s", what);
        }
        ks_source_close(s);
        return KS_ERR;
    }
    if (open_common(s, err) != KS_OK) {
        ks_source_close(s);
        return KS_ERR;
    }
    *out = s;
    return KS_OK;
}

int ks_source_open_memory(const char *name, const void *buf, size_t len, ks_source **out,
                          ks_error *err)
{
    *out = NULL;
    ks_source *s = ks_xcalloc(1, sizeof *s);
    s->in.fd = -1;
    s->path = ks_xstrdup(name);
    s->file_size = len;
    if (!len) { /* as for an empty file (libarchive said "Unrecognized archive format") */
        ks_source_close(s);
        return ks_error_set(err, "empty input");
    }
    s->in.mem = buf; /* not NULL from here: in.mem != NULL is what says "a buffer" below */
    s->in.mem_len = len;
    if (open_own(s)) {
        *out = s;
        return KS_OK;
    }
    if (archive_reader(s, err) != KS_OK)
        return KS_ERR;
    if (ks_ar.archive_read_open_memory(s->a, buf, len) != ARCHIVE_OK) {
        fail_archive(s->a, name, err);
        ks_source_close(s);
        return KS_ERR;
    }
    if (open_common(s, err) != KS_OK) {
        ks_source_close(s);
        return KS_ERR;
    }
    *out = s;
    return KS_OK;
}

/* nested reader over the current archive member */
static la_ssize_t member_read(struct archive *inner, void *ctx, const void **buf)
{
    (void)inner;
    ks_source *s = ctx;
    static __thread char dummy;
    const void *b;
    size_t n;
    la_int64_t off;
    int r = ks_ar.archive_read_data_block(s->a, &b, &n, &off);
    if (r == ARCHIVE_EOF) {
        *buf = &dummy;
        return 0;
    }
    if (r < ARCHIVE_WARN) {
        ks_ar.archive_set_error(inner, EIO, "%s", ks_ar.archive_error_string(s->a));
        return -1;
    }
    *buf = b;
    if (s->in.recording)
        ks_buf_put(&s->in.rec, b, n);
    return (la_ssize_t)n;
}

/* the gzip decoder's input from the current archive member */
static ssize_t pull_member(void *ctx, const void **buf, ks_error *err)
{
    ks_source *s = ctx;
    size_t n;
    la_int64_t off;
    int r = ks_ar.archive_read_data_block(s->a, buf, &n, &off);
    if (r == ARCHIVE_EOF)
        return 0;
    if (r < ARCHIVE_WARN) {
        const char *m = ks_ar.archive_error_string(s->a);
        return ks_error_set(err, "%s", m ? m : "read error"), -1;
    }
    return (ssize_t)n;
}

static int is_trace_member(const char *name)
{
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (base[0] == '.' || !strncmp(name, "__MACOSX/", 9))
        return 0;
    return strstr(base, ".json") != NULL || strstr(base, ".JSON") != NULL;
}

static void reset_stream(ks_source *s)
{
    ks_stream *st = &s->st;
    if (st->inner) {
        ks_ar.archive_read_free(st->inner);
        st->inner = NULL;
    }
    ks_gunzip_free(st->gz);
    st->gz = NULL;
    st->damaged = 0;
    free(st->name);
    st->name = NULL;
    st->offset = 0;
    st->filter[0] = 0;
}

int ks_source_next(ks_source *s, ks_stream **out, ks_error *err)
{
    *out = NULL;
    if (s->done)
        return 0;
    ks_stream *st = &s->st;
    st->src = s;
    if (!s->is_archive) {
        if (s->started) {
            s->done = 1;
            return 0;
        }
        s->started = 1;
        s->pending_header = 0;
        st->name = ks_xstrdup(s->path);
        if (s->a)
            filters_of(s->a, st->filter, sizeof st->filter, NULL);
        else
            snprintf(st->filter, sizeof st->filter, "%s", s->own_filter);
        *out = st;
        return 1;
    }
    reset_stream(s);
    st->src = s;
    for (;;) {
        if (!s->pending_header) {
            int r = ks_ar.archive_read_next_header(s->a, &s->entry);
            if (r == ARCHIVE_EOF) {
                s->done = 1;
                if (!s->started)
                    return ks_error_set(err, "archive holds no trace (no member named *.json*)");
                return 0;
            }
            if (r < ARCHIVE_WARN)
                return fail_archive(s->a, s->path, err);
        }
        s->pending_header = 0;
        const char *mname = ks_ar.archive_entry_pathname(s->entry);
        if (ks_ar.archive_entry_filetype(s->entry) != AE_IFREG || !mname || !is_trace_member(mname)) {
            s->skipped++;
            continue;
        }
        s->started = 1;
        st->name = ks_xasprintf("%s:%s", s->path, mname);
        st->inner = new_reader();
        if (!st->inner)
            return ks_error_set(err, "cannot create a reader");
        ks_ar.archive_read_support_format_raw(st->inner);
        s->in.recording = 1;
        ks_buf_free(&s->in.rec);
        if (ks_ar.archive_read_open(st->inner, s, NULL, member_read, NULL) != ARCHIVE_OK)
            return fail_archive(st->inner, st->name, err);
        struct archive_entry *ie;
        int r = ks_ar.archive_read_next_header(st->inner, &ie);
        s->in.recording = 0;
        if (r == ARCHIVE_EOF)
            return ks_error_set(err, "%s: empty archive member", mname);
        if (r < ARCHIVE_WARN)
            return fail_archive(st->inner, st->name, err);
        char outer[48];
        filters_of(s->a, outer, sizeof outer, NULL);
        char pre[64];
        snprintf(pre, sizeof pre, "%s%s%s", ks_ar.archive_format_name(s->a),
                 strcmp(outer, "none") ? "+" : "", strcmp(outer, "none") ? outer : "");
        filters_of(st->inner, st->filter, sizeof st->filter, NULL);
        if (filters_are(st->inner, "gzip")) {
            /* decode the member here, from what the inner reader took on, checksums verified */
            st->gz = ks_gunzip_new(s->in.rec.p, s->in.rec.n, pull_member, s);
            ks_ar.archive_read_free(st->inner);
            st->inner = NULL;
        }
        ks_buf_free(&s->in.rec);
        if (!strcmp(st->filter, "none"))
            snprintf(st->filter, sizeof st->filter, "%s", pre);
        else {
            char tmp[sizeof st->filter];
            memcpy(tmp, st->filter, sizeof tmp);
            snprintf(st->filter, sizeof st->filter, "%.40s/%.40s", pre, tmp);
        }
        *out = st;
        return 1;
    }
}

int ks_source_reads_itself(const ks_source *s)
{
    return s->a == NULL;
}

int ks_source_is_archive(const ks_source *s)
{
    return s->is_archive;
}

void ks_source_close(ks_source *s)
{
    if (!s)
        return;
    reset_stream(s);
    if (s->a)
        ks_ar.archive_read_free(s->a);
    if (s->in.fd > 0)
        close(s->in.fd);
    free(s->in.block);
    ks_buf_free(&s->in.rec);
    free(s->path);
    free(s);
}

const char *ks_stream_name(const ks_stream *st)
{
    return st->name;
}

const char *ks_stream_filter(const ks_stream *st)
{
    return st->filter;
}

/* Plain bytes read as they are (a regular file, or the buffer): the offset in the stream is the
 * offset in the file. */
static ssize_t direct_read(ks_stream *st, void *buf, size_t n, ks_error *err)
{
    raw_in *in = &st->src->in;
    ssize_t r;
    if (in->mem) {
        size_t k = in->mem_len - in->mem_pos < n ? in->mem_len - in->mem_pos : n;
        memcpy(buf, in->mem + in->mem_pos, k);
        in->mem_pos += k;
        r = (ssize_t)k;
    } else if ((r = read_fd(in->fd, buf, n)) < 0)
        return ks_error_set_at(err, st->offset, 0, 0, "%s", strerror(errno));
    st->offset += (uint64_t)r;
    atomic_store_explicit(&st->src->raw_offset, st->offset, memory_order_relaxed);
    return r;
}

ssize_t ks_stream_read(ks_stream *st, void *buf, size_t n, ks_error *err)
{
    if (st->gz) {
        ssize_t r = ks_gunzip_read(st->gz, buf, n, &st->damaged, err);
        if (r < 0) {
            err->has_pos = 1;
            err->byte = st->offset;
            err->line = err->column = 0;
            return KS_ERR;
        }
        st->offset += (uint64_t)r;
        if (!st->src->is_archive)
            atomic_store_explicit(&st->src->raw_offset, ks_gunzip_in_bytes(st->gz), memory_order_relaxed);
        else {
            la_int64_t b = ks_ar.archive_filter_bytes(st->src->a, -1);
            atomic_store_explicit(&st->src->raw_offset, b > 0 ? (uint64_t)b : 0, memory_order_relaxed);
        }
        return r;
    }
    if (st->src->direct)
        return direct_read(st, buf, n, err);
    struct archive *a = st->inner ? st->inner : st->src->a;
    la_ssize_t r = ks_ar.archive_read_data(a, buf, n);
    if (r < 0) {
        char what[512];
        if (decode_failure(a, NULL, 0, what, sizeof what))
            st->damaged = 1; /* a checksum or the coded data: what came before is suspect too */
        return ks_error_set_at(err, st->offset, 0, 0, "%s", what);
    }
    st->offset += (uint64_t)r;
    la_int64_t b = ks_ar.archive_filter_bytes(st->src->a, -1);
    atomic_store_explicit(&st->src->raw_offset, b > 0 ? (uint64_t)b : 0, memory_order_relaxed);
    return (ssize_t)r;
}

uint64_t ks_stream_offset(const ks_stream *st)
{
    return st->offset;
}

uint64_t ks_source_file_size(const ks_source *s)
{
    return s->file_size;
}

uint64_t ks_source_raw_offset(const ks_source *s)
{
    return atomic_load_explicit(&s->raw_offset, memory_order_relaxed);
}

int ks_stream_damaged(const ks_stream *st)
{
    return st->damaged;
}

/* The ISIZE field of a gzip file's or buffer's trailer, its last 4 bytes: the decompressed length
 * of its last member mod 2^32 (the whole length for the usual single member under 4 GiB); 0 where
 * it cannot be read (standard input, a pipe). */
static uint64_t gzip_isize(const ks_source *s)
{
    unsigned char b[4];
    if (s->file_size < 18) /* a gzip member's header and trailer alone */
        return 0;
    if (s->in.mem)
        memcpy(b, s->in.mem + s->in.mem_len - 4, 4);
    else if (!s->regular || s->in.fd < 0 || pread(s->in.fd, b, 4, (off_t)(s->file_size - 4)) != 4)
        return 0;
    return ks_le32(b);
}

uint64_t ks_stream_size_hint(const ks_stream *st)
{
    const ks_source *s = st->src;
    if (!s->is_archive && st->gz) {
        uint64_t n = gzip_isize(s);
        return n > s->file_size ? n : s->file_size;
    }
    if (!s->is_archive)
        return s->file_size;
    if (!s->entry || !ks_ar.archive_entry_size_is_set(s->entry) || ks_ar.archive_entry_size(s->entry) <= 0)
        return 0;
    return (uint64_t)ks_ar.archive_entry_size(s->entry);
}
