/* source/inputs.c: expansion of command-line inputs. A directory stands for the trace files
 * below it (recursively, sorted, hidden entries skipped): names containing ".json" and tar/zip
 * archives, the way tensorboard_trace_handler and multi-rank jobs leave them. @FILE (when no file
 * is named so literally) stands for the paths listed in FILE, one a line (blank lines and lines
 * starting with # skipped), each expanded like an argument; lists do not nest. A trace name in a
 * directory that cannot be looked at (a dangling symbolic link) is kept, so that reading it fails
 * and names it: a batch lists what it could not read rather than leaving it out silently. */
#include <dirent.h>
#include <stdio.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "common/limits.h"
#include "common/util.h"
#include "kinesift/source.h"

typedef struct list {
    char **v;
    size_t n, cap;
} list;

static int looks_like_trace(const char *name)
{
    static const char *const arch[] = {".tar", ".tar.gz", ".tgz", ".tar.zst", ".tar.xz",
                                       ".tar.bz2", ".zip"};
    if (strstr(name, ".json"))
        return 1;
    for (size_t i = 0; i < sizeof arch / sizeof arch[0]; i++)
        if (ks_ends_with(name, arch[i]))
            return 1;
    return 0;
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the directories from the root of a walk down to the one being read: a symbolic link back to one
 * of them is a loop */
typedef struct walk_ctx {
    dev_t dev[KS_LIMIT_DIR_DEPTH + 2];
    ino_t ino[KS_LIMIT_DIR_DEPTH + 2];
    ks_inputs_notice_fn notice;
    void *notice_ctx;
} walk_ctx;

static int walk(const char *dir, list *out, int depth, walk_ctx *w, ks_error *err)
{
    if (depth > KS_LIMIT_DIR_DEPTH)
        return ks_error_set(err, "%s: directories nested too deep", dir);
    struct stat self;
    if (stat(dir, &self) == 0) {
        for (int i = 0; i < depth; i++)
            if (w->dev[i] == self.st_dev && w->ino[i] == self.st_ino) {
                if (w->notice) {
                    char *m = ks_xasprintf("%s: skipped: a symbolic link loop (it is a directory above it)", dir);
                    w->notice(w->notice_ctx, m);
                    free(m);
                }
                return KS_OK;
            }
        w->dev[depth] = self.st_dev;
        w->ino[depth] = self.st_ino;
    }
    DIR *d = opendir(dir);
    if (!d)
        return ks_error_set(err, "%s: %s", dir, strerror(errno));
    list names = {0};
    struct dirent *de;
    while ((de = readdir(d)))
        if (de->d_name[0] != '.')
            KS_PUSH(names.v, names.n, names.cap, ks_xasprintf("%s/%s", dir, de->d_name));
    closedir(d);
    if (names.n > 1)
        qsort(names.v, names.n, sizeof *names.v, cmp_str);
    int rc = KS_OK;
    for (size_t i = 0; i < names.n; i++) {
        struct stat sb;
        char *p = names.v[i];
        int st = rc == KS_OK ? stat(p, &sb) : 0;
        if (rc == KS_OK && st != 0 && errno == ELOOP && w->notice) {
            char *m = ks_xasprintf("%s: skipped: a symbolic link loop", p);
            w->notice(w->notice_ctx, m);
            free(m);
        } else if (rc == KS_OK && st != 0 && errno != ELOOP && looks_like_trace(strrchr(p, '/') + 1)) {
            /* a trace name that cannot be looked at (a dangling link, no permission on it): kept, so
             * that reading it names it in the errors instead of it silently missing from a batch */
            KS_PUSH(out->v, out->n, out->cap, p);
            continue;
        } else if (rc == KS_OK && st == 0) {
            if (S_ISDIR(sb.st_mode))
                rc = walk(p, out, depth + 1, w, err);
            else if (S_ISREG(sb.st_mode) && looks_like_trace(strrchr(p, '/') + 1)) {
                KS_PUSH(out->v, out->n, out->cap, p);
                continue;
            }
        }
        free(p);
    }
    free(names.v);
    return rc;
}

static int expand_one(const char *path, list *l, int in_list, walk_ctx *w, ks_error *err);

/* the paths of list file name (after the @), each expanded */
static int expand_list(const char *name, list *l, walk_ctx *w, ks_error *err)
{
    FILE *f = fopen(name, "r");
    if (!f)
        return ks_error_set(err, "@%s: %s", name, strerror(errno));
    /* a line is at most a path long, the list at most KS_LIMIT_LIST_BYTES (/dev/zero, an
     * endless pipe: an error, never unbounded memory); a NUL byte would cut the path silently */
    char line[4097];
    size_t before = l->n, total = 0, lineno = 0, len = 0;
    int rc = KS_OK, c = 0;
    while (rc == KS_OK && c != EOF) {
        len = 0;
        lineno++;
        while ((c = getc(f)) != EOF && c != '\n') {
            if (++total > KS_LIMIT_LIST_BYTES) {
                rc = ks_error_set(err, "@%s: larger than %u MiB: not a list of paths", name, KS_LIMIT_LIST_BYTES >> 20);
                break;
            }
            if (c == 0) {
                rc = ks_error_set(err, "@%s: line %zu: NUL byte: not a list of paths", name, lineno);
                break;
            }
            if (len + 1 >= sizeof line) {
                rc = ks_error_set(err, "@%s: line %zu: longer than %zu bytes: not a path", name, lineno,
                                  sizeof line - 1);
                break;
            }
            line[len++] = (char)c;
        }
        if (rc != KS_OK)
            break;
        total++; /* the newline */
        line[len] = 0;
        while (len > 0 && (line[len - 1] == '\r' || line[len - 1] == ' '))
            line[--len] = 0;
        if (len && line[0] != '#')
            rc = expand_one(line, l, 1, w, err);
    }
    if (rc == KS_OK && ferror(f))
        rc = ks_error_set(err, "@%s: %s", name, strerror(errno));
    fclose(f);
    if (rc == KS_OK && l->n == before)
        return ks_error_set(err, "@%s: the list names no trace", name);
    return rc;
}

static int expand_one(const char *path, list *l, int in_list, walk_ctx *w, ks_error *err)
{
    struct stat sb;
    if (!in_list && path[0] == '@' && path[1] && stat(path, &sb) != 0)
        return expand_list(path + 1, l, w, err);
    if (strcmp(path, "-") && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
        size_t before = l->n;
        char *dir = ks_xstrdup(path);
        size_t dl = strlen(dir);
        while (dl > 1 && dir[dl - 1] == '/')
            dir[--dl] = 0;
        int rc = walk(dir, l, 0, w, err);
        free(dir);
        if (rc != KS_OK)
            return KS_ERR;
        if (l->n == before)
            return ks_error_set(err, "%s: directory holds no trace (*.json*, .tar, .zip)", path);
    } else {
        KS_PUSH(l->v, l->n, l->cap, ks_xstrdup(path));
    }
    return KS_OK;
}

int ks_inputs_expand(char *const *paths, size_t npaths, char ***out, size_t *nout, ks_error *err)
{
    return ks_inputs_expand_report(paths, npaths, out, nout, NULL, NULL, err);
}

int ks_inputs_expand_report(char *const *paths, size_t npaths, char ***out, size_t *nout,
                            ks_inputs_notice_fn notice, void *ctx, ks_error *err)
{
    walk_ctx w;
    memset(&w, 0, sizeof w);
    w.notice = notice;
    w.notice_ctx = ctx;
    list l = {0};
    *out = NULL;
    *nout = 0;
    for (size_t i = 0; i < npaths; i++) {
        if (expand_one(paths[i], &l, 0, &w, err) != KS_OK) {
            ks_inputs_free(l.v, l.n);
            return KS_ERR;
        }
    }
    KS_PUSH(l.v, l.n, l.cap, NULL);
    l.n--;
    *out = l.v;
    *nout = l.n;
    return KS_OK;
}

void ks_inputs_free(char **v, size_t n)
{
    if (!v)
        return;
    for (size_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}
