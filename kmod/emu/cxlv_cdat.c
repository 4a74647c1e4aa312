// SPDX-License-Identifier: GPL-2.0-only
#include <linux/bits.h>
#include <linux/build_bug.h>
#include <linux/errno.h>
#include <linux/minmax.h>
#include <linux/string.h>
#include <asm/byteorder.h>

#include "cxlv_compat.h"
#include "cxlv_doe.h"

/**
 * DOC: cxl_virt Coherent Device Attribute Table
 *
 * Builds the CDAT (CDAT Specification r1.03) that the endpoint's DOE
 * mailbox serves through CXL Table Access (cxlv_doe.c): the header, then
 * for each of the device's partitions (volatile from DPA 0, then
 * persistent: cxlv_partition.c) a DSMAS naming its DPA range and four
 * DSLBIS giving its read and write latency and bandwidth, the figures of
 * the create request. Entry handle 0
 * is the header and handle N the Nth structure after it, as CXL r3.0
 * 8.1.11.1 lets the device choose.
 *
 * Latencies are stored with a base unit of 1000 ps, bandwidths with 1 MB/s,
 * so each 16-bit entry holds the figure itself (cxlv_parse.h bounds them).
 * The table is built once at create, from the partition layout the device
 * is created with, and never changes: its Sequence stays 0.
 */

/*
 * The table header and the common header of every structure (CDAT r1.03
 * Tables 1 and 2) are cxlpci.h's struct cdat_header and cdat_entry_header.
 * The two structures are the module's: 6.1's ACPICA has no CDAT, later
 * ones have their bodies (struct acpi_cdat_dsmas, acpi_cdat_dslbis), which
 * they are asserted to match field by field.
 */

/* CDAT r1.03 Table 3: Device Scoped Memory Affinity Structure */
struct cxlv_cdat_dsmas {
	struct cdat_entry_header hdr;
	u8 handle;
	u8 flags;
	__le16 reserved;
	__le64 dpa_base;
	__le64 dpa_length;
} __packed;

/* CDAT r1.03 Table 5: Device Scoped Latency and Bandwidth Information */
struct cxlv_cdat_dslbis {
	struct cdat_entry_header hdr;
	u8 handle;
	u8 flags;
	u8 data_type;
	u8 reserved;
	__le64 entry_base_unit;
	__le16 entry[3];
	__le16 reserved2;
} __packed;

#define CXLV_CDAT_REVISION	1
#define CXLV_LATENCY_BASE_PS	1000
#define CXLV_BANDWIDTH_BASE_MBS	1

static_assert(sizeof(struct cdat_header) == CXLV_CDAT_HDR_LEN);
static_assert(sizeof(struct cxlv_cdat_dsmas) == CXLV_CDAT_ENTRY_LEN);
static_assert(sizeof(struct cxlv_cdat_dslbis) == CXLV_CDAT_ENTRY_LEN);

#ifdef CXLV_HAVE_ACPI_CDAT
/* ACPICA's structures are the bodies after the common header */
#define CXLV_DSMAS(f, kf)						\
	CXLV_FIELD_AT(struct cxlv_cdat_dsmas, f,			\
		      sizeof(struct acpi_cdat_header), struct acpi_cdat_dsmas, kf)
#define CXLV_DSLBIS(f)							\
	CXLV_FIELD_AT(struct cxlv_cdat_dslbis, f,			\
		      sizeof(struct acpi_cdat_header), struct acpi_cdat_dslbis, f)
static_assert(sizeof(struct cdat_entry_header) ==
	      sizeof(struct acpi_cdat_header));
static_assert(CXLV_DSMAS(handle, dsmad_handle) && CXLV_DSMAS(flags, flags) &&
	      CXLV_DSMAS(reserved, reserved) &&
	      CXLV_DSMAS(dpa_base, dpa_base_address) &&
	      CXLV_DSMAS(dpa_length, dpa_length) &&
	      sizeof(struct cxlv_cdat_dsmas) ==
	      sizeof(struct acpi_cdat_header) + sizeof(struct acpi_cdat_dsmas));
static_assert(CXLV_DSLBIS(handle) && CXLV_DSLBIS(flags) &&
	      CXLV_DSLBIS(data_type) && CXLV_DSLBIS(reserved) &&
	      CXLV_DSLBIS(entry_base_unit) && CXLV_DSLBIS(entry) &&
	      CXLV_DSLBIS(reserved2) &&
	      sizeof(struct cxlv_cdat_dslbis) ==
	      sizeof(struct acpi_cdat_header) + sizeof(struct acpi_cdat_dslbis));
#endif

/* Appends an entry of @len bytes and returns it, zeroed. */
static void *cxlv_cdat_add(struct cxlv_cdat *cdat, size_t len)
{
	void *entry = &cdat->data[cdat->len];

	cdat->entry_off[cdat->nr_entries++] = cdat->len;
	cdat->len += len;
	memset(entry, 0, len);
	return entry;
}

static void cxlv_cdat_sub(struct cdat_entry_header *hdr, u8 type, u16 len)
{
	hdr->type = type;
	hdr->length = cpu_to_le16(len);
}

static void cxlv_cdat_add_dslbis(struct cxlv_cdat *cdat, u8 handle,
				 u8 data_type, u64 base, u32 value)
{
	struct cxlv_cdat_dslbis *d = cxlv_cdat_add(cdat, sizeof(*d));

	cxlv_cdat_sub(&d->hdr, ACPI_CDAT_TYPE_DSLBIS, sizeof(*d));
	d->handle = handle;
	/* as HMAT's SLLBI Flags (ACPI 6.4 Table 5.150): the memory itself */
	d->flags = ACPI_HMAT_MEMORY;
	d->data_type = data_type;
	d->entry_base_unit = cpu_to_le64(base);
	d->entry[0] = cpu_to_le16(value);
}

