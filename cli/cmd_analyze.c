/* cli/cmd_analyze.c: `kinesift analyze` (not built yet: its issue is open). */
#include "cli/cli.h"

const char ks_help_analyze[] = "usage: kinesift analyze ...\n\nNot available yet in this build.\n";

int ks_cmd_analyze(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ks_cli_fail("analyze: not available yet in this build");
    return KS_EXIT_USAGE;
}
