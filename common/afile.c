/* common/afile.c: the atomic output file (see afile.h): a temporary file next to the target,
 * compressed through libarchive's write filters (raw format: one stream, no archive; libarchive
 * loaded then, common/lazylib.h), put in place at the end.
 *
 * Permissions without umask(): every temporary file is created 0600 (O_TMPFILE, or O_CREAT |
 * O_EXCL under a fresh random name), so that one a SIGKILL leaves behind (a named one, where
 * O_TMPFILE does not work; or the instant between linking and renaming under --force) is
 * readable by its owner only: it may hold bytes not yet checked (redaction). Once the file has
 * its final name, it gets the usual mode of a new file, 0666 less the process's umask, read from
 * /proc/self/status (fchmod through a descriptor, never through the name). umask() would have to
 * be called twice to read the mask, and between the calls another thread's new files would get
 * mode 0666. A temporary file for standard output stays 0600.
 *
 * The registry of live temporary files, read by a signal handler: a doubly linked list whose
 * forward links are atomic. Threads change it under a mutex, with every signal blocked on the
 * changing thread (no handler runs there half-way). A handler that runs on another thread walks
 * the forward links without locking: an insertion publishes a fully built node with one store, a
 * removal unlinks it with one store, and a removed node keeps its forward link. A removed node is
 * freed only when no handler has started (the handler raises `in_handler` before its first load;
 * the remover reads it after its unlinking store; all are sequentially consistent, so one of them
 * sees the other): a handler never reads freed memory. Once a handler has started the process is
 * about to die of the signal, and removed nodes are simply not freed. */
#include "common/afile.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <stdint.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "common/lazylib.h"
#include "common/util.h"

struct ks_afile {
    _Atomic(struct ks_afile *) next; /* the live files: read by the signal handler */
    struct ks_afile *prev;           /* changed under live_mu only */
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

static _Atomic(ks_afile *) live;
static atomic_int in_handler;
static pthread_mutex_t live_mu = PTHREAD_MUTEX_INITIALIZER;
static int nanon; /* O_TMPFILE files open (each holds a descriptor); under live_mu */

/* O_TMPFILE files open at once, at most (a multi-trace redaction holds each output until the
 * end); beyond, named files. Tunes descriptors only: no output depends on it. */
#define ANON_MAX 64

static void block_signals(sigset_t *old)
{
    sigset_t all;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, old);
}

/* with signals blocked on this thread */
static void live_add(ks_afile *s)
{
    pthread_mutex_lock(&live_mu);
    ks_afile *head = atomic_load(&live);
    atomic_store(&s->next, head);
    s->prev = NULL;
    if (head)
        head->prev = s;
    atomic_store(&live, s);
    pthread_mutex_unlock(&live_mu);
}

/* 1 when s may be freed: no signal handler can be reading it */
static int live_remove(ks_afile *s)
{
    sigset_t old;
    block_signals(&old);
    pthread_mutex_lock(&live_mu);
    ks_afile *next = atomic_load(&s->next);
    if (s->prev)
        atomic_store(&s->prev->next, next);
    else if (atomic_load(&live) == s)
        atomic_store(&live, next);
    if (next)
        next->prev = s->prev;
    s->prev = NULL;
    if (s->anon)
        nanon--;
    pthread_mutex_unlock(&live_mu);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return !atomic_load(&in_handler);
}

static const int cleanup_signals[] = {SIGINT,  SIGTERM, SIGHUP, SIGQUIT,
                                      SIGSEGV, SIGBUS,  SIGABRT, SIGFPE};

static void on_signal(int sig)
{
    atomic_store(&in_handler, 1);
    for (ks_afile *s = atomic_load(&live); s; s = atomic_load(&s->next))
        if (s->tmp && !s->anon)
            unlink(s->tmp); /* async-signal-safe */
    signal(sig, SIG_DFL);
    raise(sig);
}

void ks_afile_cleanup_on_signals(void)
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

/* ---- the target ---------------------------------------------------------------------------- */

