package data

// Dataset is a labelled set of samples with features stored row-major in
// one flat slice: sample i is X[i*Features() : (i+1)*Features()].
type Dataset struct {
	Name string
	// X holds the features, pixel values scaled to [0, 1].
	X []float32
	// Y holds the labels, each in [0, Classes).
	Y []int32
	// Shape of one sample: height, width, channels (a flat vector is {1, n, 1}).
	Shape [3]int
	// Classes is the number of label values.
	Classes int
}

// Len returns the number of samples.
func (d *Dataset) Len() int { return len(d.Y) }

// Features returns the number of values per sample.
func (d *Dataset) Features() int { return d.Shape[0] * d.Shape[1] * d.Shape[2] }

// Sample returns the features and label of sample i (a view, not a copy).
func (d *Dataset) Sample(i int) ([]float32, int32) {
	f := d.Features()
	return d.X[i*f : (i+1)*f], d.Y[i]
}
