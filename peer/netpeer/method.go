package netpeer

import (
	"crypto/sha256"
	"encoding/binary"
	"math"

	"github.com/peerlearn/peerlearn/peer/rtc"
	"github.com/peerlearn/peerlearn/protocol/method"
	"github.com/peerlearn/peerlearn/types/ident"
)

// The method core (node.Method, every method: FedLay's MEP as Gossip,
// D-PSGD, PENS and Plexus) is the peer core's; this file is its wire: a
// core's control messages travel as rtc KindApp frames, its models as rtc
// transfers (the header as metadata, the parameters and any Rest as the
// payload, in the task's codec if it has one), and a model that arrives
// intact goes back to the core as a node.ModelMessage.

// sendModel sends one of the core's messages.
func (l *learner) sendModel(s method.Send) error {
	if s.Params == nil {
		return l.mgr.SendApp(s.To, s.Header)
	}
	var payload []byte
	if l.codec != nil {
		var err error
		if payload, err = l.codec.encode(s.To, s.Params, s.Rest); err != nil {
			return err
		}
	} else {
		payload = make([]byte, 0, 4*(len(s.Params)+len(s.Rest)))
		for _, v := range [][]float32{s.Params, s.Rest} {
			for _, x := range v {
				payload = binary.LittleEndian.AppendUint32(payload, math.Float32bits(x))
			}
		}
	}
	_, err := l.mgr.SendTransfer(s.To, s.Header, payload, sha256.Sum256(payload), l.task)
	return err
}

// decodeTransfer returns the parameters of a model that arrived intact,
// or false (counted and logged) for a transfer of another task, of a
// broken length, or that the codec refuses.
func (l *learner) decodeTransfer(from ident.Peer, man rtc.Manifest, payload []byte) ([]float32, bool) {
	name := l.method.Name()
	if man.Task != l.task || (l.codec == nil && len(payload)%4 != 0) {
		l.st.Refused++
		l.logf("%s: dropped a transfer from %v: task %x, %d bytes", name, from, man.Task[:4], len(payload))
		return nil, false
	}
	if l.codec != nil {
		params, rest, reply, err := l.codec.decode(from, payload, l.peer.NumParams(), restOf(payload))
		if reply != nil && l.mgr != nil {
			if serr := l.mgr.SendApp(from, reply); serr != nil {
				l.logf("%s: codec reply to %v: %v", name, from, serr)
			}
		}
		if err != nil {
			l.st.Refused++
			l.logf("%s: dropped a transfer from %v: %v", name, from, err)
			return nil, false
		}
		if len(rest) > 0 {
			params = append(params, rest...) // the core's header says where its parameters end
		}
		return params, true
	}
	vals := make([]float32, len(payload)/4)
	for i := range vals {
		vals[i] = math.Float32frombits(binary.LittleEndian.Uint32(payload[4*i:]))
	}
	return vals, true
}
