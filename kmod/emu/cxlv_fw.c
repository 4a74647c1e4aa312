// SPDX-License-Identifier: GPL-2.0-only
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/crc32.h>
#include <linux/ctype.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt firmware slots
 *
 * The firmware update commands of CXL r3.0 8.2.9.3: Get FW Info, Transfer
 * FW (a whole package at once, or in parts: Initiate, Continue, End, and
 * Abort) and Activate FW (online, or on the next reset). A device has
 * cfg->fw_slots slots (2 to 4); from the factory slot 1 holds and runs
 * cfg->fw_rev and the others are empty.
 *
 * No image is stored: the device keeps what Get FW Info reports (each
 * slot's revision, the active slot, the slot staged for the next reset)
 * and, while a transfer in parts runs, a running check of it: the bytes
 * received so far, which is where the next part must start, their CRC and
 * the first bytes. The revision a package gets is its first
 * CXLV_FW_REV_LEN bytes (all of it when shorter) if they are printable
 * ASCII, else "crc32:" and the package's CRC-32 (the zlib/gzip one) in
 * eight hex digits; so a test knows the revision it will see.
 *
 * Parts come in order: a part that does not start where the previous one
 * ended (a gap, or an overlap with what was sent) is FW Transfer Out of
 * Order, as is a Continue or End with no transfer running; Initiate or a
 * full transfer while one runs is FW Transfer in Progress. Initiate and
 * Continue carry whole 128-byte units, End and a full transfer may end on
 * a shorter tail. A refused command changes nothing, the running transfer
 * included. Abort with nothing to abort succeeds: the kernel sends it when
 * an upload is cancelled before its first part.
 *
 * The slots, the active and the staged slot are non-volatile: block
 * CXLV_FW_NV_BLOCK of cfg->nv, with a magic and a CRC, read at start, where
 * a staged slot becomes the active one (the reset that remove and create
 * are). A block that fails its check, or was written for another slot
 * count, is the factory state. The kernel's firmware upload (6.5 and
 * later: cxl_fw_write() in drivers/cxl/core/memdev.c) sends 128-byte
 * aligned parts up to the payload size and activates offline; every
 * command here completes at once, with no background operation.
 */

/* Block 0 of the non-volatile area is the security state's. */
#define CXLV_FW_NV_BLOCK	1
#define CXLV_FW_NV_MAGIC	0x31767766	/* "fwv1" */

/* CXL r3.0 8.2.9.3.2: offsets and parts are in 128-byte units */
#define CXLV_FW_UNIT		128
/* The largest package accepted; the kernel's upload has no limit. */
#define CXLV_FW_IMAGE_MAX	SZ_16M

/* CXL r3.0 8.2.9.3.2 Table 8-57 Transfer FW Action */
enum cxlv_fw_action {
	CXLV_FW_FULL,
	CXLV_FW_INITIATE,
	CXLV_FW_CONTINUE,
	CXLV_FW_END,
	CXLV_FW_ABORT,
};

/* CXL r3.0 8.2.9.3.3 Table 8-58 Activate FW Action */
#define CXLV_FW_ACTIVATE_ONLINE		0
#define CXLV_FW_ACTIVATE_ON_RESET	1

/* CXL r3.0 8.2.9.3.1 Table 8-56 FW Slot Info: active, staged slot */
#define CXLV_FW_SLOT_ACTIVE	GENMASK(2, 0)
#define CXLV_FW_SLOT_STAGED	GENMASK(5, 3)
/* Table 8-56 FW Activation Capabilities bit 0: online activation */
#define CXLV_FW_CAN_ACTIVATE_ONLINE	BIT(0)

/* CXL r3.0 8.2.9.3.1 Table 8-56 Get FW Info output payload */
struct cxlv_fw_info {
	u8 slots;
	u8 slot_info;
	u8 activation_caps;
	u8 reserved[13];
	char rev[CXLV_FW_MAX_SLOTS][CXLV_FW_REV_LEN];
} __packed;

