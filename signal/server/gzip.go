package server

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"mime"
	"net/http"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"
)

// A browser peer fetches peer.wasm and its dataset from this server: about
// 13 MB and 55 MB uncompressed for MNIST, which gzip cuts several-fold.
// gzipStatic keeps a gzip-compressed copy of each compressible static file
// in memory (made on the first request, remade when the file changes) and
// serves it to clients that accept gzip; everything else is served as is.

// gzipMinSize: smaller files are not worth a Content-Encoding.
const gzipMinSize = 1024

// gzipDefaultLevelMax: files up to this size are compressed at gzip's
// default level, bigger ones at BestSpeed.
const gzipDefaultLevelMax = 16 << 20

// incompressible lists extensions of formats that are compressed already
// (.plpx: light data's pixel code, engine/data).
var incompressible = map[string]bool{
	".gz": true, ".zip": true, ".br": true, ".zst": true, ".xz": true, ".bz2": true, ".plpx": true,
	".png": true, ".jpg": true, ".jpeg": true, ".gif": true, ".webp": true, ".avif": true,
	".woff": true, ".woff2": true, ".mp4": true, ".webm": true, ".mp3": true, ".ogg": true,
}

type gzipStatic struct {
	fsys  fs.FS
	next  http.Handler // serves what is not gzipped
	limit int64        // bytes of compressed copies kept, all files together

	mu    sync.Mutex
	used  int64
	files map[string]*gzipEntry
}

// gzipEntry is one file's compressed copy, valid for the modification
// time and size it was made from.
type gzipEntry struct {
	mod  time.Time
	size int64
	once sync.Once
	data []byte // nil: not smaller, or over the limit: serve as is
}

func newGzipStatic(fsys fs.FS, next http.Handler, limit int64) *gzipStatic {
	return &gzipStatic{fsys: fsys, next: next, limit: limit, files: map[string]*gzipEntry{}}
}

func (g *gzipStatic) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	name := strings.TrimPrefix(path.Clean("/"+r.URL.Path), "/")
	if g.limit <= 0 || name == "" || incompressible[strings.ToLower(path.Ext(name))] {
		g.plain(w, r, name) // precompressed files (a tab's light shards) are served as they are
		return
	}
	w.Header().Add("Vary", "Accept-Encoding")
	ae := r.Header.Get("Accept-Encoding")
	if !acceptsGzip(ae) && !acceptsCoding(ae, "zstd") {
		g.plain(w, r, name)
		return
	}
	st, err := fs.Stat(g.fsys, name)
	if err != nil || !st.Mode().IsRegular() || st.Size() < gzipMinSize {
		g.plain(w, r, name) // directories, missing files and errors included
		return
	}
	if acceptsCoding(ae, "zstd") && g.servePrecompressed(w, r, name, st, ".zst", "zstd") {
		return
	}
	if !acceptsGzip(ae) {
		g.plain(w, r, name)
		return
	}
	if g.servePrecompressed(w, r, name, st, ".gz", "gzip") {
		return
	}
	e := g.entry(name, st)
	e.once.Do(func() { g.compress(name, e) })
	if e.data == nil {
		g.plain(w, r, name)
		return
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream" // never sniff compressed bytes
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Encoding", "gzip")
	// Its own validator, so that a resumed download (Range with If-Range)
	// never mixes the gzipped bytes with the plain file's; ranges are of
	// the gzipped bytes, as HTTP says for a Content-Encoding.
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x-gz"`, e.mod.UnixNano(), e.size))
	http.ServeContent(w, r, name, e.mod, bytes.NewReader(e.data))
}

// servePrecompressed serves name's precompressed copy, name+ext in the
// coding (".zst" zstd, ".gz" gzip), if there is one at least as new as
// the file. `make wasm` writes peer.wasm.zst (`zstd -19`, an 8 MiB
// window, as RFC 9659 asks for HTTP) and peer.wasm.gz (`gzip -9`, smaller
// than this package's compress/gzip at any level: 2.98 MB against 3.03
// MB at the default level and 3.01 MB at BestCompression, which takes ~3
// s); every tab downloads one: zstd where the browser asks for it
// (Chromium does over HTTPS and from localhost: 2.2 MB), else gzip. The
// copy's ETag is its own ("-zst", "-gzs"), as the in-memory copy's is.
// It reports whether it served the request.
func (g *gzipStatic) servePrecompressed(w http.ResponseWriter, r *http.Request, name string, st fs.FileInfo, ext, coding string) bool {
	zst, err := fs.Stat(g.fsys, name+ext)
	if err != nil || !zst.Mode().IsRegular() || zst.ModTime().Before(st.ModTime()) {
		return false // none, or older than the file
	}
	f, err := g.fsys.Open(name + ext)
	if err != nil {
		return false
	}
	defer f.Close()
	rs, ok := f.(io.ReadSeeker)
	if !ok {
		return false
	}
	ctype := mime.TypeByExtension(path.Ext(name))
	if ctype == "" {
		ctype = "application/octet-stream" // never sniff compressed bytes
	}
	tag := map[string]string{"gzip": "gzs", "zstd": "zst"}[coding]
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Content-Encoding", coding)
	w.Header().Set("ETag", fmt.Sprintf(`"%x-%x-%s"`, zst.ModTime().UnixNano(), zst.Size(), tag))
	http.ServeContent(w, r, name, zst.ModTime(), rs)
	return true
}

