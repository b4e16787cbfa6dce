/* common/lazylib.h: libarchive, OpenSSL's libcrypto, ISA-L and PCRE2, loaded at their first use
 * (dlopen) rather than at every start of the program.
 *
 * Why: linked, each costs every run its load before main() (measured on an empty program linked
 * with each, 300 runs: libarchive +3.1 ms, it brings libxml2, ICU, libstdc++ and seven codecs;
 * libcrypto +1.7 ms, a tenth of a 12 MB analysis; ISA-L +0.12 ms, a fortieth of a 1 MB one; PCRE2
 * +0.07 ms). The common run needs few of them: a plain trace is read by source/ itself (read(2)),
 * a gzip one with ISA-L, only redact hashes, and a regular expression is compiled by redact's
 * rules, a regex option, and the gaps of a trace with GPU work (which names are data loading). An
 * archive, another codec, a compressed output and `--version` load libarchive; redaction and
 * `--version` libcrypto; a gzip input ISA-L; the first regular expression and `--version` PCRE2.
 *
 * Why it is correct: each table is the library's own declarations (the installed headers, each
 * pointer of the type `__typeof__` gives the declared function), so a call through it is checked
 * by the compiler as a direct call is; the library is found by the SONAME of the one the build
 * was configured against (meson reads it), so the ABI is the one the headers describe. Every
 * name must resolve or the load fails as a whole, with one line saying which library and why.
 * Loading is once per process, under a mutex, its result published with release/acquire: any
 * thread may call a load; a table may be read after its load returned KS_OK (on that thread, or
 * one that learnt of it through the same calls).
 *
 * Who may use it: source/ (reading archives and codecs; gzip in source/gunzip.c),
 * common/afile.c (compressed output), common/regex.c (PCRE2), redact/pseudonym.c (HMAC),
 * cli/version.c. A program that links one of the libraries itself (the tests that write archives)
 * gets the same library back from dlopen. */
#ifndef KS_LAZYLIB_H
#define KS_LAZYLIB_H

#include <archive.h>
#include <archive_entry.h>
#include <isa-l/crc.h>
#include <isa-l/igzip_lib.h>
#ifndef PCRE2_CODE_UNIT_WIDTH
#define PCRE2_CODE_UNIT_WIDTH 8
#endif
#include <pcre2.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "kinesift/common.h"

/* the libarchive functions the library calls */
#define KS_ARCHIVE_FUNCTIONS(X)                                                                    \
    X(archive_version_details) X(archive_error_string) X(archive_errno) X(archive_set_error)       \
    X(archive_format) X(archive_format_name) X(archive_filter_count) X(archive_filter_name)        \
    X(archive_filter_bytes) X(archive_read_new) X(archive_read_free)                               \
    X(archive_read_support_filter_all) X(archive_read_support_format_tar)                          \
    X(archive_read_support_format_zip) X(archive_read_support_format_7zip)                         \
    X(archive_read_support_format_cpio) X(archive_read_support_format_raw) X(archive_read_open)    \
    X(archive_read_open_filename) X(archive_read_open_memory) X(archive_read_next_header)          \
    X(archive_read_data) X(archive_read_data_block) X(archive_entry_pathname)                      \
    X(archive_entry_filetype) X(archive_entry_size) X(archive_entry_size_is_set)                   \
    X(archive_entry_new) X(archive_entry_free)                                                     \
    X(archive_entry_set_filetype) X(archive_entry_set_pathname) X(archive_write_new)               \
    X(archive_write_free) X(archive_write_add_filter_gzip) X(archive_write_add_filter_zstd)        \
    X(archive_write_add_filter_xz) X(archive_write_add_filter_bzip2)                               \
    X(archive_write_set_filter_option) X(archive_write_set_format_raw)                             \
    X(archive_write_set_bytes_in_last_block) X(archive_write_open_fd) X(archive_write_header)      \
    X(archive_write_data) X(archive_write_close)

/* the libcrypto functions the library calls (HMAC-SHA256 and the version line) */
#define KS_CRYPTO_FUNCTIONS(X)                                                                     \
    X(OpenSSL_version) X(EVP_MAC_fetch) X(EVP_MAC_free) X(EVP_MAC_CTX_new) X(EVP_MAC_CTX_free)    \
    X(EVP_MAC_init) X(EVP_MAC_update) X(EVP_MAC_final) X(OSSL_PARAM_construct_utf8_string)       \
    X(OSSL_PARAM_construct_end)

/* the ISA-L functions the library calls (source/gunzip.c: inflate, and the CRC of a gzip header) */
#define KS_ISAL_FUNCTIONS(X)                                                                       \
    X(isal_inflate_init) X(isal_inflate_reset) X(isal_inflate) X(crc32_gzip_refl)

/* the PCRE2 functions the library calls (common/regex.c; the version line), by their 8-bit names:
 * pcre2.h's short names are macros, which # would not expand for dlsym */
#define KS_PCRE2_FUNCTIONS(X)                                                                      \
    X(pcre2_compile_8) X(pcre2_get_error_message_8) X(pcre2_jit_compile_8)                         \
    X(pcre2_match_data_create_from_pattern_8) X(pcre2_match_data_free_8) X(pcre2_code_free_8)      \
    X(pcre2_match_8) X(pcre2_get_ovector_pointer_8) X(pcre2_config_8)

#define KS_LAZY_FIELD(f) __typeof__(f) *f;
typedef struct ks_archive_fns {
    KS_ARCHIVE_FUNCTIONS(KS_LAZY_FIELD)
} ks_archive_fns;
typedef struct ks_crypto_fns {
    KS_CRYPTO_FUNCTIONS(KS_LAZY_FIELD)
} ks_crypto_fns;
typedef struct ks_isal_fns {
    KS_ISAL_FUNCTIONS(KS_LAZY_FIELD)
} ks_isal_fns;
typedef struct ks_pcre2_fns {
    KS_PCRE2_FUNCTIONS(KS_LAZY_FIELD)
} ks_pcre2_fns;
#undef KS_LAZY_FIELD

/* The tables, filled by the loads below (call a function only after its load gave KS_OK). */
extern ks_archive_fns ks_ar;
extern ks_crypto_fns ks_crypto;
extern ks_isal_fns ks_isal;
extern ks_pcre2_fns ks_pcre2;

/* Load the library once; KS_OK, or KS_ERR with err saying which library could not be loaded and
 * why (dlerror's words), e.g. "cannot load libarchive (libarchive.so.13: cannot open shared
 * object file...): it reads standard input, archives and codecs other than gzip, and writes
 * compressed output".
 * A failed load is not retried: the same message each time. */
int ks_archive_load(ks_error *err);
int ks_crypto_load(ks_error *err);
int ks_isal_load(ks_error *err);
int ks_pcre2_load(ks_error *err);

#endif
