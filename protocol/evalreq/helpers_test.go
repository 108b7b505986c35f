package evalreq

import "github.com/peerlearn/peerlearn/types/ident"

func id(b byte) ident.Peer { return ident.Peer{b, 0xee} }

func sampleMessages() []Message {
	return []Message{
		{Type: MsgEvalRequest, From: id(1), ReqID: 7, Round: 3, Model: ModelHeader{Arch: "cnn-cifar", NumParams: 73418}},
		{Type: MsgEvalResult, From: id(2), ReqID: 7, Round: 3, Loss: 1.25, Accuracy: 0.625, Samples: 125},
		{Type: MsgEvalRefused, From: id(3), ReqID: 1 << 60, Round: 0, Reason: ReasonRateLimited},
	}
}
