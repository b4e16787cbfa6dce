/* cli/cmd_diff.c: `kinesift diff` (not built yet: its issue is open). */
#include "cli/cli.h"

const char ks_help_diff[] = "usage: kinesift diff ...\n\nNot available yet in this build.\n";

int ks_cmd_diff(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ks_cli_fail("diff: not available yet in this build");
    return KS_EXIT_USAGE;
}
