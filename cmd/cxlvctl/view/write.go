package view

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/olekukonko/tablewriter"
	"github.com/olekukonko/tablewriter/renderer"
	"github.com/olekukonko/tablewriter/tw"
)

// WriteJSON prints v as every command prints JSON, indented by two
// spaces; docs/json.md is its schema.
func WriteJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// Keys whose numbers `cxl list -u` and `ndctl list -u` print for people:
// sizes as "768.00 MiB (805.31 MB)", addresses and serials as hex.
var (
	humanSizeKeys = map[string]bool{
		"size": true, "pmem_size": true, "ram_size": true, "dpa_size": true, "available_size": true,
		"memsize": true, "capacity": true, "online_bytes": true, "offline_bytes": true,
		"total_size": true, "volatile_only_size": true, "persistent_only_size": true, "partition_alignment_size": true,
		"active_volatile_size": true, "active_persistent_size": true, "next_volatile_size": true, "next_persistent_size": true,
		"remaining_size": true,
	}
	humanHexKeys = map[string]bool{
		"serial": true, "resource": true, "dpa_resource": true, "max_available_extent": true,
		"memstart": true, "window_start": true, "offset": true,
	}
)

// WriteHumanJSON prints v as WriteJSON does, with the numbers of
// humanSizeKeys and humanHexKeys as `cxl list -u` prints them. Key order
// is kept: the tokens are rewritten as they stream past.
func WriteHumanJSON(out io.Writer, v any) error {
	data, err := json.Marshal(v)
	if err != nil {
		return err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var compact bytes.Buffer
	if err := humanValue(dec, &compact, ""); err != nil {
		return err
	}
	var indented bytes.Buffer
	if err := json.Indent(&indented, compact.Bytes(), "", "  "); err != nil {
		return err
	}
	indented.WriteByte('\n')
	_, err = out.Write(indented.Bytes())
	return err
}

// humanValue copies one JSON value from dec to out; key is the object key
// it is the value of ("" in arrays and at the top).
func humanValue(dec *json.Decoder, out *bytes.Buffer, key string) error {
	tok, err := dec.Token()
	if err != nil {
		return err
	}
	switch t := tok.(type) {
	case json.Delim:
		out.WriteRune(rune(t))
		closing := map[json.Delim]rune{'{': '}', '[': ']'}[t]
		for i := 0; dec.More(); i++ {
			if i > 0 {
				out.WriteByte(',')
			}
			childKey := ""
			if t == '{' {
				k, err := dec.Token()
				if err != nil {
					return err
				}
				childKey = k.(string)
				writeString(out, childKey)
				out.WriteByte(':')
			}
			if err := humanValue(dec, out, childKey); err != nil {
				return err
			}
		}
		if _, err := dec.Token(); err != nil {
			return err
		}
		out.WriteRune(closing)
	case json.Number:
		out.WriteString(humanNumber(key, t))
	case string:
		// Serials are decimal strings without -u (Serial).
		if n, err := strconv.ParseUint(t, 10, 64); err == nil && humanHexKeys[key] {
			writeString(out, "0x"+strconv.FormatUint(n, 16))
			break
		}
		writeString(out, t)
	case bool:
		out.WriteString(strconv.FormatBool(t))
	case nil:
		out.WriteString("null")
	}
	return nil
}

func writeString(out *bytes.Buffer, s string) {
	b, _ := json.Marshal(s)
	out.Write(b)
}

// humanNumber is the -u form of the number n under key.
func humanNumber(key string, n json.Number) string {
	v, err := strconv.ParseUint(string(n), 10, 64)
	switch {
	case err != nil:
		return string(n)
	case humanSizeKeys[key]:
		return humanSize(v)
	case humanHexKeys[key]:
		return strconv.Quote("0x" + strconv.FormatUint(v, 16))
	}
	return string(n)
}

// humanSize is a size the way ndctl's util/json.c prints it with -u:
// below 5000 KiB the plain number, else hundredths of MiB (below 2 GiB)
// or GiB, rounded, and the same in MB or GB: "768.00 MiB (805.31 MB)".
func humanSize(b uint64) string {
	if b < 5000<<10 {
		return strconv.FormatUint(b, 10)
	}
	iec, iecUnit, jedec, jedecUnit := uint64(1)<<20, "MiB", uint64(1000000), "MB"
	if b >= 2<<30 {
		iec, iecUnit, jedec, jedecUnit = 1<<30, "GiB", 1000000000, "GB"
	}
	ci := (b*200/iec + 1) / 2
	cj := (b/(jedec/200) + 1) / 2
	return fmt.Sprintf(`"%d.%02d %s (%d.%02d %s)"`, ci/100, ci%100, iecUnit, cj/100, cj%100, jedecUnit)
}

// WriteTable prints plain, left-aligned columns (kubectl/ndctl style),
// without trailing spaces; a nil header prints none.
func WriteTable(out io.Writer, header []string, rows [][]string) error {
	return WriteTableSep(out, header, rows, "   ")
}

// WriteTableSep is WriteTable with sep between the columns.
func WriteTableSep(out io.Writer, header []string, rows [][]string, sep string) error {
	var buf strings.Builder
	t := tablewriter.NewTable(&buf,
		tablewriter.WithRenderer(renderer.NewBlueprint(tw.Rendition{
			Borders: tw.BorderNone,
			Symbols: tw.NewSymbols(tw.StyleNone),
			Settings: tw.Settings{
				Separators: tw.Separators{BetweenRows: tw.Off, BetweenColumns: tw.Off},
				Lines:      tw.Lines{ShowHeaderLine: tw.Off},
			},
		})),
		tablewriter.WithHeaderAutoFormat(tw.Off),
		tablewriter.WithHeaderAlignment(tw.AlignLeft),
		tablewriter.WithRowAlignment(tw.AlignLeft),
		tablewriter.WithPadding(tw.Padding{Left: "", Right: sep, Overwrite: true}),
	)
	if header != nil {
		t.Header(header)
	}
	if err := t.Bulk(rows); err != nil {
		return err
	}
	if err := t.Render(); err != nil {
		return err
	}
	// The padding that separates columns also follows the last one.
	for line := range strings.Lines(buf.String()) {
		trimmed := strings.TrimRight(strings.TrimSuffix(line, "\n"), " ")
		if _, err := io.WriteString(out, trimmed+"\n"); err != nil {
			return err
		}
	}
	return nil
}