static int same_file(const struct stat *a, const struct stat *b)
{
    return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

int ks_afile_check_target(const char *path, int force, const char *input, char *const *inputs,
                            size_t ninputs, ks_error *err)
{
    struct stat so, si;
    if (stat(path, &so) != 0) {
        if (errno == ENOENT)
            return KS_OK;
        return ks_error_set(err, "%s: %s", path, strerror(errno));
    }
    if (S_ISDIR(so.st_mode))
        return ks_error_set(err, "%s: is a directory", path);
    if (!S_ISREG(so.st_mode)) /* /dev/null, a FIFO: the rename would replace the node itself */
        return ks_error_set(err, "%s: not a regular file (write to standard output instead)", path);
    if (input && strcmp(input, "-") && stat(input, &si) == 0 && same_file(&so, &si))
        return ks_error_set(err, "%s: is the input; refusing to write over it", path);
    for (size_t i = 0; i < ninputs; i++)
        if (strcmp(inputs[i], "-") && stat(inputs[i], &si) == 0 && same_file(&so, &si))
            return ks_error_set(err, "%s: is an input of this run (%s); refusing to write over it",
                                path, inputs[i]);
    if (!force)
        return ks_error_set(err, "%s: exists (use --force to replace it)", path);
    return KS_OK;
}

/* ---- the temporary file -------------------------------------------------------------------- */

static char *dir_of(const char *path)
{
    const char *slash = strrchr(path, '/');
    if (!slash)
        return ks_xstrdup(".");
    if (slash == path)
        return ks_xstrdup("/");
    return ks_xstrndup(path, (size_t)(slash - path));
}

/* Declared in <kinesift/redact.h> (the compressions are redact's option), defined here with the
 * compressions themselves, so that afile needs nothing from the rooms that use it (report/
 * names annotated traces with it too). */
const char *ks_redact_compress_suffix(ks_compress c)
{
    switch (c) {
    case KS_COMPRESS_GZIP: return ".gz";
    case KS_COMPRESS_ZSTD: return ".zst";
    case KS_COMPRESS_XZ: return ".xz";
    case KS_COMPRESS_BZIP2: return ".bz2";
    default: return "";
    }
}

static int add_filter(struct archive *a, ks_compress c)
{
    switch (c) {
    case KS_COMPRESS_GZIP:
        if (ks_ar.archive_write_add_filter_gzip(a) != ARCHIVE_OK)
            return -1;
        /* no time stamp in the header: the output depends only on the input and the key */
        ks_ar.archive_write_set_filter_option(a, "gzip", "timestamp", NULL);
        return 0;
    case KS_COMPRESS_ZSTD:
        return ks_ar.archive_write_add_filter_zstd(a) == ARCHIVE_OK ? 0 : -1;
    case KS_COMPRESS_XZ:
        return ks_ar.archive_write_add_filter_xz(a) == ARCHIVE_OK ? 0 : -1;
    case KS_COMPRESS_BZIP2:
        return ks_ar.archive_write_add_filter_bzip2(a) == ARCHIVE_OK ? 0 : -1;
    default:
        return 0;
    }
}

static int open_archive(ks_afile *s, ks_compress c, ks_error *err)
{
    if (ks_archive_load(err) != KS_OK)
        return KS_ERR;
    s->a = ks_ar.archive_write_new();
    if (!s->a || add_filter(s->a, c) != 0 || ks_ar.archive_write_set_format_raw(s->a) != ARCHIVE_OK ||
        ks_ar.archive_write_set_bytes_in_last_block(s->a, 1) != ARCHIVE_OK ||
        ks_ar.archive_write_open_fd(s->a, s->fd) != ARCHIVE_OK) {
        const char *m = s->a ? ks_ar.archive_error_string(s->a) : NULL;
        return ks_error_set(err, "cannot set up %s compression: %s",
                            ks_redact_compress_suffix(c) + 1, m ? m : "libarchive");
    }
    struct archive_entry *ae = ks_ar.archive_entry_new();
    ks_ar.archive_entry_set_filetype(ae, AE_IFREG);
    ks_ar.archive_entry_set_pathname(ae, "trace.json");
    int r = ks_ar.archive_write_header(s->a, ae);
    ks_ar.archive_entry_free(ae);
    if (r != ARCHIVE_OK)
        return ks_error_set(err, "cannot start the compressed stream: %s",
                            ks_ar.archive_error_string(s->a));
    return KS_OK;
}

/* an O_TMPFILE file in dir, readable back through /proc/self/fd; 0 when not possible. Listed
 * (for the count of descriptors) with signals blocked. */
static int open_anon(ks_afile *s, const char *dir, mode_t mode)
{
#ifdef O_TMPFILE
    const char *no = getenv("KINESIFT_NO_O_TMPFILE");
    if ((no && *no && strcmp(no, "0")) || access("/proc/self/fd", X_OK) != 0)
        return 0;
    pthread_mutex_lock(&live_mu);
    int room = nanon < ANON_MAX;
    nanon += room; /* reserved before the open: two threads cannot both take the last one */
    pthread_mutex_unlock(&live_mu);
    if (!room)
        return 0;
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, mode);
    if (fd < 0) {
        pthread_mutex_lock(&live_mu);
        nanon--;
        pthread_mutex_unlock(&live_mu);
        return 0;
    }
    s->fd = fd;
    s->anon = 1;
    s->tmp = ks_xasprintf("/proc/self/fd/%d", fd);
    sigset_t old;
    block_signals(&old);
    live_add(s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    return 1;
#else
    (void)s;
    (void)dir;
    (void)mode;
    return 0;
#endif
}

/* six characters of the names' alphabet, from the kernel's random bytes (else time and pid) */
static void random_suffix(char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    unsigned char r[6];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        uint64_t x = ks_hash_u64((uint64_t)getpid() ^ ((uint64_t)(uintptr_t)out << 16) ^
                                 (uint64_t)time(NULL));
        memcpy(r, &x, sizeof r);
    }
    for (int i = 0; i < 6; i++)
        out[i] = abc[r[i] % (sizeof abc - 1)];
    out[6] = 0;
}

