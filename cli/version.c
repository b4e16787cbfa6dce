/* cli/version.c: `kinesift --version`: kinesift's version, then for each library it links (yajl,
 * libarchive, OpenSSL's libcrypto, PCRE2) the version running now (asked of the library; the two
 * loaded at first use are loaded here, or the reason they cannot be is printed) and the
 * version of the headers it was built with (their macros), and whether the CUDA part of validate
 * is compiled in. Both versions are printed because a shared library can be upgraded under the
 * binary; a bug report then says which one was in use. Used by cli/main.c only. */
#include <stdio.h>

#define PCRE2_CODE_UNIT_WIDTH 8
#include <openssl/opensslv.h>
#include <pcre2.h>
#include <yajl/yajl_version.h>

#include "cli/cli.h"
#include "common/lazylib.h"
#include "kinesift/common.h"
#include "kinesift/validate.h"

#define KS_STR_(x) #x
#define KS_STR(x) KS_STR_(x)

void ks_cli_version(FILE *out)
{
    int y = yajl_version();
    fprintf(out, "kinesift %s\n", ks_version());
    fprintf(out, "yajl %d.%d.%d (built with %d.%d.%d)\n", y / 10000, y / 100 % 100, y % 100,
            YAJL_MAJOR, YAJL_MINOR, YAJL_MICRO);
    ks_error e;
    /* loaded at first use (common/lazylib.h): here, to ask them */
    if (ks_archive_load(&e) == KS_OK)
        fprintf(out, "%s (built with %s)\n", ks_ar.archive_version_details(), ARCHIVE_VERSION_ONLY_STRING);
    else
        fprintf(out, "libarchive: %s (built with %s)\n", e.msg, ARCHIVE_VERSION_ONLY_STRING);
    if (ks_crypto_load(&e) == KS_OK)
        fprintf(out, "%s (built with %s)\n", ks_crypto.OpenSSL_version(OPENSSL_VERSION), OPENSSL_VERSION_TEXT);
    else
        fprintf(out, "OpenSSL: %s (built with %s)\n", e.msg, OPENSSL_VERSION_TEXT);
    char pcre[64] = "unknown";
    if (ks_pcre2_load(&e) == KS_OK) {
        if (ks_pcre2.pcre2_config_8(PCRE2_CONFIG_VERSION, NULL) <= (int)sizeof pcre)
            ks_pcre2.pcre2_config_8(PCRE2_CONFIG_VERSION, pcre);
        fprintf(out, "PCRE2 %s (built with %d.%d %s)\n", pcre, PCRE2_MAJOR, PCRE2_MINOR,
                KS_STR(PCRE2_DATE));
    } else {
        fprintf(out, "PCRE2: %s (built with %d.%d %s)\n", e.msg, PCRE2_MAJOR, PCRE2_MINOR,
                KS_STR(PCRE2_DATE));
    }
    if (ks_cuda_built())
        fprintf(out, "CUDA: compiled in (validate's built-in GPU workloads)\n");
    else
        fprintf(out, "CUDA: not compiled in (validate's built-in GPU workloads exit 77; external "
                     "commands work)\n");
}
