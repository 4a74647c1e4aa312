/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_EVENTS_H__
#define __CXLV_EVENTS_H__

#include <linux/spinlock.h>
#include <linux/types.h>

#include "cxlv_parse.h"

/**
 * DOC: cxl_virt event log state
 *
 * One &struct cxlv_events per emulated endpoint, part of its mailbox state:
 * the four event logs and their interrupt policy, which the event commands
 * of cxlv_events.c answer on and inject_event fills.
 */

struct cxlv_emu_config;
struct cxlv_health_info;
struct cxlv_mbox_cmd;

/* CXL r3.0 8.2.9.2.2 Table 8-49: the logs the device keeps */
#define CXLV_EVENT_LOGS		4

/*
 * Records each log holds before it overflows: few, so that a test fills
 * one; a Get Event Records payload holds them all, so More Event Records
 * is never needed.
 */
#define CXLV_EVENT_LOG_RECORDS	8

/* CXL r3.0 8.2.9.2.1 Table 8-42: every event record is 128 bytes */
#define CXLV_EVENT_RECORD_SIZE	128

/* Input payload sizes, CXL r3.0 8.2.9.2.2 and 8.2.9.2.5 */
#define CXLV_EVENT_GET_IN_LEN		1
#define CXLV_EVENT_POLICY_LEN		4

/**
 * struct cxlv_event_log - one event log, oldest record first
 * @record: the records as Get Event Records returns them
 * @count: records in @record
 * @overflow: CXL r3.0 8.2.9.2.2 Overflow Error Count: events lost since
 *	the log was last cleared
 * @first_overflow_ts: device time of the first event lost
 * @last_overflow_ts: device time of the last event lost
 * @next_handle: CXL r3.0 8.2.9.2.1 Event Record Handle of the next record,
 *	never 0
 */
struct cxlv_event_log {
	u8 record[CXLV_EVENT_LOG_RECORDS][CXLV_EVENT_RECORD_SIZE];
	unsigned int count;
	u16 overflow;
	u64 first_overflow_ts;
	u64 last_overflow_ts;
	u16 next_handle;
};

/**
 * struct cxlv_events - the device's event logs and their interrupt policy
 * @lock: mailbox handlers (any context) against injections
 * @log: the Informational, Warning, Failure and Fatal logs
 * @policy: CXL r3.0 8.2.9.2.4 interrupt settings per log, as Get Event
 *	Interrupt Policy returns them
 * @injected: records injected (lost ones too), for sysfs
 * @cleared: records Clear Event Records removed, for sysfs
 */
struct cxlv_events {
	raw_spinlock_t lock;
	struct cxlv_event_log log[CXLV_EVENT_LOGS];
	u8 policy[CXLV_EVENT_LOGS];
	u64 injected;
	u64 cleared;
};

void cxlv_events_start(struct cxlv_events *events,
		       const struct cxlv_emu_config *cfg);
int cxlv_events_inject(struct cxlv_events *events,
		       const struct cxlv_emu_config *cfg, u64 now,
		       const struct cxlv_event_request *req,
		       const struct cxlv_health_info *health);
u64 cxlv_events_pending(const struct cxlv_events *events);

u16 cxlv_events_get(const struct cxlv_emu_config *cfg,
		    struct cxlv_mbox_cmd *cmd);
u16 cxlv_events_clear(const struct cxlv_emu_config *cfg,
		      struct cxlv_mbox_cmd *cmd);
u16 cxlv_events_get_policy(const struct cxlv_emu_config *cfg,
			   struct cxlv_mbox_cmd *cmd);
u16 cxlv_events_set_policy(const struct cxlv_emu_config *cfg,
			   struct cxlv_mbox_cmd *cmd);

#endif /* __CXLV_EVENTS_H__ */
