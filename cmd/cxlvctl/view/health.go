package view

import (
	"strconv"
	"strings"

	"github.com/cxlv/cxlv/mbox"
	"github.com/cxlv/cxlv/poison"
	"github.com/cxlv/cxlv/sysfs"
)

// HealthJSON is a memdev's "health" as `cxl list -H` prints it (ndctl
// cxl/json.c), key for key.
type HealthJSON struct {
	MaintenanceNeeded             bool   `json:"maintenance_needed"`
	PerformanceDegraded           bool   `json:"performance_degraded"`
	HWReplacementNeeded           bool   `json:"hw_replacement_needed"`
	MediaNormal                   bool   `json:"media_normal"`
	MediaNotReady                 bool   `json:"media_not_ready"`
	MediaPersistenceLost          bool   `json:"media_persistence_lost"`
	MediaDataLost                 bool   `json:"media_data_lost"`
	MediaPowerlossPersistenceLoss bool   `json:"media_powerloss_persistence_loss"`
	MediaShutdownPersistenceLoss  bool   `json:"media_shutdown_persistence_loss"`
	MediaPersistenceLossImminent  bool   `json:"media_persistence_loss_imminent"`
	MediaPowerlossDataLoss        bool   `json:"media_powerloss_data_loss"`
	MediaShutdownDataLoss         bool   `json:"media_shutdown_data_loss"`
	MediaDataLossImminent         bool   `json:"media_data_loss_imminent"`
	ExtLifeUsed                   string `json:"ext_life_used"`
	ExtTemperature                string `json:"ext_temperature"`
	ExtCorrectedVolatile          string `json:"ext_corrected_volatile"`
	ExtCorrectedPersistent        string `json:"ext_corrected_persistent"`
	LifeUsedPercent               *int   `json:"life_used_percent,omitempty"`
	Temperature                   *int   `json:"temperature,omitempty"`
	DirtyShutdowns                uint32 `json:"dirty_shutdowns"`
	VolatileErrors                uint32 `json:"volatile_errors"`
	PmemErrors                    uint32 `json:"pmem_errors"`
}

// The media status values of Get Health Info, in order (CXL r3.0 table
// 8-100), as the health keys name them.
var mediaStates = []string{"normal", "not ready", "persistence lost", "data lost",
	"powerloss persistence loss", "shutdown persistence loss", "persistence loss imminent",
	"powerloss data loss", "shutdown data loss", "data loss imminent"}

// level is a two-bit additional-status field: normal, warning, critical.
func level(v uint8, withCritical bool) string {
	switch {
	case v == 0:
		return "normal"
	case v == 1:
		return "warning"
	case v == 2 && withCritical:
		return "critical"
	}
	return "unknown"
}

// Health is the `cxl list -H` form of h.
func Health(h mbox.Health) *HealthJSON {
	ms := h.MediaStatus
	j := &HealthJSON{
		MaintenanceNeeded:             h.Status&1 != 0,
		PerformanceDegraded:           h.Status&2 != 0,
		HWReplacementNeeded:           h.Status&4 != 0,
		MediaNormal:                   ms == 0,
		MediaNotReady:                 ms == 1,
		MediaPersistenceLost:          ms == 2,
		MediaDataLost:                 ms == 3,
		MediaPowerlossPersistenceLoss: ms == 4,
		MediaShutdownPersistenceLoss:  ms == 5,
		MediaPersistenceLossImminent:  ms == 6,
		MediaPowerlossDataLoss:        ms == 7,
		MediaShutdownDataLoss:         ms == 8,
		MediaDataLossImminent:         ms == 9,
		ExtLifeUsed:                   level(h.AdditionalStat&3, true),
		ExtTemperature:                level(h.AdditionalStat>>2&3, true),
		ExtCorrectedVolatile:          level(h.AdditionalStat>>4&1, false),
		ExtCorrectedPersistent:        level(h.AdditionalStat>>5&1, false),
		DirtyShutdowns:                h.DirtyShutdowns,
		VolatileErrors:                h.VolatileErrors,
		PmemErrors:                    h.PmemErrors,
	}
	if h.LifeUsed != 0xff {
		v := int(h.LifeUsed)
		j.LifeUsedPercent = &v
	}
	if uint16(h.Temperature) != 0xffff {
		v := int(h.Temperature)
		j.Temperature = &v
	}
	return j
}

// HealthCell is the HEALTH column: "ok", or what is wrong, comma
// separated ("maintenance,temperature warning").
func HealthCell(h *mbox.Health) string {
	if h == nil {
		return "-"
	}
	var bad []string
	for i, what := range []string{"maintenance", "performance degraded", "replace"} {
		if h.Status&(1<<i) != 0 {
			bad = append(bad, what)
		}
	}
	if ms := int(h.MediaStatus); ms != 0 {
		what := "media status " + string(rune('0'+ms%10))
		if ms < len(mediaStates) {
			what = "media " + mediaStates[ms]
		}
		bad = append(bad, what)
	}
	j := Health(*h)
	for _, a := range []struct{ name, v string }{{"life", j.ExtLifeUsed}, {"temperature", j.ExtTemperature},
		{"volatile errors", j.ExtCorrectedVolatile}, {"pmem errors", j.ExtCorrectedPersistent}} {
		if a.v != "normal" {
			bad = append(bad, a.name+" "+a.v)
		}
	}
	if len(bad) == 0 {
		return "ok"
	}
	return strings.Join(bad, ",")
}

