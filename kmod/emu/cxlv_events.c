// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include <linux/uuid.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt event logs
 *
 * The event commands of CXL r3.0 8.2.9.2: Get Event Records, Clear Event
 * Records, Get and Set Event Interrupt Policy, answered on four logs
 * (Informational, Warning, Failure, Fatal) of CXLV_EVENT_LOG_RECORDS
 * records each. Records come only from inject_event (cxlv_ctl.c): General
 * Media, DRAM and Memory Module events (8.2.9.2.1.1-3) with the fields the
 * request gives, the severity of their log, a non-zero handle and the
 * device's clock (Set Timestamp) as their timestamp.
 *
 * The Event Status register (8.2.8.3.1) shows a bit per log that holds a
 * record. An event the full log cannot hold is lost and counted: the next
 * Get Event Records sets Overflow with the count and the first and last
 * lost event's time, until a Clear Event Records removes records (8.2.9.2.2
 * Overflow). Clear Event Records takes the oldest records' handles in
 * order, or with Clear All Events an overflowed log's every record;
 * anything else is Invalid Handle or Invalid Input and clears nothing
 * (8.2.9.2.3).
 *
 * The policy starts with no interrupts; Set Event Interrupt Policy may ask
 * for MSI/MSI-X per log, whose message number is always 0: the endpoint
 * has one MSI vector (cxlv_cfg.c). The emulator only says which injection
 * wants an interrupt; the layer above raises it (cxlv_msi.c).
 *
 * Handlers may run with preemption off, even in hard interrupt context
 * (cxlv_mbox.c), so the logs are under a raw spinlock that injections take
 * too.
 */

/*
 * The records and payloads below are the module's: 6.1 has none of them.
 * Where the kernel has its own (struct cxl_event_record_raw and the payloads
 * in cxlmem.h), they are asserted to match field by field after them; the
 * kernel's names later fields that these call reserved (CXL r3.1).
 */

/* CXL r3.0 8.2.9.2.1 Table 8-42 Common Event Record, first 48 bytes */
struct cxlv_event_hdr {
	uuid_t id;
	u8 length;
	u8 flags[3];
	__le16 handle;
	__le16 related_handle;
	__le64 timestamp;
	u8 maint_op_class;
	u8 reserved[15];
} __packed;

/*
 * CXL r3.0 8.2.9.2.1.1-2 Tables 8-43 and 8-44: what General Media and DRAM
 * Event Records share. Their other fields (device, component, nibble mask,
 * bank, row, column, correction mask) stay 0, their validity flags say so.
 */
struct cxlv_event_media {
	struct cxlv_event_hdr hdr;
	__le64 phys_addr;
	u8 descriptor;
	u8 type;
	u8 transaction_type;
	__le16 validity_flags;
	u8 channel;
	u8 rank;
} __packed;

/* CXL r3.0 8.2.9.2.1.3 Table 8-45 Memory Module Event Record */
struct cxlv_event_module {
	struct cxlv_event_hdr hdr;
	u8 event_type;
	struct cxlv_health_info health;
	u8 reserved[61];
} __packed;

/* CXL r3.0 8.2.9.2.2 Table 8-50 Get Event Records output payload */
struct cxlv_event_get_out {
	u8 flags;
	u8 reserved1;
	__le16 overflow_count;
	__le64 first_overflow_ts;
	__le64 last_overflow_ts;
	__le16 count;
	u8 reserved2[10];
	u8 record[][CXLV_EVENT_RECORD_SIZE];
} __packed;

/* CXL r3.0 8.2.9.2.3 Table 8-51 Clear Event Records input payload */
struct cxlv_event_clear_in {
	u8 log;
	u8 flags;
	u8 count;
	u8 reserved[3];
	__le16 handle[];
} __packed;

static_assert(sizeof(struct cxlv_event_hdr) == 48);
static_assert(sizeof(struct cxlv_event_media) <= CXLV_EVENT_RECORD_SIZE);
static_assert(sizeof(struct cxlv_event_module) == CXLV_EVENT_RECORD_SIZE);
static_assert(sizeof(struct cxlv_event_get_out) +
	      CXLV_EVENT_LOG_RECORDS * CXLV_EVENT_RECORD_SIZE <=
	      CXLV_MBOX_PAYLOAD_SIZE);

#ifdef CXLV_HAVE_EVENT_RECORDS
#define CXLV_RECORD(t, f, kf)						\
	CXLV_FIELD_AT(t, f, 0, struct cxl_event_record_raw, kf)
#define CXLV_HDR(f)	CXLV_RECORD(struct cxlv_event_hdr, f, event.generic.hdr.f)
#define CXLV_MEDIA(f)	CXLV_RECORD(struct cxlv_event_media, f, event.media_hdr.f)
static_assert(sizeof(struct cxl_event_record_raw) == CXLV_EVENT_RECORD_SIZE &&
	      CXL_EVENT_TYPE_MAX == CXLV_EVENT_LOGS);