/* CXL r3.0 8.2.9.3.2 Table 8-57 Transfer FW input payload, data after */
struct cxlv_fw_transfer {
	u8 action;
	u8 slot;
	u8 reserved[2];
	__le32 offset;	/* in CXLV_FW_UNIT */
	u8 reserved2[0x78];
} __packed;

/* CXL r3.0 8.2.9.3.3 Table 8-58 Activate FW input payload */
struct cxlv_fw_activate {
	u8 action;
	u8 slot;
} __packed;

static_assert(sizeof(struct cxlv_fw_info) == 0x50);
static_assert(sizeof(struct cxlv_fw_transfer) == CXLV_FW_UNIT);

#ifdef CXLV_HAVE_FW_TRANSFER
static_assert(CXLV_SAME_SIZE(struct cxlv_fw_info,
			     struct cxl_mbox_get_fw_info) &&
	      CXLV_FIELD_AT(struct cxlv_fw_info, slot_info, 0,
			    struct cxl_mbox_get_fw_info, slot_info) &&
	      CXLV_FIELD_AT(struct cxlv_fw_info, rev[1], 0,
			    struct cxl_mbox_get_fw_info, slot_2_revision) &&
	      CXLV_SAME_SIZE(struct cxlv_fw_transfer,
			     struct cxl_mbox_transfer_fw) &&
	      CXLV_FIELD_AT(struct cxlv_fw_transfer, offset, 0,
			    struct cxl_mbox_transfer_fw, offset) &&
	      CXLV_SAME_SIZE(struct cxlv_fw_activate,
			     struct cxl_mbox_activate_fw));
#endif

/* The non-volatile block: little-endian, @crc over the bytes before it. */
struct cxlv_fw_nv {
	__le32 magic;
	u8 slots;
	u8 active;
	u8 staged;
	u8 reserved;
	char rev[CXLV_FW_MAX_SLOTS][CXLV_FW_REV_LEN];
	__le32 crc;
} __packed;

static_assert(sizeof(struct cxlv_fw_nv) <= CXLV_NV_BLOCK_SIZE);

static void __iomem *cxlv_fw_nv_block(const struct cxlv_emu_config *cfg)
{
	return cfg->nv + CXLV_FW_NV_BLOCK * CXLV_NV_BLOCK_SIZE;
}

static u32 cxlv_fw_nv_crc(const struct cxlv_fw_nv *nv)
{
	return crc32_le(~0, (const u8 *)nv, offsetof(struct cxlv_fw_nv, crc));
}

static void cxlv_fw_save(const struct cxlv_emu_config *cfg,
			 const struct cxlv_fw *fw)
{
	struct cxlv_fw_nv nv = {
		.magic = cpu_to_le32(CXLV_FW_NV_MAGIC),
		.slots = fw->slots,
		.active = fw->active,
		.staged = fw->staged,
	};

	memcpy(nv.rev, fw->rev, sizeof(nv.rev));
	nv.crc = cpu_to_le32(cxlv_fw_nv_crc(&nv));
	memcpy_toio(cxlv_fw_nv_block(cfg), &nv, sizeof(nv));
}

static bool cxlv_fw_slot_full(const struct cxlv_fw *fw, unsigned int slot)
{
	return slot >= 1 && slot <= fw->slots && fw->rev[slot - 1][0];
}

/* Takes the saved state if it is whole and fits this device. */
static bool cxlv_fw_load(const struct cxlv_emu_config *cfg, struct cxlv_fw *fw)
{
	struct cxlv_fw_nv nv;

	memcpy_fromio(&nv, cxlv_fw_nv_block(cfg), sizeof(nv));
	if (le32_to_cpu(nv.magic) != CXLV_FW_NV_MAGIC ||
	    le32_to_cpu(nv.crc) != cxlv_fw_nv_crc(&nv) ||
	    nv.slots != cfg->fw_slots)
		return false;
	fw->slots = nv.slots;
	memcpy(fw->rev, nv.rev, sizeof(fw->rev));
	fw->active = nv.active;
	fw->staged = nv.staged;
	if (!cxlv_fw_slot_full(fw, fw->active))
		return false;
	return !fw->staged || (fw->staged != fw->active &&
			       cxlv_fw_slot_full(fw, fw->staged));
}

