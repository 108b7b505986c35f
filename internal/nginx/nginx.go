// Package nginx runs Debian's nginx on loopback as the reverse proxy
// docs/DEPLOY.md recommends in front of the signalling server, for the
// tests and benchmarks that try the deployment as documented
// (signal/server's TestBehindNginx, `peerlearn bench abuse`). Location is
// the proxy configuration DEPLOY.md shows; the rest of the file only
// confines nginx to a temporary directory.
package nginx

import (
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/peerlearn/peerlearn/internal/proc"
)

// Location is the proxy configuration DEPLOY.md shows (its %s is the
// upstream, the server's host:port): the websocket upgrade, and the
// client address appended to X-Forwarded-For (what a client sent in it
// stays to the left, where the server ignores it).
const Location = `
        proxy_pass http://%s;
        proxy_http_version 1.1;
        proxy_set_header Upgrade $http_upgrade;
        proxy_set_header Connection $connection_upgrade;
        proxy_set_header Host $host;
        proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
        proxy_read_timeout 120s;
`

// ErrMissing: no nginx binary (scripts/deps.sh proxy installs Debian's
// nginx-light).
var ErrMissing = errors.New("nginx not installed (scripts/deps.sh proxy: Debian nginx-light)")

// Binary returns the nginx program: on PATH, or /usr/sbin/nginx (not on a
// non-root PATH); ErrMissing if neither.
func Binary() (string, error) {
	if bin, err := exec.LookPath("nginx"); err == nil {
		return bin, nil
	}
	const sbin = "/usr/sbin/nginx"
	if _, err := os.Stat(sbin); err != nil {
		return "", ErrMissing
	}
	return sbin, nil
}

// Proxy is a running nginx.
type Proxy struct {
	// Addr is where it listens (127.0.0.1:port).
	Addr string
	p    *proc.Proc
}

// Start runs nginx in dir (a fresh directory the caller removes), on a
// free 127.0.0.1 port in front of upstream, with its stderr in
// dir/nginx.log, and waits up to 10 s until it accepts connections.
func Start(dir, upstream string) (*Proxy, error) {
	bin, err := Binary()
	if err != nil {
		return nil, err
	}
	addr, err := freeAddr()
	if err != nil {
		return nil, err
	}
	user := ""
	if os.Geteuid() == 0 {
		user = "user root;" // workers as root: the temp paths are root's
	}
	conf := fmt.Sprintf(`%s
worker_processes 1;
daemon off;
pid %[2]s/nginx.pid;
error_log stderr warn;
events { worker_connections 1024; }
http {
    access_log off;
    client_body_temp_path %[2]s/body;
    proxy_temp_path %[2]s/proxy;
    fastcgi_temp_path %[2]s/fastcgi;
    uwsgi_temp_path %[2]s/uwsgi;
    scgi_temp_path %[2]s/scgi;
    map $http_upgrade $connection_upgrade { default upgrade; '' close; }
    server {
        listen %[3]s;
        location / {%[4]s        }
    }
}
`, user, dir, addr, fmt.Sprintf(Location, upstream))
	path := filepath.Join(dir, "nginx.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		return nil, err
	}
	p, err := proc.Start(proc.Options{Name: "nginx", Bin: bin, Args: []string{"-p", dir, "-c", path}, LogPath: filepath.Join(dir, "nginx.log"), DieWithParent: true})
	if err != nil {
		return nil, err
	}
	px := &Proxy{Addr: addr, p: p}
	for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
		if c, err := net.Dial("tcp", addr); err == nil {
			c.Close()
			return px, nil
		}
		if p.Exited() || time.Now().After(deadline) {
			px.Stop()
			b, _ := os.ReadFile(p.Log) //nolint:errcheck // best effort, for the error
			return nil, fmt.Errorf("nginx never accepted on %s: %s", addr, b)
		}
	}
}

// Stop ends nginx: SIGTERM, which makes the master stop its worker (a
// killed master leaves it running, holding the upstream's connections
// open); killed after 10 s. It reports whether it stopped on SIGTERM.
func (x *Proxy) Stop() bool { return x.p.Stop(10 * time.Second) }

// Log is the file with nginx's stderr.
func (x *Proxy) Log() string { return x.p.Log }

// freeAddr returns a 127.0.0.1 address whose port was free a moment ago.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
