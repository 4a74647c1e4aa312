// SPDX-License-Identifier: GPL-2.0-only
#include <crypto/sha2.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/sched.h>
#include <linux/string.h>
#include <linux/workqueue.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt persistent memory data-at-rest security
 *
 * The Persistent Memory Data-at-rest Security commands of CXL r3.0
 * 8.2.9.8.6, which 6.12's and 7.3's cxl_pmem drive as nvdimm security ops
 * (drivers/cxl/security.c: ndctl setup-passphrase, update-passphrase,
 * remove-passphrase, freeze-security, sanitize-dimm --crypto-erase, and
 * unlock from the kernel keyring when the nvdimm probes). 6.1 has no
 * security.c: its cxl_pmem never sends them.
 *
 * The passphrases outlive remove and create on the same range as they
 * would a power cycle: SHA-256 digests of them (the kernel's sha256(),
 * built in and exported on 6.1, 6.12 and 7.3, so the area never holds a
 * passphrase) sit in block 0 of the non-volatile area with a magic and a
 * digest of the block, read as the factory state (no passphrase) when
 * either fails. A device created with a user passphrase starts Locked.
 * Frozen and the attempt counts are not stored: a power cycle clears them
 * (8.2.9.8.6.1).
 *
 * While Locked the media is out of reach: the emulator refuses to commit
 * an endpoint HDM decoder (cxlv_security_media_blocked()), so no region
 * maps it.
 * The label storage area stays readable: Get and Set LSA (8.2.9.8.2.3-4)
 * list no Invalid Security State among their return codes.
 *
 * Passphrase Secure Erase makes the old data unreadable at once, as a
 * device that changes its media encryption key does: it answers at once
 * and a worker zeroes every byte of the media, while the emulator refuses
 * decoder commits (cxlv_security_media_blocked()), so nothing can map the
 * media before it is all zero; cxlv_emu_stop() waits for the worker. It
 * cannot zero before it answers: the kernel sends this opcode as a
 * foreground command (no background polling for it, drivers/cxl/pci.c) and
 * gives up after 2 s, while a TCG test guest on QEMU 10 zeroes 256 MiB of
 * it in 1.0 to 2.5 s (about 4 to 10 s a GiB; 3.6 s on QEMU 7.2). The log
 * line says how long it took.
 * The labels are not user data and stay.
 */

/* CXL r3.0 8.2.9.8.6.1 Get Security State output: Security State bits */
#define CXLV_SEC_USER_SET		BIT(0)
#define CXLV_SEC_MASTER_SET		BIT(1)
#define CXLV_SEC_LOCKED			BIT(2)
#define CXLV_SEC_FROZEN			BIT(3)
#define CXLV_SEC_USER_PLIMIT		BIT(4)
#define CXLV_SEC_MASTER_PLIMIT		BIT(5)

/* The bits that outlive a power cycle, as stored in block 0. */
#define CXLV_SEC_STORED		(CXLV_SEC_USER_SET | CXLV_SEC_MASTER_SET)

/* CXL r3.0 8.2.9.8.6.2 Passphrase Type */
#define CXLV_SEC_PASS_MASTER		0
#define CXLV_SEC_PASS_USER		1

/*
 * Wrong passphrases in a row before the Attempt Count Reached bit is set;
 * the spec leaves the number to the device.
 */
#define CXLV_SEC_ATTEMPTS		3

/* "CXLVSEC1": block 0 of the non-volatile area holds this layout. */
#define CXLV_SEC_MAGIC			0x31434553564c5843ULL

/* Media mapped at a time while it is erased. */

/**
 * struct cxlv_security_nv - block 0 of the non-volatile area
 * @magic: CXLV_SEC_MAGIC
 * @state: the CXLV_SEC_STORED bits
 * @reserved: zero
 * @user: SHA-256 of the user passphrase, if set
 * @master: SHA-256 of the master passphrase, if set
 * @digest: SHA-256 of everything before it
 */