static_assert(CXLV_RECORD(struct cxlv_event_hdr, id, id) &&
	      CXLV_HDR(length) && CXLV_HDR(flags) && CXLV_HDR(handle) &&
	      CXLV_HDR(related_handle) && CXLV_HDR(timestamp) &&
	      CXLV_HDR(maint_op_class) && sizeof(struct cxlv_event_hdr) ==
	      offsetof(struct cxl_event_record_raw, event.generic.data));
static_assert(CXLV_MEDIA(phys_addr) && CXLV_MEDIA(descriptor) &&
	      CXLV_MEDIA(type) && CXLV_MEDIA(transaction_type) &&
	      CXLV_MEDIA(validity_flags) && CXLV_MEDIA(channel) &&
	      CXLV_MEDIA(rank));
static_assert(CXLV_RECORD(struct cxlv_event_module, event_type,
			  event.mem_module.event_type) &&
	      CXLV_RECORD(struct cxlv_event_module, health,
			  event.mem_module.info));

#define CXLV_GET(f, kf)							\
	CXLV_FIELD_AT(struct cxlv_event_get_out, f, 0,			\
		      struct cxl_get_event_payload, kf)
static_assert(CXLV_GET(flags, flags) && CXLV_GET(reserved1, reserved1) &&
	      CXLV_GET(overflow_count, overflow_err_count) &&
	      CXLV_GET(first_overflow_ts, first_overflow_timestamp) &&
	      CXLV_GET(last_overflow_ts, last_overflow_timestamp) &&
	      CXLV_GET(count, record_count) && CXLV_GET(reserved2, reserved2) &&
	      offsetof(struct cxlv_event_get_out, record) ==
	      offsetof(struct cxl_get_event_payload, records) &&
	      CXLV_SAME_SIZE(struct cxlv_event_get_out,
			     struct cxl_get_event_payload));

#define CXLV_CLEAR(f, kf)						\
	CXLV_FIELD_AT(struct cxlv_event_clear_in, f, 0,			\
		      struct cxl_mbox_clear_event_payload, kf)
static_assert(CXLV_CLEAR(log, event_log) && CXLV_CLEAR(flags, clear_flags) &&
	      CXLV_CLEAR(count, nr_recs) && CXLV_CLEAR(reserved, reserved) &&
	      offsetof(struct cxlv_event_clear_in, handle) ==
	      offsetof(struct cxl_mbox_clear_event_payload, handles) &&
	      CXLV_SAME_SIZE(struct cxlv_event_clear_in,
			     struct cxl_mbox_clear_event_payload));
#endif

#define CXLV_EVENT_CLEAR_ALL		BIT(0)	/* 8.2.9.2.3 Clear Event Flags */
#define CXLV_EVENT_PA_VOLATILE		BIT(0)	/* Table 8-43 Physical Address */
/* 8.2.9.2.4 Table 8-52 Interrupt Settings */
#define CXLV_EVENT_INT_MODE		GENMASK(1, 0)
#define CXLV_EVENT_INT_MODE_RESERVED	3
#define CXLV_EVENT_INT_MSI		1
/* 8.2.8.3.1 Event Status, one bit per log in log order */
#define CXLV_EVENT_STATUS_OFFSET	0

/* The UUIDs of Tables 8-43, 8-44 and 8-45 */
static const uuid_t cxlv_event_uuid[] = {
	[CXLV_EVENT_GENERAL_MEDIA] = CXL_EVENT_GEN_MEDIA_UUID,
	[CXLV_EVENT_DRAM] = CXL_EVENT_DRAM_UUID,
	[CXLV_EVENT_MEMORY_MODULE] = CXL_EVENT_MEM_MODULE_UUID,
};

/* Shows a bit per non-empty log; the host only reads the register. */
static void cxlv_events_status(struct cxlv_events *events,
			       const struct cxlv_emu_config *cfg)
{
	u32 status = 0;
	int i;

	for (i = 0; i < CXLV_EVENT_LOGS; i++)
		if (events->log[i].count)
			status |= BIT(i);
	writel(status, cfg->dev_regs + CXLV_DEV_STATUS_OFFSET +
	       CXLV_EVENT_STATUS_OFFSET);
}

/**
 * cxlv_events_start() - empty logs, no interrupts
 * @events: the device's logs
 * @cfg: the device
 */
void cxlv_events_start(struct cxlv_events *events,
		       const struct cxlv_emu_config *cfg)
{
	int i;

	memset(events, 0, sizeof(*events));
	raw_spin_lock_init(&events->lock);
	for (i = 0; i < CXLV_EVENT_LOGS; i++)
		events->log[i].next_handle = 1;
	cxlv_events_status(events, cfg);
}