// plain serves name as it is, with a strong ETag of the file's
// modification time and size (the gzipped copy's has "-gz"), so that a
// cache revalidates it and a resumed download (Range with If-Range)
// never mixes two versions of it; ranges, Content-Length and
// Last-Modified are http.FileServer's.
func (g *gzipStatic) plain(w http.ResponseWriter, r *http.Request, name string) {
	if name != "" {
		if st, err := fs.Stat(g.fsys, name); err == nil && st.Mode().IsRegular() {
			w.Header().Set("ETag", fmt.Sprintf(`"%x-%x"`, st.ModTime().UnixNano(), st.Size()))
		}
	}
	g.next.ServeHTTP(w, r)
}

// entry returns name's entry for this version of the file, replacing one
// made from an older version.
func (g *gzipStatic) entry(name string, st fs.FileInfo) *gzipEntry {
	g.mu.Lock()
	defer g.mu.Unlock()
	e := g.files[name]
	if e != nil && e.mod.Equal(st.ModTime()) && e.size == st.Size() {
		return e
	}
	if e != nil {
		g.used -= int64(len(e.data)) // a request still serving it keeps its copy
	}
	e = &gzipEntry{mod: st.ModTime(), size: st.Size()}
	g.files[name] = e
	return e
}

// compress fills e.data, unless the copy would not be smaller or would
// take the kept copies past the limit.
func (g *gzipStatic) compress(name string, e *gzipEntry) {
	f, err := g.fsys.Open(name)
	if err != nil {
		return
	}
	defer f.Close()
	g.mu.Lock()
	room := g.limit - g.used
	g.mu.Unlock()
	buf := &capBuffer{max: min(room, e.size*9/10)}
	// The default level for what every tab downloads (peer.wasm: 2.95 MB
	// against 3.52 MB at BestSpeed, about half a second once); BestSpeed
	// (~100 MB/s) for big files, whole IDX datasets, where the default
	// level saves only ~10% more.
	level := gzip.DefaultCompression
	if e.size > gzipDefaultLevelMax {
		level = gzip.BestSpeed
	}
	zw, _ := gzip.NewWriterLevel(buf, level)
	n, err := io.Copy(zw, io.LimitReader(f, e.size+1))
	if err != nil || zw.Close() != nil || n != e.size {
		return // over the room, barely compressible, unreadable, or changed while read
	}
	if st, err := f.Stat(); err != nil || !st.ModTime().Equal(e.mod) || st.Size() != e.size {
		return // rewritten while read: the next request compresses the new file
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.files[name] != e || g.used+int64(buf.Len()) > g.limit {
		return
	}
	e.data = bytes.Clone(buf.Bytes()) // without the buffer's spare capacity
	g.used += int64(len(e.data))
}

// errGzipTooBig stops a compression whose output would not be kept.
var errGzipTooBig = errors.New("gzipped copy over its room")

// capBuffer is a bytes.Buffer that refuses to grow past max bytes.
type capBuffer struct {
	bytes.Buffer
	max int64
}

func (b *capBuffer) Write(p []byte) (int, error) {
	if int64(b.Len()+len(p)) > b.max {
		return 0, errGzipTooBig
	}
	return b.Buffer.Write(p)
}

// acceptsCoding reports whether an Accept-Encoding header names coding
// with a non-zero q ("*" does not count: only a client that names a
// newer coding, zstd, is sent it).
func acceptsCoding(h, coding string) bool {
	for _, part := range strings.Split(h, ",") {
		c, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		if !strings.EqualFold(strings.TrimSpace(c), coding) {
			continue
		}
		for _, param := range strings.Split(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(param), "q="); ok {
				if f, err := strconv.ParseFloat(v, 64); err != nil || f == 0 {
					return false
				}
			}
		}
		return true
	}
	return false
}

// acceptsGzip reports whether an Accept-Encoding header allows gzip: a
// "gzip" coding with a non-zero q, or else a "*" with one.
func acceptsGzip(h string) bool {
	gzipQ, starQ := -1.0, -1.0
	for _, part := range strings.Split(h, ",") {
		coding, params, _ := strings.Cut(strings.TrimSpace(part), ";")
		q := 1.0
		for _, param := range strings.Split(params, ";") {
			if v, ok := strings.CutPrefix(strings.TrimSpace(param), "q="); ok {
				f, err := strconv.ParseFloat(v, 64)
				if err != nil {
					f = 0
				}
				q = f
			}
		}
		switch strings.ToLower(strings.TrimSpace(coding)) {
		case "gzip", "x-gzip":
			gzipQ = q
		case "*":
			starQ = q
		}
	}
	if gzipQ >= 0 {
		return gzipQ > 0
	}
	return starQ > 0
}
