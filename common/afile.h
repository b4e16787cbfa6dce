/* common/afile.h: the one atomic output file of the library. Whatever kinesift writes to a
 * named file (a redacted trace, the HTML report, an annotated trace, a rank summary) is written
 * to a temporary file first and put in place at the end, so a reader never sees half a file and a
 * failed run leaves nothing; output for standard output goes through a temporary file too (in
 * $TMPDIR) and is copied out at the end, so nothing is printed before the whole was written.
 *
 * Why it is correct: the temporary file is next to the target (one file system: the final
 * rename or link is atomic); putting it in place refuses to replace an existing file unless
 * asked (renameat2 RENAME_NOREPLACE, linkat, else link + unlink), and never replaces anything
 * but a regular file (a device node, a FIFO, a directory: refused at the commit too). Temporary
 * files are 0600; a file put in place gets the permissions of any new file (0666 less the
 * process's umask: the library never calls umask(), which is process-wide); a temporary file
 * for standard output stays 0600. Temporary files may hold bytes that are not yet checked
 * (redaction), so none may outlive the process: where Linux O_TMPFILE works the file has no
 * name until it is linked into place (not even SIGKILL leaves it behind); otherwise it is a
 * named ".kinesift-redact.*" file, listed in a registry that ks_afile_cleanup_on_signals'
 * handler walks to unlink them, and one that a SIGKILL leaves is readable by its owner only.
 *
 * Threads: every function may be called from several threads at once on different files; the
 * registry of live temporary files is shared and guarded (a mutex between threads; the signal
 * handler reads it without locking, see afile.c). One file is used by one thread at a time.
 *
 * When it does not apply: files that must be updated in place, or appended to. Who may use it:
 * every room (redact/, report/, ranks/; report/gate_output.c's ks_outfile gives it a stdio
 * stream for the writers that print to a FILE *); cli/ only through the functions that use it.
 * It is the only code of the library that makes a temporary output file. */
#ifndef KS_AFILE_H
#define KS_AFILE_H

#include <stddef.h>
#include <sys/types.h>

#include "kinesift/common.h"
#include "kinesift/redact.h" /* ks_compress */

typedef struct ks_afile ks_afile;

/* The target may be written: not a directory or a device, not input (nor one of inputs[0..n)),
 * not an existing file unless force. input and inputs may be NULL; "-" is never a file. */
int ks_afile_check_target(const char *path, int force, const char *input, char *const *inputs,
                            size_t ninputs, ks_error *err);

/* Open a temporary file next to final_path (or in $TMPDIR when final_path is NULL), written
 * through compression c (KS_COMPRESS_NONE or AUTO: plain). */
int ks_afile_open(const char *final_path, ks_compress c, ks_afile **out, ks_error *err);
/* Append n bytes; 0, or -1 once a write failed (the error is reported by ks_afile_close). The
 * signature of a ks_redact_stream writer. */
int ks_afile_write(void *ctx, const void *p, size_t n);
/* Finish compression and flush to disk; the temporary file stays until commit or abort. */
int ks_afile_close(ks_afile *f, ks_error *err);
/* A path from which the temporary file can be read back (after close). */
const char *ks_afile_tmp_path(const ks_afile *f);
/* Put in place (refusing to replace an existing file unless force), or copy to standard output
 * when the final path is NULL; frees f. */
int ks_afile_commit(ks_afile *f, int force, ks_error *err);
/* Remove the temporary file; frees f. NULL is ignored. */
void ks_afile_abort(ks_afile *f);

/* Unlink the named temporary files of every open ks_afile on SIGINT, SIGTERM, SIGHUP,
 * SIGQUIT and on a crash, then die of the signal. Process-wide: call it once, from the main
 * thread, before other threads start (the CLI does). A signal the caller ignores stays ignored. */
void ks_afile_cleanup_on_signals(void);

#endif
