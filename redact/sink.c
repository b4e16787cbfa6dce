/* redact/sink.c: where a redacted trace goes. Always a temporary file first: next to the target
 * (so that the final rename is atomic and on one file system) or, for standard output, in
 * $TMPDIR, copied out at the end. Compression goes through libarchive's write filters (raw
 * format: one stream, no archive). The rename refuses to replace an existing file unless asked
 * (renameat2 RENAME_NOREPLACE, else link + unlink), so two runs cannot clobber each other.
 *
 * Temporary files hold unredacted-looking bytes until they are checked, so none may outlive the
 * process: every live sink is on a list that a signal handler (ks_redact_cleanup_on_signals)
 * walks to unlink them (unlink is async-signal-safe; the list is changed with signals blocked),
 * on SIGINT, SIGTERM, SIGHUP, SIGQUIT and on a crash, before the process dies of the signal.
 * Better still, where the file system allows it (Linux O_TMPFILE: ext4, xfs, btrfs, tmpfs) the
 * temporary file has no name at all until it is linked into place (linkat through
 * /proc/self/fd), so not even SIGKILL can leave it behind; it is then read back through its
 * /proc/self/fd path. At most ANON_MAX such files are open at once (each holds a descriptor
 * until the end of a multi-trace run); beyond that, and where O_TMPFILE or /proc is missing, a
 * named mkstemp file is used. KINESIFT_NO_O_TMPFILE=1 forces the named file (for tests). */
#include <pthread.h>
#include <signal.h>
#include <archive.h>
#include <archive_entry.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "redact/redact_int.h"

struct ks_rd_sink {
    struct ks_rd_sink *prev, *next; /* the live sinks */
    char *final;          /* NULL: standard output */
    char *tmp;            /* its name, or /proc/self/fd/N for an O_TMPFILE file */
    int fd;
    int anon;             /* O_TMPFILE: no name until commit; fd stays open */
    struct archive *a;    /* compressing writer; NULL for plain output */
    int failed;
    int err_no;
    char amsg[256];
};

/* ---- the live temporary files, removed on a signal ---------------------------------------- */

static ks_rd_sink *live;
static int nanon;

#define ANON_MAX 64

static void block_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

static void live_add(ks_rd_sink *s)
{
    sigset_t old;
    block_signals(&old);
    s->next = live;
    s->prev = NULL;
    if (live)
        live->prev = s;
    live = s;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void live_remove(ks_rd_sink *s)
{
    sigset_t old;
    block_signals(&old);
    if (s->prev)
        s->prev->next = s->next;
    else if (live == s)
        live = s->next;
    if (s->next)
        s->next->prev = s->prev;
    s->prev = s->next = NULL;
    pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static const int cleanup_signals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                                      SIGSEGV, SIGBUS,  SIGABRT, SIGFPE};

static void on_signal(int sig)
{
    for (ks_rd_sink *s = live; s; s = s->next)
        if (s->tmp && !s->anon)
            unlink(s->tmp);
    signal(sig, SIG_DFL);
    raise(sig);
}

void ks_redact_cleanup_on_signals(void)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigfillset(&sa.sa_mask);
    sa.sa_flags = SA_RESETHAND;
    for (size_t i = 0; i < sizeof cleanup_signals / sizeof cleanup_signals[0]; i++) {
        struct sigaction prev;
        /* a signal the caller ignores (nohup) stays ignored */
        if (sigaction(cleanup_signals[i], NULL, &prev) == 0 && prev.sa_handler == SIG_IGN)
            continue;
        sigaction(cleanup_signals[i], &sa, NULL);
    }
}

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ks_xstrdup(".");
    if (slash == path)
        return ks_xstrdup("/");
    return ks_xstrndup(path, (size_t)(slash - path));
}

static int add_filter(struct archive *a, ks_compress c)
{
    switch (c) {
    case KS_COMPRESS_GZIP:
        if (archive_write_add_filter_gzip(a) != ARCHIVE_OK)
            return -1;
        /* no time stamp in the header: the output depends only on the input and the key */
        archive_write_set_filter_option(a, "gzip", "timestamp", NULL);
        return 0;
    case KS_COMPRESS_ZSTD:
        return archive_write_add_filter_zstd(a) == ARCHIVE_OK ? 0 : -1;
    case KS_COMPRESS_XZ:
        return archive_write_add_filter_xz(a) == ARCHIVE_OK ? 0 : -1;
    case KS_COMPRESS_BZIP2:
        return archive_write_add_filter_bzip2(a) == ARCHIVE_OK ? 0 : -1;
    default:
        return 0;
    }
}

