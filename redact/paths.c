/* redact/paths.c: absolute paths in strings (docs/redaction.md §2.4).
 *
 * A path starts with '/' (or "C:\", "C:/") after a delimiter and runs to whitespace or one of
 * "'`<>|;,()[]{}*?: - so a Python frame "/home/bob/proj/model.py(88): forward" ends at '(' and
 * a Call stack splits at ';'. Then:
 *   - under a library root (site-packages, dist-packages, lib/pythonX.Y): the package-relative
 *     rest, torch/nn/modules/module.py (rule site-packages);
 *   - a home directory (/home/<u>, /Users/<u>, /root, C:\Users\<u>, /run/user/<uid>) or
 *     /tmp/torchinductor_<u>: the user is learned (hunted everywhere as a literal); the home
 *     directory alone keeps its shape with user-<h> (/home/user-1a2b3c4d);
 *   - any path with a directory part: "<path-<h>>" + separator + base name, so the file name,
 *     line number and function of a frame stay: <path-1a2b3c4d>/model.py(88): forward.
 * Single-component paths (/tmp, /dev) are left alone; so is /root (not a person). */
#include <pthread.h>
#include <string.h>
#include <strings.h>

#include "common/limits.h"
#include "redact/redact_int.h"

#define MAX_COMPONENTS KS_LIMIT_PATH_COMPONENTS

