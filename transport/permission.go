package transport

import (
	"net/http"
	"strings"

	"github.com/bwcms/cms/cms"
)

// routeKey is a route of the API as a request asks it: its method and its
// endpoint.
type routeKey struct {
	method   string
	endpoint endpoint
}

// need is the permission a route needs: an action on a target. A nil
// target is the kind the path names.
type need struct {
	target cms.Target
	action cms.Action
}

// permissions is the one table of the permission each route needs:
// write for create, update, clone and batch, delete for delete, read for
// the rest. Routes of the other areas (files, webhooks, users) add their
// rows here with their cms.Area as the target.
var permissions = map[routeKey]need{
	{http.MethodGet, endpointRead}:        {nil, cms.ActionRead},
	{http.MethodPost, endpointUpsert}:     {nil, cms.ActionWrite},
	{http.MethodDelete, endpointDelete}:   {nil, cms.ActionDelete},
	{http.MethodGet, endpointClone}:       {nil, cms.ActionWrite},
	{http.MethodPost, endpointClone}:      {nil, cms.ActionWrite},
	{http.MethodGet, endpointSchema}:      {nil, cms.ActionRead},
	{http.MethodPost, endpointBatch}:      {nil, cms.ActionWrite},
	{http.MethodGet, endpointBatchStatus}: {nil, cms.ActionRead},
	{http.MethodGet, endpointFiles}:       {cms.AreaFile, cms.ActionRead},
	{http.MethodPost, endpointFiles}:      {cms.AreaFile, cms.ActionWrite},
	{http.MethodGet, endpointFile}:        {cms.AreaFile, cms.ActionRead},
	{http.MethodDelete, endpointFile}:     {cms.AreaFile, cms.ActionDelete},
	{http.MethodGet, endpointHistory}:     {nil, cms.ActionRead},
	{http.MethodGet, endpointWebhooks}:    {cms.AreaWebhook, cms.ActionRead},
	{http.MethodPost, endpointWebhooks}:   {cms.AreaWebhook, cms.ActionWrite},
	{http.MethodGet, endpointWebhook}:     {cms.AreaWebhook, cms.ActionRead},
	{http.MethodPost, endpointWebhook}:    {cms.AreaWebhook, cms.ActionWrite},
	{http.MethodDelete, endpointWebhook}:  {cms.AreaWebhook, cms.ActionDelete},
	{http.MethodGet, endpointDeliveries}:  {cms.AreaWebhook, cms.ActionRead},
	{http.MethodPost, endpointRetry}:      {cms.AreaWebhook, cms.ActionWrite},
	{http.MethodGet, endpointAudit}:       {cms.AreaUser, cms.ActionRead},
}

// permissionOf is the permission a request of method on an endpoint of
// kind needs. A route without a row (none is reachable: routing answers
// 405 first) needs write, never less than what it could change.
func permissionOf(method string, kind cms.Kind, e endpoint) (cms.Target, cms.Action) {
	n, ok := permissions[routeKey{method, e}]
	if !ok {
		n = need{nil, cms.ActionWrite}
	}
	if n.target == nil {
		return kind, n.action
	}
	return n.target, n.action
}

// rawEndpoint tells the kind and the endpoint a malformed path is taken
// for, so that its permission is checked before its options are judged.
// Keywords count as written, never percent-decoded, as in parsePath. A
// GET other than a clone reads, whatever its route.
func rawEndpoint(method, rest string) (cms.Kind, endpoint) {
	kindSeg, after, _ := strings.Cut(rest, "/")
	second, _, _ := strings.Cut(after, "/")
	kind := cms.Kind(kindSeg)
	switch {
	case second == cms.KeywordClone:
		return kind, endpointClone
	case method == http.MethodPost && second == cms.KeywordBatch:
		return kind, endpointBatch
	case method == http.MethodPost:
		return kind, endpointUpsert
	case method == http.MethodDelete:
		return kind, endpointDelete
	}
	return kind, endpointRead
}
