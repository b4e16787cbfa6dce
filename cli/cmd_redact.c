/* cli/cmd_redact.c: `kinesift redact` (not built yet: its issue is open). */
#include "cli/cli.h"

const char ks_help_redact[] = "usage: kinesift redact ...\n\nNot available yet in this build.\n";

int ks_cmd_redact(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ks_cli_fail("redact: not available yet in this build");
    return KS_EXIT_USAGE;
}
