/* cli/cmd_whatif.c: `kinesift whatif` (not built yet: its issue is open). */
#include "cli/cli.h"

const char ks_help_whatif[] = "usage: kinesift whatif ...\n\nNot available yet in this build.\n";

int ks_cmd_whatif(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ks_cli_fail("whatif: not available yet in this build");
    return KS_EXIT_USAGE;
}