/* The common header of a record in @log. */
static void cxlv_events_fill_hdr(struct cxlv_event_hdr *hdr,
				 const struct cxlv_event_request *req,
				 u16 handle, u64 now)
{
	hdr->id = cxlv_event_uuid[req->record];
	hdr->length = CXLV_EVENT_RECORD_SIZE;
	/* Table 8-42 Event Record Flags bits 1:0: the log's severity */
	hdr->flags[0] = req->log;
	hdr->handle = cpu_to_le16(handle);
	hdr->timestamp = cpu_to_le64(now);
}

/* One record as the request describes it, in @rec (zeroed). */
static void cxlv_events_fill(void *rec, const struct cxlv_emu_config *cfg,
			     const struct cxlv_event_request *req,
			     const struct cxlv_health_info *health, u16 handle,
			     u64 now)
{
	struct cxlv_event_module *module = rec;
	struct cxlv_event_media *media = rec;

	cxlv_events_fill_hdr(rec, req, handle, now);
	if (req->record == CXLV_EVENT_MEMORY_MODULE) {
		module->event_type = req->event_type;
		module->health = *health;
		return;
	}
	media->phys_addr = cpu_to_le64(req->dpa |
				       (cfg->pmem ? 0 : CXLV_EVENT_PA_VOLATILE));
	media->descriptor = req->descriptor;
	media->type = req->event_type;
	media->transaction_type = req->transaction;
}

/**
 * cxlv_events_inject() - add records to a log
 * @events: the device's logs
 * @cfg: the device
 * @now: the device's clock, for the timestamps
 * @req: what to add, parsed (cxlv_parse_event())
 * @health: the device's health, which a Memory Module record carries
 *
 * A DPA must be a 64-byte aligned address inside the capacity, as Get
 * Poison List's are. Records beyond the log's room are counted as lost.
 *
 * Return: the MSI message number the log's policy asks for, -ENOMSG for
 * none, or -EINVAL (unaligned DPA) or -ERANGE (DPA past the capacity).
 */
int cxlv_events_inject(struct cxlv_events *events,
		       const struct cxlv_emu_config *cfg, u64 now,
		       const struct cxlv_event_request *req,
		       const struct cxlv_health_info *health)
{
	struct cxlv_event_log *log = &events->log[req->log];
	unsigned long flags;
	unsigned int i;
	u8 policy;

	if (req->record != CXLV_EVENT_MEMORY_MODULE) {
		if (!IS_ALIGNED(req->dpa, 64))
			return -EINVAL;
		if (req->dpa >= cfg->capacity)
			return -ERANGE;
	}
	raw_spin_lock_irqsave(&events->lock, flags);
	for (i = 0; i < req->count; i++) {
		if (log->count == CXLV_EVENT_LOG_RECORDS) {
			if (!log->overflow++)
				log->first_overflow_ts = now;
			log->last_overflow_ts = now;
			continue;
		}
		memset(log->record[log->count], 0, CXLV_EVENT_RECORD_SIZE);
		cxlv_events_fill(log->record[log->count], cfg, req, health,
				 log->next_handle, now);
		WRITE_ONCE(log->count, log->count + 1);
		log->next_handle = (u16)(log->next_handle + 1) ?: 1;
	}
	WRITE_ONCE(events->injected, events->injected + req->count);
	cxlv_events_status(events, cfg);
	policy = events->policy[req->log];
	raw_spin_unlock_irqrestore(&events->lock, flags);

	if (FIELD_GET(CXLV_EVENT_INT_MODE, policy) != CXLV_EVENT_INT_MSI)
		return -ENOMSG;
	return 0;
}

/* Records in the logs now, for sysfs. */
u64 cxlv_events_pending(const struct cxlv_events *events)
{
	u64 n = 0;
	int i;

	for (i = 0; i < CXLV_EVENT_LOGS; i++)
		n += READ_ONCE(events->log[i].count);
	return n;
}

