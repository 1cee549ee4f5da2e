package transport

import (
	"encoding/json"
	"net/http"
	"reflect"
	"strconv"

	"github.com/bwcms/cms/cms"
	"github.com/invopop/jsonschema"
)

// The routes of DECISIONS §18 in the OpenAPI document: a record's
// history, the changes feed, webhooks and their deliveries, the audit
// list.

// changeSchemas puts the bodies of those routes into components.
func (b *apiBuilder) changeSchemas() {
	for _, s := range []struct {
		name, title, description string
		v                        any
	}{
		{"Revision", "Revision", "One revision of a record's history.", revisionObject{}},
		{"HistoryPage", "Page of a history", "A page of a record's revisions, newest first.", historyBody{}},
		{"Tombstone", "Tombstone", "What is left of a deleted record: a revision of it answers this.", tombstoneBody{}},
		{"Change", "Change", "One change of the changes feed: what changed, never the document (read the record).", changeObject{}},
		{"ChangesPage", "Page of the changes feed", "Changes after the cursor asked, in commit order.", changesBody{}},
		{"Webhook", "Webhook", "A webhook of the account; its secret is never answered.", webhookObject{}},
		{"WebhookCreated", "Webhook made", "The webhook made, with the secret the service made (this once).", webhookCreated{}},
		{"WebhookList", "Webhooks", "The account's webhooks, oldest first.", webhookList{}},
		{"WebhookInput", "Webhook body", "What a create or update sets: a member left out (or null) is left as it is. " +
			"No other member is accepted.", webhookInput{}},
		{"Delivery", "Delivery", "The message of one change to one webhook and what became of it.", deliveryObject{}},
		{"DeliveryList", "Page of deliveries", "A page of a webhook's delivery log, newest first.", deliveryList{}},
		{"AuditEntry", "Audit entry", "One change to the account's users, permissions, languages or webhooks.", auditObject{}},
		{"AuditPage", "Page of the audit list", "A page of the audit list, newest first.", auditBody{}},
	} {
		schema := reflectBody(s.v, s.title, s.description)
		nullPointers(schema, reflect.TypeOf(s.v))
		b.schemas[s.name] = schema
	}
	schema := func(name string) *jsonschema.Schema { return b.schemas[name].(*jsonschema.Schema) }
	if p, ok := schema("Revision").Properties.Get("changed"); ok {
		p.Extras = map[string]any{"type": []string{"array", "null"}}
		p.Type = ""
	}
	// The lists' items are the shared schemas, not copies.
	for list, items := range map[[2]string]string{
		{"HistoryPage", "revisions"}: "Revision", {"ChangesPage", "changes"}: "Change", {"WebhookList", "webhooks"}: "Webhook",
		{"DeliveryList", "deliveries"}: "Delivery", {"AuditPage", "entries"}: "AuditEntry",
	} {
		if p, ok := schema(list[0]).Properties.Get(list[1]); ok {
			p.Items = ref(items)
		}
	}
}

// changeParameters are the parameters of those routes, made by the
// document's helpers for path and query parameters.
func changeParameters(path, query func(name, description string, schema *jsonschema.Schema, example any) *apiParameter) map[string]*apiParameter {
	limit := func(what string, def int) *apiParameter {
		return query("limit", "At most this many "+what+" (default "+strconv.Itoa(def)+").",
			&jsonschema.Schema{Type: "integer", Format: "int32", Minimum: json.Number("1"), Maximum: json.Number(strconv.Itoa(MaxIDs))}, def)
	}
	positive := &jsonschema.Schema{Type: "integer", Format: "int64", Minimum: json.Number("1")}
	opaque := &jsonschema.Schema{Type: "string", Pattern: opaquePattern.String()}
	kinds := make([]any, len(cms.Kinds()))
	for i, k := range cms.Kinds() {
		kinds[i] = string(k)
	}
	no := false
	kindList := query("kinds", "Only changes of these kinds (comma-separated; those the caller may read among them). "+
		"Default: every kind the caller may read.", &jsonschema.Schema{Type: "array", MinItems: ptrTo[uint64](1),
		Items: &jsonschema.Schema{Type: "string", Enum: kinds}}, []string{"resource", "map"})
	kindList.Style, kindList.Explode = "form", &no
	return map[string]*apiParameter{
		"historyId":         path("id", "The record's id (a record called history too).", ref("RecordId"), "lake-walk"),
		"rev":               path("rev", "The revision.", positive, 3),
		"historyLimitQuery": limit("revisions", cms.DefaultHistoryLimit),
		"historyAfterQuery": query("after", "The next of the page before: the revisions below it.", positive, 12),
		"changesAfterQuery": query("after", "The cursor to read after: a seq or next answered before, or now (the "+
			"present). Left out: from the oldest change kept.",
			&jsonschema.Schema{Type: "string", Pattern: `^(now|(0|[1-9][0-9]*)(\.(0|[1-9][0-9]*))?)$`}, "4711.2"),
		"changesLimitQuery":   limit("changes", cms.DefaultChangesLimit),
		"kindsQuery":          kindList,
		"webhookId":           path("webhookId", "The webhook's id.", opaque, "wh-3f2a1c9e"),
		"deliveryId":          path("deliveryId", "The delivery's id (its webhook-id header).", opaque, "msg-7b2c1d0e"),
		"deliveryLimitQuery":  limit("deliveries", 50),
		"deliveryAfterQuery":  query("after", "The next of the page before.", opaque, "msg-7b2c1d0e"),
		"deliveryStatusQuery": query("status", "Only deliveries in this state.", &jsonschema.Schema{Type: "string", Enum: []any{"pending", "delivered", "failed"}}, "failed"),
		"auditLimitQuery":     limit("entries", 50),
		"auditBeforeQuery":    query("before", "The next of the page before: the entries below it.", positive, 120),
	}
}

