package jsonscan

import (
	"math"
	"strconv"
)

// AppendFloat appends the finite f as encoding/json writes a float64 (the
// shortest text that reads back as f; exponent form below 1e-6 and from
// 1e21 on, with e-09 written e-9). NaN and infinities, which encoding/json
// refuses, are the caller's to refuse.
func AppendFloat(buf []byte, f float64) []byte {
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	buf = strconv.AppendFloat(buf, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(buf)
		if n >= 4 && buf[n-4] == 'e' && buf[n-3] == '-' && buf[n-2] == '0' {
			buf[n-2] = buf[n-1]
			buf = buf[:n-1]
		}
	}
	return buf
}
