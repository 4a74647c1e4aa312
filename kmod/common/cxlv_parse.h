/* SPDX-License-Identifier: GPL-2.0-only */
#ifndef __CXLV_PARSE_H__
#define __CXLV_PARSE_H__

#include <linux/types.h>

/**
 * DOC: cxl_virt control-file grammar
 *
 * create: ``memstart=<u64>,memsize=<u64>,cxltype=3,pmem=<0|1>[,serial=<u64>]``
 *         ``[,borrow=<0|1>][,read_latency=<ns>][,write_latency=<ns>]``
 *         ``[,read_bandwidth=<MB/s>][,write_bandwidth=<MB/s>]``
 *         ``[,ways=<1|2|4|8>][,host_bridges=<1|2|4>]``
 *         ``[,granularity=<256..16384>]``
 *         ``[,fw_slots=<2..4>][,fw_rev=<revision>][,ram_size=<u64>]``
 *         ``[,qos_class=<0..65535>][,auto_region=<0|1>][,locked=<0|1>]``;
 *         with ``borrow=1`` memstart may
 *         be left out (the module picks the range) and memsize must be a
 *         multiple of 256 MiB, as must memstart when given. The four
 *         figures go into the device's CDAT (cxlv_cdat.c): 1 to
 *         CXLV_PERF_MAX each, defaults CXLV_PERF_DEFAULT_*. ways (default 1)
 *         endpoints interleave behind host_bridges (default 1, dividing
 *         ways) host bridges at granularity bytes (a power of two, default
 *         4096, only with ways > 1). fw_slots (default 2) firmware
 *         slots, of which slot 1 runs fw_rev from the factory (default
 *         CXLV_FW_DEFAULT_REV): 1 to CXLV_FW_REV_LEN printable ASCII
 *         characters, no comma. ram_size (pmem=1) makes the first
 *         ram_size / ways bytes of each endpoint's capacity volatile and
 *         the rest persistent, a multiple of ways x CXLV_PARTITION_ALIGN
 *         below the capacity (the module checks that bound); without it
 *         the layout the device had at its last remove (after a Set
 *         Partition Info, its "next" one), or all persistent. qos_class (default 0) is the
 *         QoS Throttling Group of the device's root decoders and the one
 *         the platform's QTG method gives its memory, as ACPI's CFMWS QTG
 *         ID and QTG _DSM would (CXL r3.0 9.17.1.3 and 9.17.3.1); the module
 *         refuses it on a kernel without QoS classes (6.1). auto_region=1
 *         has the device born with its decoders committed, as firmware
 *         leaves them on a server, a region over each partition of the
 *         set's capacity for the kernel to find at probe; locked=1 (only
 *         with auto_region=1) sets their Lock On Commit. The module refuses
 *         auto_region=1 on a kernel that cannot assemble such a region (6.1)
 *         and locked=1 on one that resets locked regions anyway (6.12)
 * remove: ``cxlv_dev_id=<u32>[,release=<0|1>]``
 * release: ``memstart=<u64>`` (the start of a free borrowed range)
 * inject_event: ``cxlv_dev_id=<u32>,record=<0|1|2>[,pos=<endpoint>]``
 *         ``[,log=<0..3>][,event_type=<u8>][,count=<1..32>]``
 *         ``[,dpa=<u64>][,descriptor=<0..7>][,transaction=<0..6>]``:
 *         record 0 General Media, 1 DRAM, 2 Memory Module (which takes no
 *         dpa, descriptor or transaction); log 0 Informational, 1 Warning,
 *         2 Failure, 3 Fatal (also the record's severity); count copies
 *         of the record at once. Values as CXL r3.0 8.2.9.2.1.1-3 define
 *         them (CXLV_EVENT_*_MAX); the device refuses a pos beyond its
 *         endpoints (-ENODEV) and a DPA not 64-byte aligned (-EINVAL) or
 *         past its capacity (-ERANGE)
 * set_health: ``cxlv_dev_id=<u32>[,pos=<endpoint>][,life_used=<0..100>]``
 *         ``[,temperature=<0..CXLV_HEALTH_TEMP_MAX>]``
 *         ``[,volatile_errors=<u32>][,persistent_errors=<u32>]``
 *         ``[,health_status=<0..7>][,media_status=<0..9>]``: the figures
 *         Get Health Info reports (CXL r3.0 8.2.9.8.3.1: Life Used in %,
 *         Device Temperature in degrees Celsius, the Corrected Volatile and
 *         Persistent Error Counts, the Health Status bits, the Media
 *         Status value); at least one of them. The device refuses a pos
 *         beyond its endpoints (-ENODEV)
 *
 * Keys come in any order, separated by commas or newlines; numbers are
 * decimal or 0x-prefixed hex. The parsers depend on nothing but the buffer,
 * so they can be built and tested in user space. Trailing NUL bytes end the
 * input; a NUL followed by anything else is refused. memsize must be a
 * multiple of the page size (unaligned input means the user meant something
 * else). Each class of bad input has its own errno, and @why receives a
 * one-line reason:
 *
 * -EINVAL    malformed token, unknown or repeated key, bad number or value,
 *            embedded NUL, memsize not a page multiple, a figure of 0,
 *            fw_slots out of 2..4, a fw_rev with a character not printable,
 *            ram_size not a multiple of ways x CXLV_PARTITION_ALIGN or with
 *            pmem=0, locked=1 without auto_region=1
 * -ENODATA   a required key missing
 * -ERANGE    a number that overflows its field, a fw_rev longer than
 *            CXLV_FW_REV_LEN, memstart + memsize wraps,
 *            serial + ways - 1 does, or a figure above CXLV_PERF_MAX
 * -EOPNOTSUPP cxltype other than 3, or borrow=1 with ways > 1
 *
 * borrow=1 with a memsize or memstart not a multiple of 256 MiB is -EINVAL
 * here. What the module answers once the text parses (cxlv_borrow.c):
 *
 * -ENOMEM    no run of memsize bytes of System RAM above 4 GiB could be
 *            taken offline, or taking it would leave less free memory
 *            than the floor (the reason says how much could be had)
 * -EBUSY     borrow=1 with memstart: that range is not all online System
 *            RAM of one node, holds something else (kernel image, crash
 *            kernel, another driver), or would not go offline
 * -ERANGE    borrow=1 with memstart: the range starts below 4 GiB
 * -ETIMEDOUT borrow=1 with memstart: offlining took longer than the
 *            module's borrow_timeout_ms (a pinned page), and was undone
 * -EINTR     the writer got a signal while memory was being offlined
 * -ERANGE    ram_size not below the device's capacity
 * -EOPNOTSUPP ram_size= on a kernel without RAM regions (6.1)
 * -EOPNOTSUPP qos_class= on a kernel without QoS classes (6.1)
 * -EOPNOTSUPP auto_region=1 on a kernel without auto regions (6.1)
 * -EOPNOTSUPP locked=1 on a kernel that resets locked regions (6.1, 6.12)
 * -ENOENT    release: no borrowed range starts at memstart
 * -EBUSY     release: a device is on that range
 * -EINVAL    remove with release=1 of a device whose range is not borrowed
 */

