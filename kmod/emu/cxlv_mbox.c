// SPDX-License-Identifier: GPL-2.0-only
#include <linux/build_bug.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/ktime.h>
#include <linux/string.h>
#include <linux/uuid.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt mailbox commands
 *
 * Answers the primary mailbox commands of a type-3 memory device on plain
 * buffers; cxlv_emu.c moves the payload in and out of the registers. The
 * command set is the one the 6.1 cxl_pci, cxl_pmem and the user ioctl path
 * use: GET_SUPPORTED_LOGS, GET_LOG of the Command Effects Log, IDENTIFY,
 * GET_PARTITION_INFO and for partitionable devices SET_PARTITION_INFO
 * (cxlv_partition.c), GET_TIMESTAMP and SET_TIMESTAMP (6.12's cxl_pci
 * sets the time at probe), the health, alert and for persistent devices
 * shutdown state commands (cxlv_health.c), the poison list commands
 * (cxlv_poison.c), the event log commands (cxlv_events.c), Sanitize and
 * Secure Erase (cxlv_sanitize.c), the firmware update commands
 * (cxlv_fw.c), and for persistent devices the security commands
 * (cxlv_security.c), GET_LSA and
 * SET_LSA on the CXLV_LSA_SIZE label storage area. The CEL is generated
 * from the command table, so it lists exactly what is answered. Every other
 * opcode gets Unsupported; malformed input gets Invalid Input or Invalid
 * Payload Length and touches nothing.
 *
 * Handlers run in a worker, in process context, except with one CPU
 * online on a kernel that does not preempt tasks: there the doorbell hint
 * (a kprobe) or the poller (hard interrupt context) runs them, as no worker
 * could run before cxl_pci gives up (cxlv_emu.c). cmd->may_sleep says
 * which; the handlers sleep, allocate and map nothing either way, and wait
 * only when it is set. While a background command runs, cxlv_bg_refuse()
 * answers what may not run beside it.
 */

/* CXL r3.0 8.2.9.5.2.1 Command Effects Log entry effects */
#define CXLV_EFFECT_COLD_RESET_CONFIG_CHANGE	BIT(0)
#define CXLV_EFFECT_IMMEDIATE_CONFIG_CHANGE	BIT(1)
#define CXLV_EFFECT_IMMEDIATE_DATA_CHANGE	BIT(2)
#define CXLV_EFFECT_IMMEDIATE_POLICY_CHANGE	BIT(3)
#define CXLV_EFFECT_IMMEDIATE_LOG_CHANGE	BIT(4)
#define CXLV_EFFECT_SECURITY_CHANGE		BIT(5)
#define CXLV_EFFECT_BACKGROUND_OPERATION	BIT(6)

/* Input length of commands whose input is not a fixed size. */
#define CXLV_MBOX_VARIABLE	SIZE_MAX

static const uuid_t cxlv_cel_uuid = DEFINE_CXL_CEL_UUID;

struct cxlv_mbox_op {
	u16 opcode;
	u16 effect;
	size_t in_len;
	bool pmem_only;
	bool partitionable_only;
	u16 (*handle)(const struct cxlv_emu_config *cfg,
		      struct cxlv_mbox_cmd *cmd);
};

/* They read the command table, which names them. */
static u16 cxlv_mbox_get_supported_logs(const struct cxlv_emu_config *cfg,
					struct cxlv_mbox_cmd *cmd);
static u16 cxlv_mbox_get_log(const struct cxlv_emu_config *cfg,
			     struct cxlv_mbox_cmd *cmd);

/*
 * CXL r3.0 8.2.9.8.1.1 Identify Memory Device: a partitionable device has
 * no volatile-only nor persistent-only capacity (cxlv_partition.c)
 */
static u16 cxlv_mbox_identify(const struct cxlv_emu_config *cfg,
			      struct cxlv_mbox_cmd *cmd)
{
	struct cxl_mbox_identify *id = cmd->out;
	u64 units = div_u64(cfg->capacity, CXL_CAPACITY_MULTIPLIER);

	/* 6.1 insists on exactly this many bytes (core/mbox.c). */
	static_assert(sizeof(*id) == 0x43);

