/* cli/options.c: the parser of the option tables (cli/options.h says what, why and who). */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/options.h"

#define MAX_OPTIONS 96
#define LONG_BASE 256 /* getopt values of the long names: LONG_BASE + entry index */

/* the table with nested tables flattened, in order */
typedef struct flat {
    const ks_option *v[MAX_OPTIONS];
    size_t n;
} flat;

static void flatten(const ks_option *tab, flat *f)
{
    for (; tab->type != KS_OPT_TYPE_END; tab++) {
        if (tab->type == KS_OPT_TYPE_TABLE)
            flatten(tab->target, f);
        else if (f->n < MAX_OPTIONS)
            f->v[f->n++] = tab;
        else
            abort(); /* a table larger than MAX_OPTIONS is a programming error */
    }
}

static const ks_option *by_name(const flat *f, const char *name)
{
    for (size_t i = 0; i < f->n; i++)
        if (f->v[i]->type != KS_OPT_TYPE_ALIAS && !strcmp(f->v[i]->name, name))
            return f->v[i];
    return NULL;
}

/* the entry that does the work: an alias' target */
static const ks_option *resolve(const flat *f, const ks_option *o)
{
    const ks_option *t = o->type == KS_OPT_TYPE_ALIAS ? by_name(f, o->alias_of) : o;
    if (!t)
        abort(); /* an alias of nothing is a programming error */
    return t;
}

static int takes_arg(const ks_option *o)
{
    return o->type == KS_OPT_TYPE_STRING || o->type == KS_OPT_TYPE_COUNT || o->type == KS_OPT_TYPE_CHOICE ||
           o->type == KS_OPT_TYPE_CALL;
}

/* "a, b or c" */
static void choice_list(const char *const *c, char *out, size_t n)
{
    size_t k = 0, len = 0;
    while (c[k])
        k++;
    out[0] = 0;
    for (size_t i = 0; i < k; i++)
        len += (size_t)snprintf(out + len, len < n ? n - len : 0, "%s%s", i == 0 ? "" : i + 1 == k ? " or " : ", ",
                                c[i]);
}

/* store the value of option o (spelled `spelled`); 0 or an exit status */
static int store(const char *cmd, const ks_option *o, const char *spelled, const char *arg)
{
    switch (o->type) {
    case KS_OPT_TYPE_FLAG: *(int *)o->target = 1; return 0;
    case KS_OPT_TYPE_STRING: *(const char **)o->target = arg; return 0;
    case KS_OPT_TYPE_COUNT: {
        char *end;
        long v = strtol(arg, &end, 10);
        if (end == arg || *end || v < 0)
            return ks_cli_usage(cmd, "%s needs a number >= 0, not '%s'", spelled, arg);
        *(long *)o->target = v;
        return 0;
    }
    case KS_OPT_TYPE_CHOICE: {
        int k = ks_cli_choice(arg, o->choices);
        if (k < 0) {
            char list[256];
            choice_list(o->choices, list, sizeof list);
            return ks_cli_usage(cmd, "unknown %s '%s' (%s)", o->what, arg, list);
        }
        *(int *)o->target = k;
        return 0;
    }
    case KS_OPT_TYPE_CALL:
    case KS_OPT_TYPE_CALL_FLAG: return o->call(o->ctx, cmd, o->key, arg);
    default: abort();
    }
}

void ks_opt_list(const ks_option *tab)
{
    flat f = {0};
    flatten(tab, &f);
    for (size_t i = 0; i < f.n; i++) {
        printf("--%s\n", f.v[i]->name);
        if (f.v[i]->short_name)
            printf("-%c\n", f.v[i]->short_name);
    }
}

/* the one-line error of a getopt failure (opterr is off) */
static int getopt_error(const char *cmd, const flat *f, int r, char **argv)
{
    const char *bad = argv[optind - 1];
    if (optopt >= LONG_BASE && (size_t)(optopt - LONG_BASE) < f->n) {
        const ks_option *o = f->v[optopt - LONG_BASE];
        if (r == ':')
            return ks_cli_usage(cmd, "option '--%s' needs an argument", o->name);
        return ks_cli_usage(cmd, "option '--%s' takes no argument", o->name);
    }
    if (optopt > 0) {
        if (r == ':')
            return ks_cli_usage(cmd, "option '-%c' needs an argument", optopt);
        return ks_cli_usage(cmd, "unknown option '-%c'", optopt);
    }
    /* an unknown long option: its name without any =value */
    size_t len = strcspn(bad, "=");
    return ks_cli_usage(cmd, "unknown option '%.*s'", (int)len, bad);
}

int ks_opt_parse(const char *cmd, const ks_option *tab, int argc, char **argv, int *first)
{
    flat f = {0};
    flatten(tab, &f);
    struct option longopts[MAX_OPTIONS + 2];
    char shorts[2 * MAX_OPTIONS + 2] = ":";
    size_t ns = 1;
    for (size_t i = 0; i < f.n; i++) {
        const ks_option *t = resolve(&f, f.v[i]);
        longopts[i] = (struct option){f.v[i]->name, takes_arg(t) ? required_argument : no_argument, NULL,
                                      (int)(LONG_BASE + i)};
        if (f.v[i]->short_name) {
            shorts[ns++] = f.v[i]->short_name;
            if (takes_arg(t))
                shorts[ns++] = ':';
        }
    }
    shorts[ns] = 0;
    longopts[f.n] = (struct option){"list-options", no_argument, NULL, LONG_BASE + MAX_OPTIONS};
    longopts[f.n + 1] = (struct option){NULL, 0, NULL, 0};
    optind = 1;
    opterr = 0;
    int r;
    while ((r = getopt_long(argc, argv, shorts, longopts, NULL)) != -1) {
        if (r == ':' || r == '?')
            return getopt_error(cmd, &f, r, argv);
        if (r == LONG_BASE + MAX_OPTIONS) {
            ks_opt_list(tab);
            return KS_OPT_LISTED;
        }
        const ks_option *o = NULL;
        if (r >= LONG_BASE)
            o = f.v[r - LONG_BASE];
        for (size_t i = 0; !o && i < f.n; i++)
            if (f.v[i]->short_name == r)
                o = f.v[i];
        if (!o)
            abort(); /* getopt returned a value the table did not give it */
        char spelled[80];
        snprintf(spelled, sizeof spelled, "--%s", o->name);
        const ks_option *t = resolve(&f, o);
        int rc = store(cmd, t, spelled, optarg);
        if (rc)
            return rc;
        if (t->given)
            *t->given = t->name;
    }
    *first = optind;
    return 0;
}
