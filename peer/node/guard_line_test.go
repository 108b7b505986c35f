package node

import (
	"testing"

	"github.com/peerlearn/peerlearn/engine/aggregate"
)

// TestOutlierLine: the log says what was done with the model. A model
// the behind check flagged was used (whole, or cut back less than its
// severity), so it must not read "cut its model back (68% ...)".
func TestOutlierLine(t *testing.T) {
	for _, tc := range []struct {
		o    aggregate.Outlier
		want string
	}{
		{aggregate.Outlier{Severity: 0.68, Action: aggregate.OutlierCut}, "cut its model back (68% of its difference to ours)"},
		{aggregate.Outlier{Severity: 0.97, Action: aggregate.OutlierLeftOut}, "left its model out of the average (severity 0.97)"},
		{aggregate.Outlier{Severity: 0.68, Action: aggregate.OutlierFlagged}, "flagged its model as behind the neighbourhood's along our step (severity 0.68; used, at most cut back)"},
	} {
		if got := outlierLine(tc.o); got != tc.want {
			t.Errorf("%v: %q, want %q", tc.o.Action, got, tc.want)
		}
	}
}
