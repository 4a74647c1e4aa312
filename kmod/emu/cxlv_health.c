// SPDX-License-Identifier: GPL-2.0-only
#include <linux/bitfield.h>
#include <linux/build_bug.h>
#include <linux/crc32.h>
#include <linux/io.h>
#include <linux/kernel.h>
#include <linux/string.h>
#include "cxlmem.h"
#include "cxlv_compat.h"
#include "cxlv_emu_internal.h"

/**
 * DOC: cxl_virt health, alerts and shutdown state
 *
 * The Health Information and Alerts commands of CXL r3.0 8.2.9.8.3: Get
 * Health Info, Get and Set Alert Configuration, and for persistent devices
 * Get and Set Shutdown State.
 *
 * The figures Get Health Info reports are the device's state: from the
 * factory a healthy device, 0% life used, at a nominal 25 C (RAM has no
 * sensor, but Not Implemented does not survive libcxl: ndctl 76.1 and 81
 * print the -EOPNOTSUPP they decode it to as "temperature":-95), no
 * corrected errors. debugfs set_health (cxlv_ctl.c) changes them, as QEMU's
 * QMP health injection does. The Additional Status bits follow from the
 * figures and the thresholds: critical at the fixed critical thresholds
 * (CXLV_LIFE_CRIT and so on), warning at an enabled programmable warning
 * threshold; a figure reaching its threshold counts.
 *
 * A change that raises the Life Used or Device Temperature status, sets a
 * corrected error count's warning, or changes the Health Status or Media
 * Status, adds a Memory Module Event Record (8.2.9.2.1.3) to the Warning
 * log (the Failure log for a critical level) with the Device Event Type
 * that names it: Life Used Change, Temperature Change, Health Status
 * Change (the error counts' warnings and the Health Status), Media Status
 * Change; the record carries the health after the change. The event
 * machinery (cxlv_events.c) raises the event MSI where the log's policy
 * asks for it.
 *
 * All five warning thresholds are programmable and start disabled. Set
 * Alert Configuration refuses, with Invalid Input and nothing changed, a
 * reserved bit or byte set, or an enabled warning threshold at or past its
 * critical one (life used at or above CXLV_LIFE_CRIT, over-temperature at or
 * above CXLV_OVER_TEMP_CRIT, under-temperature at or below
 * CXLV_UNDER_TEMP_CRIT). The alert configuration is not stored: a power
 * cycle (remove and create) resets it.
 *
 * Non-volatile, in block CXLV_HEALTH_NV_BLOCK of cfg->nv with a magic and
 * a CRC, like the firmware slots (cxlv_fw.c): Life Used, the Dirty Shutdown
 * Count and the shutdown state. The host arms the shutdown state dirty
 * with Set Shutdown State (7.x's cxl_pmem does it when the nvdimm probes,
 * cxl_arm_dirty_shutdown()); cxl_virt has no Global Persistent Flush, so
 * nothing but the host sets it clean again. A clean shutdown of a cxl_virt
 * device is a remove while the state is clean: the host set it clean (Set
 * Shutdown State 0) after its last write, or never armed it. A remove
 * while it is dirty is a power loss the device could not flush for: the
 * next create on the same range counts it in the Dirty Shutdown Count and
 * starts clean. The error counts and the temperature are not stored.
 *
 * Handlers may run with preemption off, even in hard interrupt context
 * (cxlv_mbox.c), and set_health runs beside them, so the state is under a
 * raw spinlock.
 */

/* CXL r3.0 8.2.9.8.3.2 Table 8-102 Valid and Programmable Alerts bits */
#define CXLV_ALERT_LIFE		BIT(0)
#define CXLV_ALERT_OVER_TEMP	BIT(1)
#define CXLV_ALERT_UNDER_TEMP	BIT(2)
#define CXLV_ALERT_VOLATILE	BIT(3)
#define CXLV_ALERT_PERSISTENT	BIT(4)
#define CXLV_ALERT_ALL		GENMASK(4, 0)

/* Critical alert thresholds, fixed (8.2.9.8.3.2), and warning defaults */
#define CXLV_LIFE_CRIT		90	/* % */
#define CXLV_OVER_TEMP_CRIT	85	/* C */
#define CXLV_UNDER_TEMP_CRIT	0	/* C */
#define CXLV_LIFE_WARN		75
#define CXLV_OVER_TEMP_WARN	70
#define CXLV_UNDER_TEMP_WARN	5
#define CXLV_ERRORS_WARN	100

#define CXLV_HEALTH_TEMPERATURE_C	25