/* Create a new file named prefix + six random characters with open(O_CREAT | O_EXCL, mode):
 * the kernel applies the umask (no umask() call). Returns its descriptor (close-on-exec), or -1
 * with errno; *path is the name tried last (malloc'ed, also on failure). */
static int mktemp_excl(const char *prefix, mode_t mode, char **path)
{
    int fd = -1;
    *path = NULL;
    errno = EEXIST;
    for (int tries = 0; tries < 100 && fd < 0 && errno == EEXIST; tries++) {
        char suf[7];
        random_suffix(suf);
        free(*path);
        *path = ks_xasprintf("%s%s", prefix, suf);
        fd = open(*path, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, mode);
    }
    return fd;
}

/* A named temporary file ".kinesift-redact.XXXXXX" in dir, listed with no window between
 * creating and listing it (signals blocked). 0, or errno. */
static int open_named(ks_afile *s, const char *dir, mode_t mode)
{
    char *prefix = ks_xasprintf("%s/.kinesift-redact.", dir);
    sigset_t old;
    block_signals(&old);
    s->fd = mktemp_excl(prefix, mode, &s->tmp);
    int e = s->fd < 0 ? errno : 0;
    if (s->fd >= 0)
        live_add(s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    free(prefix);
    return e;
}

int ks_afile_open(const char *final_path, ks_compress c, ks_afile **out, ks_error *err)
{
    *out = NULL;
    ks_afile *s = ks_xcalloc(1, sizeof *s);
    s->fd = -1;
    char *dir;
    if (final_path) {
        s->final = ks_xstrdup(final_path);
        dir = dir_of(final_path);
    } else {
        const char *t = getenv("TMPDIR");
        dir = ks_xstrdup(t && *t ? t : "/tmp");
    }
    /* private until it has its final name (ks_afile_commit gives it the usual mode then) */
    mode_t mode = 0600;
    int e = open_anon(s, dir, mode) ? 0 : open_named(s, dir, mode);
    if (e) {
        if (final_path)
            ks_error_set(err, "%s: cannot create a temporary file beside it (%s): %s", final_path,
                         s->tmp, strerror(e));
        else
            ks_error_set(err, "cannot create a temporary file in the temporary directory (%s): %s",
                         s->tmp, strerror(e));
        free(dir);
        free(s->tmp);
        s->tmp = NULL;
        ks_afile_abort(s);
        return KS_ERR;
    }
    free(dir);
    if (c != KS_COMPRESS_NONE && c != KS_COMPRESS_AUTO && open_archive(s, c, err) != KS_OK) {
        ks_afile_abort(s);
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

int ks_afile_write(void *ctx, const void *p, size_t n)
{
    ks_afile *s = ctx;
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
        la_ssize_t w = ks_ar.archive_write_data(s->a, q, n);
        if (w <= 0) {
            s->failed = 1;
            snprintf(s->amsg, sizeof s->amsg, "%s", ks_ar.archive_error_string(s->a));
            return -1;
        }
        q += w;
        n -= (size_t)w;
    }
    return 0;
}

int ks_afile_close(ks_afile *s, ks_error *err)
{
    if (s->a) {
        if (ks_ar.archive_write_close(s->a) != ARCHIVE_OK && !s->failed) {
            s->failed = 1;
            snprintf(s->amsg, sizeof s->amsg, "%s", ks_ar.archive_error_string(s->a));
        }
        ks_ar.archive_write_free(s->a);
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

const char *ks_afile_tmp_path(const ks_afile *s)
{
    return s->tmp;
}

static void afile_free(ks_afile *s)
{
    int may_free = live_remove(s);
    if (s->a)
        ks_ar.archive_write_free(s->a);
    if (s->fd >= 0)
        close(s->fd);
    if (!may_free) /* a signal handler may be reading it: the process is about to die */
        return;
    free(s->final);
    free(s->tmp);
    free(s);
}

void ks_afile_abort(ks_afile *s)
{
    if (!s)
        return;
    if (s->tmp && !s->anon)
        unlink(s->tmp);
    afile_free(s); /* an O_TMPFILE file vanishes with its descriptor */
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
            rc = ks_error_set(err, "cannot write standard output: %s", strerror(errno));
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
static int link_anon(ks_afile *s, int force)
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

/* KS_OK when the target is absent or a regular file: a rename or link over a device node, a
 * FIFO or a socket would replace the node itself (as root, --output /dev/null made /dev/null a
 * regular file), and over a directory fails obscurely. Checked again at the last moment, so
 * that no writer can skip ks_afile_check_target's verdict. */
static int target_replaceable(const char *path, ks_error *err)
{
    struct stat so;
    if (lstat(path, &so) != 0)
        return KS_OK;
    if (S_ISLNK(so.st_mode) && stat(path, &so) != 0)
        return KS_OK; /* a dangling link: the link itself is replaced */
    if (S_ISDIR(so.st_mode))
        return ks_error_set(err, "%s: is a directory", path);
    if (!S_ISREG(so.st_mode))
        return ks_error_set(err, "%s: not a regular file (write to standard output instead)", path);
    return KS_OK;
}

/* the process's umask, without umask() (see the top); 022 when /proc does not say */
static mode_t process_umask(void)
{
    FILE *f = fopen("/proc/self/status", "re");
    unsigned m = 022;
    if (f) {
        char line[128];
        while (fgets(line, sizeof line, f))
            if (sscanf(line, "Umask: %o", &m) == 1)
                break;
        fclose(f);
    }
    return (mode_t)(m & 0777);
}

int ks_afile_commit(ks_afile *s, int force, ks_error *err)
{
    int rc = KS_OK;
    /* the file's own descriptor (O_TMPFILE), or one opened on the named file before it is
     * renamed: its mode is set through it once it is in place */
    int mfd = !s->final ? -1 : s->anon ? s->fd : open(s->tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    if (s->final && target_replaceable(s->final, err) != KS_OK) {
        rc = KS_ERR;
        if (!s->anon)
            unlink(s->tmp);
    } else if (s->anon && s->final) {
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
    if (rc == KS_OK && mfd >= 0)
        (void)fchmod(mfd, 0666 & ~process_umask()); /* a failure leaves it 0600: stricter */
    if (mfd >= 0 && !s->anon)
        close(mfd);
    afile_free(s);
    return rc;
}
