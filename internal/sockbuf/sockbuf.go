// Package sockbuf asks the kernel for larger socket buffers, best effort.
package sockbuf

// Grow asks for bytes of kernel buffer each way on c when c can set them
// (a *net.UDPConn, say); a refusal, or a c that cannot, leaves the
// default, which works, only slower. The kernel caps the request at
// net.core.rmem_max / wmem_max.
func Grow(c any, bytes int) {
	if b, ok := c.(interface{ SetReadBuffer(int) error }); ok {
		b.SetReadBuffer(bytes) //nolint:errcheck // best effort, see above
	}
	if b, ok := c.(interface{ SetWriteBuffer(int) error }); ok {
		b.SetWriteBuffer(bytes) //nolint:errcheck
	}
}
