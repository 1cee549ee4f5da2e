// Command goclient runs one session through the Go client oapi-codegen
// generates from docs/openapi.json (into ./api, by the gencheck test):
// login, a create with a null, a batch and its status, reads with query
// options (published, fields, mapId, paging over 250 records, bbox) and a
// refresh. Usage: goclient <server URL> <user> <password>. It exits 1
// with the first difference from what the API promises.
package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"gencheck/goclient/api"
)

func main() {
	if err := session(context.Background(), os.Args[1], os.Args[2], os.Args[3]); err != nil {
		fmt.Fprintln(os.Stderr, "goclient:", err)
		os.Exit(1)
	}
	fmt.Println("goclient: session done")
}

const records = 260 // more than two pages of 100

func session(ctx context.Context, server, user, password string) error {
	c, err := api.NewClientWithResponses(server)
	if err != nil {
		return err
	}
	login, err := c.LoginWithFormdataBodyWithResponse(ctx, api.LoginFormdataRequestBody{U: user, P: password})
	if err != nil || login.JSON200 == nil {
		return fmt.Errorf("login: %v %s", err, body(login))
	}
	token := login.JSON200.AccessToken
	auth := api.RequestEditorFn(func(_ context.Context, r *http.Request) error {
		r.Header.Set("Authorization", "Bearer "+token)
		return nil
	})

	// A create with a null (the typed struct omits nil fields, so the
	// body goes as JSON), read back by an id in the query.
	created, err := c.UpsertResourceWithBodyWithResponse(ctx, nil, "application/json", strings.NewReader(
		`{"id":"gen-null","title":"With a null","published":true,"locationLat":45.123456789,"locationLon":9.25,"trackDifficulty":null}`), auth)
	if err != nil || created.JSON201 == nil || !created.JSON201.New {
		return fmt.Errorf("create with a null: %v %s", err, body(created))
	}
	one, err := c.ListResourcesWithResponse(ctx, &api.ListResourcesParams{Ids: &api.IdsQuery{"gen-null"}}, auth)
	if err != nil || one.JSON200 == nil || len(*one.JSON200) != 1 {
		return fmt.Errorf("read by ids: %v %s", err, body(one))
	}
	if r := (*one.JSON200)[0]; r.TrackDifficulty != nil || r.LocationLat == nil || *r.LocationLat != 45.123456789 {
		return fmt.Errorf("read back: trackDifficulty %v, locationLat %v", r.TrackDifficulty, r.LocationLat)
	}

	// A Map, then a batch of Resources assigned to it, half published.
	m, err := c.UpsertMapWithResponse(ctx, nil, api.Map{Id: "gen-map", Title: ptr("Generated")}, auth)
	if err != nil || m.JSON201 == nil {
		return fmt.Errorf("create map: %v %s", err, body(m))
	}
	batch := make([]api.Resource, records)
	for i := range batch {
		batch[i] = api.Resource{Id: fmt.Sprintf("gen-%03d", i), Title: ptr(fmt.Sprintf("Generated %d", i)),
			Published: ptr(i%2 == 0), MapIds: &[]string{"gen-map"},
			LocationLat: ptr(40 + float64(i)/100), LocationLon: ptr(10.0)}
	}
	// Checked first (dryRun, an extension): 200 with the count, nothing stored.
	checked, err := c.SubmitResourceBatchWithResponse(ctx, &api.SubmitResourceBatchParams{DryRun: ptr(true)}, batch, auth)
	if err != nil || checked.JSON200 == nil || checked.JSON200.Count != records {
		return fmt.Errorf("check batch: %v %s", err, body(checked))
	}
	receipt, err := c.SubmitResourceBatchWithResponse(ctx, nil, batch, auth)
	if err != nil || receipt.JSON201 == nil || receipt.JSON201.Count != records {
		return fmt.Errorf("submit batch: %v %s", err, body(receipt))
	}
	deadline := time.Now().Add(60 * time.Second)
	for {
		st, err := c.GetResourceBatchStatusWithResponse(ctx, receipt.JSON201.BatchId, auth)
		if err != nil || st.JSON200 == nil {
			return fmt.Errorf("batch status: %v %s", err, body(st))
		}
		if p := st.JSON200.Processed; p != nil && (*p < 0 || *p > records || st.JSON200.Status != "processing") {
			return fmt.Errorf("batch progress: %s", body(st))
		}
		if st.JSON200.Status == "done" {
			if st.JSON200.Created == nil || *st.JSON200.Created != records {
				return fmt.Errorf("batch done: created %v", st.JSON200.Created)
			}
			break
		}
		if st.JSON200.Status == "error" || time.Now().After(deadline) {
			return fmt.Errorf("batch: %s", body(st))
		}
		time.Sleep(100 * time.Millisecond)
	}

	// Paging with published, fields and mapId: every record once, in
	// ascending id order, only the fields asked.
	all := api.ListResourcesParamsPublishedAsterisk
	var seen []string
	params := api.ListResourcesParams{Published: &all, Fields: &api.FieldsQuery{"title"}, MapId: ptr("gen-map"), Limit: ptr[int32](100)}
	for {
		page, err := c.ListResourcesWithResponse(ctx, &params, auth)
		if err != nil || page.JSON200 == nil {
			return fmt.Errorf("page after %v: %v %s", params.After, err, body(page))
		}
		for _, r := range *page.JSON200 {
			if r.Title == nil || r.Published != nil || r.LocationLat != nil {
				return fmt.Errorf("fields=title: record %s has %v, %v, %v", r.Id, r.Title, r.Published, r.LocationLat)
			}
			seen = append(seen, r.Id)
		}
		if len(*page.JSON200) < 100 {
			break
		}
		params.After = &seen[len(seen)-1]
	}
	if len(seen) != records || seen[0] != "gen-000" || seen[records-1] != fmt.Sprintf("gen-%03d", records-1) {
		return fmt.Errorf("paging: %d records, %v ... ", len(seen), seen[:min(3, len(seen))])
	}
	published, err := c.ListResourcesWithResponse(ctx, &api.ListResourcesParams{MapId: ptr("gen-map"), ExcludeFiles: ptr(api.ListResourcesParamsExcludeFiles(true))}, auth)
	if err != nil || published.JSON200 == nil || len(*published.JSON200) != records/2 {
		return fmt.Errorf("published only: %v %s", err, body(published))
	}

	// bbox: gen-null (45.12, 9.25) and nothing of the batch (lon 10).
	inBox, err := c.ListResourcesWithResponse(ctx, &api.ListResourcesParams{Bbox: &api.BboxQuery{9, 45, 9.5, 46}, Published: &all}, auth)
	if err != nil || inBox.JSON200 == nil || len(*inBox.JSON200) != 1 || (*inBox.JSON200)[0].Id != "gen-null" {
		return fmt.Errorf("bbox: %v %s", err, body(inBox))
	}

	// Refresh, and the new token reads.
	refreshed, err := c.RefreshWithFormdataBodyWithResponse(ctx, api.RefreshFormdataRequestBody{RefreshToken: &login.JSON200.RefreshToken})
	if err != nil || refreshed.JSON200 == nil || refreshed.JSON200.AccessToken == token {
		return fmt.Errorf("refresh: %v %s", err, body(refreshed))
	}
	token = refreshed.JSON200.AccessToken
	again, err := c.ListResourcesWithResponse(ctx, &api.ListResourcesParams{Ids: &api.IdsQuery{"gen-null", "gen-001"}, Published: &all}, auth)
	if err != nil || again.JSON200 == nil || len(*again.JSON200) != 2 || (*again.JSON200)[1].Id != "gen-001" {
		return fmt.Errorf("read with the refreshed token: %v %s", err, body(again))
	}
	return nil
}

func ptr[T any](v T) *T { return &v }

// body is an answer's status and body, for an error message.
func body(r interface{ Status() string }) string {
	if r == nil {
		return "(no answer)"
	}
	if b, ok := r.(interface{ Bytes() []byte }); ok {
		return r.Status() + " " + string(b.Bytes())
	}
	return r.Status()
}
