package main

import (
	"errors"
	"fmt"
	"io"

	"github.com/peerlearn/peerlearn/signal/server"
)

// printCoturnConfig writes the coturn configuration docs/DEPLOY.md asks
// for: the same credentials, limits and denied peer networks as the
// embedded server. The denied private ranges matter beyond security:
// coturn 4.6 stops relaying for a whole allocation once one send to an
// unroutable peer fails, and ICE sends to every remote host candidate,
// private ones included, through the relay (measured in the network lab:
// the UDP-blocked home never connected without them).
func printCoturnConfig(w io.Writer, secret, externalIP string) error {
	if secret == "" {
		return errors.New("-coturn-config needs -turn-secret (or $PEERLEARN_TURN_SECRET): coturn and this server must share it")
	}
	o := server.DefaultCoturnOptions(secret)
	o.ExternalIP = externalIP
	_, err := fmt.Fprint(w, server.CoturnConfig(o))
	return err
}