	memset(id, 0, sizeof(*id));
	memcpy(id->fw_revision, cxlv_fw_revision(&cmd->state->fw),
	       sizeof(id->fw_revision));
	id->total_capacity = cpu_to_le64(units);
	id->partition_align = cpu_to_le64(div_u64(cxlv_partition_align(cfg),
						  CXL_CAPACITY_MULTIPLIER));
	if (!cfg->pmem) {
		id->volatile_capacity = cpu_to_le64(units);
	} else {
		id->lsa_size = cpu_to_le32(CXLV_LSA_SIZE);
		if (!cfg->partitionable)
			id->persistent_capacity = cpu_to_le64(units);
	}
	/* little-endian 24 bits */
	static_assert(CXLV_POISON_MAX_RECORDS <= U8_MAX);
	id->poison_list_max_mer[0] = CXLV_POISON_MAX_RECORDS;
	cmd->out_len = sizeof(*id);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* True if [offset, offset + length) lies inside the label storage area. */
static bool cxlv_mbox_lsa_range_ok(u32 offset, size_t length)
{
	return offset <= CXLV_LSA_SIZE && length <= CXLV_LSA_SIZE - offset;
}

/* CXL r3.0 8.2.9.8.2.3 Get LSA */
static u16 cxlv_mbox_get_lsa(const struct cxlv_emu_config *cfg,
			     struct cxlv_mbox_cmd *cmd)
{
	const struct cxl_mbox_get_lsa *get = cmd->in;
	u32 offset = le32_to_cpu(get->offset);
	u32 length = le32_to_cpu(get->length);

	if (length > CXLV_MBOX_PAYLOAD_SIZE ||
	    !cxlv_mbox_lsa_range_ok(offset, length))
		return CXL_MBOX_CMD_RC_INPUT;

	memcpy_fromio(cmd->out, cfg->lsa + offset, length);
	cmd->out_len = length;
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.8.2.4 Set LSA: offset, reserved, then the data */
static u16 cxlv_mbox_set_lsa(const struct cxlv_emu_config *cfg,
			     struct cxlv_mbox_cmd *cmd)
{
	const struct cxl_mbox_set_lsa *set = cmd->in;
	size_t length;
	u32 offset;

	if (cmd->in_len < sizeof(*set))
		return CXL_MBOX_CMD_RC_PAYLOADLEN;

	offset = le32_to_cpu(set->offset);
	length = cmd->in_len - sizeof(*set);
	if (!cxlv_mbox_lsa_range_ok(offset, length))
		return CXL_MBOX_CMD_RC_INPUT;

	memcpy_toio(cfg->lsa + offset, set->data, length);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* The device's clock: 0 until Set Timestamp, then the host's clock. */
u64 cxlv_mbox_now(const struct cxlv_mbox_state *state)
{
	if (!state->timestamp_set_at)
		return 0;
	return state->timestamp + ktime_get_ns() - state->timestamp_set_at;
}

/* CXL r3.0 8.2.9.4.1 Get Timestamp */
static u16 cxlv_mbox_get_timestamp(const struct cxlv_emu_config *cfg,
				   struct cxlv_mbox_cmd *cmd)
{
	__le64 now = cpu_to_le64(cxlv_mbox_now(cmd->state));

	memcpy(cmd->out, &now, sizeof(now));
	cmd->out_len = sizeof(now);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.4.2 Set Timestamp */
static u16 cxlv_mbox_set_timestamp(const struct cxlv_emu_config *cfg,
				   struct cxlv_mbox_cmd *cmd)
{
	__le64 timestamp;

