// SPDX-License-Identifier: GPL-2.0-only
#include <linux/build_bug.h>
#include <linux/crc32.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt volatile and persistent partitions
 *
 * On a kernel with RAM regions (6.3 on; not 6.1: cxlv_compat.h), each
 * endpoint of a persistent device (pmem=1) has all of its capacity
 * partitionable between volatile and persistent (CXL r3.0 8.2.9.8.1.1
 * Identify: no volatile-only nor persistent-only capacity) at a Partition
 * Alignment of CXLV_PARTITION_ALIGN: the first part of the DPA is
 * volatile, the rest persistent. A volatile device is not partitionable
 * (alignment 0): its one partition spans the capacity. The endpoints of a
 * set are partitioned one by one, as a set of real devices is; the module
 * creates a set only when they agree (cxlv_device.c).
 *
 * Set Partition Info (8.2.9.8.2.2) takes the volatile capacity in 256 MiB
 * units: not a multiple of the alignment, above the capacity, or with a
 * reserved flag set, is Invalid Input and changes nothing. Without the Immediate flag the new
 * layout is the "next" one, which Get Partition Info (8.2.9.8.2.1) reports
 * as such, and which becomes the active one at the next power cycle: remove
 * and create on the same range (the kernel refuses Immediate from user
 * space, cxl_payload_from_user_allowed(), so that is what `cxl
 * set-partition` gets). With Immediate the active layout changes at once;
 * the spec leaves an immediate change under a device in use to the caller,
 * and cxl_virt refuses it with Invalid Input while an endpoint HDM decoder
 * is committed. The CDAT (cxlv_cdat.c) and the root windows (cxlv_window.c)
 * are built at create from the active layout, so they follow an immediate
 * change at the next create; until then a region the change would misplace
 * fails its commit (cxlv_emu.c checks each against the identity).
 *
 * The layout is non-volatile, as the passphrases (cxlv_security.c) and the
 * firmware slots (cxlv_fw.c) are: block CXLV_PART_NV_BLOCK of the
 * non-volatile area holds the next volatile capacity, the capacity it was
 * set for, a magic and a CRC. cxlv_partition_boot() reads it when the
 * device is created, before the CDAT is built: a block that fails its
 * check or was written for another capacity is the factory layout (all
 * persistent); a create request with ram_size= sets the factory layout
 * anew.
 */

/* Block 0 is the security state's, 1 the firmware slots'. */
#define CXLV_PART_NV_BLOCK	3
#define CXLV_PART_NV_MAGIC	0x31747270	/* "prt1" */

/* CXL r3.0 8.2.9.8.2.2 Set Partition Info input payload */
struct cxlv_set_partition_in {
	__le64 volatile_capacity;	/* in CXL_CAPACITY_MULTIPLIER units */
	u8 flags;
	u8 reserved;
} __packed;

#define CXLV_SET_PARTITION_IMMEDIATE	BIT(0)

static_assert(sizeof(struct cxlv_set_partition_in) ==
	      CXLV_SET_PARTITION_IN_LEN);
static_assert(CXLV_FIELD_AT(struct cxlv_set_partition_in, flags, 0,
			    struct cxl_mbox_set_partition_info, flags));

/* The non-volatile block: little-endian, @crc over the bytes before it. */
struct cxlv_partition_nv {
	__le32 magic;
	__le32 reserved;
	__le64 capacity;
	__le64 next_ram;
	__le32 crc;
} __packed;

static_assert(sizeof(struct cxlv_partition_nv) <= CXLV_NV_BLOCK_SIZE);

static void __iomem *cxlv_partition_nv_block(void __iomem *nv)
{
	return nv + CXLV_PART_NV_BLOCK * CXLV_NV_BLOCK_SIZE;
}

static u32 cxlv_partition_nv_crc(const struct cxlv_partition_nv *blk)
{
	return crc32_le(~0, (const u8 *)blk,
			offsetof(struct cxlv_partition_nv, crc));
}

static void cxlv_partition_save(void __iomem *nv, u64 capacity, u64 next_ram)
{
	struct cxlv_partition_nv blk = {
		.magic = cpu_to_le32(CXLV_PART_NV_MAGIC),
		.capacity = cpu_to_le64(capacity),
		.next_ram = cpu_to_le64(next_ram),
	};

	blk.crc = cpu_to_le32(cxlv_partition_nv_crc(&blk));
	memcpy_toio(cxlv_partition_nv_block(nv), &blk, sizeof(blk));
}

/* A volatile capacity the device can take: aligned, within the capacity. */
static bool cxlv_partition_valid(u64 capacity, u64 ram)
{
	return IS_ALIGNED(ram, CXLV_PARTITION_ALIGN) && ram <= capacity;
}