/* CXL r3.0 8.2.9.8.3.1 Table 8-100 Additional Status */
#define CXLV_ADD_LIFE		GENMASK(1, 0)
#define CXLV_ADD_TEMP		GENMASK(3, 2)
#define CXLV_ADD_VOLATILE	BIT(4)
#define CXLV_ADD_PERSISTENT	BIT(5)
#define CXLV_LEVEL_WARNING	1
#define CXLV_LEVEL_CRITICAL	2

/* CXL r3.0 8.2.9.2.1.3 Table 8-45 Device Event Type */
#define CXLV_MODULE_HEALTH_CHANGE	0x00
#define CXLV_MODULE_MEDIA_CHANGE	0x01
#define CXLV_MODULE_LIFE_CHANGE		0x02
#define CXLV_MODULE_TEMP_CHANGE		0x03

/* CXL r3.0 8.2.9.2.2 Table 8-49 Event Log */
#define CXLV_LOG_WARNING	1
#define CXLV_LOG_FAILURE	2

/* CXL r3.0 8.2.9.8.3.4 Table 8-104 Shutdown State bit 0: Dirty */
#define CXLV_SHUTDOWN_DIRTY	BIT(0)

/* Blocks 0 and 1 of the non-volatile area: security and firmware. */
#define CXLV_HEALTH_NV_BLOCK	2
#define CXLV_HEALTH_NV_MAGIC	0x31746c68	/* "hlt1" */

/* CXL r3.0 8.2.9.8.3.2 Table 8-102 Get Alert Configuration output */
struct cxlv_alert_config {
	u8 valid;
	u8 programmable;
	u8 life_crit;
	u8 life_warn;
	__le16 over_temp_crit;
	__le16 under_temp_crit;
	__le16 over_temp_warn;
	__le16 under_temp_warn;
	__le16 volatile_warn;
	__le16 persistent_warn;
} __packed;

/* CXL r3.0 8.2.9.8.3.3 Table 8-103 Set Alert Configuration input */
struct cxlv_alert_set {
	u8 valid;
	u8 enable;
	u8 life_warn;
	u8 reserved;
	__le16 over_temp_warn;
	__le16 under_temp_warn;
	__le16 volatile_warn;
	__le16 persistent_warn;
} __packed;

static_assert(sizeof(struct cxlv_alert_config) == 0x10 &&
	      sizeof(struct cxlv_alert_set) == CXLV_ALERT_SET_IN_LEN);

#ifdef CXLV_HAVE_HEALTH_INFO
#define CXLV_HEALTH(f, kf)						\
	CXLV_FIELD_AT(struct cxlv_health_info, f, 0,			\
		      struct cxl_get_health_info, kf)
static_assert(CXLV_HEALTH(health_status, health_status) &&
	      CXLV_HEALTH(media_status, media_status) &&
	      CXLV_HEALTH(additional_status, add_status) &&
	      CXLV_HEALTH(life_used, life_used) &&
	      CXLV_HEALTH(device_temperature, device_temp) &&
	      CXLV_HEALTH(dirty_shutdown_count, dirty_shutdown_cnt) &&
	      CXLV_HEALTH(corrected_volatile_errors, cor_vol_err_cnt) &&
	      CXLV_HEALTH(corrected_persistent_errors, cor_per_err_cnt) &&
	      CXLV_SAME_SIZE(struct cxlv_health_info,
			     struct cxl_get_health_info));
#endif

/* The non-volatile block: little-endian, @crc over the bytes before it. */
struct cxlv_health_nv {
	__le32 magic;
	__le32 dirty_shutdowns;
	u8 life_used;
	u8 shutdown_state;
	u8 reserved[2];
	__le32 crc;
} __packed;

static_assert(sizeof(struct cxlv_health_nv) <= CXLV_NV_BLOCK_SIZE &&
	      (CXLV_HEALTH_NV_BLOCK + 1) * CXLV_NV_BLOCK_SIZE <= CXLV_NV_SIZE);

static void __iomem *cxlv_health_nv(const struct cxlv_emu_config *cfg)
{
	return cfg->nv + CXLV_HEALTH_NV_BLOCK * CXLV_NV_BLOCK_SIZE;
}

static u32 cxlv_health_crc(const struct cxlv_health_nv *nv)
{
	return crc32_le(~0, (const u8 *)nv,
			offsetof(struct cxlv_health_nv, crc));
}

