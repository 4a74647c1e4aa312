/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_EMU_INTERNAL_H__
#define __CXLV_EMU_INTERNAL_H__

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include "cxl.h"
#include "cxlv_emu.h"
#include "cxlv_events.h"
#include "cxlv_poison.h"
#include "cxlv_sanitize.h"

/**
 * DOC: cxl_virt emulator internals
 *
 * Shared by the emulator's files only: cxlv_regs.c lays out the register
 * blocks, cxlv_mbox.c answers mailbox commands on plain buffers, cxlv_emu.c
 * polls the registers and moves data between them. What reaches above the
 * emulator goes through &struct cxlv_emu_ops.
 */

/* CXL r3.0 8.2.8 device register block: where each capability lives. */
#define CXLV_DEV_CAP_COUNT	3
#define CXLV_DEV_STATUS_OFFSET	0x100	/* CXL r3.0 8.2.8.3 */
#define CXLV_DEV_STATUS_SIZE	0x8
#define CXLV_MEMDEV_OFFSET	0x200	/* CXL r3.0 8.2.8.5 */
#define CXLV_MEMDEV_SIZE	0x8
#define CXLV_MBOX_OFFSET	0x1000	/* CXL r3.0 8.2.8.4 */
#define CXLV_MBOX_PAYLOAD_SIZE	SZ_4K
#define CXLV_MBOX_SIZE		(CXLDEV_MBOX_PAYLOAD_OFFSET + CXLV_MBOX_PAYLOAD_SIZE)

/*
 * CXL r3.0 8.2.4 component register block: the HDM Decoder Capability
 * Structure, relative to the CXL.cachemem capability array at CXL_CM_OFFSET.
 */
#define CXLV_HDM_OFFSET		0x100

/*
 * Read-only words cxlv_regs_restore() guards: array headers 2, 3 per device
 * capability, and the HDM pointer, capability header and decoder count.
 */
#define CXLV_REGS_RO_WORDS	(2 + 3 * CXLV_DEV_CAP_COUNT + 3)

/* Block 0 of the non-volatile area: the security state (cxlv_security.c) */
#define CXLV_NV_SECURITY	0

/* CXL r3.0 8.2.9.8.3 opcodes, named here as the security ones are */
#define CXLV_OP_GET_ALERT_CONFIG	0x4201
#define CXLV_OP_SET_ALERT_CONFIG	0x4202
#define CXLV_OP_GET_SHUTDOWN_STATE	0x4203
#define CXLV_OP_SET_SHUTDOWN_STATE	0x4204
/* CXL r3.0 8.2.9.8.3.3 and .5 input sizes */
#define CXLV_ALERT_SET_IN_LEN		12
#define CXLV_SHUTDOWN_SET_IN_LEN	1

/* CXL r3.0 8.2.9.8.6 opcodes: 6.1's cxlmem.h has none of them */
#define CXLV_OP_GET_SECURITY_STATE	0x4500
#define CXLV_OP_SET_PASSPHRASE		0x4501
#define CXLV_OP_DISABLE_PASSPHRASE	0x4502
#define CXLV_OP_UNLOCK			0x4503
#define CXLV_OP_FREEZE_SECURITY		0x4504
#define CXLV_OP_PASSPHRASE_SECURE_ERASE	0x4505

/* CXL r3.0 8.2.9.8.6.2 passphrase length and the security input sizes */
#define CXLV_SEC_PASS_LEN		32
#define CXLV_SEC_HASH_LEN		32	/* SHA-256 */
#define CXLV_SEC_SET_PASS_IN_LEN	(32 + 2 * CXLV_SEC_PASS_LEN)
#define CXLV_SEC_PASS_IN_LEN		(32 + CXLV_SEC_PASS_LEN)

/**
 * struct cxlv_security - CXL r3.0 8.2.9.8.6 data-at-rest security state
 * @state: the 8.2.9.8.6.1 Security State bits
 * @user_attempts: wrong user passphrases in a row
 * @master_attempts: wrong master passphrases in a row
 * @user: SHA-256 of the user passphrase, if set
 * @master: SHA-256 of the master passphrase, if set
 * @erasing: a Passphrase Secure Erase is zeroing the media
 * @erase_work: zeroes it
 * @cfg: the device, for @erase_work
 */
struct cxlv_security {
	u32 state;
	u8 user_attempts;
	u8 master_attempts;
	u8 user[CXLV_SEC_HASH_LEN];
	u8 master[CXLV_SEC_HASH_LEN];
	bool erasing;
	struct work_struct erase_work;
	const struct cxlv_emu_config *cfg;
};

