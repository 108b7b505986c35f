// Package servertest starts servers on a loopback port for tests: the
// signalling server (package server) above all, but any server with
// Serve(net.Listener) and Shutdown(context.Context), such as an
// *http.Server. It does not import package server, so that package's own
// tests can use it too (an in-package test may not import a package that
// imports the package under test).
package servertest
