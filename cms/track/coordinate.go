package track

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// number reads a decimal number for a point's field; what (latitude,
// longitude, elevation) and the 1-based point number go in the message.
func number(s, what string, point int) (float64, error) {
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) {
		return 0, formatError(fmt.Sprintf("%s %q is not a number at point %d", what, shown(s), point))
	}
	return v, nil
}

// latLon reads and checks a latitude and a longitude.
func latLon(lat, lon string, point int) (float64, float64, error) {
	la, err := number(lat, "latitude", point)
	if err != nil {
		return 0, 0, err
	}
	if la < -90 || la > 90 {
		return 0, 0, formatError(fmt.Sprintf("latitude %s is out of range at point %d", clip(lat, 40), point))
	}
	lo, err := number(lon, "longitude", point)
	if err != nil {
		return 0, 0, err
	}
	if lo < -180 || lo > 180 {
		return 0, 0, formatError(fmt.Sprintf("longitude %s is out of range at point %d", clip(lon, 40), point))
	}
	return la, lo, nil
}

// maxAbsEle bounds elevations: deeper than any sea, higher than any flight;
// beyond it the value is a broken field, not a place.
const maxAbsEle = 100_000

func elevation(s string, point int) (float64, error) {
	e, err := number(s, "elevation", point)
	if err != nil {
		return 0, err
	}
	if math.Abs(e) > maxAbsEle {
		return 0, formatError(fmt.Sprintf("elevation %s is out of range at point %d", shown(s), point))
	}
	return e, nil
}

// timestamp reads an XML Schema dateTime: RFC 3339, or without a zone (then
// taken as UTC, as GPS devices record).
func timestamp(s string, point int) (time.Time, error) {
	if t, err := time.Parse(time.RFC3339Nano, s); err == nil {
		return t.UTC(), nil
	}
	if t, err := time.Parse("2006-01-02T15:04:05.999999999", s); err == nil {
		return t, nil
	}
	return time.Time{}, formatError(fmt.Sprintf("time %q is not a date and time at point %d", shown(s), point))
}

// kmlTuples reads a KML <coordinates> text, "lon,lat[,alt]" tuples separated
// by white space (white space next to a comma is tolerated, as Google Earth
// does), and calls add for each; first is the number of the first point.
func kmlTuples(text string, first int, add func(Point) error) error {
	point := first
	i := 0
	for {
		for i < len(text) && isSpace(text[i]) {
			i++
		}
		if i == len(text) {
			return nil
		}
		var parts [3]string
		n := 0
		for {
			start := i
			for i < len(text) && text[i] != ',' && !isSpace(text[i]) {
				i++
			}
			if n == 3 {
				return formatError(fmt.Sprintf("the coordinates at point %d are not lon,lat[,alt]", point))
			}
			parts[n] = text[start:i]
			n++
			j := i
			for j < len(text) && isSpace(text[j]) {
				j++
			}
			if j < len(text) && text[j] == ',' {
				i = j + 1
				for i < len(text) && isSpace(text[i]) {
					i++
				}
				continue
			}
			break
		}
		if n < 2 || parts[0] == "" || parts[1] == "" {
			return formatError(fmt.Sprintf("the coordinates at point %d are not lon,lat[,alt]", point))
		}
		p, err := kmlPoint(parts[0], parts[1], parts[2], n == 3, point)
		if err != nil {
			return err
		}
		if err := add(p); err != nil {
			return err
		}
		point++
	}
}

// gxCoord reads a gx:coord text, "lon lat [alt]" separated by spaces.
func gxCoord(text string, point int) (Point, error) {
	f := strings.Fields(text)
	if len(f) < 2 || len(f) > 3 {
		return Point{}, formatError(fmt.Sprintf("the gx:coord at point %d is not \"lon lat alt\"", point))
	}
	alt := ""
	if len(f) == 3 {
		alt = f[2]
	}
	return kmlPoint(f[0], f[1], alt, len(f) == 3, point)
}

func kmlPoint(lon, lat, alt string, hasAlt bool, point int) (Point, error) {
	la, lo, err := latLon(lat, lon, point)
	if err != nil {
		return Point{}, err
	}
	p := Point{Lat: la, Lon: lo}
	if hasAlt {
		if alt == "" {
			return Point{}, formatError(fmt.Sprintf("the coordinates at point %d are not lon,lat[,alt]", point))
		}
		if p.Ele, err = elevation(alt, point); err != nil {
			return Point{}, err
		}
		p.HasEle = true
	}
	return p, nil
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// shown is a value for a message: a copy, so that the value itself (often
// a view of a reused buffer) does not escape, cut to 40 bytes.
func shown(s string) string { return clip(strings.Clone(s), 40) }