// historyPaths adds the history routes of kind.
func (b *apiBuilder) historyPaths(kind cms.Kind) {
	title, plural := kind.Title(), kind.Plural()
	base := recordsBase + string(kind) + "/{id}/" + historySegment
	tags := []string{string(kind)}
	keep := "Revisions are kept " + durationText(cms.DefaultHistoryKeep) + " by default (cms.Options.HistoryKeep; the " +
		"standalone server's --history-keep)."
	notFound := fail(`No revision of such a ` + title + ` is kept (another account's records have none): {"fail":"Not found"}.`)
	b.paths.add(base, http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "get" + title + "History", Summary: "History of a " + title,
		Description: "The revisions of the " + title + ", newest first, paged: each with who made it, when, and the " +
			"wire fields it changed. A deleted record lists its tombstone first. No published filter. " + keep +
			" Needs the read permission.",
		Parameters: []*apiParameter{param("historyId"), param("historyLimitQuery"), param("historyAfterQuery")},
		Responses: responses(map[string]*apiResponse{
			"200": jsonAnswer("The page.", ref("HistoryPage")),
			"404": notFound,
		}, append([]string{"400"}, recordCommonFail...)...),
	})
	b.paths.add(base+"/{rev}", http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "get" + title + "Revision", Summary: "A " + title + " as it was",
		Description: "The " + title + " at that revision, in the shape a read of it answers (assignment lists and " +
			"timeLastUpdate of then): restoring it is a POST of that body with the If-Match of the record now. " +
			"A revision of a record deleted since answers its tombstone (a delete removes the stored documents " +
			"of " + plural + " from history). Needs the read permission.",
		Parameters: []*apiParameter{param("historyId"), param("rev")},
		Responses: responses(map[string]*apiResponse{
			"200": jsonAnswer("The record as it was, or its tombstone.",
				&jsonschema.Schema{OneOf: []*jsonschema.Schema{ref(title), ref("Tombstone")}}),
			"404": fail(`No such revision kept: {"fail":"Not found"}.`),
		}, append([]string{"400"}, recordCommonFail...)...),
	})
}