/* A DSMAS for DPA [@base, @base + @len) and its four DSLBIS. */
static void cxlv_cdat_add_partition(struct cxlv_cdat *cdat, u8 handle,
				    u64 base, u64 len, bool pmem,
				    const struct cxlv_perf *perf)
{
	struct cxlv_cdat_dsmas *m = cxlv_cdat_add(cdat, sizeof(*m));

	cxlv_cdat_sub(&m->hdr, ACPI_CDAT_TYPE_DSMAS, sizeof(*m));
	m->handle = handle;
	m->flags = pmem ? ACPI_CDAT_DSMAS_NON_VOLATILE : 0;
	m->dpa_base = cpu_to_le64(base);
	m->dpa_length = cpu_to_le64(len);

	/* DSLBIS Data Type is HMAT's (ACPI 6.4 Table 5.150) */
	cxlv_cdat_add_dslbis(cdat, handle, ACPI_HMAT_READ_LATENCY,
			     CXLV_LATENCY_BASE_PS, perf->read_latency);
	cxlv_cdat_add_dslbis(cdat, handle, ACPI_HMAT_WRITE_LATENCY,
			     CXLV_LATENCY_BASE_PS, perf->write_latency);
	cxlv_cdat_add_dslbis(cdat, handle, ACPI_HMAT_READ_BANDWIDTH,
			     CXLV_BANDWIDTH_BASE_MBS, perf->read_bandwidth);
	cxlv_cdat_add_dslbis(cdat, handle, ACPI_HMAT_WRITE_BANDWIDTH,
			     CXLV_BANDWIDTH_BASE_MBS, perf->write_bandwidth);
}

/**
 * cxlv_cdat_build() - build the table of a device
 * @cdat: table to fill
 * @capacity: bytes of device memory, from DPA 0
 * @ram_bytes: of a persistent device, the volatile bytes at DPA 0
 * @pmem: a persistent device (else all of @capacity is volatile)
 * @perf: the figures of its memory, each within 1..CXLV_PERF_MAX
 *
 * One DSMAS per partition that is not empty, volatile first (handle 0),
 * as the DPA orders them: the kernel's qos_class code (6.12 on) matches
 * each partition's DPA range against them.
 */
void cxlv_cdat_build(struct cxlv_cdat *cdat, u64 capacity, u64 ram_bytes,
		     bool pmem, const struct cxlv_perf *perf)
{
	u64 ram = pmem ? min(ram_bytes, capacity) : capacity;
	struct cdat_header *h;
	u8 handle = 0, sum = 0;
	u16 i;

	cdat->len = 0;
	cdat->nr_entries = 0;
	h = cxlv_cdat_add(cdat, sizeof(*h));
	h->revision = CXLV_CDAT_REVISION;

	if (ram)
		cxlv_cdat_add_partition(cdat, handle++, 0, ram, false, perf);
	if (capacity > ram)
		cxlv_cdat_add_partition(cdat, handle, ram, capacity - ram,
					true, perf);

	/* CDAT r1.03 Table 1: all bytes of the table sum to 0 */
	h->length = cpu_to_le32(cdat->len);
	for (i = 0; i < cdat->len; i++)
		sum += cdat->data[i];
	h->checksum = -sum;
}

/**
 * cxlv_cdat_entry() - look up an entry for CXL Table Access
 * @cdat: the table
 * @handle: entry handle of the request, 0 for the header
 * @entry: receives the entry's bytes
 * @len: receives its length, a multiple of 4
 * @next: receives the handle after it, CXLV_CDAT_LAST_HANDLE after the last
 *
 * Return: 0, or -ENOENT for a handle past the table.
 */
int cxlv_cdat_entry(const struct cxlv_cdat *cdat, u16 handle,
		    const u8 **entry, u16 *len, u16 *next)
{
	u16 end;

	if (handle >= cdat->nr_entries)
		return -ENOENT;
	end = handle + 1 < cdat->nr_entries ? cdat->entry_off[handle + 1] :
					      cdat->len;
	*entry = &cdat->data[cdat->entry_off[handle]];
	*len = end - cdat->entry_off[handle];
	*next = handle + 1 < cdat->nr_entries ? handle + 1 :
						CXLV_CDAT_LAST_HANDLE;
	return 0;
}

/*
 * PCIe r6.0 4.2.2: 32 GT/s with 128b/130b coding, per lane and direction,
 * in Mb/s as Linux rounds it (PCIE_SPEED2MBS_ENC())
 */
#define CXLV_LINK_LANE_MBPS	(32000 * 128 / 130)
#define CXLV_LINK_WIDTH		8
#define CXLV_LINK_WIDTH_MAX	16

/**
 * cxlv_cdat_link_width() - lanes of the 32 GT/s link the figures need
 * @perf: the device's figures
 *
 * A CXL 2.0 expander's x8 link, or x16 where a bandwidth figure exceeds
 * what x8 carries, so that the link the kernel reads (LNKSTA) does not cut
 * the figures short where it can help it.
 *
 * Return: 8 or 16.
 */
u8 cxlv_cdat_link_width(const struct cxlv_perf *perf)
{
	u32 bw = max(perf->read_bandwidth, perf->write_bandwidth);

	if (bw * BITS_PER_BYTE > CXLV_LINK_WIDTH * CXLV_LINK_LANE_MBPS)
		return CXLV_LINK_WIDTH_MAX;
	return CXLV_LINK_WIDTH;
}