static int open_archive(ks_rd_sink *s, ks_compress c, ks_error *err)
{
    s->a = archive_write_new();
    if (!s->a || add_filter(s->a, c) != 0 || archive_write_set_format_raw(s->a) != ARCHIVE_OK ||
        archive_write_set_bytes_in_last_block(s->a, 1) != ARCHIVE_OK ||
        archive_write_open_fd(s->a, s->fd) != ARCHIVE_OK) {
        const char *m = s->a ? archive_error_string(s->a) : NULL;
        return ks_error_set(err, "cannot set up %s compression: %s",
                            ks_redact_compress_suffix(c) + 1, m ? m : "libarchive");
    }
    struct archive_entry *ae = archive_entry_new();
    archive_entry_set_filetype(ae, AE_IFREG);
    archive_entry_set_pathname(ae, "trace.json");
    int r = archive_write_header(s->a, ae);
    archive_entry_free(ae);
    if (r != ARCHIVE_OK)
        return ks_error_set(err, "cannot start the compressed stream: %s",
                            archive_error_string(s->a));
    return KS_OK;
}

/* an O_TMPFILE file in dir, readable back through /proc/self/fd; 0 when not possible */
static int open_anon(ks_rd_sink *s, const char *dir)
{
#ifdef O_TMPFILE
    const char *no = getenv("KINESIFT_NO_O_TMPFILE");
    if ((no && *no && strcmp(no, "0")) || nanon >= ANON_MAX || access("/proc/self/fd", X_OK) != 0)
        return 0;
    mode_t um = umask(0);
    umask(um);
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0666 & ~um);
    if (fd < 0)
        return 0;
    s->fd = fd;
    s->anon = 1;
    s->tmp = ks_xasprintf("/proc/self/fd/%d", fd);
    nanon++;
    return 1;
#else
    (void)s;
    (void)dir;
    return 0;
#endif
}

int ks_rd_sink_open(const char *final_path, ks_compress c, ks_rd_sink **out, ks_error *err)
{
    *out = NULL;
    ks_rd_sink *s = ks_xcalloc(1, sizeof *s);
    s->fd = -1;
    char *dir;
    if (final_path) {
        s->final = ks_xstrdup(final_path);
        dir = dir_of(final_path);
    } else {
        const char *t = getenv("TMPDIR");
        dir = ks_xstrdup(t && *t ? t : "/tmp");
    }
    if (open_anon(s, dir)) {
        free(dir);
        live_add(s);
        goto opened;
    }
    s->tmp = ks_xasprintf("%s/.kinesift-redact.XXXXXX", dir);
    free(dir);
    sigset_t old;
    block_signals(&old); /* no window between creating the file and listing it */
    s->fd = mkstemp(s->tmp);
    if (s->fd >= 0)
        live_add(s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (s->fd < 0) {
        int e = errno;
        if (final_path)
            ks_error_set(err, "%s: cannot create a temporary file beside it (%s): %s", final_path, s->tmp,
                         strerror(e));
        else
            ks_error_set(err, "cannot create a temporary file in the temporary directory (%s): %s", s->tmp,
                         strerror(e));
        free(s->tmp);
        s->tmp = NULL;
        ks_rd_sink_abort(s);
        return KS_ERR;
    }
    if (final_path) {
        /* the usual permissions of a new file, not mkstemp's 0600 */
        mode_t um = umask(0);
        umask(um);
        if (fchmod(s->fd, 0666 & ~um) != 0) {
            /* not fatal: the file stays private */
        }
    }
opened:
    if (c != KS_COMPRESS_NONE && c != KS_COMPRESS_AUTO && open_archive(s, c, err) != KS_OK) {
        ks_rd_sink_abort(s);
        return KS_ERR;
    }
    *out = s;
    return KS_OK;
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n) {
        ssize_t w = write(fd, p, n);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            return -1;
        }
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

int ks_rd_sink_write(void *ctx, const void *p, size_t n)
{
    ks_rd_sink *s = ctx;
    if (s->failed)
        return -1;
    if (!s->a) {
        if (write_all(s->fd, p, n) != 0) {
            s->failed = 1;
            s->err_no = errno;
            return -1;
        }
        return 0;
    }
    const char *q = p;
    while (n) {
        la_ssize_t w = archive_write_data(s->a, q, n);
        if (w <= 0) {
            s->failed = 1;
            snprintf(s->amsg, sizeof s->amsg, "%s", archive_error_string(s->a));
            return -1;
        }
        q += w;
        n -= (size_t)w;
    }
    return 0;
}

int ks_rd_sink_close(ks_rd_sink *s, ks_error *err)
{
    if (s->a) {
        if (archive_write_close(s->a) != ARCHIVE_OK && !s->failed) {
            s->failed = 1;
            snprintf(s->amsg, sizeof s->amsg, "%s", archive_error_string(s->a));
        }
        archive_write_free(s->a);
        s->a = NULL;
    }
    if (s->fd >= 0) {
        if (s->final && fsync(s->fd) != 0 && !s->failed) {
            s->failed = 1;
            s->err_no = errno;
        }
        if (s->anon) /* its descriptor is the file: kept until commit or abort */
            goto done;
        if (close(s->fd) != 0 && !s->failed) {
            s->failed = 1;
            s->err_no = errno;
        }
        s->fd = -1;
    }
done:
    if (s->failed)
        return ks_error_set(err, "cannot write %s: %s", s->final ? s->final : "the output",
                            s->amsg[0] ? s->amsg : strerror(s->err_no));
    return KS_OK;
}

const char *ks_rd_sink_tmp_path(const ks_rd_sink *s)
{
    return s->tmp;
}

static void sink_free(ks_rd_sink *s)
{
    live_remove(s);
    if (s->anon)
        nanon--;
    if (s->a)
        archive_write_free(s->a);
    if (s->fd >= 0)
        close(s->fd);
    free(s->final);
    free(s->tmp);
    free(s);
}

void ks_rd_sink_abort(ks_rd_sink *s)
{
    if (!s)
        return;
    if (s->tmp && !s->anon)
        unlink(s->tmp);
    sink_free(s); /* an O_TMPFILE file vanishes with its descriptor */
}

static int copy_to_stdout(const char *path, ks_error *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return ks_error_set(err, "cannot reopen %s: %s", path, strerror(errno));
    char *buf = ks_xmalloc(1 << 20);
    int rc = KS_OK;
    for (;;) {
        ssize_t r = read(fd, buf, 1 << 20);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = ks_error_set(err, "cannot read %s: %s", path, strerror(errno));
            break;
        }
        if (r == 0)
            break;
        if (write_all(1, buf, (size_t)r) != 0) {
            rc = ks_error_set(err, "cannot write to standard output: %s", strerror(errno));
            break;
        }
    }
    free(buf);
    close(fd);
    return rc;
}

