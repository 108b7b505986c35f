// Package version names this build of PeerLearn.
package version