/* Stores what outlives a power cycle; under @h->lock or before it runs. */
static void cxlv_health_save(const struct cxlv_emu_config *cfg,
			     const struct cxlv_health *h)
{
	struct cxlv_health_nv nv = {
		.magic = cpu_to_le32(CXLV_HEALTH_NV_MAGIC),
		.dirty_shutdowns = cpu_to_le32(h->dirty_shutdowns),
		.life_used = h->life_used,
		.shutdown_state = h->dirty ? CXLV_SHUTDOWN_DIRTY : 0,
	};

	nv.crc = cpu_to_le32(cxlv_health_crc(&nv));
	memcpy_toio(cxlv_health_nv(cfg), &nv, sizeof(nv));
}

/**
 * cxlv_health_start() - the health after a power cycle
 * @h: the device's health state
 * @cfg: the device, whose non-volatile block is read
 *
 * A shutdown state left dirty is counted in the Dirty Shutdown Count and
 * the device starts clean.
 */
void cxlv_health_start(struct cxlv_health *h, const struct cxlv_emu_config *cfg)
{
	struct cxlv_health_nv nv;

	memset(h, 0, sizeof(*h));
	raw_spin_lock_init(&h->lock);
	h->temperature = CXLV_HEALTH_TEMPERATURE_C;
	h->life_warn = CXLV_LIFE_WARN;
	h->over_temp_warn = CXLV_OVER_TEMP_WARN;
	h->under_temp_warn = CXLV_UNDER_TEMP_WARN;
	h->volatile_warn = CXLV_ERRORS_WARN;
	h->persistent_warn = CXLV_ERRORS_WARN;

	memcpy_fromio(&nv, cxlv_health_nv(cfg), sizeof(nv));
	if (le32_to_cpu(nv.magic) != CXLV_HEALTH_NV_MAGIC ||
	    le32_to_cpu(nv.crc) != cxlv_health_crc(&nv) ||
	    nv.life_used > CXLV_HEALTH_LIFE_MAX) {
		cxlv_health_save(cfg, h);
		return;
	}
	h->life_used = nv.life_used;
	h->dirty_shutdowns = le32_to_cpu(nv.dirty_shutdowns);
	if (nv.shutdown_state & CXLV_SHUTDOWN_DIRTY) {
		h->dirty_shutdowns++;
		dev_info(cfg->dev,
			 "endpoint %u: last shutdown was dirty; dirty shutdown count %u\n",
			 cfg->pos, h->dirty_shutdowns);
		cxlv_health_save(cfg, h);
	}
}

/* Additional Status (Table 8-100) of the figures; under @h->lock. */
static u8 cxlv_health_add_status(const struct cxlv_health *h)
{
	u8 life = 0, temp = 0, add;

	if (h->life_used >= CXLV_LIFE_CRIT)
		life = CXLV_LEVEL_CRITICAL;
	else if ((h->alerts & CXLV_ALERT_LIFE) && h->life_used >= h->life_warn)
		life = CXLV_LEVEL_WARNING;
	if (h->temperature >= CXLV_OVER_TEMP_CRIT ||
	    h->temperature <= CXLV_UNDER_TEMP_CRIT)
		temp = CXLV_LEVEL_CRITICAL;
	else if (((h->alerts & CXLV_ALERT_OVER_TEMP) &&
		  h->temperature >= h->over_temp_warn) ||
		 ((h->alerts & CXLV_ALERT_UNDER_TEMP) &&
		  h->temperature <= h->under_temp_warn))
		temp = CXLV_LEVEL_WARNING;
	add = FIELD_PREP(CXLV_ADD_LIFE, life) | FIELD_PREP(CXLV_ADD_TEMP, temp);
	if ((h->alerts & CXLV_ALERT_VOLATILE) &&
	    h->volatile_errors >= h->volatile_warn)
		add |= CXLV_ADD_VOLATILE;
	if ((h->alerts & CXLV_ALERT_PERSISTENT) &&
	    h->persistent_errors >= h->persistent_warn)
		add |= CXLV_ADD_PERSISTENT;
	return add;
}

static void cxlv_health_fill(const struct cxlv_health *h,
			     struct cxlv_health_info *info)
{
	memset(info, 0, sizeof(*info));
	info->health_status = h->health_status;
	info->media_status = h->media_status;
	info->additional_status = cxlv_health_add_status(h);
	info->life_used = h->life_used;
	info->device_temperature = cpu_to_le16(h->temperature);
	info->dirty_shutdown_count = cpu_to_le32(h->dirty_shutdowns);
	info->corrected_volatile_errors = cpu_to_le32(h->volatile_errors);
	info->corrected_persistent_errors = cpu_to_le32(h->persistent_errors);
}