// PartitionJSON is a memdev's "partition_info" as `cxl list -I` prints it.
type PartitionJSON struct {
	TotalSize              uint64  `json:"total_size"`
	VolatileOnlySize       uint64  `json:"volatile_only_size"`
	PersistentOnlySize     uint64  `json:"persistent_only_size"`
	PartitionAlignmentSize uint64  `json:"partition_alignment_size"`
	ActiveVolatileSize     *uint64 `json:"active_volatile_size,omitempty"`
	ActivePersistentSize   *uint64 `json:"active_persistent_size,omitempty"`
	NextVolatileSize       *uint64 `json:"next_volatile_size,omitempty"`
	NextPersistentSize     *uint64 `json:"next_persistent_size,omitempty"`
}

// Partition is the `cxl list -I` form of p.
func Partition(p mbox.Partition) *PartitionJSON {
	return &PartitionJSON{TotalSize: p.Total, VolatileOnlySize: p.VolatileOnly, PersistentOnlySize: p.PersistentOnly,
		PartitionAlignmentSize: p.Alignment, ActiveVolatileSize: p.ActiveVolatile, ActivePersistentSize: p.ActivePersistent,
		NextVolatileSize: p.NextVolatile, NextPersistentSize: p.NextPersistent}
}

// FirmwareJSON is a memdev's "firmware" as `cxl list -F` prints it: the
// slots from Get FW Info, empty ones left out, and the kernel's upload.
type FirmwareJSON struct {
	NumSlots              uint8   `json:"num_slots"`
	ActiveSlot            uint8   `json:"active_slot"`
	StagedSlot            uint8   `json:"staged_slot,omitempty"`
	OnlineActivateCapable bool    `json:"online_activate_capable"`
	Slot1Version          string  `json:"slot_1_version,omitempty"`
	Slot2Version          string  `json:"slot_2_version,omitempty"`
	Slot3Version          string  `json:"slot_3_version,omitempty"`
	Slot4Version          string  `json:"slot_4_version,omitempty"`
	FwUpdateInProgress    bool    `json:"fw_update_in_progress"`
	RemainingSize         *uint64 `json:"remaining_size,omitempty"`
}

// Firmware is the `cxl list -F` form of f on memdev m. An upload runs
// while the kernel's loader is not idle; a kernel without one (6.1) runs
// none.
func Firmware(f mbox.Firmware, m sysfs.Memdev) *FirmwareJSON {
	j := &FirmwareJSON{NumSlots: f.Slots, ActiveSlot: f.Active, OnlineActivateCapable: f.OnlineActivate,
		Slot1Version: f.Revisions[0], Slot2Version: f.Revisions[1], Slot3Version: f.Revisions[2], Slot4Version: f.Revisions[3],
		FwUpdateInProgress: m.FirmwareUpload != nil && *m.FirmwareUpload != "idle"}
	// cxl list names a staged slot only when it is one of the device's
	if f.Staged <= f.Slots {
		j.StagedSlot = f.Staged
	}
	if j.FwUpdateInProgress {
		j.RemainingSize = m.FirmwareRemaining
	}
	return j
}

// MediaErrorJSON is one record of a memdev's or region's "media_errors",
// as `cxl list --media-errors` prints it: the offset is the DPA for a
// memdev, the offset into the region for a region. "flags" is a list, as
// in `poison list --json` (cxl list prints "More,Overflow,").
type MediaErrorJSON struct {
	Offset       uint64   `json:"offset"`
	Length       uint64   `json:"length"`
	Source       string   `json:"source"`
	Flags        []string `json:"flags,omitempty"`
	OverflowTime string   `json:"overflow_time,omitempty"`
}

// MediaErrors are memdev's records in the `cxl list -m memN --media-errors`
// form; nil when it has none, as cxl list leaves the key out.
func MediaErrors(records []poison.Record, memdev string) []MediaErrorJSON {
	var out []MediaErrorJSON
	for _, r := range records {
		if r.Memdev == memdev {
			out = append(out, mediaError(r, r.DPA))
		}
	}
	return out
}

// RegionMediaErrors are the records in region (at resource) in the `cxl
// list -r regionN --media-errors` form; nil when it has none.
func RegionMediaErrors(records []poison.Record, region string, resource *uint64) []MediaErrorJSON {
	var out []MediaErrorJSON
	for _, r := range records {
		if r.Region == region && r.HPA != nil && resource != nil {
			out = append(out, mediaError(r, *r.HPA-*resource))
		}
	}
	return out
}

func mediaError(r poison.Record, offset uint64) MediaErrorJSON {
	j := MediaErrorJSON{Offset: offset, Length: r.Length, Source: r.Source, Flags: r.Flags}
	if r.OverflowTime != 0 {
		j.OverflowTime = strconv.FormatUint(r.OverflowTime, 10) // above 2^53: a string, as serial
	}
	return j
}