/* Borrowed memory comes and goes in whole CXL capacity units. */
#define CXLV_BORROW_ALIGN	(256ULL << 20)

/*
 * Performance figures: CDAT r1.03 Table 5 (DSLBIS) holds each in a 16-bit
 * entry times a 64-bit base unit; cxl_virt uses 1000 ps for latencies and
 * 1 MB/s for bandwidths, so a figure is exact in the table. 0 says "no
 * figure" there and Linux reads 0xffff as invalid too, hence 1..65534.
 *
 * The defaults describe a CXL 2.0 memory expander on a PCIe 5.0 x8 link:
 * bandwidth: 32 GT/s x 8 lanes with 128b/130b coding carries 31.5 GB/s per
 * direction (PCIe r5.0 4.2.2), of which such a device sustains most on
 * reads (30 GB/s) and less on writes (25 GB/s); latency: the CXL 2.0
 * expanders measured in Sun et al., "Demystifying CXL Memory with Genuine
 * CXL-Ready Systems and Devices" (MICRO 2023), load at roughly two to three
 * times local DDR5's latency, a few hundred ns, hence 250 ns read and
 * 300 ns write. The kernel adds the link and host-bridge parts to these
 * (cxl_endpoint_get_perf_coordinates()).
 */
#define CXLV_PERF_MAX			65534
#define CXLV_PERF_DEFAULT_READ_LAT	250
#define CXLV_PERF_DEFAULT_WRITE_LAT	300
#define CXLV_PERF_DEFAULT_READ_BW	30000
#define CXLV_PERF_DEFAULT_WRITE_BW	25000

