package demo

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strings"

	"github.com/mdp/qrterminal/v3"
	"rsc.io/qr"
)

// LAN mode (Config.LAN): the server listens on every interface over
// HTTPS with a fresh self-signed certificate for the machine's LAN
// address, the native peers advertise their real interfaces (a phone on
// the same network reaches them, its mDNS names resolved), and the join
// URL is printed with a QR code in the terminal and shown on the page.

// lanIP returns the first IPv4 address of an interface that is up and not
// loopback.
func lanIP() (net.IP, error) {
	ifs, err := net.Interfaces()
	if err != nil {
		return nil, err
	}
	for _, i := range ifs {
		if i.Flags&net.FlagUp == 0 || i.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, _ := i.Addrs()
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLinkLocalUnicast() {
				return n.IP.To4(), nil
			}
		}
	}
	return nil, errors.New("no LAN address: no interface up with an IPv4 address")
}

// qrSVG renders text as a QR code in SVG (one square per module, a
// 4-module quiet zone).
func qrSVG(text string) ([]byte, error) {
	c, err := qr.Encode(text, qr.M)
	if err != nil {
		return nil, err
	}
	n := c.Size + 8
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 %d %d" shape-rendering="crispEdges">`, n, n)
	fmt.Fprintf(&b, `<rect width="%d" height="%d" fill="#fff"/><path fill="#000" d="`, n, n)
	for y := range c.Size {
		for x := range c.Size {
			if c.Black(x, y) {
				fmt.Fprintf(&b, "M%d %dh1v1h-1z", x+4, y+4)
			}
		}
	}
	b.WriteString(`"/></svg>`)
	return []byte(b.String()), nil
}

// printQR writes the join URL's QR code for a terminal.
func printQR(w io.Writer, url string) {
	qrterminal.GenerateHalfBlock(url, qr.M, w)
}

// pageWithQR copies the page directory src to dst and adds join-qr.svg,
// the QR code of url, which the page shows when it is there.
func pageWithQR(src, dst, url string) error {
	if err := os.RemoveAll(dst); err != nil {
		return err
	}
	if err := os.CopyFS(dst, os.DirFS(src)); err != nil {
		return err
	}
	svg, err := qrSVG(url)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(dst, "join-qr.svg"), svg, fs.FileMode(0o644))
}
