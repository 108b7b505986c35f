package f32

// hasAccel reports whether this build and CPU have faster kernels than the
// pure-Go ones. None yet.
const hasAccel = false