/**
 * struct cxlv_fw - the firmware slots (cxlv_fw.c)
 * @slots: how many, CXLV_FW_MIN_SLOTS to CXLV_FW_MAX_SLOTS
 * @active: the running slot, from 1
 * @staged: the slot activated at the next reset, 0 for none
 * @rev: each slot's revision, NUL-padded, empty for an empty slot
 * @transferring: a transfer in parts runs
 * @received: bytes of it received, where the next part starts
 * @crc: CRC-32 of those bytes, not yet inverted
 * @head: the first CXLV_FW_REV_LEN of them
 */
struct cxlv_fw {
	u8 slots;
	u8 active;
	u8 staged;
	char rev[CXLV_FW_MAX_SLOTS][CXLV_FW_REV_LEN];
	bool transferring;
	u32 received;
	u32 crc;
	u8 head[CXLV_FW_REV_LEN];
};

/* CXL r3.0 8.2.9.8.2.2 Set Partition Info input size */
#define CXLV_SET_PARTITION_IN_LEN	0xa

/**
 * struct cxlv_partition - CXL r3.0 8.2.9.8.2 the partition layout
 *	(cxlv_partition.c)
 * @active_ram: volatile bytes from DPA 0 now; the rest is persistent
 * @next_ram: volatile bytes after the next power cycle
 */
struct cxlv_partition {
	u64 active_ram;
	u64 next_ram;
};

/**
 * struct cxlv_health - CXL r3.0 8.2.9.8.3 health, alerts, shutdown state
 *	(cxlv_health.c)
 * @lock: mailbox handlers (any context) against set_health
 * @health_status: Health Status bits
 * @media_status: Media Status
 * @life_used: Life Used, percent; non-volatile
 * @temperature: Device Temperature, degrees Celsius
 * @dirty_shutdowns: Dirty Shutdown Count; non-volatile
 * @volatile_errors: Corrected Volatile Error Count
 * @persistent_errors: Corrected Persistent Error Count
 * @dirty: the shutdown state is dirty (Set Shutdown State); non-volatile
 * @alerts: the warning thresholds enabled, Valid Alerts bits
 * @life_warn: Life Used Programmable Warning Threshold
 * @over_temp_warn: Device Over-Temperature Programmable Warning Threshold
 * @under_temp_warn: Device Under-Temperature Programmable Warning Threshold
 * @volatile_warn: Corrected Volatile Memory Error Programmable Warning
 *	Threshold
 * @persistent_warn: Corrected Persistent Memory Error Programmable Warning
 *	Threshold
 */
struct cxlv_health {
	raw_spinlock_t lock;
	u8 health_status;
	u8 media_status;
	u8 life_used;
	s16 temperature;
	u32 dirty_shutdowns;
	u32 volatile_errors;
	u32 persistent_errors;
	bool dirty;
	u8 alerts;
	u8 life_warn;
	s16 over_temp_warn;
	s16 under_temp_warn;
	u16 volatile_warn;
	u16 persistent_warn;
};

/**
 * struct cxlv_health_events - the Memory Module records a change adds
 * @count: records
 * @log: each one's event log
 * @type: each one's Device Event Type (CXL r3.0 Table 8-45)
 */
struct cxlv_health_events {
	unsigned int count;
	u8 log[4];
	u8 type[4];
};

/**
 * struct cxlv_mbox_state - what mailbox commands change on the device
 * @timestamp: CXL r3.0 8.2.9.4.2 the host's time at its last Set Timestamp,
 *	in ns since the epoch
 * @timestamp_set_at: ktime_get_ns() at that Set Timestamp; 0: never set
 * @poison: CXL r3.0 8.2.9.8.4 the poison list (cxlv_poison.c)
 * @events: CXL r3.0 8.2.9.2 the event logs (cxlv_events.c)
 * @security: CXL r3.0 8.2.9.8.6 passphrases and lock (cxlv_security.c)
 * @fw: CXL r3.0 8.2.9.3 the firmware slots (cxlv_fw.c)
 * @bg: CXL r3.0 8.2.8.4.7 the background command (cxlv_sanitize.c)
 * @partition: CXL r3.0 8.2.9.8.2 the partition layout (cxlv_partition.c)
 * @health: CXL r3.0 8.2.9.8.3 health and alerts (cxlv_health.c)
 */
struct cxlv_mbox_state {
	u64 timestamp;
	u64 timestamp_set_at;
	struct cxlv_poison poison;
	struct cxlv_events events;
	struct cxlv_security security;
	struct cxlv_fw fw;
	struct cxlv_bg bg;
	struct cxlv_partition partition;
	struct cxlv_health health;
};