/**
 * struct cxlv_perf - performance figures of a device partition
 * @read_latency: ns
 * @write_latency: ns
 * @read_bandwidth: MB/s
 * @write_bandwidth: MB/s
 */
struct cxlv_perf {
	u32 read_latency;
	u32 write_latency;
	u32 read_bandwidth;
	u32 write_bandwidth;
};

/* Interleave sets: the values CXL r3.0 8.2.4.19.7 and 9.13.1 allow. */
#define CXLV_MAX_WAYS			8
#define CXLV_MAX_HOST_BRIDGES		4
#define CXLV_MIN_GRANULARITY		256
#define CXLV_MAX_GRANULARITY		16384
#define CXLV_DEFAULT_GRANULARITY	4096

/*
 * Firmware slots, CXL r3.0 8.2.9.3.1: up to 4 (a 3-bit slot number, four
 * revisions in Get FW Info), each revision 16 ASCII characters; the
 * kernel's upload needs a slot to write beside the running one.
 */
#define CXLV_FW_MIN_SLOTS		2
#define CXLV_FW_MAX_SLOTS		4
#define CXLV_FW_DEFAULT_SLOTS		2
#define CXLV_FW_REV_LEN			16
#define CXLV_FW_DEFAULT_REV		"cxl_virt"

/*
 * CXL r3.0 8.2.9.8.1.1 Partition Alignment of a partitionable device: the
 * volatile capacity moves in steps of 512 MiB, so that 1 GiB splits into
 * 512 MiB + 512 MiB and a misaligned Set Partition Info exists to refuse.
 */
#define CXLV_PARTITION_ALIGN		(512ULL << 20)
/* CXL r3.0 9.17.1.3 CFMWS: the QTG ID is a 16-bit field */
#define CXLV_QOS_CLASS_MAX		0xffff
/* CXL r3.0 8.2.9.8.3.1 Table 8-100: the values set_health takes */
#define CXLV_HEALTH_LIFE_MAX		100
#define CXLV_HEALTH_TEMP_MAX		150
#define CXLV_HEALTH_STATUS_MAX		7	/* three bits */
#define CXLV_HEALTH_MEDIA_MAX		9	/* 00h..09h */

/* Longest request either control file accepts (debugfs and sysfs alike). */
#define CXLV_REQUEST_MAX	256

/**
 * struct cxlv_params - a parsed create request
 * @memstart: physical start of the reserved range
 * @memsize: length of the reserved range
 * @serial: device serial number (DSN); 0 until defaulted
 * @cxltype: CXL device type; only 3 is supported
 * @pmem: all capacity is persistent (else volatile)
 * @borrow: take the range from System RAM first (borrow=1)
 * @pick_start: borrow=1 without memstart: the module picks the range
 * @perf: the figures the CDAT reports for the device's memory
 * @ways: endpoints in the interleave set (1: a plain device)
 * @host_bridges: host bridges the endpoints sit behind, dividing @ways
 * @granularity: interleave granularity in bytes; 256 when @ways is 1
 * @fw_slots: firmware slots
 * @fw_rev: the factory revision of slot 1, NUL-padded
 * @ram_size: volatile bytes of the set, ram_size / ways at the start of
 *	each endpoint's capacity (pmem=1)
 * @ram_size_given: ram_size= was given: the device is born with it
 * @qos_class: QoS Throttling Group of its root decoders and its memory
 * @qos_class_given: qos_class= was given
 * @auto_region: born with its decoders committed, a region over each
 *	partition (auto_region=1)
 * @locked: those decoders have Lock On Commit set (locked=1)
 */