/* CXL r3.0 8.2.9.2.2 Get Event Records: the whole log, oldest first */
u16 cxlv_events_get(const struct cxlv_emu_config *cfg,
		    struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_events *events = &cmd->state->events;
	struct cxlv_event_get_out *out = cmd->out;
	const u8 *in = cmd->in;
	struct cxlv_event_log *log;
	unsigned long flags;

	if (*in >= CXLV_EVENT_LOGS)
		return CXL_MBOX_CMD_RC_INPUT;
	log = &events->log[*in];

	memset(out, 0, sizeof(*out));
	raw_spin_lock_irqsave(&events->lock, flags);
	if (log->overflow) {
		out->flags = CXL_GET_EVENT_FLAG_OVERFLOW;
		out->overflow_count = cpu_to_le16(log->overflow);
		out->first_overflow_ts = cpu_to_le64(log->first_overflow_ts);
		out->last_overflow_ts = cpu_to_le64(log->last_overflow_ts);
	}
	out->count = cpu_to_le16(log->count);
	memcpy(out->record, log->record, log->count * CXLV_EVENT_RECORD_SIZE);
	cmd->out_len = struct_size(out, record, log->count);
	raw_spin_unlock_irqrestore(&events->lock, flags);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* Are @handle[0..n) the handles of the log's oldest n records, in order? */
static bool cxlv_events_oldest(const struct cxlv_event_log *log,
			       const __le16 *handle, unsigned int n)
{
	unsigned int i;

	if (n > log->count)
		return false;
	for (i = 0; i < n; i++) {
		const struct cxlv_event_hdr *hdr = (const void *)log->record[i];

		if (hdr->handle != handle[i])
			return false;
	}
	return true;
}

/* CXL r3.0 8.2.9.2.3 Clear Event Records */
u16 cxlv_events_clear(const struct cxlv_emu_config *cfg,
		      struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_events *events = &cmd->state->events;
	const struct cxlv_event_clear_in *in = cmd->in;
	struct cxlv_event_log *log;
	unsigned long flags;
	unsigned int n;
	u16 rc = CXL_MBOX_CMD_RC_SUCCESS;

	if (cmd->in_len < sizeof(*in) ||
	    cmd->in_len != struct_size(in, handle, in->count))
		return CXL_MBOX_CMD_RC_PAYLOADLEN;
	if (in->log >= CXLV_EVENT_LOGS)
		return CXL_MBOX_CMD_RC_INPUT;
	log = &events->log[in->log];

	raw_spin_lock_irqsave(&events->lock, flags);
	if (in->flags & CXLV_EVENT_CLEAR_ALL) {
		/* only an overflowed log may be cleared whole */
		n = log->count;
		if (!log->overflow)
			rc = CXL_MBOX_CMD_RC_INPUT;
	} else {
		n = in->count;
		if (!n || !cxlv_events_oldest(log, in->handle, n))
			rc = CXL_MBOX_CMD_RC_HANDLE;
	}
	if (rc == CXL_MBOX_CMD_RC_SUCCESS) {
		WRITE_ONCE(log->count, log->count - n);
		memmove(log->record, log->record[n],
			log->count * CXLV_EVENT_RECORD_SIZE);
		if (n || (in->flags & CXLV_EVENT_CLEAR_ALL))
			log->overflow = 0;
		WRITE_ONCE(events->cleared, events->cleared + n);
		cxlv_events_status(events, cfg);
	}
	raw_spin_unlock_irqrestore(&events->lock, flags);
	if (rc != CXL_MBOX_CMD_RC_SUCCESS)
		dev_dbg_ratelimited(cfg->dev,
				    "endpoint %u: Clear Event Records of log %u refused\n",
				    cfg->pos, in->log);
	return rc;
}

/* CXL r3.0 8.2.9.2.4 Get Event Interrupt Policy */
u16 cxlv_events_get_policy(const struct cxlv_emu_config *cfg,
			   struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_events *events = &cmd->state->events;
	unsigned long flags;

	raw_spin_lock_irqsave(&events->lock, flags);
	memcpy(cmd->out, events->policy, CXLV_EVENT_POLICY_LEN);
	raw_spin_unlock_irqrestore(&events->lock, flags);
	cmd->out_len = CXLV_EVENT_POLICY_LEN;
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/*
 * CXL r3.0 8.2.9.2.5 Set Event Interrupt Policy: the mode per log; the
 * device picks the message number, 0 of its one vector. A reserved mode
 * changes nothing.
 */
u16 cxlv_events_set_policy(const struct cxlv_emu_config *cfg,
			   struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_events *events = &cmd->state->events;
	const u8 *in = cmd->in;
	unsigned long flags;
	int i;

	static_assert(CXLV_EVENT_POLICY_LEN == CXLV_EVENT_LOGS);
	for (i = 0; i < CXLV_EVENT_LOGS; i++)
		if (FIELD_GET(CXLV_EVENT_INT_MODE, in[i]) ==
		    CXLV_EVENT_INT_MODE_RESERVED)
			return CXL_MBOX_CMD_RC_INPUT;
	raw_spin_lock_irqsave(&events->lock, flags);
	for (i = 0; i < CXLV_EVENT_LOGS; i++)
		events->policy[i] = FIELD_GET(CXLV_EVENT_INT_MODE, in[i]);
	raw_spin_unlock_irqrestore(&events->lock, flags);
	return CXL_MBOX_CMD_RC_SUCCESS;
}