	memcpy(&timestamp, cmd->in, sizeof(timestamp));
	cmd->state->timestamp = le64_to_cpu(timestamp);
	cmd->state->timestamp_set_at = ktime_get_ns() ?: 1;
	return CXL_MBOX_CMD_RC_SUCCESS;
}

static const struct cxlv_mbox_op cxlv_mbox_ops[] = {
	{
		.opcode = CXL_MBOX_OP_GET_EVENT_RECORD,
		.in_len = CXLV_EVENT_GET_IN_LEN,
		.handle = cxlv_events_get,
	},
	{
		.opcode = CXL_MBOX_OP_CLEAR_EVENT_RECORD,
		.effect = CXLV_EFFECT_IMMEDIATE_LOG_CHANGE,
		.in_len = CXLV_MBOX_VARIABLE,
		.handle = cxlv_events_clear,
	},
	{
		.opcode = CXL_MBOX_OP_GET_EVT_INT_POLICY,
		.in_len = 0,
		.handle = cxlv_events_get_policy,
	},
	{
		.opcode = CXL_MBOX_OP_SET_EVT_INT_POLICY,
		.effect = CXLV_EFFECT_IMMEDIATE_CONFIG_CHANGE,
		.in_len = CXLV_EVENT_POLICY_LEN,
		.handle = cxlv_events_set_policy,
	},
	/* cxlv_fw.c; a package changes nothing until it is activated */
	{ .opcode = CXL_MBOX_OP_GET_FW_INFO, .handle = cxlv_fw_handle },
	{ .opcode = CXL_MBOX_OP_TRANSFER_FW, .in_len = CXLV_MBOX_VARIABLE,
	  .handle = cxlv_fw_handle },
	{ .opcode = CXL_MBOX_OP_ACTIVATE_FW, .in_len = 2, .handle = cxlv_fw_handle,
	  .effect = CXLV_EFFECT_COLD_RESET_CONFIG_CHANGE |
		    CXLV_EFFECT_IMMEDIATE_CONFIG_CHANGE },
	{
		.opcode = CXL_MBOX_OP_GET_SUPPORTED_LOGS,
		.in_len = 0,
		.handle = cxlv_mbox_get_supported_logs,
	},
	{
		.opcode = CXL_MBOX_OP_GET_LOG,
		.in_len = sizeof(struct cxl_mbox_get_log),
		.handle = cxlv_mbox_get_log,
	},
	{
		.opcode = CXL_MBOX_OP_IDENTIFY,
		.in_len = 0,
		.handle = cxlv_mbox_identify,
	},
	/* cxlv_partition.c */
	{
		.opcode = CXL_MBOX_OP_GET_PARTITION_INFO,
		.in_len = 0,
		.handle = cxlv_partition_get,
	},
	{
		.opcode = CXL_MBOX_OP_SET_PARTITION_INFO,
		.effect = CXLV_EFFECT_COLD_RESET_CONFIG_CHANGE |
			  CXLV_EFFECT_IMMEDIATE_CONFIG_CHANGE |
			  CXLV_EFFECT_IMMEDIATE_DATA_CHANGE,
		.in_len = CXLV_SET_PARTITION_IN_LEN,
		.partitionable_only = true,
		.handle = cxlv_partition_set,
	},
	{
		.opcode = CXL_MBOX_OP_GET_LSA,
		.in_len = sizeof(struct cxl_mbox_get_lsa),
		.pmem_only = true,
		.handle = cxlv_mbox_get_lsa,
	},
	{
		.opcode = CXL_MBOX_OP_SET_LSA,
		.effect = CXLV_EFFECT_IMMEDIATE_CONFIG_CHANGE |
			  CXLV_EFFECT_IMMEDIATE_DATA_CHANGE,
		.in_len = CXLV_MBOX_VARIABLE,
		.pmem_only = true,
		.handle = cxlv_mbox_set_lsa,
	},
	/* cxlv_health.c */
	{
		.opcode = CXL_MBOX_OP_GET_HEALTH_INFO,
		.in_len = 0,
		.handle = cxlv_health_get_info,
	},
	{
		.opcode = CXLV_OP_GET_ALERT_CONFIG,
		.in_len = 0,
		.handle = cxlv_health_get_alert,
	},
	{
		.opcode = CXLV_OP_SET_ALERT_CONFIG,
		.effect = CXLV_EFFECT_IMMEDIATE_POLICY_CHANGE,
		.in_len = CXLV_ALERT_SET_IN_LEN,
		.handle = cxlv_health_set_alert,
	},
	{
		.opcode = CXLV_OP_GET_SHUTDOWN_STATE,
		.in_len = 0,
		.pmem_only = true,
		.handle = cxlv_health_get_shutdown,
	},
	{
		.opcode = CXLV_OP_SET_SHUTDOWN_STATE,
		.effect = CXLV_EFFECT_IMMEDIATE_POLICY_CHANGE,
		.in_len = CXLV_SHUTDOWN_SET_IN_LEN,
		.pmem_only = true,
		.handle = cxlv_health_set_shutdown,
	},
	{
		.opcode = CXL_MBOX_OP_GET_POISON,
		.in_len = CXLV_POISON_LIST_IN_LEN,
		.handle = cxlv_poison_get_list,
	},
	{
		.opcode = CXL_MBOX_OP_INJECT_POISON,
		.effect = CXLV_EFFECT_IMMEDIATE_DATA_CHANGE,
		.in_len = CXLV_POISON_INJECT_IN_LEN,
		.handle = cxlv_poison_inject,
	},
	{
		.opcode = CXL_MBOX_OP_CLEAR_POISON,
		.effect = CXLV_EFFECT_IMMEDIATE_DATA_CHANGE,
		.in_len = CXLV_POISON_CLEAR_IN_LEN,
		.handle = cxlv_poison_clear,
	},
	{
		/* every device: 6.12's and 7.3's sanitize asks it first */
		.opcode = CXLV_OP_GET_SECURITY_STATE,
		.in_len = 0,
		.handle = cxlv_security_get_state,
	},
	{
		.opcode = CXLV_OP_SET_PASSPHRASE,
		.effect = CXLV_EFFECT_SECURITY_CHANGE,
		.in_len = CXLV_SEC_SET_PASS_IN_LEN,
		.pmem_only = true,
		.handle = cxlv_security_set_passphrase,
	},
	{
		.opcode = CXLV_OP_DISABLE_PASSPHRASE,
		.effect = CXLV_EFFECT_SECURITY_CHANGE,
		.in_len = CXLV_SEC_PASS_IN_LEN,
		.pmem_only = true,
		.handle = cxlv_security_disable_passphrase,
	},
	{
		.opcode = CXLV_OP_UNLOCK,
		.effect = CXLV_EFFECT_SECURITY_CHANGE,
		.in_len = CXLV_SEC_PASS_LEN,
		.pmem_only = true,
		.handle = cxlv_security_unlock,
	},
	{
		.opcode = CXLV_OP_FREEZE_SECURITY,
		.effect = CXLV_EFFECT_SECURITY_CHANGE,
		.in_len = 0,
		.pmem_only = true,
		.handle = cxlv_security_freeze,
	},
	{
		.opcode = CXLV_OP_PASSPHRASE_SECURE_ERASE,
		.effect = CXLV_EFFECT_IMMEDIATE_DATA_CHANGE |
			  CXLV_EFFECT_SECURITY_CHANGE,
		.in_len = CXLV_SEC_PASS_IN_LEN,
		.pmem_only = true,
		.handle = cxlv_security_erase,
	},
	{
		.opcode = CXL_MBOX_OP_GET_TIMESTAMP,
		.in_len = 0,
		.handle = cxlv_mbox_get_timestamp,
	},
	{
		.opcode = CXL_MBOX_OP_SET_TIMESTAMP,
		.effect = CXLV_EFFECT_IMMEDIATE_POLICY_CHANGE,
		.in_len = sizeof(__le64),
		.handle = cxlv_mbox_set_timestamp,
	},
	{
		.opcode = CXLV_MBOX_OP_SANITIZE,
		.effect = CXLV_EFFECT_IMMEDIATE_DATA_CHANGE |
			  CXLV_EFFECT_SECURITY_CHANGE |
			  CXLV_EFFECT_BACKGROUND_OPERATION,
		.in_len = 0,
		.handle = cxlv_sanitize,
	},
	{
		.opcode = CXLV_MBOX_OP_SECURE_ERASE,
		.effect = CXLV_EFFECT_IMMEDIATE_DATA_CHANGE |
			  CXLV_EFFECT_SECURITY_CHANGE,
		.in_len = 0,
		.handle = cxlv_secure_erase,
	},
};

static bool cxlv_mbox_op_enabled(const struct cxlv_emu_config *cfg,
				 const struct cxlv_mbox_op *op)
{
	return (cfg->pmem || !op->pmem_only) &&
	       (cfg->partitionable || !op->partitionable_only);
}

/* Fills @cel with the device's Command Effects Log; returns its size. */
static size_t cxlv_mbox_build_cel(const struct cxlv_emu_config *cfg,
				  struct cxl_cel_entry *cel)
{
	size_t i, n = 0;

