/* report/gate_output.c: output files of diff and gate (--json, --junit, --markdown, diff
 * --output), for writers that print to a FILE *. A thin layer over the library's one atomic
 * output file (common/afile.h): ks_outfile_open opens a ks_afile for the target and a stdio
 * stream whose writes go to it (fopencookie), commit flushes and closes the stream, then closes
 * and puts the file in place over the target; abort removes it. So everything afile.h promises
 * holds here too: a reader never sees a half-written report nor the old content mixed with new,
 * a failed run leaves the target as it was; the file gets the usual permissions of a new file
 * (0666 less the umask, applied by the kernel: no umask() call); the temporary file has no name
 * at all where O_TMPFILE works, else it is in the registry that the signal cleanup walks
 * (ks_afile_cleanup_on_signals). The target is replaced (force): the callers refuse an output that
 * names an input, the budget or another output before anything is read (cli/, ks_same_file).
 * Public (<kinesift/report.h>): the command's diff and gate writers use it (cli/cmd_diff.c,
 * cli/cmd_gate.c). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/afile.h"
#include "common/util.h"
#include "kinesift/report.h"

/* the stream's writes: all of buf to the temporary file, or 0 (stdio's "error") */
static ssize_t afile_cookie_write(void *cookie, const char *buf, size_t n)
{
    return ks_afile_write(cookie, buf, n) == 0 ? (ssize_t)n : 0;
}

struct ks_outfile {
    char *path;
    FILE *f;     /* writes go to af through afile_cookie_write */
    ks_afile *af;
};

int ks_outfile_open(ks_outfile **out, const char *path, ks_error *err)
{
    *out = NULL;
    /* a directory or a device node is refused before any work (and again at the commit) */
    if (ks_afile_check_target(path, 1, NULL, NULL, 0, err) != KS_OK)
        return KS_ERR;
    ks_afile *af;
    if (ks_afile_open(path, KS_COMPRESS_NONE, &af, err) != KS_OK)
        return KS_ERR;
    cookie_io_functions_t io = {.write = afile_cookie_write};
    FILE *f = fopencookie(af, "w", io);
    if (!f) {
        int e = errno;
        ks_afile_abort(af);
        return ks_error_set(err, "%s: %s", path, strerror(e));
    }
    ks_outfile *o = ks_xcalloc(1, sizeof *o);
    o->path = ks_xstrdup(path);
    o->f = f;
    o->af = af;
    *out = o;
    return KS_OK;
}

FILE *ks_outfile_stream(ks_outfile *o)
{
    return o->f;
}

static void release(ks_outfile *o)
{
    free(o->path);
    free(o);
}

void ks_outfile_abort(ks_outfile *o)
{
    if (!o)
        return;
    if (o->f)
        fclose(o->f);
    ks_afile_abort(o->af);
    release(o);
}

int ks_outfile_commit(ks_outfile *o, ks_error *err)
{
    int bad = ferror(o->f) != 0;
    if (fclose(o->f) != 0) /* flushes the last writes to the temporary file */
        bad = 1;
    o->f = NULL;
    ks_error cerr;
    int rc = ks_afile_close(o->af, &cerr); /* names a failed write's cause when there was one */
    if (rc != KS_OK || bad) {
        if (rc != KS_OK)
            ks_error_set(err, "%s", cerr.msg);
        else
            ks_error_set(err, "%s: cannot write", o->path);
        ks_afile_abort(o->af);
        release(o);
        return KS_ERR;
    }
    rc = ks_afile_commit(o->af, 1, err);
    release(o);
    return rc;
}

int ks_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
