/* redact/psl.c: the top-level domains of the public-suffix list, for the host-name rule (fqdn,
 * redact/net.c, docs/redaction.md "Host names").
 *
 * What it is: the set of last labels of every rule of Mozilla's public-suffix list as Debian's
 * `publicsuffix` package ships it (/usr/share/publicsuffix/public_suffix_list.dat; the path can be
 * replaced with $KINESIFT_PSL), read once per process, lowercased, sorted, looked up by binary
 * search. A dotted name's suffix is a public suffix when its last label is one of them: every
 * rule of the list ends in a TLD that is itself listed, so the last label decides whether the
 * name ends in a public suffix at all; which suffix (co.uk or uk) does not matter to the rule.
 *
 * When it does not apply: the list says nothing about names that are file names or Python
 * module paths (py, so, sh, pt, data, run, app are suffixes), which is net.c's business; and it
 * does not hold the private-use names (local, internal, lan, ...) that net.c adds.
 *
 * Fail closed: when the file cannot be read, every alphabetic last label counts as a suffix (so
 * more names are treated as hosts, none fewer) and kinesift says so once on standard error.
 *
 * Who may use it: redact/net.c. Thread-safe (pthread_once). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <strings.h>

#include "redact/redact_int.h"

#define PSL_DEFAULT "/usr/share/publicsuffix/public_suffix_list.dat"
#define LABEL_MAX 63

static char **tld;
static size_t ntld;
static int missing;
static pthread_once_t once = PTHREAD_ONCE_INIT;

static int cmp(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* the last label of a rule line ("// comment", "*.ck", "!www.ck", "co.uk"), lowercased, ASCII
 * only (a Unicode label can never equal an LDH label); NULL when there is none */
static char *rule_tld(char *line)
{
    size_t n = strcspn(line, " \t\r\n");
    line[n] = 0;
    if (!n || (line[0] == '/' && line[1] == '/'))
        return NULL;
    char *dot = strrchr(line, '.');
    char *l = dot ? dot + 1 : line + (line[0] == '!');
    size_t ln = strlen(l);
    if (!ln || ln > LABEL_MAX)
        return NULL;
    for (size_t i = 0; i < ln; i++) {
        unsigned char c = (unsigned char)l[i];
        if (c >= 0x80 || c == '*')
            return NULL;
        if (c >= 'A' && c <= 'Z')
            l[i] = (char)(c + 32);
    }
    return l;
}

static void load(void)
{
    const char *path = getenv("KINESIFT_PSL");
    if (!path || !*path)
        path = PSL_DEFAULT;
    FILE *f = fopen(path, "r");
    size_t cap = 0;
    if (f) {
        char line[512];
        while (fgets(line, sizeof line, f)) {
            char *l = rule_tld(line);
            if (l)
                KS_PUSH(tld, ntld, cap, ks_xstrdup(l));
        }
        if (ferror(f))
            ntld = 0;
        fclose(f);
    }
    if (!ntld) {
        missing = 1;
        fprintf(stderr, "kinesift: warning: cannot read the public-suffix list %s (Debian package "
                        "publicsuffix): dotted names of 3 or more labels are taken for host names "
                        "unless they are file names or in a Python frame\n", path);
        return;
    }
    qsort(tld, ntld, sizeof *tld, cmp);
    size_t k = 0;
    for (size_t i = 0; i < ntld; i++) {
        if (k && !strcmp(tld[k - 1], tld[i]))
            free(tld[i]);
        else
            tld[k++] = tld[i];
    }
    ntld = k;
}

int ks_rd_psl_tld(const char *s, size_t n)
{
    pthread_once(&once, load);
    if (!n || n > LABEL_MAX)
        return 0;
    char key[LABEL_MAX + 1];
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        key[i] = (char)((c >= 'A' && c <= 'Z') ? c + 32 : c);
    }
    key[n] = 0;
    if (missing) { /* fail closed: any alphabetic label */
        for (size_t i = 0; i < n; i++)
            if (!(key[i] >= 'a' && key[i] <= 'z'))
                return 0;
        return 1;
    }
    size_t lo = 0, hi = ntld;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(tld[mid], key);
        if (!c)
            return 1;
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    return 0;
}
