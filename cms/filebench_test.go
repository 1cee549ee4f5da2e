package cms_test

import (
	"bytes"
	"fmt"
	"net/netip"
	"strings"
	"testing"

	"gocloud.dev/blob/memblob"

	"github.com/bwcms/cms/cms"
	"github.com/bwcms/cms/internal/testenv"
)

// BenchmarkUploadTrack100k: the whole upload of a 100,000-point GPX (about
// 10 MB): digest, type judged, parsed, measured, simplified, bytes and line
// written to the blob store, row stored. Each round's file differs by a
// comment, so none is a Skip.
func BenchmarkUploadTrack100k(b *testing.B) {
	st := testenv.OpenSQLiteMemory(b)
	bucket := memblob.OpenBucket(nil)
	defer bucket.Close()
	svc := testenv.NewService(b, st, testenv.NewClock(), func(o *cms.Options) { o.Files = bucket }, fileAccounts...)
	sess, err := svc.Login(b.Context(), "root", testenv.Password, netip.Addr{})
	if err != nil {
		b.Fatal(err)
	}
	ctx := cms.WithPrincipal(b.Context(), sess.Principal)
	gpx := string(gpxTrack(100_000, 45.0, 7.0, 0.00001, 0.01))
	b.SetBytes(int64(len(gpx)))
	b.ResetTimer()
	for i := range b.N {
		body := strings.Replace(gpx, "<trk>", fmt.Sprintf("<!-- %d --><trk>", i), 1)
		f, _, err := svc.UploadFile(ctx, cms.Upload{Name: "long.gpx", Body: bytes.NewReader([]byte(body))})
		if err != nil || f.Track == nil || f.Track.Points != 100_000 {
			b.Fatalf("%v %+v", err, f)
		}
	}
}
