/* common/lazylib.c: libarchive, libcrypto, ISA-L and PCRE2 loaded at their first use (see
 * common/lazylib.h for why and who may use it). One loader for all four: dlopen by the SONAME the
 * build found (then the conventional ones), every name looked up, the outcome kept for the life of
 * the process. */
#include "common/lazylib.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "ks_config.h"

#ifndef KS_ARCHIVE_SONAME
#define KS_ARCHIVE_SONAME "libarchive.so.13"
#endif
#ifndef KS_CRYPTO_SONAME
#define KS_CRYPTO_SONAME "libcrypto.so.3"
#endif
#ifndef KS_ISAL_SONAME
#define KS_ISAL_SONAME "libisal.so.2"
#endif
#ifndef KS_PCRE2_SONAME
#define KS_PCRE2_SONAME "libpcre2-8.so.0"
#endif
#ifdef KS_LAZYLIB_TEST_ARCHIVE /* tests/cli/test_lazylib.c: what a failed load says */
#define ARCHIVE_SONAMES {KS_LAZYLIB_TEST_ARCHIVE, NULL, NULL}
#define CRYPTO_SONAMES {KS_LAZYLIB_TEST_CRYPTO, NULL, NULL}
#define ISAL_SONAMES {KS_LAZYLIB_TEST_ISAL, NULL, NULL}
#define PCRE2_SONAMES {KS_LAZYLIB_TEST_PCRE2, NULL, NULL}
#else
#define ARCHIVE_SONAMES {KS_ARCHIVE_SONAME, "libarchive.so.13", NULL}
#define CRYPTO_SONAMES {KS_CRYPTO_SONAME, "libcrypto.so.3", NULL}
#define ISAL_SONAMES {KS_ISAL_SONAME, "libisal.so.2", NULL}
#define PCRE2_SONAMES {KS_PCRE2_SONAME, "libpcre2-8.so.0", NULL}
#endif

ks_archive_fns ks_ar;
ks_crypto_fns ks_crypto;
ks_isal_fns ks_isal;
ks_pcre2_fns ks_pcre2;

typedef struct lazylib {
    const char *what;           /* for messages */
    const char *use;            /* what needs it, for messages */
    const char *sonames[3];     /* tried in order; NULL ends */
    const char *const *names;   /* n function names */
    const size_t *offsets;      /* where each goes in table */
    size_t n;
    void *table;
    pthread_mutex_t lock;
    _Atomic int state;          /* 0 not tried, 1 loaded, -1 failed (reason kept) */
    char reason[400];
} lazylib;

/* One library's table: its function names, where each pointer goes in its struct (the names
 * checked to be one per pointer), and its loader state. */
#define KS_LAZY_NAME(f) #f,
#define LAZYLIB(var, fns, FUNCTIONS, table, what, use, sonames)                                    \
    static const char *const var##_names[] = {FUNCTIONS(KS_LAZY_NAME)};                            \
    static const size_t var##_offsets[] = {FUNCTIONS(var##_OFFSET)};                               \
    _Static_assert(sizeof var##_names / sizeof *var##_names ==                                     \
                       sizeof(fns) / sizeof(void (*)(void)),                                       \
                   "one name per pointer of " #fns);                                               \
    static lazylib var = {what, use, sonames, var##_names, var##_offsets,                          \
                          sizeof var##_names / sizeof *var##_names, &table,                        \
                          PTHREAD_MUTEX_INITIALIZER, 0, ""}

#define archive_lib_OFFSET(f) offsetof(ks_archive_fns, f),
#define crypto_lib_OFFSET(f) offsetof(ks_crypto_fns, f),
#define isal_lib_OFFSET(f) offsetof(ks_isal_fns, f),
#define pcre2_lib_OFFSET(f) offsetof(ks_pcre2_fns, f),
LAZYLIB(archive_lib, ks_archive_fns, KS_ARCHIVE_FUNCTIONS, ks_ar, "libarchive",
        "it reads standard input, archives and codecs other than gzip, and writes compressed output",
        ARCHIVE_SONAMES);
LAZYLIB(crypto_lib, ks_crypto_fns, KS_CRYPTO_FUNCTIONS, ks_crypto, "OpenSSL's libcrypto",
        "it computes redact's HMAC-SHA256 pseudonyms", CRYPTO_SONAMES);
LAZYLIB(isal_lib, ks_isal_fns, KS_ISAL_FUNCTIONS, ks_isal, "ISA-L", "it decodes gzip input",
        ISAL_SONAMES);
LAZYLIB(pcre2_lib, ks_pcre2_fns, KS_PCRE2_FUNCTIONS, ks_pcre2, "PCRE2",
        "it matches regular expressions (redact's rules, regex options, the gaps' data-loading names)",
        PCRE2_SONAMES);

static void *open_any(lazylib *l, const char **name, char *why, size_t n)
{
    why[0] = 0;
    for (int i = 0; i < 3 && l->sonames[i]; i++) {
        if (i && !strcmp(l->sonames[i], l->sonames[0]))
            continue;
        void *h = dlopen(l->sonames[i], RTLD_NOW | RTLD_LOCAL);
        *name = l->sonames[i];
        if (h)
            return h;
        if (!why[0]) {
            const char *e = dlerror();
            snprintf(why, n, "%s", e ? e : l->sonames[i]);
        }
    }
    return NULL;
}

/* under l->lock: 1 loaded, -1 failed (l->reason set) */
static int load_locked(lazylib *l)
{
    char why[256];
    const char *name;
    void *h = open_any(l, &name, why, sizeof why);
    if (!h) {
        snprintf(l->reason, sizeof l->reason, "cannot load %s (%s): %s", l->what, why, l->use);
        return -1;
    }
    for (size_t i = 0; i < l->n; i++) {
        void *f = dlsym(h, l->names[i]);
        if (!f) {
            snprintf(l->reason, sizeof l->reason, "cannot load %s: %s lacks %s (%s)", l->what, name,
                     l->names[i], l->use);
            memset(l->table, 0, l->n * sizeof(void (*)(void)));
            dlclose(h);
            return -1;
        }
        /* a data pointer to a function pointer: POSIX guarantees dlsym's result converts */
        memcpy((char *)l->table + l->offsets[i], &f, sizeof f);
    }
    return 1; /* never closed: the functions stay in use until the process exits */
}

static int load(lazylib *l, ks_error *err)
{
    int s = atomic_load_explicit(&l->state, memory_order_acquire);
    if (!s) {
        pthread_mutex_lock(&l->lock);
        s = atomic_load_explicit(&l->state, memory_order_relaxed);
        if (!s) {
            s = load_locked(l);
            atomic_store_explicit(&l->state, s, memory_order_release);
        }
        pthread_mutex_unlock(&l->lock);
    }
    return s > 0 ? KS_OK : ks_error_set(err, "%s", l->reason);
}

int ks_archive_load(ks_error *err)
{
    return load(&archive_lib, err);
}

int ks_crypto_load(ks_error *err)
{
    return load(&crypto_lib, err);
}

int ks_isal_load(ks_error *err)
{
    return load(&isal_lib, err);
}

int ks_pcre2_load(ks_error *err)
{
    return load(&pcre2_lib, err);
}