/**
 * cxlv_health_info() - the device's health now
 * @h: the device's health state
 * @info: filled in; also what a Memory Module event record carries
 */
void cxlv_health_info(struct cxlv_health *h, struct cxlv_health_info *info)
{
	unsigned long flags;

	static_assert(sizeof(*info) == 0x12);
	raw_spin_lock_irqsave(&h->lock, flags);
	cxlv_health_fill(h, info);
	raw_spin_unlock_irqrestore(&h->lock, flags);
}

/* The record one status change adds to the logs. */
static void cxlv_health_event(struct cxlv_health_events *ev, u8 log, u8 type)
{
	if (ev->count < ARRAY_SIZE(ev->log)) {
		ev->log[ev->count] = log;
		ev->type[ev->count] = type;
		ev->count++;
	}
}

/* A two-bit status that rose: its record, Failure if now critical. */
static void cxlv_health_rose(struct cxlv_health_events *ev, u8 before,
			     u8 after, u8 type)
{
	if (after > before)
		cxlv_health_event(ev, after == CXLV_LEVEL_CRITICAL ?
				  CXLV_LOG_FAILURE : CXLV_LOG_WARNING, type);
}

/**
 * cxlv_health_set() - change the figures, as set_health asks
 * @h: the device's health state
 * @cfg: the device, whose non-volatile block stores Life Used
 * @req: the figures (cxlv_parse_health())
 * @ev: receives the Memory Module records the change adds
 * @info: receives the health after the change, for those records
 */
void cxlv_health_set(struct cxlv_health *h, const struct cxlv_emu_config *cfg,
		     const struct cxlv_health_request *req,
		     struct cxlv_health_events *ev,
		     struct cxlv_health_info *info)
{
	u8 before, after, health, media;
	unsigned long flags;

	memset(ev, 0, sizeof(*ev));
	raw_spin_lock_irqsave(&h->lock, flags);
	before = cxlv_health_add_status(h);
	health = h->health_status;
	media = h->media_status;
	if (req->set & CXLV_HEALTH_SET_LIFE)
		h->life_used = req->life_used;
	if (req->set & CXLV_HEALTH_SET_TEMP)
		h->temperature = req->temperature;
	if (req->set & CXLV_HEALTH_SET_VOLATILE)
		h->volatile_errors = req->volatile_errors;
	if (req->set & CXLV_HEALTH_SET_PERSISTENT)
		h->persistent_errors = req->persistent_errors;
	if (req->set & CXLV_HEALTH_SET_STATUS)
		h->health_status = req->health_status;
	if (req->set & CXLV_HEALTH_SET_MEDIA)
		h->media_status = req->media_status;
	after = cxlv_health_add_status(h);
	if (req->set & CXLV_HEALTH_SET_LIFE)
		cxlv_health_save(cfg, h);
	cxlv_health_fill(h, info);
	raw_spin_unlock_irqrestore(&h->lock, flags);

	cxlv_health_rose(ev, FIELD_GET(CXLV_ADD_LIFE, before),
			 FIELD_GET(CXLV_ADD_LIFE, after), CXLV_MODULE_LIFE_CHANGE);
	cxlv_health_rose(ev, FIELD_GET(CXLV_ADD_TEMP, before),
			 FIELD_GET(CXLV_ADD_TEMP, after), CXLV_MODULE_TEMP_CHANGE);
	if ((after & ~before & (CXLV_ADD_VOLATILE | CXLV_ADD_PERSISTENT)) ||
	    health != info->health_status)
		cxlv_health_event(ev, CXLV_LOG_WARNING,
				  CXLV_MODULE_HEALTH_CHANGE);
	if (media != info->media_status)
		cxlv_health_event(ev, CXLV_LOG_WARNING,
				  CXLV_MODULE_MEDIA_CHANGE);
}

