/* vocab/labels.h: the labels PyTorch writes around work of a known kind (vocab/labels.c). */
#ifndef KS_VOCAB_LABELS_H
#define KS_VOCAB_LABELS_H

/* 1 for the data loader's iteration labels: "enumerate(DataLoader)#..." and
 * "enumerate(DataPipe)#..." (the TensorBoard plugin's DataLoader role). */
int ks_is_dataloader_label(const char *name);
/* 1 for the call of a DataLoader with worker processes that takes the next batch from its queue:
 * "enumerate(DataLoader)#_MultiProcessingDataLoaderIter.__next__". */
int ks_is_queue_next_label(const char *name);
/* 1 for what a pin-memory thread records around each batch it pins: "aten::pin_memory",
 * "aten::_pin_memory", or a "pin_memory" label. */
int ks_is_pin_memory_name(const char *name);

#endif