/**
 * cxlv_fw_start() - the slots after a reset
 * @fw: the device's firmware state
 * @cfg: the device: its slot count, factory revision and non-volatile area
 *
 * A slot staged for the next reset becomes the active one here.
 */
void cxlv_fw_start(struct cxlv_fw *fw, const struct cxlv_emu_config *cfg)
{
	memset(fw, 0, sizeof(*fw));
	if (!cxlv_fw_load(cfg, fw)) {
		memset(fw, 0, sizeof(*fw));
		fw->slots = cfg->fw_slots;
		fw->active = 1;
		memcpy(fw->rev[0], cfg->fw_rev, CXLV_FW_REV_LEN);
		dev_dbg(cfg->dev, "endpoint %u: firmware slots at factory state\n",
			cfg->pos);
	}
	if (fw->staged) {
		dev_dbg(cfg->dev, "endpoint %u: firmware slot %u activated at reset\n",
			cfg->pos, fw->staged);
		fw->active = fw->staged;
		fw->staged = 0;
	}
	cxlv_fw_save(cfg, fw);
}

/* The running slot's revision, CXLV_FW_REV_LEN bytes, for Identify. */
const char *cxlv_fw_revision(const struct cxlv_fw *fw)
{
	return fw->rev[fw->active - 1];
}

