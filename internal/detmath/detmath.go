package detmath

import "math"

// Log returns the natural logarithm of x.
func Log(x float64) float64 {
	const (
		ln2Hi = 6.93147180369123816490e-01 // 3fe62e42 fee00000
		ln2Lo = 1.90821492927058770002e-10 // 3dea39ef 35793c76
		l1    = 6.666666666666735130e-01   // 3FE55555 55555593
		l2    = 3.999999999940941908e-01   // 3FD99999 9997FA04
		l3    = 2.857142874366239149e-01   // 3FD24924 94229359
		l4    = 2.222219843214978396e-01   // 3FCC71C5 1D8E78AF
		l5    = 1.818357216161805012e-01   // 3FC74664 96CB03DE
		l6    = 1.531383769920937332e-01   // 3FC39A09 D078C69F
		l7    = 1.479819860511658591e-01   // 3FC2F112 DF3E5244
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x < 0:
		return math.NaN()
	case x == 0:
		return math.Inf(-1)
	}
	f1, ki := math.Frexp(x) // exact: bit manipulation
	if f1 < math.Sqrt2/2 {
		f1 *= 2
		ki--
	}
	f := f1 - 1
	k := float64(ki)
	s := f / (2 + f)
	s2 := float64(s * s)
	s4 := float64(s2 * s2)
	t1 := float64(s2 * (l1 + float64(s4*(l3+float64(s4*(l5+float64(s4*l7)))))))
	t2 := float64(s4 * (l2 + float64(s4*(l4+float64(s4*l6)))))
	r := t1 + t2
	hfsq := float64(0.5 * f * f)
	return float64(k*ln2Hi) - ((hfsq - (float64(s*(hfsq+r)) + float64(k*ln2Lo))) - f)
}

// Exp returns e**x.
func Exp(x float64) float64 {
	const (
		ln2Hi     = 6.93147180369123816490e-01
		ln2Lo     = 1.90821492927058770002e-10
		log2e     = 1.44269504088896338700e+00
		overflow  = 7.09782712893383973096e+02
		underflow = -7.45133219101941108420e+02
		nearZero  = 1.0 / (1 << 28)
		p1        = 1.66666666666666657415e-01  // 0x3FC55555; 0x55555555
		p2        = -2.77777777770155933842e-03 // 0xBF66C16C; 0x16BEBD93
		p3        = 6.61375632143793436117e-05  // 0x3F11566A; 0xAF25DE2C
		p4        = -1.65339022054652515390e-06 // 0xBEBBBD41; 0xC5D26BF1
		p5        = 4.13813679705723846039e-08  // 0x3E663769; 0x72BEA4D0
	)
	switch {
	case math.IsNaN(x) || math.IsInf(x, 1):
		return x
	case x > overflow:
		return math.Inf(1)
	case x < underflow: // -Inf included
		return 0
	case -nearZero < x && x < nearZero:
		return 1 + x
	}
	var k int
	if x < 0 {
		k = int(float64(log2e*x) - 0.5)
	} else {
		k = int(float64(log2e*x) + 0.5)
	}
	hi := x - float64(float64(k)*ln2Hi)
	lo := float64(k) * ln2Lo
	r := hi - lo
	t := float64(r * r)
	c := r - float64(t*(p1+float64(t*(p2+float64(t*(p3+float64(t*(p4+float64(t*p5)))))))))
	y := 1 - ((lo - float64(r*c)/(2-c)) - hi)
	return math.Ldexp(y, k) // exact: bit manipulation
}

// Tanh returns the hyperbolic tangent of x.
func Tanh(x float64) float64 {
	const maxLog = 8.8029691931113054295988e+01 // log(2**127)
	z := math.Abs(x)
	switch {
	case x != x:
		return x
	case z > 0.5*maxLog:
		if x < 0 {
			return -1
		}
		return 1
	case z >= 0.625:
		s := Exp(2 * z)
		z = 1 - 2/(s+1)
		if x < 0 {
			z = -z
		}
		return z
	case x == 0:
		return x
	}
	const (
		p0, p1, p2 = -9.64399179425052238628e-1, -9.92877231001918586564e1, -1.61468768441708447952e3
		q0, q1, q2 = 1.12811678491632931402e2, 2.23548839060100448583e3, 4.84406305325125486048e3
	)
	s := float64(x * x)
	num := float64(float64(float64(p0*s)+p1)*s) + p2
	den := float64(float64(float64(s+q0)*s)+q1)*s + q2
	return x + float64(float64(x*s)*num)/den
}

// Normal draws a standard normal variate by Marsaglia's polar method on
// the uniforms in [0, 1) that u returns. It needs only Log and an exactly
// rounded square root (rand.NormFloat64 calls math.Exp and math.Log).
func Normal(u func() float64) float64 {
	for {
		a := 2*u() - 1
		b := 2*u() - 1
		s := float64(a*a) + float64(b*b)
		if s >= 1 || s == 0 {
			continue
		}
		return a * math.Sqrt(-2*Log(s)/s)
	}
}