struct cxlv_params {
	u64 memstart;
	u64 memsize;
	u64 serial;
	u32 cxltype;
	bool pmem;
	bool borrow;
	bool pick_start;
	struct cxlv_perf perf;
	u32 ways;
	u32 host_bridges;
	u32 granularity;
	u32 fw_slots;
	char fw_rev[CXLV_FW_REV_LEN];
	u64 ram_size;
	bool ram_size_given;
	u16 qos_class;
	bool qos_class_given;
	bool auto_region;
	bool locked;
};

/* Records inject_event makes, CXL r3.0 8.2.9.2.1.1-3 */
enum cxlv_event_record {
	CXLV_EVENT_GENERAL_MEDIA,
	CXLV_EVENT_DRAM,
	CXLV_EVENT_MEMORY_MODULE,
};

/* CXL r3.0 8.2.9.2.2 Table 8-49 Event Log, the last one */
#define CXLV_EVENT_LOG_FATAL		3
/* CXL r3.0 Table 8-43: Memory Event Descriptor bits 2:0 */
#define CXLV_EVENT_DESCRIPTOR_MAX	7
/* CXL r3.0 Table 8-43: Transaction Type 00h..06h */
#define CXLV_EVENT_TRANSACTION_MAX	6
/* Memory Event Type: Table 8-43 00h..02h, 8-44 00h..03h, 8-45 00h..05h */
#define CXLV_EVENT_GM_TYPE_MAX		2
#define CXLV_EVENT_DRAM_TYPE_MAX	3
#define CXLV_EVENT_MODULE_TYPE_MAX	5
/* Copies of a record one request injects: enough to overflow a log. */
#define CXLV_EVENT_COUNT_MAX		32

/**
 * struct cxlv_event_request - a parsed inject_event request
 * @id: N of cxlvN
 * @pos: the endpoint's position in the set
 * @record: enum cxlv_event_record
 * @log: the event log, also the record's severity
 * @dpa: Physical Address of a media event
 * @descriptor: Memory Event Descriptor of a media event
 * @event_type: Memory Event Type, or Device Event Type of a module event
 * @transaction: Transaction Type of a media event
 * @count: copies of the record
 */
struct cxlv_event_request {
	u32 id;
	u32 pos;
	u32 record;
	u32 log;
	u64 dpa;
	u8 descriptor;
	u8 event_type;
	u8 transaction;
	u32 count;
};

/* Which figures a set_health request gives (struct cxlv_health_request) */
#define CXLV_HEALTH_SET_LIFE		BIT(0)
#define CXLV_HEALTH_SET_TEMP		BIT(1)
#define CXLV_HEALTH_SET_VOLATILE	BIT(2)
#define CXLV_HEALTH_SET_PERSISTENT	BIT(3)
#define CXLV_HEALTH_SET_STATUS		BIT(4)
#define CXLV_HEALTH_SET_MEDIA		BIT(5)

/**
 * struct cxlv_health_request - a parsed set_health request
 * @id: N of cxlvN
 * @pos: the endpoint's position in the set
 * @set: the CXLV_HEALTH_SET_* figures given; the others stay
 * @life_used: Life Used, percent
 * @temperature: Device Temperature, degrees Celsius
 * @volatile_errors: Corrected Volatile Error Count
 * @persistent_errors: Corrected Persistent Error Count
 * @health_status: Health Status bits
 * @media_status: Media Status
 */
struct cxlv_health_request {
	u32 id;
	u32 pos;
	u32 set;
	u8 life_used;
	s32 temperature;
	u32 volatile_errors;
	u32 persistent_errors;
	u8 health_status;
	u8 media_status;
};

int cxlv_parse_create(const char *buf, size_t len, struct cxlv_params *p,
		      char *why, size_t why_len);
int cxlv_parse_remove(const char *buf, size_t len, u32 *id, bool *release,
		      char *why, size_t why_len);
int cxlv_parse_release(const char *buf, size_t len, u64 *start,
		       char *why, size_t why_len);

int cxlv_parse_event(const char *buf, size_t len,
		     struct cxlv_event_request *req, char *why, size_t why_len);
int cxlv_parse_health(const char *buf, size_t len,
		      struct cxlv_health_request *req, char *why,
		      size_t why_len);

#endif /* __CXLV_PARSE_H__ */
