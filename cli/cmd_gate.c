/* cli/cmd_gate.c: `kinesift gate` (not built yet: its issue is open). */
#include "cli/cli.h"

const char ks_help_gate[] = "usage: kinesift gate ...\n\nNot available yet in this build.\n";

int ks_cmd_gate(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    ks_cli_fail("gate: not available yet in this build");
    return KS_EXIT_USAGE;
}
