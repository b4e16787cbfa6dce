/* vocab/labels.h: the labels PyTorch writes around work of a known kind (vocab/labels.c). */
#ifndef KS_VOCAB_LABELS_H
#define KS_VOCAB_LABELS_H

/* 1 for the data loader's iteration labels: "enumerate(DataLoader)#..." and
 * "enumerate(DataPipe)#..." (the TensorBoard plugin's DataLoader role). */
int ks_is_dataloader_label(const char *name);

#endif
