package data

import (
	"bytes"
	"encoding/csv"
	"errors"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
)

// MaxCSVRows bounds the rows of one CSV file.
const MaxCSVRows = 1 << 22

// ReadCSV reads one CSV file of the manifest m (format csv): a header row
// that names m.Label once, then one sample per row, the label cell a name
// in m.Classes and every other cell a finite number, Input's product of
// them. It returns the features (HWC per sample, in column order, not yet
// normalised) and the labels. Errors wrap ErrManifest and give the line,
// column and what does not fit.
func ReadCSV(b []byte, m *Manifest) ([]float32, []int32, error) {
	if m == nil || m.Format != FormatCSV || len(m.Input) != 3 {
		return nil, nil, manifestErr("ReadCSV needs a validated csv manifest")
	}
	features := m.Input[0] * m.Input[1] * m.Input[2]
	classes := make(map[string]int32, len(m.Classes))
	for i, n := range m.Classes {
		classes[n] = int32(i)
	}
	r := csv.NewReader(bytes.NewReader(b))
	r.FieldsPerRecord = -1 // checked here, with a message that says what fits
	r.ReuseRecord = true
	header, err := r.Read()
	if err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil, manifestErr("empty file: want a header row naming the %q column", m.Label)
		}
		return nil, nil, manifestErr("header: %v", err)
	}
	header = slices.Clone(header) // ReuseRecord: the next Read overwrites it
	label := -1
	for i, h := range header {
		if strings.TrimSpace(h) == m.Label {
			if label >= 0 {
				return nil, nil, manifestErr("header: label column %q appears twice (columns %d and %d)", m.Label, label+1, i+1)
			}
			label = i
		}
	}
	if label < 0 {
		return nil, nil, manifestErr("header: no %q column (the manifest's label)", m.Label)
	}
	if len(header)-1 != features {
		return nil, nil, manifestErr("header: %d feature columns, the manifest's input %v has %d values", len(header)-1, m.Input, features)
	}
	var x []float32
	var y []int32
	for {
		rec, err := r.Read()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil { // a csv.ParseError names its line
			return nil, nil, manifestErr("%v", err)
		}
		line, _ := r.FieldPos(0)
		if len(y) == MaxCSVRows {
			return nil, nil, manifestErr("line %d: more than %d rows", line, MaxCSVRows)
		}
		if len(rec) != len(header) {
			return nil, nil, manifestErr("line %d: %d cells, the header has %d", line, len(rec), len(header))
		}
		for i, cell := range rec {
			cell = strings.TrimSpace(cell)
			if i == label {
				c, ok := classes[cell]
				if !ok {
					return nil, nil, manifestErr("line %d column %d: label %q is not one of the manifest's classes", line, i+1, truncate(cell))
				}
				y = append(y, c)
				continue
			}
			v, err := strconv.ParseFloat(cell, 32)
			if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
				return nil, nil, manifestErr("line %d column %d (%s): %q is not a finite number", line, i+1, truncate(header[i]), truncate(cell))
			}
			x = append(x, float32(v))
		}
	}
	if len(y) == 0 {
		return nil, nil, manifestErr("no rows after the header")
	}
	return x, y, nil
}

// truncate shortens a cell for an error message.
func truncate(s string) string {
	if len(s) > 40 {
		return s[:40] + "..."
	}
	return s
}