/* CXL r3.0 8.2.9.8.3.1 Get Health Info */
u16 cxlv_health_get_info(const struct cxlv_emu_config *cfg,
			 struct cxlv_mbox_cmd *cmd)
{
	cxlv_health_info(&cmd->state->health, cmd->out);
	cmd->out_len = sizeof(struct cxlv_health_info);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.8.3.2 Get Alert Configuration */
u16 cxlv_health_get_alert(const struct cxlv_emu_config *cfg,
			  struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_health *h = &cmd->state->health;
	struct cxlv_alert_config *out = cmd->out;
	unsigned long flags;

	memset(out, 0, sizeof(*out));
	out->programmable = CXLV_ALERT_ALL;
	out->life_crit = CXLV_LIFE_CRIT;
	out->over_temp_crit = cpu_to_le16(CXLV_OVER_TEMP_CRIT);
	out->under_temp_crit = cpu_to_le16(CXLV_UNDER_TEMP_CRIT);
	raw_spin_lock_irqsave(&h->lock, flags);
	out->valid = h->alerts;
	out->life_warn = h->life_warn;
	out->over_temp_warn = cpu_to_le16(h->over_temp_warn);
	out->under_temp_warn = cpu_to_le16(h->under_temp_warn);
	out->volatile_warn = cpu_to_le16(h->volatile_warn);
	out->persistent_warn = cpu_to_le16(h->persistent_warn);
	raw_spin_unlock_irqrestore(&h->lock, flags);
	cmd->out_len = sizeof(*out);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* Is every warning threshold @in enables short of its critical one? */
static bool cxlv_health_alert_ok(const struct cxlv_alert_set *in, u8 on)
{
	s16 over = le16_to_cpu(in->over_temp_warn);
	s16 under = le16_to_cpu(in->under_temp_warn);

	if ((on & CXLV_ALERT_LIFE) && in->life_warn >= CXLV_LIFE_CRIT)
		return false;
	if ((on & CXLV_ALERT_OVER_TEMP) && over >= CXLV_OVER_TEMP_CRIT)
		return false;
	return !(on & CXLV_ALERT_UNDER_TEMP) || under > CXLV_UNDER_TEMP_CRIT;
}

/*
 * CXL r3.0 8.2.9.8.3.3 Set Alert Configuration: each alert whose Valid
 * Alert Actions bit is set is enabled with the threshold given, or
 * disabled (its threshold kept), as its Enable Alert Actions bit says.
 */
u16 cxlv_health_set_alert(const struct cxlv_emu_config *cfg,
			  struct cxlv_mbox_cmd *cmd)
{
	const struct cxlv_alert_set *in = cmd->in;
	struct cxlv_health *h = &cmd->state->health;
	u8 on = in->valid & in->enable;
	unsigned long flags;

	if ((in->valid | in->enable) & ~CXLV_ALERT_ALL || in->reserved ||
	    !cxlv_health_alert_ok(in, on)) {
		dev_dbg_ratelimited(cfg->dev,
				    "endpoint %u: Set Alert Configuration refused\n",
				    cfg->pos);
		return CXL_MBOX_CMD_RC_INPUT;
	}

	raw_spin_lock_irqsave(&h->lock, flags);
	h->alerts = (h->alerts & ~in->valid) | on;
	if (on & CXLV_ALERT_LIFE)
		h->life_warn = in->life_warn;
	if (on & CXLV_ALERT_OVER_TEMP)
		h->over_temp_warn = le16_to_cpu(in->over_temp_warn);
	if (on & CXLV_ALERT_UNDER_TEMP)
		h->under_temp_warn = le16_to_cpu(in->under_temp_warn);
	if (on & CXLV_ALERT_VOLATILE)
		h->volatile_warn = le16_to_cpu(in->volatile_warn);
	if (on & CXLV_ALERT_PERSISTENT)
		h->persistent_warn = le16_to_cpu(in->persistent_warn);
	raw_spin_unlock_irqrestore(&h->lock, flags);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.8.3.4 Get Shutdown State */
u16 cxlv_health_get_shutdown(const struct cxlv_emu_config *cfg,
			     struct cxlv_mbox_cmd *cmd)
{
	u8 *state = cmd->out;

	*state = READ_ONCE(cmd->state->health.dirty) ? CXLV_SHUTDOWN_DIRTY : 0;
	cmd->out_len = sizeof(*state);
	return CXL_MBOX_CMD_RC_SUCCESS;
}

/* CXL r3.0 8.2.9.8.3.5 Set Shutdown State: stored at once */
u16 cxlv_health_set_shutdown(const struct cxlv_emu_config *cfg,
			     struct cxlv_mbox_cmd *cmd)
{
	struct cxlv_health *h = &cmd->state->health;
	const u8 *state = cmd->in;
	unsigned long flags;

	if (*state & ~CXLV_SHUTDOWN_DIRTY)
		return CXL_MBOX_CMD_RC_INPUT;
	raw_spin_lock_irqsave(&h->lock, flags);
	WRITE_ONCE(h->dirty, *state & CXLV_SHUTDOWN_DIRTY);
	cxlv_health_save(cfg, h);
	raw_spin_unlock_irqrestore(&h->lock, flags);
	return CXL_MBOX_CMD_RC_SUCCESS;
}