struct cxlv_security_nv {
	__le64 magic;
	__le32 state;
	__le32 reserved;
	u8 user[SHA256_DIGEST_SIZE];
	u8 master[SHA256_DIGEST_SIZE];
	u8 digest[SHA256_DIGEST_SIZE];
} __packed;
static_assert(sizeof(struct cxlv_security_nv) <= CXLV_NV_BLOCK_SIZE &&
	      CXLV_SEC_HASH_LEN == SHA256_DIGEST_SIZE);

/* CXL r3.0 8.2.9.8.6.2 Set Passphrase input */
struct cxlv_set_pass_in {
	u8 type;
	u8 reserved[31];
	u8 old_pass[CXLV_SEC_PASS_LEN];
	u8 new_pass[CXLV_SEC_PASS_LEN];
} __packed;

/* CXL r3.0 8.2.9.8.6.3 Disable Passphrase, .6 Passphrase Secure Erase */
struct cxlv_pass_in {
	u8 type;
	u8 reserved[31];
	u8 pass[CXLV_SEC_PASS_LEN];
} __packed;

static_assert(sizeof(struct cxlv_set_pass_in) == CXLV_SEC_SET_PASS_IN_LEN);
static_assert(sizeof(struct cxlv_pass_in) == CXLV_SEC_PASS_IN_LEN);

static void cxlv_security_erase_work(struct work_struct *work);

static void cxlv_security_hash(const u8 *pass, u8 *hash)
{
	sha256(pass, CXLV_SEC_PASS_LEN, hash);
}

/* Writes the passphrases and their bits to block 0. */
static void cxlv_security_save(const struct cxlv_emu_config *cfg,
			       const struct cxlv_security *sec)
{
	struct cxlv_security_nv nv = {
		.magic = cpu_to_le64(CXLV_SEC_MAGIC),
		.state = cpu_to_le32(sec->state & CXLV_SEC_STORED),
	};

	memcpy(nv.user, sec->user, sizeof(nv.user));
	memcpy(nv.master, sec->master, sizeof(nv.master));
	sha256((const u8 *)&nv, offsetof(struct cxlv_security_nv, digest),
	       nv.digest);
	memcpy_toio(cfg->nv + CXLV_NV_SECURITY, &nv, sizeof(nv));
}

/**
 * cxlv_security_start() - the state after a power cycle
 * @sec: the device's security state
 * @cfg: the device, whose block 0 is read; must outlive cxlv_security_stop()
 *
 * The passphrases set before, locked if a user passphrase is; the factory
 * state if block 0 fails its magic or digest.
 */
void cxlv_security_start(struct cxlv_security *sec,
			 const struct cxlv_emu_config *cfg)
{
	struct cxlv_security_nv nv;
	u8 digest[SHA256_DIGEST_SIZE];

	memset(sec, 0, sizeof(*sec));
	sec->cfg = cfg;
	INIT_WORK(&sec->erase_work, cxlv_security_erase_work);
	if (!cfg->pmem)
		return;
	memcpy_fromio(&nv, cfg->nv + CXLV_NV_SECURITY, sizeof(nv));
	sha256((const u8 *)&nv, offsetof(struct cxlv_security_nv, digest),
	       digest);
	if (le64_to_cpu(nv.magic) != CXLV_SEC_MAGIC ||
	    memcmp(digest, nv.digest, sizeof(digest)))
		return;

	sec->state = le32_to_cpu(nv.state) & CXLV_SEC_STORED;
	memcpy(sec->user, nv.user, sizeof(sec->user));
	memcpy(sec->master, nv.master, sizeof(sec->master));
	if (sec->state & CXLV_SEC_USER_SET)
		sec->state |= CXLV_SEC_LOCKED;
}

/* After the last command: an erase that was answered finishes. */
void cxlv_security_stop(struct cxlv_security *sec)
{
	flush_work(&sec->erase_work);
}

/*
 * The media is out of reach while locked or being erased. Read by the
 * decoder state machine, without the mailbox's exclusion.
 */
bool cxlv_security_media_blocked(const struct cxlv_security *sec)
{
	return (READ_ONCE(sec->state) & CXLV_SEC_LOCKED) ||
	       READ_ONCE(sec->erasing);
}

static void cxlv_security_set_state(struct cxlv_security *sec, u32 state)
{
	WRITE_ONCE(sec->state, state);
}