	for (i = 0; i < ARRAY_SIZE(cxlv_mbox_ops); i++) {
		const struct cxlv_mbox_op *op = &cxlv_mbox_ops[i];

		if (!cxlv_mbox_op_enabled(cfg, op))
			continue;
		cel[n].opcode = cpu_to_le16(op->opcode);
		cel[n].effect = cpu_to_le16(op->effect);
		n++;
	}
	return n * sizeof(*cel);
}

/* CXL r3.0 8.2.9.5.1 Get Supported Logs: the CEL is the only log */
static u16 cxlv_mbox_get_supported_logs(const struct cxlv_emu_config *cfg,
					struct cxlv_mbox_cmd *cmd)
{
	struct cxl_mbox_get_supported_logs *gsl = cmd->out;
	struct cxl_cel_entry cel[ARRAY_SIZE(cxlv_mbox_ops)];

	memset(gsl, 0, struct_size(gsl, entry, 1));
	gsl->entries = cpu_to_le16(1);
	gsl->entry[0].uuid = cxlv_cel_uuid;
	gsl->entry[0].size = cpu_to_le32(cxlv_mbox_build_cel(cfg, cel));
	cmd->out_len = struct_size(gsl, entry, 1);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.5.2 Get Log: a window of the CEL */
static u16 cxlv_mbox_get_log(const struct cxlv_emu_config *cfg,
			     struct cxlv_mbox_cmd *cmd)
{
	const struct cxl_mbox_get_log *log = cmd->in;
	struct cxl_cel_entry cel[ARRAY_SIZE(cxlv_mbox_ops)];
	u32 offset = le32_to_cpu(log->offset);
	u32 length = le32_to_cpu(log->length);
	size_t cel_size;

