package report

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"
)

// WriteCSV writes header and rows to path as CSV, creating path's
// directory if needed. Cells are formatted by FormatCell. Every row must
// have len(header) cells (when header is non-empty).
func WriteCSV(path string, header []string, rows [][]any) error {
	var buf bytes.Buffer
	w := csv.NewWriter(&buf)
	if len(header) > 0 {
		if err := w.Write(header); err != nil {
			return err
		}
	}
	rec := make([]string, 0, len(header))
	for i, row := range rows {
		if len(header) > 0 && len(row) != len(header) {
			return fmt.Errorf("report: %s: row %d has %d cells, header has %d", path, i, len(row), len(header))
		}
		rec = rec[:0]
		for _, c := range row {
			rec = append(rec, FormatCell(c))
		}
		if err := w.Write(rec); err != nil {
			return err
		}
	}
	w.Flush()
	if err := w.Error(); err != nil {
		return err
	}
	return writeFile(path, buf.Bytes())
}

// FormatCell renders one CSV cell: floats in the shortest form that reads
// back exactly ("NaN", "+Inf" and "-Inf" for the special values), integers
// and bools as strconv does, strings as they are, anything else with
// fmt.Sprint.
func FormatCell(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case float64:
		return formatFloat(x, 64)
	case float32:
		return formatFloat(float64(x), 32)
	case int:
		return strconv.Itoa(x)
	case int64:
		return strconv.FormatInt(x, 10)
	case uint64:
		return strconv.FormatUint(x, 10)
	case bool:
		return strconv.FormatBool(x)
	default:
		return fmt.Sprint(v)
	}
}

func formatFloat(x float64, bits int) string {
	if math.IsInf(x, 1) {
		return "+Inf"
	}
	return strconv.FormatFloat(x, 'g', -1, bits)
}

// writeFile writes data to path, creating its directory first.
func writeFile(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return fmt.Errorf("report: %w", err)
	}
	return nil
}