/*
 * CXL r3.0 8.2.9.8.3.1 Get Health Info output payload: not in 6.1's
 * cxlmem.h, asserted against the kernel's where it has one (cxlv_mbox.c)
 */
struct cxlv_health_info {
	u8 health_status;
	u8 media_status;
	u8 additional_status;
	u8 life_used;
	__le16 device_temperature;
	__le32 dirty_shutdown_count;
	__le32 corrected_volatile_errors;
	__le32 corrected_persistent_errors;
} __packed;

/**
 * struct cxlv_mbox_cmd - one mailbox command as the handlers see it
 * @opcode: CXL r3.0 8.2.8.4.5 Command Register opcode
 * @in: input payload, already copied out of the payload registers
 * @in_len: bytes in @in
 * @out: output buffer of CXLV_MBOX_PAYLOAD_SIZE bytes
 * @out_len: bytes of @out the handler produced
 * @state: the device's state, under the emulator's lock
 * @may_sleep: answered by a worker; else with preemption off, where no
 *	worker could run (cxlv_emu.c), and the handler must not sleep
 */
struct cxlv_mbox_cmd {
	u16 opcode;
	const void *in;
	size_t in_len;
	void *out;
	size_t out_len;
	struct cxlv_mbox_state *state;
	bool may_sleep;
};

/**
 * struct cxlv_hdm_decoder - the registers of one HDM decoder
 * @ctrl: CXL r3.0 8.2.4.19.7 HDM Decoder Control
 * @base: HPA base
 * @size: HPA size
 * @skip: DPA skip (endpoint decoders, CXL r3.0 8.2.4.19.11-12)
 * @targets: target list in the same registers (host-bridge and switch
 *	decoders, CXL r3.0 8.2.4.19.8-9): byte i is target i's port number
 */
struct cxlv_hdm_decoder {
	u32 ctrl;
	u64 base;
	u64 size;
	union {
		u64 skip;
		u64 targets;
	};
};

/*
 * What the device says about a decoder (CXL r3.0 8.2.4.19.7): the emulator,
 * not the register, is the authority on Committed and Error Not Committed.
 */
enum cxlv_hdm_state {
	CXLV_HDM_IDLE,		/* Commit clear, neither bit set */
	CXLV_HDM_COMMITTED,	/* validated: Committed */
	CXLV_HDM_REFUSED,	/* validated: Error Not Committed */
};

/**
 * struct cxlv_hdm_block - the HDM decoders of one component block
 * @regs: its HDM Decoder Capability Structure, or NULL if it has none
 * @bridge: a host bridge's, whose decoders target root ports
 * @state: each decoder's answer, the truth its Control register shows
 * @checked: each decoder's programming when it was last validated
 * @reset_refused: bit n set once a reset of committed decoder n was
 *	refused because decoder n + 1 is committed, so it is reported once
 * @lock_reported: bit n set once a write to locked decoder n was undone,
 *	so it is reported once
 */
struct cxlv_hdm_block {
	void __iomem *regs;
	bool bridge;
	enum cxlv_hdm_state state[CXLV_HDM_DECODERS];
	struct cxlv_hdm_decoder checked[CXLV_HDM_DECODERS];
	unsigned long reset_refused;
	unsigned long lock_reported;
};

/**
 * struct cxlv_emu - one emulated device
 * @cfg: what the topology code told us, including the register mappings
 * @mbox: the primary mailbox registers inside @cfg.dev_regs
 * @ep_hdm: the endpoint's decoders, in @cfg.comp_regs
 * @hb_hdm: the host bridge's decoders, in @cfg.bridge_regs, if any
 * @timer: the poller; fires in hard interrupt context
 * @mbox_work: answers a rung doorbell, queued by the doorbell hint on a
 *	CPU other than the spinning one where there is one
 * @mbox_work_any: answers a rung doorbell, on any CPU (the poller's)
 * @mbox_owner: bit 0 set while someone is answering the mailbox
 * @node: in the list of running emulators the hints walk
 * @lock: serializes the decoder state machine (poller and commit hint)
 * @period_ns: current poll period, short while busy, backing off when idle
 * @last_busy: when the poller last found work
 * @mbox_cmds: mailbox commands answered
 * @commits: the endpoint's HDM decoder commits accepted (not its host
 *	bridge's)
 * @mbox_state: what mailbox commands have changed
 * @regs_ro: the read-only register layout as laid out, to restore
 * @payload_in: bounce buffer for the input payload
 * @payload_out: bounce buffer for the output payload
 */