// changePaths adds the changes feed, the webhook routes and the audit
// list.
func (b *apiBuilder) changePaths() {
	common := func(own map[string]*apiResponse, more ...string) map[string]*apiResponse {
		return responses(own, append(more, recordCommonFail...)...)
	}
	b.paths.add(recordsBase+changesSegment, http.MethodGet, &apiOperation{
		Tags: []string{"changes"}, OperationID: "listChanges", Summary: "The changes feed",
		Description: "Every change to the account's records, deletions included, in commit order, of the kinds the " +
			"caller may read. Follow next: a reader that asks again with it sees every change exactly once and in " +
			"order, whatever writes at once; a page that is not full ends at the present. Needs read on at least one kind.",
		Parameters: []*apiParameter{param("changesAfterQuery"), param("changesLimitQuery"), param("kindsQuery")},
		Responses: common(map[string]*apiResponse{
			"200": jsonAnswer("The page.", ref("ChangesPage")),
			"400": fail(`after not a cursor (nor now), limit not in 1..` + strconv.Itoa(MaxIDs) + `, kinds naming no kind, or any of them twice: {"fail":"Wrong request"}.`),
			"410": fail(`The cursor is older than what is kept: {"fail":"Cursor expired"}; read everything again (without after).`),
		}),
	})

	tags := []string{"webhook"}
	base := recordsBase + webhookSegment
	body := &apiRequestBody{Description: "A JSON object, at most " + bytesText(MaxWebhookBody) + ".", Required: true,
		Content: map[string]*apiMedia{"application/json": {Schema: ref("WebhookInput")}}}
	badBody := fail(`A body that is not one strict JSON object, or names a member not listed: {"fail":"Wrong request"}.`)
	invalid := fail("Every problem of the body, one per line (a url that is not http(s) or on a private network, an " +
		"unknown event, a kind the caller may not read).")
	notFound := fail(`No such webhook in the account (another account's webhooks are none): {"fail": a text saying so}.`)
	b.paths.add(base, http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "createWebhook", Summary: "Make a webhook",
		Description: "A webhook of the account acting for the caller: one message per change of the events asked, " +
			"signed as Standard Webhooks. Without secret the service makes one and answers it this once. Needs webhook:write.",
		RequestBody: body,
		Responses: common(map[string]*apiResponse{
			"201": jsonAnswer("Made.", ref("WebhookCreated")),
			"400": badBody,
			"409": invalid,
		}, "408", "413"),
	})
	b.paths.add(base, http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "listWebhooks", Summary: "The account's webhooks",
		Description: "Every webhook of the account, oldest first, without secrets. Needs webhook:read.",
		Responses:   common(map[string]*apiResponse{"200": jsonAnswer("The webhooks.", ref("WebhookList"))}),
	})
	one := base + "/{webhookId}"
	b.paths.add(one, http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "getWebhook", Summary: "A webhook",
		Description: "One webhook of the account, without its secret. Needs webhook:read.",
		Parameters:  []*apiParameter{param("webhookId")},
		Responses:   common(map[string]*apiResponse{"200": jsonAnswer("The webhook.", ref("Webhook")), "404": notFound}, "400"),
	})
	b.paths.add(one, http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "updateWebhook", Summary: "Change a webhook",
		Description: "Changes what the body sets: url, events, secret (the old one keeps signing beside it for 24 " +
			"hours), enabled (enabling clears the failures). Needs webhook:write.",
		Parameters:  []*apiParameter{param("webhookId")},
		RequestBody: body,
		Responses: common(map[string]*apiResponse{
			"200": jsonAnswer("Changed.", ref("Webhook")),
			"400": badBody,
			"404": notFound,
			"409": invalid,
		}, "408", "413"),
	})
	b.paths.add(one, http.MethodDelete, &apiOperation{
		Tags: tags, OperationID: "deleteWebhook", Summary: "Delete a webhook",
		Description: "Removes the webhook and its delivery log; pending messages are not sent. Needs webhook:delete.",
		Parameters:  []*apiParameter{param("webhookId")},
		Responses: common(map[string]*apiResponse{
			"202": jsonAnswer(`Deleted: {"done":"Deletion of 1 Webhooks done","count":1}.`, ref("DeleteAnswer")),
			"404": notFound,
		}, "400"),
	})
	b.paths.add(one+"/"+deliveriesSegment, http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "listWebhookDeliveries", Summary: "A webhook's deliveries",
		Description: "The webhook's delivery log, newest first, paged: each message's change, state, attempts and the " +
			"start of the last answer. Needs webhook:read.",
		Parameters: []*apiParameter{param("webhookId"), param("deliveryLimitQuery"), param("deliveryAfterQuery"), param("deliveryStatusQuery")},
		Responses: common(map[string]*apiResponse{
			"200": jsonAnswer("The page.", ref("DeliveryList")),
			"400": fail(`limit not in 1..` + strconv.Itoa(MaxIDs) + `, after not a delivery id, status not a state, or any of them twice: {"fail":"Wrong request"}.`),
			"404": notFound,
		}),
	})
	b.paths.add(one+"/"+deliveriesSegment+"/{deliveryId}/"+retrySegment, http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "retryWebhookDelivery", Summary: "Send a delivery again",
		Description: "A failed delivery becomes pending again, due now, its attempts counted from 0; a delivered one " +
			"is sent once more (receivers drop a repeat by its webhook-id). Needs webhook:write.",
		Parameters: []*apiParameter{param("webhookId"), param("deliveryId")},
		Responses: common(map[string]*apiResponse{
			"202": jsonAnswer("Queued: the delivery as it is now.", ref("Delivery")),
			"404": fail(`No such webhook, or no such delivery of it: {"fail": a text saying so}.`),
		}, "400"),
	})

	b.paths.add(recordsBase+auditSegment, http.MethodGet, &apiOperation{
		Tags: []string{"audit"}, OperationID: "listAudit", Summary: "The audit list",
		Description: "Changes to the account's users, permissions, languages and webhooks: who, when, what; newest " +
			"first, paged. Needs user:read.",
		Parameters: []*apiParameter{param("auditLimitQuery"), param("auditBeforeQuery")},
		Responses: common(map[string]*apiResponse{
			"200": jsonAnswer("The page.", ref("AuditPage")),
			"400": fail(`limit not in 1..` + strconv.Itoa(MaxIDs) + `, before not a positive integer, or either twice: {"fail":"Wrong request"}.`),
		}),
	})
}
