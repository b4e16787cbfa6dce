/* vocab/labels.c: the labels PyTorch writes around work of a known kind (see labels.h). */
#include <string.h>

#include "vocab/labels.h"

int ks_is_dataloader_label(const char *n)
{
    return !strncmp(n, "enumerate(DataLoader)#", 22) || !strncmp(n, "enumerate(DataPipe)#", 20);
}
