/* report/gate_output.c: output files of diff and gate (--json, --junit, --markdown) are written
 * to a temporary file next to the target and renamed over it only when complete, so an
 * interrupted or failed run never leaves a half-written report, and never the target's old
 * content mixed with new. The mode follows the umask like a plain fopen(): the file is created
 * by common/afile.h's ks_afile_mktemp with mode 0666, which the kernel masks (no umask()). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/afile.h"
#include "common/util.h"
#include "kinesift/compare.h"
#include "report/report_int.h"

int ks_outfile_open(ks_outfile *o, const char *path, ks_error *err)
{
    memset(o, 0, sizeof *o);
    const char *slash = strrchr(path, '/');
    char *prefix = slash ? ks_xasprintf("%.*s/.%s.", (int)(slash - path), path, slash + 1)
                         : ks_xasprintf(".%s.", path);
    int fd = ks_afile_mktemp(prefix, 0666, &o->tmp);
    free(prefix);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        return ks_error_set(err, "%s: cannot create a file in its directory: %s", path, strerror(e));
    }
    if (!(o->f = fdopen(fd, "w"))) {
        int e = errno;
        close(fd);
        unlink(o->tmp);
        free(o->tmp);
        o->tmp = NULL;
        return ks_error_set(err, "%s: %s", path, strerror(e));
    }
    o->path = ks_xstrdup(path);
    return KS_OK;
}

static void release(ks_outfile *o)
{
    free(o->path);
    free(o->tmp);
    memset(o, 0, sizeof *o);
}

void ks_outfile_abort(ks_outfile *o)
{
    if (!o->tmp)
        return;
    if (o->f)
        fclose(o->f);
    unlink(o->tmp);
    release(o);
}

int ks_outfile_commit(ks_outfile *o, ks_error *err)
{
    int bad = ferror(o->f) || fflush(o->f) != 0 || fsync(fileno(o->f)) != 0;
    int e = errno;
    if (fclose(o->f) != 0 && !bad) {
        bad = 1;
        e = errno;
    }
    o->f = NULL;
    if (!bad && rename(o->tmp, o->path) != 0) {
        bad = 1;
        e = errno;
    }
    if (bad) {
        ks_error_set(err, "%s: cannot write: %s", o->path, strerror(e));
        unlink(o->tmp);
        release(o);
        return KS_ERR;
    }
    release(o);
    return KS_OK;
}

int ks_same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    if (stat(a, &sa) != 0 || stat(b, &sb) != 0)
        return 0;
    return sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}