/*
 * Checks @pass against the passphrase of @type: Success, or Incorrect
 * Passphrase, counted; the count's limit sets the Attempt Count Reached
 * bit (8.2.9.8.6.1), which only a power cycle clears.
 */
static u16 cxlv_security_check(struct cxlv_security *sec, u8 type,
			       const u8 *pass)
{
	bool user = type == CXLV_SEC_PASS_USER;
	u8 *attempts = user ? &sec->user_attempts : &sec->master_attempts;
	u8 hash[SHA256_DIGEST_SIZE];

	cxlv_security_hash(pass, hash);
	if (!memcmp(hash, user ? sec->user : sec->master, sizeof(hash))) {
		*attempts = 0;
		return CXL_MBOX_CMD_RC_SUCCESS;
	}
	if (++*attempts >= CXLV_SEC_ATTEMPTS)
		cxlv_security_set_state(sec, sec->state |
					(user ? CXLV_SEC_USER_PLIMIT :
						CXLV_SEC_MASTER_PLIMIT));
	return CXL_MBOX_CMD_RC_PASSPHRASE;
}

/* The Passphrase Set and Attempt Count Reached bits of @type. */
static u32 cxlv_security_set_bit(u8 type)
{
	return type == CXLV_SEC_PASS_USER ? CXLV_SEC_USER_SET :
					    CXLV_SEC_MASTER_SET;
}

static u32 cxlv_security_plimit_bit(u8 type)
{
	return type == CXLV_SEC_PASS_USER ? CXLV_SEC_USER_PLIMIT :
					    CXLV_SEC_MASTER_PLIMIT;
}

/*
 * What every passphrase command checks first: a known passphrase type
 * (else Invalid Input), not frozen and not past that type's attempt limit
 * (else Invalid Security State).
 */
