package view

import (
	"sort"
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/sysfs"
)

// JSON forms of memdevs, decoders and regions with the keys, and the rules
// for leaving keys out, of `cxl list` (ndctl cxl/json.c), so that scripts
// written against cxl list read cxlvctl's output unchanged.

// MemdevJSON is a memdev as `cxl list -M` prints it, but for the serial.
type MemdevJSON struct {
	Memdev       string `json:"memdev"`
	PmemSize     uint64 `json:"pmem_size,omitempty"`
	PmemQosClass *int   `json:"pmem_qos_class,omitempty"`
	RAMSize      uint64 `json:"ram_size,omitempty"`
	RAMQosClass  *int   `json:"ram_qos_class,omitempty"`
	// Health is list -H's (a mailbox read).
	Health          *HealthJSON `json:"health,omitempty"`
	Serial          *Serial     `json:"serial,omitempty"`
	NumaNode        *int        `json:"numa_node,omitempty"`
	Host            string      `json:"host"`
	FirmwareVersion *string     `json:"firmware_version,omitempty"`
	State           string      `json:"state,omitempty"`
	// PartitionInfo is list -I's, Firmware list -F's, MediaErrors list
	// --media-errors'.
	PartitionInfo *PartitionJSON   `json:"partition_info,omitempty"`
	Firmware      *FirmwareJSON    `json:"firmware,omitempty"`
	MediaErrors   []MediaErrorJSON `json:"media_errors,omitempty"`
}

// Serial is a memdev serial number in JSON: a string of its decimal
// digits. cxl list prints a number, which jq 1.6 and every other reader
// that parses numbers as doubles rounds above 2^53 (cxl_virt's default
// serials are 0x43584c56........, above it): a string keeps every digit.
type Serial uint64

// MarshalJSON implements json.Marshaler.
func (s Serial) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatUint(uint64(s), 10) + `"`), nil
}

// Memdev is the `cxl list` form of m.
func Memdev(m sysfs.Memdev) MemdevJSON {
	j := MemdevJSON{
		Memdev:          m.Name,
		PmemSize:        m.PmemSize,
		RAMSize:         m.RAMSize,
		Serial:          (*Serial)(m.Serial),
		Host:            m.Host,
		FirmwareVersion: m.FirmwareVersion,
		State:           unboundState(m.Driver),
	}
	// cxl list shows a partition's QoS class only beside its size.
	if m.PmemSize > 0 {
		j.PmemQosClass = m.PmemQosClass
	}
	if m.RAMSize > 0 {
		j.RAMQosClass = m.RAMQosClass
	}
	if m.NumaNode != nil && *m.NumaNode >= 0 {
		j.NumaNode = m.NumaNode
	}
	return j
}

// unboundState is the "state" key of a device bound to driver: "disabled"
// when it is unbound, left out when bound, as cxl list and ndctl list do.
func unboundState(driver string) string {
	if driver == "" {
		return "disabled"
	}
	return ""
}

// DecoderJSON is a decoder as `cxl list -D` prints it.
type DecoderJSON struct {
	Decoder               string  `json:"decoder"`
	Resource              *uint64 `json:"resource,omitempty"`
	Size                  uint64  `json:"size"`
	InterleaveWays        uint64  `json:"interleave_ways"`
	InterleaveGranularity uint64  `json:"interleave_granularity,omitempty"`
	Region                string  `json:"region,omitempty"`
	State                 string  `json:"state,omitempty"`
	DPAResource           *uint64 `json:"dpa_resource,omitempty"`
	DPASize               *uint64 `json:"dpa_size,omitempty"`
	Mode                  string  `json:"mode,omitempty"`
	MaxAvailableExtent    *uint64 `json:"max_available_extent,omitempty"`
	PmemCapable           bool    `json:"pmem_capable,omitempty"`
	VolatileCapable       bool    `json:"volatile_capable,omitempty"`
	AccelmemCapable       bool    `json:"accelmem_capable,omitempty"`
	NrTargets             *int    `json:"nr_targets,omitempty"`
	QosClass              *int    `json:"qos_class,omitempty"`
}