/* CXL r3.0 8.2.9.3.1 Get FW Info */
static u16 cxlv_fw_get_info(const struct cxlv_emu_config *cfg,
			    struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_fw *fw = &cmd->state->fw;
	struct cxlv_fw_info *info = cmd->out;

	memset(info, 0, sizeof(*info));
	info->slots = fw->slots;
	info->slot_info = FIELD_PREP(CXLV_FW_SLOT_ACTIVE, fw->active) |
			  FIELD_PREP(CXLV_FW_SLOT_STAGED, fw->staged);
	info->activation_caps = CXLV_FW_CAN_ACTIVATE_ONLINE;
	memcpy(info->rev, fw->rev, sizeof(info->rev));
	cmd->out_len = sizeof(*info);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* Adds a part to the running check: size, CRC, first bytes. */
static void cxlv_fw_take(struct cxlv_fw *fw, const u8 *data, u32 len)
{
	if (fw->received < CXLV_FW_REV_LEN)
		memcpy(fw->head + fw->received, data,
		       min_t(u32, len, CXLV_FW_REV_LEN - fw->received));
	fw->crc = crc32_le(fw->crc, data, len);
	fw->received += len;
}

/* The revision the package received so far gets (see the DOC block). */
static void cxlv_fw_package_revision(const struct cxlv_fw *fw, char *rev)
{
	u32 n = min_t(u32, fw->received, CXLV_FW_REV_LEN), i;

	memset(rev, 0, CXLV_FW_REV_LEN);
	for (i = 0; i < n; i++)
		if (fw->head[i] < 0x20 || fw->head[i] > 0x7e)
			break;
	if (i == n)
		memcpy(rev, fw->head, n);
	else
		snprintf(rev, CXLV_FW_REV_LEN, "crc32:%08x", ~fw->crc);
}

/* The target of a package: a slot that exists and is not running. */
static bool cxlv_fw_slot_writable(const struct cxlv_fw *fw, unsigned int slot)
{
	return slot >= 1 && slot <= fw->slots && slot != fw->active;
}

/* CXL r3.0 8.2.9.3.2 Transfer FW */
static u16 cxlv_fw_transfer(const struct cxlv_emu_config *cfg,
			    struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_fw_transfer *xfer = cmd->in;
	struct cxlv_fw *fw = &cmd->state->fw;
	struct cxlv_fw part = *fw;
	const u8 *data = (const u8 *)cmd->in + sizeof(*xfer);
	u32 len, offset;

	if (cmd->in_len < sizeof(*xfer))
		return CXL_MBOX_CMD_RC_PAYLOADLEN;
	len = cmd->in_len - sizeof(*xfer);
	offset = le32_to_cpu(xfer->offset);

	switch (xfer->action) {
	case CXLV_FW_ABORT:
		fw->transferring = false;
		return CXL_MBOX_CMD_RC_SUCCESS;
	case CXLV_FW_FULL:
	case CXLV_FW_INITIATE:
		if (fw->transferring)
			return CXL_MBOX_CMD_RC_FWINPROGRESS;
		part.received = 0;
		part.crc = ~0;
		break;
	case CXLV_FW_CONTINUE:
	case CXLV_FW_END:
		if (!fw->transferring)
			return CXL_MBOX_CMD_RC_FWOOO;
		break;
	default:
		return CXL_MBOX_CMD_RC_INPUT;
	}
	if (!len || ((xfer->action == CXLV_FW_INITIATE ||
		      xfer->action == CXLV_FW_CONTINUE) &&
		     len % CXLV_FW_UNIT))
		return CXL_MBOX_CMD_RC_PAYLOADLEN;
	/* a full transfer has no offset to check */
	if (xfer->action != CXLV_FW_FULL &&
	    (offset > U32_MAX / CXLV_FW_UNIT ||
	     offset * CXLV_FW_UNIT != part.received))
		return CXL_MBOX_CMD_RC_FWOOO;
	if (len > CXLV_FW_IMAGE_MAX - part.received)
		return CXL_MBOX_CMD_RC_INPUT;
	if ((xfer->action == CXLV_FW_FULL || xfer->action == CXLV_FW_END) &&
	    !cxlv_fw_slot_writable(fw, xfer->slot))
		return CXL_MBOX_CMD_RC_FWSLOT;

	cxlv_fw_take(&part, data, len);
	if (xfer->action == CXLV_FW_INITIATE ||
	    xfer->action == CXLV_FW_CONTINUE) {
		part.transferring = true;
		*fw = part;
		return CXL_MBOX_CMD_RC_SUCCESS;
	}
	cxlv_fw_package_revision(&part, part.rev[xfer->slot - 1]);
	part.transferring = false;
	*fw = part;
	cxlv_fw_save(cfg, fw);
	dev_dbg(cfg->dev, "endpoint %u: firmware slot %u now holds %.16s\n",
		cfg->pos, xfer->slot, fw->rev[xfer->slot - 1]);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.3.3 Activate FW */
static u16 cxlv_fw_activate(const struct cxlv_emu_config *cfg,
			    struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_fw_activate *act = cmd->in;
	struct cxlv_fw *fw = &cmd->state->fw;

	if (act->action != CXLV_FW_ACTIVATE_ONLINE &&
	    act->action != CXLV_FW_ACTIVATE_ON_RESET)
		return CXL_MBOX_CMD_RC_INPUT;
	if (act->slot == fw->active || !cxlv_fw_slot_full(fw, act->slot))
		return CXL_MBOX_CMD_RC_FWSLOT;

	if (act->action == CXLV_FW_ACTIVATE_ONLINE) {
		fw->active = act->slot;
		fw->staged = 0;
	} else {
		fw->staged = act->slot;
	}
	cxlv_fw_save(cfg, fw);
	dev_dbg(cfg->dev, "endpoint %u: firmware slot %u %s\n", cfg->pos,
		act->slot, fw->staged ? "staged for the next reset" : "active");
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/**
 * cxlv_fw_handle() - answer Get FW Info, Transfer FW or Activate FW
 * @cfg: the device
 * @cmd: the command; the command table checked Activate FW's input length
 *
 * Return: a CXL r3.0 8.2.8.4.5.1 return code.
 */
u16 cxlv_fw_handle(const struct cxlv_emu_config *cfg, struct cxlv_mbox_cmd *cmd)
{
	switch (cmd->opcode) {
	case CXL_MBOX_OP_GET_FW_INFO:
		return cxlv_fw_get_info(cfg, cmd);
	case CXL_MBOX_OP_TRANSFER_FW:
		return cxlv_fw_transfer(cfg, cmd);
	case CXL_MBOX_OP_ACTIVATE_FW:
		return cxlv_fw_activate(cfg, cmd);
	}
	return CXL_MBOX_CMD_RC_UNSUPPORTED;
}