struct cxlv_emu {
	struct cxlv_emu_config cfg;
	void __iomem *mbox;
	struct cxlv_hdm_block ep_hdm;
	struct cxlv_hdm_block hb_hdm;
	struct hrtimer timer;
	struct work_struct mbox_work;
	struct work_struct mbox_work_any;
	unsigned long mbox_owner;
	struct list_head node;
	raw_spinlock_t lock;
	u64 period_ns;
	ktime_t last_busy;
	u64 mbox_cmds;
	u64 commits;
	struct cxlv_mbox_state mbox_state;
	u32 regs_ro[CXLV_REGS_RO_WORDS];
	u8 payload_in[CXLV_MBOX_PAYLOAD_SIZE];
	u8 payload_out[CXLV_MBOX_PAYLOAD_SIZE];
};

void cxlv_regs_init(const struct cxlv_emu_config *cfg, u32 *ro);
bool cxlv_regs_restore(const struct cxlv_emu_config *cfg, u32 *ro);
void __iomem *cxlv_regs_mbox(const struct cxlv_emu_config *cfg);
void __iomem *cxlv_regs_hdm(void __iomem *comp_regs);

u16 cxlv_mbox_handle(const struct cxlv_emu_config *cfg,
		     struct cxlv_mbox_cmd *cmd);
u64 cxlv_mbox_now(const struct cxlv_mbox_state *state);

void cxlv_health_start(struct cxlv_health *h,
		       const struct cxlv_emu_config *cfg);
void cxlv_health_info(struct cxlv_health *h, struct cxlv_health_info *info);
void cxlv_health_set(struct cxlv_health *h, const struct cxlv_emu_config *cfg,
		     const struct cxlv_health_request *req,
		     struct cxlv_health_events *ev,
		     struct cxlv_health_info *info);
u16 cxlv_health_get_info(const struct cxlv_emu_config *cfg,
			 struct cxlv_mbox_cmd *cmd);
u16 cxlv_health_get_alert(const struct cxlv_emu_config *cfg,
			  struct cxlv_mbox_cmd *cmd);
u16 cxlv_health_set_alert(const struct cxlv_emu_config *cfg,
			  struct cxlv_mbox_cmd *cmd);
u16 cxlv_health_get_shutdown(const struct cxlv_emu_config *cfg,
			     struct cxlv_mbox_cmd *cmd);
u16 cxlv_health_set_shutdown(const struct cxlv_emu_config *cfg,
			     struct cxlv_mbox_cmd *cmd);

void cxlv_security_start(struct cxlv_security *sec,
			 const struct cxlv_emu_config *cfg);
void cxlv_security_stop(struct cxlv_security *sec);
bool cxlv_security_media_blocked(const struct cxlv_security *sec);
u16 cxlv_security_get_state(const struct cxlv_emu_config *cfg,
			    struct cxlv_mbox_cmd *cmd);
u16 cxlv_security_set_passphrase(const struct cxlv_emu_config *cfg,
				 struct cxlv_mbox_cmd *cmd);
u16 cxlv_security_disable_passphrase(const struct cxlv_emu_config *cfg,
				     struct cxlv_mbox_cmd *cmd);
u16 cxlv_security_unlock(const struct cxlv_emu_config *cfg,
			 struct cxlv_mbox_cmd *cmd);
u16 cxlv_security_freeze(const struct cxlv_emu_config *cfg,
			 struct cxlv_mbox_cmd *cmd);
u16 cxlv_security_erase(const struct cxlv_emu_config *cfg,
			struct cxlv_mbox_cmd *cmd);
void cxlv_partition_start(struct cxlv_partition *part,
			  const struct cxlv_emu_config *cfg);
u64 cxlv_partition_align(const struct cxlv_emu_config *cfg);
u16 cxlv_partition_get(const struct cxlv_emu_config *cfg,
		       struct cxlv_mbox_cmd *cmd);
u16 cxlv_partition_set(const struct cxlv_emu_config *cfg,
		       struct cxlv_mbox_cmd *cmd);
void cxlv_fw_start(struct cxlv_fw *fw, const struct cxlv_emu_config *cfg);
const char *cxlv_fw_revision(const struct cxlv_fw *fw);
u16 cxlv_fw_handle(const struct cxlv_emu_config *cfg,
		   struct cxlv_mbox_cmd *cmd);

#endif /* __CXLV_EMU_INTERNAL_H__ */
