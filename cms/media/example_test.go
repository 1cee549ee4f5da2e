package media_test

import (
	"bytes"
	"errors"
	"fmt"
	"image"
	"image/png"

	"github.com/bwcms/cms/cms/media"
)

func ExampleDetect() {
	var b bytes.Buffer
	png.Encode(&b, image.NewRGBA(image.Rect(0, 0, 3, 2)))
	info, err := media.Detect(bytes.NewReader(b.Bytes()), int64(b.Len()), media.Limits{})
	fmt.Println(info.Type, info.Ext, info.Width, info.Height, err)

	kml := []byte(`<?xml version="1.0" encoding="UTF-8"?>
<kml xmlns="http://www.opengis.net/kml/2.2"><Placemark><name>Hut</name></Placemark></kml>`)
	info, err = media.Detect(bytes.NewReader(kml), int64(len(kml)), media.Limits{})
	fmt.Println(info.Type, info.Ext, err)
	// Output:
	// image/png png 3 2 <nil>
	// application/vnd.google-earth.kml+xml kml <nil>
}

func ExampleDetect_refusals() {
	for _, data := range []string{
		"just some text",
		`<gpx version="1.2" creator="x"></gpx>`,
		`<!DOCTYPE kml [<!ENTITY e SYSTEM "file:///etc/passwd">]><kml>&e;</kml>`,
	} {
		_, err := media.Detect(bytes.NewReader([]byte(data)), int64(len(data)), media.Limits{})
		var fe *media.FormatError
		if errors.As(err, &fe) {
			fmt.Println(fe.Msg)
		}
	}
	big := []byte(`<kml>` + string(bytes.Repeat([]byte("<Placemark/>"), 100)) + `</kml>`)
	_, err := media.Detect(bytes.NewReader(big), int64(len(big)), media.Limits{XMLBytes: 1000})
	fmt.Println(errors.Is(err, media.ErrTooLarge))
	// Output:
	// the file is not a JPEG, PNG, WebP, KML, KMZ or GPX file
	// the GPX file is version "1.2"; only GPX 1.0 and 1.1 are accepted
	// the KML file declares a DTD, which is not accepted
	// true
}

func ExampleThumbnail() {
	var src bytes.Buffer
	png.Encode(&src, image.NewRGBA(image.Rect(0, 0, 2000, 1000)))
	var out bytes.Buffer
	typ, err := media.Thumbnail(&out, &src, media.PNG, 320)
	if err != nil {
		fmt.Println(err)
		return
	}
	cfg, _ := png.DecodeConfig(&out)
	fmt.Println(typ, cfg.Width, cfg.Height)
	// Output:
	// image/png 320 160
}