static u16 cxlv_security_may_use(const struct cxlv_security *sec, u8 type)
{
	if (type != CXLV_SEC_PASS_MASTER && type != CXLV_SEC_PASS_USER)
		return CXL_MBOX_CMD_RC_INPUT;
	if (sec->state & (CXLV_SEC_FROZEN | cxlv_security_plimit_bit(type)))
		return CXL_MBOX_CMD_RC_SECURITY;
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.8.6.1 Get Security State */
u16 cxlv_security_get_state(const struct cxlv_emu_config *cfg,
			    struct cxlv_mbox_cmd *cmd)
{
	__le32 state = cpu_to_le32(cmd->state->security.state);

	memcpy(cmd->out, &state, sizeof(state));
	cmd->out_len = sizeof(state);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/*
 * CXL r3.0 8.2.9.8.6.2 Set Passphrase: a master or user passphrase, the
 * current one given if one is set. Refused while frozen, past the attempt
 * limit, or (user) while locked.
 */
u16 cxlv_security_set_passphrase(const struct cxlv_emu_config *cfg,
				 struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_set_pass_in *in = cmd->in;
	struct cxlv_security *sec = &cmd->state->security;
	u8 *stored;
	u16 rc;

	rc = cxlv_security_may_use(sec, in->type);
	if (rc)
		return rc;
	if (in->type == CXLV_SEC_PASS_USER && (sec->state & CXLV_SEC_LOCKED))
		return CXL_MBOX_CMD_RC_SECURITY;
	if (sec->state & cxlv_security_set_bit(in->type)) {
		rc = cxlv_security_check(sec, in->type, in->old_pass);
		if (rc)
			return rc;
	}

	stored = in->type == CXLV_SEC_PASS_USER ? sec->user : sec->master;
	cxlv_security_hash(in->new_pass, stored);
	cxlv_security_set_state(sec, sec->state |
				cxlv_security_set_bit(in->type));
	cxlv_security_save(cfg, sec);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/*
 * CXL r3.0 8.2.9.8.6.3 Disable Passphrase: the current passphrase removes
 * it. Refused while frozen, past the attempt limit, without a passphrase of
 * that type, or (user) while locked.
 */
u16 cxlv_security_disable_passphrase(const struct cxlv_emu_config *cfg,
				     struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_pass_in *in = cmd->in;
	struct cxlv_security *sec = &cmd->state->security;
	u16 rc;

	rc = cxlv_security_may_use(sec, in->type);
	if (rc)
		return rc;
	if (!(sec->state & cxlv_security_set_bit(in->type)))
		return CXL_MBOX_CMD_RC_SECURITY;
	if (in->type == CXLV_SEC_PASS_USER && (sec->state & CXLV_SEC_LOCKED))
		return CXL_MBOX_CMD_RC_SECURITY;
	rc = cxlv_security_check(sec, in->type, in->pass);
	if (rc)
		return rc;

	memset(in->type == CXLV_SEC_PASS_USER ? sec->user : sec->master, 0,
	       SHA256_DIGEST_SIZE);
	cxlv_security_set_state(sec, sec->state &
				~cxlv_security_set_bit(in->type));
	cxlv_security_save(cfg, sec);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/*
 * CXL r3.0 8.2.9.8.6.4 Unlock: the user passphrase opens a locked device.
 * Refused while frozen, past the user attempt limit, or when not locked.
 */
u16 cxlv_security_unlock(const struct cxlv_emu_config *cfg,
			 struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_security *sec = &cmd->state->security;
	u16 rc;

	if (sec->state & (CXLV_SEC_FROZEN | CXLV_SEC_USER_PLIMIT) ||
	    !(sec->state & CXLV_SEC_LOCKED))
		return CXL_MBOX_CMD_RC_SECURITY;
	rc = cxlv_security_check(sec, CXLV_SEC_PASS_USER, cmd->in);
	if (rc)
		return rc;

	cxlv_security_set_state(sec, sec->state & ~CXLV_SEC_LOCKED);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/*
 * CXL r3.0 8.2.9.8.6.5 Freeze Security State: no security state change
 * until the next power cycle; freezing again is no error.
 */
u16 cxlv_security_freeze(const struct cxlv_emu_config *cfg,
			 struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_security *sec = &cmd->state->security;

	cxlv_security_set_state(sec, sec->state | CXLV_SEC_FROZEN);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* On failure the media stays out of reach: decoder commits stay refused. */
static void cxlv_security_erase_work(struct work_struct *work)
{
	struct cxlv_security *sec = container_of(work, struct cxlv_security,
						 erase_work);

	if (!cxlv_media_zero(sec->cfg, NULL))
		WRITE_ONCE(sec->erasing, false);
}

/*
 * CXL r3.0 8.2.9.8.6.6 Passphrase Secure Erase: the master passphrase, or
 * the user passphrase, erases the media and removes the user passphrase,
 * which unlocks the device. The master type without a master passphrase is
 * Invalid Input (8.2.9.8.6.3); a user passphrase that is not set is not
 * checked (Table 8-118: the value is ignored; cxl_pmem sends the user key
 * whenever ndctl is not told --master). Refused while frozen or past the
 * attempt limit of the type given.
 */
u16 cxlv_security_erase(const struct cxlv_emu_config *cfg,
			struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_pass_in *in = cmd->in;
	struct cxlv_security *sec = &cmd->state->security;
	u16 rc;

	if (in->type == CXLV_SEC_PASS_MASTER &&
	    !(sec->state & CXLV_SEC_MASTER_SET))
		return CXL_MBOX_CMD_RC_INPUT;
	rc = cxlv_security_may_use(sec, in->type);
	if (rc)
		return rc;
	if (READ_ONCE(sec->erasing))
		return CXL_MBOX_CMD_RC_BUSY;
	if (sec->state & cxlv_security_set_bit(in->type)) {
		rc = cxlv_security_check(sec, in->type, in->pass);
		if (rc)
			return rc;
	}

	WRITE_ONCE(sec->erasing, true);
	queue_work(cxlv_unbound_wq, &sec->erase_work);
	memset(sec->user, 0, sizeof(sec->user));
	sec->user_attempts = 0;
	cxlv_security_set_state(sec, sec->state &
				~(CXLV_SEC_USER_SET | CXLV_SEC_LOCKED));
	cxlv_security_save(cfg, sec);
	return CXL_MBOX_CMD_RC_SUCCESS;
}
