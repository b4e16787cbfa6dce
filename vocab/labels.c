/* vocab/labels.c: the labels PyTorch writes around work of a known kind (see labels.h). */
#include <string.h>

#include "vocab/labels.h"

int ks_is_dataloader_label(const char *n)
{
    return !strncmp(n, "enumerate(DataLoader)#", 22) || !strncmp(n, "enumerate(DataPipe)#", 20);
}

int ks_is_queue_next_label(const char *n)
{
    return !strcmp(n, "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__");
}

int ks_is_pin_memory_name(const char *n)
{
    return !strcmp(n, "aten::pin_memory") || !strcmp(n, "aten::_pin_memory") || !strcmp(n, "pin_memory");
}
