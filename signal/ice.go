package signal

import (
	"fmt"
	"strings"
	"unicode"
)

// Limits on ICE server lists.
const (
	MaxICEServers   = 8   // servers in a welcome
	MaxICEURLs      = 8   // URLs of one server
	MaxICEStringLen = 512 // bytes of a URL, username or credential
)

// ICEServer is one STUN or TURN server, shaped like the browser's
// RTCIceServer and pion's webrtc.ICEServer (password credentials).
type ICEServer struct {
	// URLs are stun:, stuns:, turn: or turns: URLs.
	URLs []string `json:"urls"`
	// Username and Credential authenticate to a TURN server (required
	// when any URL is turn: or turns:).
	Username   string `json:"username,omitempty"`
	Credential string `json:"credential,omitempty"`
}

// Validate checks the URLs' schemes and the lengths; errors wrap
// ErrMalformed.
func (s ICEServer) Validate() error {
	if len(s.URLs) == 0 || len(s.URLs) > MaxICEURLs {
		return fmt.Errorf("%w: ICE server with %d URLs, want 1 to %d", ErrMalformed, len(s.URLs), MaxICEURLs)
	}
	turn := false
	for _, u := range s.URLs {
		if err := checkString("ICE URL", u, 1); err != nil {
			return err
		}
		scheme, rest, _ := strings.Cut(u, ":")
		switch scheme {
		case "stun", "stuns":
		case "turn", "turns":
			turn = true
		default:
			return fmt.Errorf("%w: ICE URL %q: want stun:, stuns:, turn: or turns:", ErrMalformed, u)
		}
		if rest == "" {
			return fmt.Errorf("%w: ICE URL %q has no host", ErrMalformed, u)
		}
	}
	if err := checkString("ICE username", s.Username, 0); err != nil {
		return err
	}
	if err := checkString("ICE credential", s.Credential, 0); err != nil {
		return err
	}
	if turn && (s.Username == "" || s.Credential == "") {
		return fmt.Errorf("%w: TURN server %v without username and credential", ErrMalformed, s.URLs)
	}
	return nil
}

// ValidateICEServers checks a list of servers.
func ValidateICEServers(list []ICEServer) error {
	if len(list) > MaxICEServers {
		return fmt.Errorf("%w: %d ICE servers, limit %d", ErrMalformed, len(list), MaxICEServers)
	}
	for _, s := range list {
		if err := s.Validate(); err != nil {
			return err
		}
	}
	return nil
}

// checkString bounds a string's length and refuses control characters.
func checkString(what, s string, min int) error {
	if len(s) < min || len(s) > MaxICEStringLen {
		return fmt.Errorf("%w: %s of %d bytes, want %d to %d", ErrMalformed, what, len(s), min, MaxICEStringLen)
	}
	if strings.ContainsFunc(s, unicode.IsControl) {
		return fmt.Errorf("%w: %s %q has control characters", ErrMalformed, what, s)
	}
	return nil
}