static int rename_noreplace(const char *from, const char *to)
{
#ifdef RENAME_NOREPLACE
    if (renameat2(AT_FDCWD, from, AT_FDCWD, to, RENAME_NOREPLACE) == 0)
        return 0;
    if (errno != EINVAL && errno != ENOSYS)
        return -1;
#endif
    /* file systems without RENAME_NOREPLACE: link fails when the target exists */
    if (link(from, to) != 0)
        return -1;
    unlink(from);
    return 0;
}

/* give an O_TMPFILE file its name: linkat refuses an existing target; with force, a fresh
 * temporary name first, then rename over the target */
static int link_anon(ks_rd_sink *s, int force)
{
    if (!force)
        return linkat(AT_FDCWD, s->tmp, AT_FDCWD, s->final, AT_SYMLINK_FOLLOW);
    char *dir = dir_of(s->final);
    int r = -1;
    for (int tries = 0; tries < 100 && r != 0; tries++) {
        char *t = ks_xasprintf("%s/.kinesift-redact.%d.%d", dir, (int)getpid(), tries);
        r = linkat(AT_FDCWD, s->tmp, AT_FDCWD, t, AT_SYMLINK_FOLLOW);
        if (r == 0) {
            r = rename(t, s->final);
            if (r != 0) {
                int e = errno;
                unlink(t);
                errno = e;
                free(t);
                break;
            }
        } else if (errno != EEXIST) {
            free(t);
            break;
        }
        free(t);
    }
    free(dir);
    return r;
}

int ks_rd_sink_commit(ks_rd_sink *s, int force, ks_error *err)
{
    int rc = KS_OK;
    if (s->anon && s->final) {
        if (link_anon(s, force) != 0) {
            int e = errno;
            if (e == EEXIST)
                rc = ks_error_set(err, "%s: exists (use --force to replace it)", s->final);
            else
                rc = ks_error_set(err, "%s: cannot link the output into place: %s", s->final,
                                  strerror(e));
        }
    } else if (!s->final) {
        rc = copy_to_stdout(s->tmp, err);
        if (!s->anon)
            unlink(s->tmp);
    } else {
        int r = force ? rename(s->tmp, s->final) : rename_noreplace(s->tmp, s->final);
        if (r != 0) {
            int e = errno;
            if (e == EEXIST)
                rc = ks_error_set(err, "%s: exists (use --force to replace it)", s->final);
            else
                rc = ks_error_set(err, "%s: cannot rename the output into place: %s", s->final,
                                  strerror(e));
            unlink(s->tmp);
        }
    }
    sink_free(s);
    return rc;
}
