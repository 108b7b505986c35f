// Package data decodes datasets (IDX files, raw or gzip, from bytes or an
// fs.FS; image folders of PNG and JPEG and CSV files, each described by a
// Manifest that lists every file's SHA-256) and splits them across
// clients with seeded partitioners. It does
// no I/O of its own, so it builds and runs natively and under GOOS=js.
package data