/**
 * cxlv_partition_boot() - the active layout of a device being created
 * @nv: the endpoint's non-volatile area (CXLV_NV_SIZE)
 * @capacity: its capacity in bytes
 * @partitionable: a persistent device, where the kernel has RAM regions
 * @ram_size: the create request's ram_size=, or NULL if it has none
 *
 * The power cycle: the next layout saved before becomes the active one, or
 * with @ram_size the device is born with that layout, which is saved. The
 * caller checked @ram_size against the capacity.
 *
 * Return: the volatile bytes at the start of the DPA; the rest is
 * persistent. 0 for a device that is not partitionable.
 */
u64 cxlv_partition_boot(void __iomem *nv, u64 capacity, bool partitionable,
			const u64 *ram_size)
{
	struct cxlv_partition_nv blk;

	if (!partitionable)
		return 0;
	if (ram_size) {
		cxlv_partition_save(nv, capacity, *ram_size);
		return *ram_size;
	}
	memcpy_fromio(&blk, cxlv_partition_nv_block(nv), sizeof(blk));
	if (le32_to_cpu(blk.magic) != CXLV_PART_NV_MAGIC ||
	    le32_to_cpu(blk.crc) != cxlv_partition_nv_crc(&blk) ||
	    le64_to_cpu(blk.capacity) != capacity ||
	    !cxlv_partition_valid(capacity, le64_to_cpu(blk.next_ram)))
		return 0;
	return le64_to_cpu(blk.next_ram);
}

/**
 * cxlv_partition_start() - the layout the device was created with
 * @part: the device's partition state
 * @cfg: the device; @cfg->ram_bytes is the active layout
 */
void cxlv_partition_start(struct cxlv_partition *part,
			  const struct cxlv_emu_config *cfg)
{
	part->active_ram = cfg->partitionable ? cfg->ram_bytes : 0;
	part->next_ram = part->active_ram;
}

/* Partition Alignment in bytes: 0 where the device is not partitionable. */
u64 cxlv_partition_align(const struct cxlv_emu_config *cfg)
{
	return cfg->partitionable ? CXLV_PARTITION_ALIGN : 0;
}

/* Volatile bytes of the active layout. */
static u64 cxlv_partition_ram(const struct cxlv_emu_config *cfg,
			      const struct cxlv_partition *part)
{
	if (!cfg->pmem)
		return cfg->capacity;
	return part->active_ram;
}

/* CXL r3.0 8.2.9.8.2.1 Get Partition Info */
u16 cxlv_partition_get(const struct cxlv_emu_config *cfg,
		       struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_partition *part = &cmd->state->partition;
	struct cxl_mbox_get_partition_info *pi = cmd->out;
	u64 ram = cxlv_partition_ram(cfg, part);
	u64 next = cfg->partitionable ? part->next_ram : 0;

	memset(pi, 0, sizeof(*pi));
	pi->active_volatile_cap = cpu_to_le64(ram / CXL_CAPACITY_MULTIPLIER);
	pi->active_persistent_cap =
		cpu_to_le64((cfg->capacity - ram) / CXL_CAPACITY_MULTIPLIER);
	/* no change pending: the next fields are 0 (Table 8-100) */
	if (cfg->partitionable && next != part->active_ram) {
		pi->next_volatile_cap =
			cpu_to_le64(next / CXL_CAPACITY_MULTIPLIER);
		pi->next_persistent_cap =
			cpu_to_le64((cfg->capacity - next) /
				    CXL_CAPACITY_MULTIPLIER);
	}
	cmd->out_len = sizeof(*pi);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* Is any endpoint HDM decoder committed? Read without the decoder lock. */
static bool cxlv_partition_in_use(struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_emu *emu = container_of(cmd->state, struct cxlv_emu,
					    mbox_state);
	int id;

	for (id = 0; id < CXLV_HDM_DECODERS; id++)
		if (READ_ONCE(emu->ep_hdm.state[id]) == CXLV_HDM_COMMITTED)
			return true;
	return false;
}

/* CXL r3.0 8.2.9.8.2.2 Set Partition Info */
u16 cxlv_partition_set(const struct cxlv_emu_config *cfg,
		       struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_set_partition_in *in = cmd->in;
	struct cxlv_partition *part = &cmd->state->partition;
	u64 units = le64_to_cpu(in->volatile_capacity);
	u64 ram;

	if (units > div_u64(cfg->capacity, CXL_CAPACITY_MULTIPLIER))
		return CXL_MBOX_CMD_RC_INPUT;
	ram = units * CXL_CAPACITY_MULTIPLIER;
	if (!cxlv_partition_valid(cfg->capacity, ram) ||
	    (in->flags & ~CXLV_SET_PARTITION_IMMEDIATE))
		return CXL_MBOX_CMD_RC_INPUT;
	if (in->flags & CXLV_SET_PARTITION_IMMEDIATE) {
		if (cxlv_partition_in_use(cmd))
			return CXL_MBOX_CMD_RC_INPUT;
		part->active_ram = ram;
	}
	part->next_ram = ram;
	cxlv_partition_save(cfg->nv, cfg->capacity, ram);
	return CXL_MBOX_CMD_RC_SUCCESS;
}
