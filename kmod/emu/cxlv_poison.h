/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_POISON_H__
#define __CXLV_POISON_H__

#include <linux/kfifo.h>
#include <linux/types.h>
#include <linux/workqueue.h>

/**
 * DOC: cxl_virt poison list state
 *
 * One &struct cxlv_poison per emulated endpoint, part of its mailbox state:
 * the poisoned lines the media error commands of cxlv_poison.c answer on,
 * and the queue of Clear Poison writes its worker finishes.
 */

struct cxlv_emu_config;
struct cxlv_mbox_cmd;

/*
 * CXL r3.0 8.2.9.8.1.1 Poison List Maximum Media Error Records: what the
 * device tracks. One Get Poison List payload (CXLV_MBOX_PAYLOAD_SIZE) holds
 * them all, so the More Media Error Records flag is never needed.
 */
#define CXLV_POISON_MAX_RECORDS	64

/* Input payload sizes, CXL r3.0 8.2.9.8.4.1, .2 and .3 */
#define CXLV_POISON_LIST_IN_LEN		16
#define CXLV_POISON_INJECT_IN_LEN	8
#define CXLV_POISON_CLEAR_IN_LEN	72

/* Clear Poison writes not yet done: Busy beyond that. */
#define CXLV_POISON_CLEARS	8

/**
 * struct cxlv_poison_clear - a Clear Poison the worker finishes
 * @hpa: the line in host memory
 * @unpoison: no other record is left in the line's page
 * @data: what the line gets
 */
struct cxlv_poison_clear {
	phys_addr_t hpa;
	bool unpoison;
	u8 data[64];
};

/**
 * struct cxlv_poison - the device's poison list, one 64-byte line a record
 * @dpa: the poisoned lines, 64-byte aligned, in no order
 * @count: records in @dpa
 * @overflow_ts: CXL r3.0 8.2.9.8.4.1 Overflow Timestamp, device time in ns
 *	when an injection found the list full; 0: no overflow
 * @clears: from the mailbox handler to @work
 * @work: writes the data of a Clear Poison and gives its page back to mm
 */
struct cxlv_poison {
	u64 dpa[CXLV_POISON_MAX_RECORDS];
	unsigned int count;
	u64 overflow_ts;
	DECLARE_KFIFO(clears, struct cxlv_poison_clear, CXLV_POISON_CLEARS);
	struct work_struct work;
};

void cxlv_poison_start(struct cxlv_poison *poison,
		       const struct cxlv_emu_config *cfg);
void cxlv_poison_stop(struct cxlv_poison *poison);

u16 cxlv_poison_get_list(const struct cxlv_emu_config *cfg,
			 struct cxlv_mbox_cmd *cmd);
u16 cxlv_poison_inject(const struct cxlv_emu_config *cfg,
		       struct cxlv_mbox_cmd *cmd);
u16 cxlv_poison_clear(const struct cxlv_emu_config *cfg,
		      struct cxlv_mbox_cmd *cmd);
void cxlv_poison_clear_all(const struct cxlv_emu_config *cfg,
			   struct cxlv_poison *poison);

#endif /* __CXLV_POISON_H__ */