// Decoder is the `cxl list` form of d. regions are the CXL regions, used
// for a root decoder's max_available_extent.
func Decoder(d sysfs.Decoder, regions []sysfs.Region) DecoderJSON {
	j := DecoderJSON{
		Decoder:        d.Name,
		Resource:       d.Start,
		Size:           d.Size,
		InterleaveWays: d.InterleaveWays,
		Region:         d.Region,
	}
	if d.InterleaveWays > 1 {
		j.InterleaveGranularity = d.InterleaveGranularity
	}
	if d.Size == 0 {
		j.State = "disabled"
	}
	switch d.Kind {
	case sysfs.EndpointDecoder:
		j.DPAResource = d.DPAResource
		size := d.DPASize
		j.DPASize = &size
		j.Mode = d.Mode
	case sysfs.RootDecoder:
		j.MaxAvailableExtent = maxAvailableExtent(d, regions)
		j.PmemCapable = d.CapPmem
		j.VolatileCapable = d.CapRAM
		j.AccelmemCapable = d.CapType2
		j.QosClass = d.QosClass
	}
	if d.Kind != sysfs.EndpointDecoder {
		// The dport ids of target_list.
		n := 0
		if d.TargetList != "" {
			n = strings.Count(d.TargetList, ",") + 1
		}
		j.NrTargets = &n
	}
	return j
}

// maxAvailableExtent is the largest free span of a root decoder's window
// not used by its regions (libcxl computes it the same way; it is not a
// sysfs attribute). nil when the window's start is unreadable.
func maxAvailableExtent(d sysfs.Decoder, regions []sysfs.Region) *uint64 {
	if d.Start == nil {
		return nil
	}
	var used [][2]uint64
	for _, r := range regions {
		if r.Decoder == d.Name && r.Resource != nil && r.Size > 0 {
			used = append(used, [2]uint64{*r.Resource, *r.Resource + r.Size})
		}
	}
	sort.Slice(used, func(i, j int) bool { return used[i][0] < used[j][0] })
	start, end := *d.Start, *d.Start+d.Size
	var best uint64
	cur := start
	for _, u := range used {
		if u[0] > cur && u[0]-cur > best {
			best = u[0] - cur
		}
		if u[1] > cur {
			cur = u[1]
		}
	}
	if end > cur && end-cur > best {
		best = end - cur
	}
	return &best
}

// RegionJSON is a region as `cxl list -R` prints it.
type RegionJSON struct {
	Region                string  `json:"region"`
	Resource              *uint64 `json:"resource,omitempty"`
	Size                  uint64  `json:"size"`
	Type                  string  `json:"type,omitempty"`
	InterleaveWays        uint64  `json:"interleave_ways"`
	InterleaveGranularity uint64  `json:"interleave_granularity"`
	DecodeState           string  `json:"decode_state"`
	State                 string  `json:"state,omitempty"`
	QosClassMismatch      bool    `json:"qos_class_mismatch,omitempty"`
}

// Region is the `cxl list` form of r.
func Region(r sysfs.Region) RegionJSON {
	return RegionJSON{
		Region:                r.Name,
		Resource:              r.Resource,
		Size:                  r.Size,
		Type:                  r.Mode,
		InterleaveWays:        r.InterleaveWays,
		InterleaveGranularity: r.InterleaveGranularity,
		DecodeState:           decodeState(r),
		State:                 unboundState(r.Driver),
		QosClassMismatch:      r.QosClassMismatch,
	}
}

// decodeState is cxl list's decode_state: whether the region is committed.
func decodeState(r sysfs.Region) string {
	if r.Committed {
		return "commit"
	}
	return "reset"
}
