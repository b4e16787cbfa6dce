/* cli/cmd_validate.c: `kinesift validate` (not built yet: its issue is open). */
#include "cli/cli.h"

const char ks_help_validate[] = "usage: kinesift validate ...\n\nNot available yet in this build.\n";

int ks_cmd_validate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ks_cli_fail("validate: not available yet in this build");
    return KS_EXIT_USAGE;
}