static int is_alpha(unsigned char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int is_sep(unsigned char c)
{
    return c == '/' || c == '\\';
}

/* built once for every thread (two redactions may run on two threads: a check of stop_tab[0]
 * let a second thread use the tables half filled) */
static unsigned char stop_tab[256];
static unsigned char bound_tab[256];
static pthread_once_t tabs_once = PTHREAD_ONCE_INIT;

static void fill_tabs(void)
{
    for (int c = 0; c < 0x21; c++)
        stop_tab[c] = 1;
    stop_tab[0x7f] = 1;
    for (const char *p = "\"'`<>|;,()[]{}*?:"; *p; p++)
        stop_tab[(unsigned char)*p] = 1;
    for (int c = 0; c < 0x21; c++)
        bound_tab[c] = 1;
    for (const char *p = "\"'`([{=:;,|"; *p; p++)
        bound_tab[(unsigned char)*p] = 1;
}

static void init_tabs(void)
{
    pthread_once(&tabs_once, fill_tabs);
}

typedef struct comp {
    size_t s, e; /* offsets in the string */
} comp;

typedef struct path {
    size_t ps, pe;      /* the path */
    size_t root_end;    /* after "/" or "C:\" */
    int windows;
    comp c[MAX_COMPONENTS];
    size_t k;
    int trailing_sep;
} path;

static int eq(const char *in, const comp *c, const char *lit)
{
    size_t l = strlen(lit);
    return c->e - c->s == l && !memcmp(in + c->s, lit, l);
}

static int ieq(const char *in, const comp *c, const char *lit)
{
    size_t l = strlen(lit);
    if (c->e - c->s != l)
        return 0;
    for (size_t i = 0; i < l; i++) {
        unsigned char a = (unsigned char)in[c->s + i];
        if ((a >= 'A' && a <= 'Z' ? a + 32 : a) != (unsigned char)lit[i])
            return 0;
    }
    return 1;
}

/* The user component after "Users\" or "/home/" may hold spaces ("John Smith") when a separator
 * follows; otherwise it ends at the first space. */
static size_t user_comp_end(const char *in, size_t n, size_t s)
{
    size_t e = s;
    while (e < n && !is_sep((unsigned char)in[e]) &&
           (!stop_tab[(unsigned char)in[e]] || in[e] == ' '))
        e++;
    if (e < n && is_sep((unsigned char)in[e]))
        return e;
    size_t sp = s;
    while (sp < e && in[sp] != ' ')
        sp++;
    return sp;
}

/* Split the path starting at ps into components; returns its end. */
static void split(const char *in, size_t n, path *p, int spaced_user)
{
    size_t i = p->root_end;
    p->k = 0;
    p->trailing_sep = 0;
    while (i < n && !stop_tab[(unsigned char)in[i]] && p->k < MAX_COMPONENTS) {
        if (is_sep((unsigned char)in[i])) {
            i++;
            continue;
        }
        size_t s = i;
        static const char docs[] = "documents and settings";
        if (spaced_user && p->k == 1)
            i = user_comp_end(in, n, s);
        else if (p->windows == 1 && p->k == 0 && i + sizeof docs < n &&
                 !strncasecmp(in + i, docs, sizeof docs - 1) && is_sep((unsigned char)in[i + sizeof docs - 1]))
            i += sizeof docs - 1; /* C:\Documents and Settings\<u> (Windows XP) */
        else
            while (i < n && !stop_tab[(unsigned char)in[i]] && !is_sep((unsigned char)in[i]))
                i++;
        p->c[p->k].s = s;
        p->c[p->k].e = i;
        p->k++;
        if (spaced_user && p->k == 1 && !(ieq(in, &p->c[0], "users") || eq(in, &p->c[0], "home") ||
                                          ieq(in, &p->c[0], "documents and settings")))
            spaced_user = 0;
    }
    p->pe = i;
    p->trailing_sep = i > p->root_end && is_sep((unsigned char)in[i - 1]);
}

/* a compiler or linker flag glued to a path: -I/home/bob/include, -L/opt/x, -isystem/usr/x */
static int flag_prefix(const char *in, size_t i)
{
    size_t k = i;
    while (k > 0 && i - k < 32 && is_alpha((unsigned char)in[k - 1]))
        k--;
    if (k == i || k == 0 || in[k - 1] != '-')
        return 0;
    k--;
    while (k > 0 && in[k - 1] == '-')
        k--;
    return k == 0 || bound_tab[(unsigned char)in[k - 1]] || in[k - 1] == ',';
}

/* A path may start at in[i]: at the start, after white space or punctuation (a quote, '>',
 * "2>", '@', '*', "[rank0]", "${HOME:-", a non-breaking space, U+2028, a fullwidth colon), after
 * a flag (-I, -isystem). Not inside a word or a relative path: after a letter or digit of any
 * script, '_', '.', '~', '/' or '\' (a '-' only after punctuation: ":-/home"). */
static int path_bound(const char *in, size_t i)
{
    if (i == 0)
        return 1;
    unsigned char p = (unsigned char)in[i - 1];
    if (p >= 0x80)
        return !ks_rd_word_before(in, i);
    if (is_alpha(p))
        return flag_prefix(in, i);
    if (is_digit(p) || p == '_' || p == '.' || p == '~' || is_sep(p))
        return 0;
    if (p == '-')
        return i == 1 || !(is_alpha((unsigned char)in[i - 2]) || is_digit((unsigned char)in[i - 2]) ||
                           in[i - 2] == '_' || in[i - 2] == '.');
    return 1;
}

/* a home-like root (/home/, /Users/, /root/, /tmp/torchinductor_, /run/user/) starts at in[i]:
 * such a path may also follow a '/' ("//home/bob", "pre//home/bob") */
static int home_root(const char *in, size_t n, size_t i)
{
    static const char *const roots[] = {"/home/", "/Users/", "/root/", "/tmp/torchinductor_",
                                        "/run/user/"};
    for (size_t k = 0; k < sizeof roots / sizeof roots[0]; k++) {
        size_t l = strlen(roots[k]);
        if (i + l < n && !memcmp(in + i, roots[k], l))
            return 1;
    }
    return 0;
}

/* the end of a URL's authority and path: white space, a quote, or a list separator (a path may
 * follow a URL in a comma list: "http://h/x,/home/bob/y") */
static size_t url_end(const char *in, size_t n, size_t e)
{
    while (e < n && (unsigned char)in[e] > ' ' && !strchr("\"'`,;|<>", in[e]))
        e++;
    return e;
}

static int is_file_scheme(const char *in, size_t i) /* "file" ends right before in[i] (':') */
{
    if (i < 4)
        return 0;
    for (size_t k = 0; k < 4; k++)
        if ((in[i - 4 + k] | 0x20) != "file"[k])
            return 0;
    return i == 4 || !is_alpha((unsigned char)in[i - 5]);
}

static int windows_start(const char *in, size_t n, size_t i, path *p);

/* file://[host]/path, file:///C:/x: the path after the authority */
static int file_url(const char *in, size_t n, size_t i, path *p, size_t *skip)
{
    size_t a = i + 2, e = a;
    while (e < n && in[e] != '/' && (unsigned char)in[e] > ' ' && !stop_tab[(unsigned char)in[e]])
        e++;
    if (e >= n || in[e] != '/' || e + 1 >= n || stop_tab[(unsigned char)in[e + 1]]) {
        *skip = url_end(in, n, i);
        return 0;
    }
    if (is_alpha((unsigned char)in[e + 1]) && windows_start(in, n, e + 1, p))
        return 1;
    p->ps = e;
    p->root_end = e + 1;
    p->windows = 0;
    return 1;
}

/* C:\x, C:/x, C:\\x (a Python repr doubles the back-slashes); C:\Documents and Settings\<u> */
static int windows_start(const char *in, size_t n, size_t i, path *p)
{
    if (!(is_alpha((unsigned char)in[i]) && i + 3 < n && in[i + 1] == ':' &&
          is_sep((unsigned char)in[i + 2])))
        return 0;
    size_t r = i + 2;
    while (r < n && is_sep((unsigned char)in[r]))
        r++;
    if (r >= n || stop_tab[(unsigned char)in[r]])
        return 0;
    p->ps = i;
    p->root_end = r;
    p->windows = 1;
    return 1;
}

/* X:\Users\ or X:\Documents and Settings\ (any separators) starts at in[i] */
static int windows_home(const char *in, size_t n, size_t i)
{
    if (!(is_alpha((unsigned char)in[i]) && i + 3 < n && in[i + 1] == ':' &&
          is_sep((unsigned char)in[i + 2])))
        return 0;
    size_t r = i + 2;
    while (r < n && is_sep((unsigned char)in[r]))
        r++;
    static const char *const homes[] = {"users", "documents and settings"};
    for (size_t k = 0; k < 2; k++) {
        size_t l = strlen(homes[k]);
        if (r + l < n && !strncasecmp(in + r, homes[k], l) && is_sep((unsigned char)in[r + l]))
            return 1;
    }
    return 0;
}

/* A path starts at i: sets root_end and returns 1. *skip is set past URLs. */
static int path_start(const char *in, size_t n, size_t i, path *p, size_t *skip)
{
    unsigned char c = (unsigned char)in[i];
    int bound = path_bound(in, i);
    *skip = 0;
    /* the long-path and home prefixes are distinctive: they need only not follow a word */
    int glued = ks_rd_word_before(in, i) || (i > 0 && in[i - 1] == '_');
    if (c == '\\' && !glued && i + 4 < n && in[i + 1] == '\\' && (in[i + 2] == '?' || in[i + 2] == '.') &&
        in[i + 3] == '\\') {
        /* a long path \\?\C:\..., \\.\C:\..., \\?\UNC\server\share\...: the path after the prefix */
        size_t j = i + 4;
        if (j + 4 < n && !memcmp(in + j, "UNC", 3) && is_sep((unsigned char)in[j + 3])) {
            p->ps = i;
            p->root_end = j + 4;
            p->windows = 2;
            return 1;
        }
        if (is_alpha((unsigned char)in[j]) && windows_start(in, n, j, p)) {
            p->ps = i;
            return 1;
        }
        return 0;
    }
    if (c == '\\' && bound && i + 2 < n && in[i + 1] == '\\' && !is_sep((unsigned char)in[i + 2]) &&
        !stop_tab[(unsigned char)in[i + 2]]) {
        /* a UNC path \\server\share\...: the server is a host name */
        p->ps = i;
        p->root_end = i + 2;
        p->windows = 2;
        return 1;
    }
    if (c == '/') {
        if (i + 1 >= n)
            return 0;
        if (!bound && !(home_root(in, n, i) && !ks_rd_word_before(in, i) &&
                        !(i > 0 && (in[i - 1] == '_' || in[i - 1] == '.' || in[i - 1] == '~'))))
            return 0;
        if (in[i + 1] == '/') {
            /* scheme://authority...: not a path; file:///x: the path is /x */
            if (i > 0 && in[i - 1] == ':') {
                if (is_file_scheme(in, i - 1))
                    return file_url(in, n, i, p, skip);
                *skip = url_end(in, n, i);
                return 0;
            }
            /* "//home/bob": a path with its root doubled, when a home-like root follows */
            if (!home_root(in, n, i + 1))
                return 0;
            p->ps = i;
            p->root_end = i + 2;
            p->windows = 0;
            return 1;
        }
        if (stop_tab[(unsigned char)in[i + 1]])
            return 0;
        p->ps = i;
        p->root_end = i + 1;
        p->windows = 0;
        return 1;
    }
    if (is_alpha(c) && (i == 0 || (bound && in[i - 1] != ':') || in[i - 1] == '/' ||
                        (!ks_rd_word_before(in, i) && windows_home(in, n, i))))
        return windows_start(in, n, i, p);
    return 0;
}

static int python_dir(const char *in, const comp *c)
{
    /* python3, python3.10 */
    size_t l = c->e - c->s;
    if (l < 7 || memcmp(in + c->s, "python", 6))
        return 0;
    for (size_t i = c->s + 6; i < c->e; i++)
        if (!is_digit((unsigned char)in[i]) && in[i] != '.')
            return 0;
    return 1;
}

/* index of the last library root component, or -1 */
static long lib_root(const char *in, const path *p)
{
    for (long j = (long)p->k - 1; j >= 0; j--) {
        const comp *c = &p->c[j];
        if (eq(in, c, "site-packages") || eq(in, c, "dist-packages"))
            return j;
    }
    for (long j = (long)p->k - 1; j >= 1; j--)
        if (python_dir(in, &p->c[j]) &&
            (ieq(in, &p->c[j - 1], "lib") || eq(in, &p->c[j - 1], "lib64")))
            return j;
    return -1;
}

/* The user directory of a path: index of the component holding the user (and the offset where
 * the user name starts in it), the rule; -1 when none. */
static long user_dir(const char *in, const path *p, size_t *ustart, int *rule)
{
    *rule = R_HOME_PATH;
    if (p->k < 1)
        return -1;
    const comp *c = p->c;
    if (p->windows == 2) { /* \\server\Users\<u>, \\server\home\<u> */
        if (p->k >= 3 && (ieq(in, &c[1], "users") || ieq(in, &c[1], "home"))) {
            *ustart = c[2].s;
            return 2;
        }
        return -1;
    }
    if (p->windows) {
        if (p->k >= 2 && (ieq(in, &c[0], "users") || ieq(in, &c[0], "documents and settings"))) {
            *ustart = c[1].s;
            return 1;
        }
        return -1;
    }
    if (p->k >= 2 && (eq(in, &c[0], "home") || eq(in, &c[0], "Users"))) {
        *ustart = c[1].s;
        return 1;
    }
    if (eq(in, &c[0], "root")) {
        *ustart = c[0].s;
        return 0;
    }
    if (p->k >= 2 && eq(in, &c[0], "tmp") && c[1].e - c[1].s > 14 &&
        !memcmp(in + c[1].s, "torchinductor_", 14)) {
        *ustart = c[1].s + 14;
        *rule = R_TORCHINDUCTOR;
        return 1;
    }
    if (p->k >= 3 && eq(in, &c[0], "run") && eq(in, &c[1], "user")) {
        *ustart = c[2].s;
        return 2;
    }
    return -1;
}

static int all_digits(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (!is_digit((unsigned char)s[i]))
            return 0;
    return n > 0;
}

/* a file name: an extension after a first character (model.py, libc.so.6), not a directory */
static int file_name(const char *in, const comp *c)
{
    return c->e - c->s >= 3 && memchr(in + c->s + 1, '.', c->e - c->s - 2) != NULL;
}

/* Rewrite one path; returns 1 when it changed (written through w). */
static int rewrite_path(ks_redactor *rd, ks_rd_rw *w, const char *in, path *p)
{
    if (p->k == 0)
        return 0;
    size_t us = 0;
    int urule;
    long uc = user_dir(in, p, &us, &urule);
    const char *user = NULL;
    size_t ulen = 0;
    if (uc >= 0) {
        user = in + us;
        ulen = p->c[uc].e - us;
        if (!ks_rd_is_token(user, ulen) && !all_digits(user, ulen))
            ks_rd_learn(rd, KS_CLS_USER, user, ulen);
    }
    if (p->windows == 2 && !ks_rd_is_token(in + p->c[0].s, p->c[0].e - p->c[0].s))
        ks_rd_learn(rd, KS_CLS_HOST, in + p->c[0].s, p->c[0].e - p->c[0].s);
    long lr = lib_root(in, p);
    if (lr >= 0) {
        size_t from = (size_t)lr + 1 < p->k ? p->c[lr + 1].s : p->c[lr].s;
        ks_buf_put(ks_rd_rw_replace(w, p->ps, p->pe), in + from, p->pe - from);
        ks_rd_hit(rd, R_SITE_PACKAGES, p->pe - p->ps);
        return 1;
    }
    if (uc >= 0 && (size_t)uc + 1 == p->k) {
        /* the home directory itself: keep its shape */
        if (ks_rd_is_token(user, ulen) || (uc == 0 && !p->windows))
            return 0; /* already a token, or /root */
        ks_buf *o = ks_rd_rw_replace(w, p->ps, p->pe);
        ks_buf_put(o, in + p->ps, us - p->ps);
        ks_rd_pseudo_append(rd->pn, KS_CLS_USER, user, ulen, o);
        ks_buf_put(o, in + p->c[uc].e, p->pe - p->c[uc].e);
        ks_rd_hit(rd, urule, p->pe - p->ps);
        return 1;
    }
    if (p->k < 2 && p->windows != 2)
        return 0;
    if (!p->trailing_sep && !file_name(in, &p->c[p->k - 1])) {
        /* /scratch/bob, /mnt/fs/bob, \\server\share: a last component without an extension
         * names a directory (often the user's): the whole path becomes <path-h> */
        ks_buf *o = ks_rd_rw_replace(w, p->ps, p->pe);
        ks_buf_puts(o, "<path-");
        ks_rd_pseudo_append_hex(rd->pn, KS_CLS_PATH, in + p->ps, p->pe - p->ps, o);
        ks_buf_putc(o, '>');
        ks_rd_hit(rd, uc >= 0 ? urule : R_ABS_PATH, p->pe - p->ps);
        return 1;
    }
    if (p->k < 2)
        return 0;
    /* directory part -> <path-h>, the base name stays */
    size_t dir_end, base_s;
    if (p->trailing_sep) {
        dir_end = p->c[p->k - 1].e;
        base_s = p->pe;
    } else {
        base_s = p->c[p->k - 1].s;
        dir_end = base_s - 1;
        while (dir_end > p->ps && is_sep((unsigned char)in[dir_end - 1]))
            dir_end--;
    }
    char sep = p->trailing_sep ? in[p->pe - 1] : in[base_s - 1];
    ks_buf *o = ks_rd_rw_replace(w, p->ps, p->pe);
    ks_buf_puts(o, "<path-");
    ks_rd_pseudo_append_hex(rd->pn, KS_CLS_PATH, in + p->ps, dir_end - p->ps, o);
    ks_buf_putc(o, '>');
    ks_buf_putc(o, sep);
    ks_buf_put(o, in + base_s, p->pe - base_s);
    ks_rd_hit(rd, uc >= 0 ? urule : R_ABS_PATH, p->pe - p->ps);
    return 1;
}

/* A raw Windows path in a JSON file, "C:\Users\bob\new\x.py", decodes with \b and \n as
 * control characters (the writer meant back-slashes). Inside a Windows path (from "X:\" or
 * "\\\\" to the first stop character) a back-space, tab, newline, form feed or carriage return
 * is turned back into the back-slash and letter it was; 1 when anything was. */
static int unescape_windows(const char *in, size_t n, ks_buf *b)
{
    static const char letter[32] = {[8] = 'b', [9] = 't', [10] = 'n', [12] = 'f', [13] = 'r'};
    int changed = 0;
    size_t last = 0;
    for (size_t i = 0; i + 2 < n; i++) {
        int drive = is_alpha((unsigned char)in[i]) && in[i + 1] == ':' && in[i + 2] == '\\' &&
                    (i == 0 || !is_alpha((unsigned char)in[i - 1]));
        int unc = in[i] == '\\' && in[i + 1] == '\\';
        if (!drive && !unc)
            continue;
        size_t j = i + 2;
        for (; j < n; j++) {
            unsigned char c = (unsigned char)in[j];
            if (c < 32 && letter[c]) {
                if (!changed)
                    b->n = 0;
                changed = 1;
                ks_buf_put(b, in + last, j - last);
                ks_buf_putc(b, '\\');
                ks_buf_putc(b, letter[c]);
                last = j + 1;
            } else if (stop_tab[c]) {
                break;
            }
        }
        i = j;
    }
    if (changed)
        ks_buf_put(b, in + last, n - last);
    return changed;
}

int ks_rd_det_paths(ks_redactor *rd, const char *in, size_t n, ks_buf *out)
{
    init_tabs();
    int unescaped = unescape_windows(in, n, &rd->norm);
    if (unescaped) {
        in = rd->norm.p;
        n = rd->norm.n;
    }
    ks_rd_rw w;
    ks_rd_rw_init(&w, out, in, n);
    path *p = ks_xmalloc(sizeof *p);
    size_t i = 0;
    while (i < n) {
        unsigned char c = (unsigned char)in[i];
        if (c != '/' && !(c == ':' && i > 0 && is_alpha((unsigned char)in[i - 1])) &&
            !(c == '\\' && i + 1 < n && in[i + 1] == '\\')) {
            i++;
            continue;
        }
        size_t at = c == ':' ? i - 1 : i, skip;
        if (!path_start(in, n, at, p, &skip)) {
            i = skip > i ? skip : i + 1;
            continue;
        }
        split(in, n, p, 1);
        rewrite_path(rd, &w, in, p);
        i = p->pe > i ? p->pe : i + 1;
    }
    free(p);
    if (unescaped && !w.changed) {
        out->n = 0;
        ks_buf_put(out, in, n);
        return 1;
    }
    return ks_rd_rw_done(&w);
}

void ks_rd_learn_home(ks_redactor *rd, const char *v, size_t n)
{
    init_tabs();
    path *p = ks_xmalloc(sizeof *p);
    size_t skip, us;
    int rule;
    if (n && path_start(v, n, 0, p, &skip)) {
        split(v, n, p, 1);
        long uc = user_dir(v, p, &us, &rule);
        if (uc >= 0 && !all_digits(v + us, p->c[uc].e - us))
            ks_rd_learn(rd, KS_CLS_USER, v + us, p->c[uc].e - us);
    }
    free(p);
}

/* <host>_<pid>.<time>.pt.trace.json[.gz]: the length of <host>, or 0 */
static size_t handler_host(const char *b, size_t n)
{
    static const char suf[] = ".pt.trace.json";
    const char *s = memmem(b, n, suf, sizeof suf - 1);
    if (!s)
        return 0;
    size_t e = (size_t)(s - b); /* end of <time> */
    size_t t = e;
    while (t > 0 && is_digit((unsigned char)b[t - 1]))
        t--;
    if (t == e || t == 0 || b[t - 1] != '.')
        return 0;
    size_t q = t - 1;
    while (q > 0 && is_digit((unsigned char)b[q - 1]))
        q--;
    if (q == t - 1 || q < 2 || b[q - 1] != '_')
        return 0;
    return q - 1;
}

void ks_rd_trace_name(ks_redactor *rd, const char *v, size_t n, ks_buf *out)
{
    size_t b = n;
    while (b > 0 && !is_sep((unsigned char)v[b - 1]))
        b--;
    const char *base = v + b;
    size_t bn = n - b;
    size_t h = handler_host(base, bn);
    if (h && !ks_rd_is_token(base, h)) {
        ks_rd_learn(rd, KS_CLS_HOST, base, h);
        ks_rd_host_token(rd, base, h, out);
        ks_buf_put(out, base + h, bn - h);
    } else {
        ks_buf_put(out, base, bn);
    }
}
