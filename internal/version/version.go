package version

// String is the release of the PeerLearn protocols and formats in this build.
const String = "0.1.0-dev"