	if (!uuid_equal(&log->uuid, &cxlv_cel_uuid))
		return CXL_MBOX_CMD_RC_INPUT;

	cel_size = cxlv_mbox_build_cel(cfg, cel);
	if (length > CXLV_MBOX_PAYLOAD_SIZE || offset > cel_size ||
	    length > cel_size - offset)
		return CXL_MBOX_CMD_RC_INPUT;

	memcpy(cmd->out, (u8 *)cel + offset, length);
	cmd->out_len = length;
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/**
 * cxlv_mbox_handle() - answer one mailbox command
 * @cfg: the device
 * @cmd: the command; on success @cmd->out_len says how much output there is
 *
 * Return: a CXL r3.0 8.2.8.4.5.1 return code for the Mailbox Status register.
 */
u16 cxlv_mbox_handle(const struct cxlv_emu_config *cfg,
		     struct cxlv_mbox_cmd *cmd)
{
	size_t i;
	u16 rc;

	cmd->out_len = 0;
	for (i = 0; i < ARRAY_SIZE(cxlv_mbox_ops); i++) {
		const struct cxlv_mbox_op *op = &cxlv_mbox_ops[i];

		if (op->opcode != cmd->opcode)
			continue;
		if (!cxlv_mbox_op_enabled(cfg, op))
			break;
		if (op->in_len != CXLV_MBOX_VARIABLE &&
		    op->in_len != cmd->in_len)
			return CXL_MBOX_CMD_RC_PAYLOADLEN;
		rc = cxlv_bg_refuse(&cmd->state->bg, cmd->opcode,
				    op->effect & CXLV_EFFECT_BACKGROUND_OPERATION);
		return rc ?: op->handle(cfg, cmd);
	}
	dev_dbg(cfg->dev, "mailbox opcode %#06x unsupported\n", cmd->opcode);
	return CXL_MBOX_CMD_RC_UNSUPPORTED;
}
