package transport

import (
	"bytes"
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	"github.com/bwcms/cms/cms"
	"github.com/invopop/jsonschema"
)

// OpenAPIVersion is the version of the OpenAPI Specification the document
// follows.
const OpenAPIVersion = "3.1.0"

// OpenAPI returns the OpenAPI document of the API (JSON, OpenAPI 3.1) for
// an account with the languages langs: every path, method, status and
// body, the security schemes and the record schemas. The records are the
// schemas cms.JSONSchema generates from the struct tags (referenced as
// components/schemas/Resource, Map, Landing and Proposal), and the other
// bodies are reflected the same way from the types the handlers send, so
// nothing in it is a second copy of a field list. GET
// /api/bw/v2/openapi.json serves it for the caller's account; schemagen
// writes it.
func OpenAPI(langs cms.Languages) ([]byte, error) {
	return openAPI(langs, nil)
}

// openAPI is OpenAPI with server as the servers entry; nil is the
// committed document's {base} variable.
func openAPI(langs cms.Languages, server *apiServer) ([]byte, error) {
	b := &apiBuilder{langs: langs, paths: newAPIPaths(), server: server}
	doc, err := b.build()
	if err != nil {
		return nil, err
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(doc); err != nil {
		return nil, fmt.Errorf("transport: marshal OpenAPI document: %w", err)
	}
	return unescapeHTML(buf.Bytes()), nil
}

// The objects of an OpenAPI document, as far as this one uses them.
type (
	apiDoc struct {
		OpenAPI           string        `json:"openapi"`
		Info              apiInfo       `json:"info"`
		JSONSchemaDialect string        `json:"jsonSchemaDialect"`
		Servers           []apiServer   `json:"servers"`
		Security          []apiSecurity `json:"security"`
		Tags              []apiTag      `json:"tags"`
		Paths             *apiPaths     `json:"paths"`
		Components        apiComponents `json:"components"`
	}
	apiInfo struct {
		Title       string `json:"title"`
		Version     string `json:"version"`
		Description string `json:"description"`
	}
	apiServer struct {
		URL         string                       `json:"url"`
		Description string                       `json:"description"`
		Variables   map[string]apiServerVariable `json:"variables,omitempty"`
	}
	apiServerVariable struct {
		Default     string `json:"default"`
		Description string `json:"description"`
	}
	// apiSecurity is one security requirement: scheme names, no scopes.
	apiSecurity map[string][]string
	apiTag      struct {
		Name        string `json:"name"`
		Description string `json:"description"`
	}
	apiPathItem struct {
		Get    *apiOperation `json:"get,omitempty"`
		Head   *apiOperation `json:"head,omitempty"`
		Post   *apiOperation `json:"post,omitempty"`
		Delete *apiOperation `json:"delete,omitempty"`
	}
	apiOperation struct {
		Tags        []string                `json:"tags"`
		Summary     string                  `json:"summary"`
		Description string                  `json:"description,omitempty"`
		OperationID string                  `json:"operationId"`
		Parameters  []*apiParameter         `json:"parameters,omitempty"`
		RequestBody *apiRequestBody         `json:"requestBody,omitempty"`
		Responses   map[string]*apiResponse `json:"responses"`
		// Security nil is the document's; an empty list is none.
		Security *[]apiSecurity `json:"security,omitempty"`
	}
	apiParameter struct {
		Ref         string `json:"$ref,omitempty"`
		Name        string `json:"name,omitempty"`
		In          string `json:"in,omitempty"`
		Description string `json:"description,omitempty"`
		Required    bool   `json:"required,omitempty"`
		Style       string `json:"style,omitempty"`
		Explode     *bool  `json:"explode,omitempty"`
		Schema      any    `json:"schema,omitempty"`
		Example     any    `json:"example,omitempty"`
	}
	apiRequestBody struct {
		Description string               `json:"description"`
		Required    bool                 `json:"required"`
		Content     map[string]*apiMedia `json:"content"`
	}
	apiResponse struct {
		Ref         string                `json:"$ref,omitempty"`
		Description string                `json:"description,omitempty"`
		Headers     map[string]*apiHeader `json:"headers,omitempty"`
		Content     map[string]*apiMedia  `json:"content,omitempty"`
	}
	apiHeader struct {
		Ref         string `json:"$ref,omitempty"`
		Description string `json:"description,omitempty"`
		Schema      any    `json:"schema,omitempty"`
	}
	apiMedia struct {
		Schema any `json:"schema"`
	}
	apiComponents struct {
		Schemas         map[string]any                `json:"schemas"`
		Responses       map[string]*apiResponse       `json:"responses"`
		Parameters      map[string]*apiParameter      `json:"parameters"`
		Headers         map[string]*apiHeader         `json:"headers"`
		SecuritySchemes map[string]*apiSecurityScheme `json:"securitySchemes"`
	}
	apiSecurityScheme struct {
		Type         string `json:"type"`
		Description  string `json:"description"`
		Scheme       string `json:"scheme,omitempty"`
		BearerFormat string `json:"bearerFormat,omitempty"`
		Name         string `json:"name,omitempty"`
		In           string `json:"in,omitempty"`
	}
)

// apiPaths keeps the paths in the order they were added.
type apiPaths struct {
	order []string
	items map[string]*apiPathItem
}

func newAPIPaths() *apiPaths { return &apiPaths{items: map[string]*apiPathItem{}} }

func (p *apiPaths) add(path, method string, op *apiOperation) {
	item, ok := p.items[path]
	if !ok {
		item = &apiPathItem{}
		p.items[path] = item
		p.order = append(p.order, path)
	}
	switch method {
	case http.MethodGet:
		item.Get = op
	case http.MethodHead:
		item.Head = op
	case http.MethodPost:
		item.Post = op
	case http.MethodDelete:
		item.Delete = op
	default:
		panic("transport: OpenAPI: no field for method " + method)
	}
}

func (p *apiPaths) MarshalJSON() ([]byte, error) {
	var buf bytes.Buffer
	buf.WriteByte('{')
	for i, path := range p.order {
		if i > 0 {
			buf.WriteByte(',')
		}
		k, err := marshalPlain(path)
		if err != nil {
			return nil, err
		}
		v, err := marshalPlain(p.items[path])
		if err != nil {
			return nil, err
		}
		buf.Write(k)
		buf.WriteByte(':')
		buf.Write(v)
	}
	buf.WriteByte('}')
	return buf.Bytes(), nil
}

// marshalPlain is json.Marshal without HTML escaping.
func marshalPlain(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimRight(buf.Bytes(), "\n"), nil
}

// unescapeHTML turns the \u003c, \u003e and \u0026 escapes that
// encoding/json writes inside strings (invopop marshals with it) back into
// <, > and &: the same JSON, readable.
func unescapeHTML(b []byte) []byte {
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] == '\\' && i+5 < len(b) && b[i+1] == 'u' {
			switch string(b[i+2 : i+6]) {
			case "003c":
				out, i = append(out, '<'), i+5
				continue
			case "003e":
				out, i = append(out, '>'), i+5
				continue
			case "0026":
				out, i = append(out, '&'), i+5
				continue
			}
		}
		if b[i] == '\\' && i+1 < len(b) { // any other escape: both bytes
			out = append(out, b[i], b[i+1])
			i++
			continue
		}
		out = append(out, b[i])
	}
	return out
}

// apiBuilder builds one document.
type apiBuilder struct {
	langs   cms.Languages
	server  *apiServer
	paths   *apiPaths
	schemas map[string]any
}

const (
	schemaRef    = "#/components/schemas/"
	responseRef  = "#/components/responses/"
	parameterRef = "#/components/parameters/"
	headerRef    = "#/components/headers/"
)

func ref(name string) *jsonschema.Schema { return &jsonschema.Schema{Ref: schemaRef + name} }

func arrayOf(items *jsonschema.Schema) *jsonschema.Schema {
	return &jsonschema.Schema{Type: "array", Items: items}
}

func param(name string) *apiParameter { return &apiParameter{Ref: parameterRef + name} }

func commonResponse(name string) *apiResponse { return &apiResponse{Ref: responseRef + name} }

// jsonAnswer is a response with a JSON body.
func jsonAnswer(description string, schema any, headers ...string) *apiResponse {
	r := &apiResponse{Description: description, Content: map[string]*apiMedia{"application/json": {Schema: schema}}}
	if len(headers) == 0 {
		return r
	}
	return withHeaders(r, headers...)
}

// fail is a response with the {"fail": ...} body.
func fail(description string, headers ...string) *apiResponse {
	return jsonAnswer(description, ref("Fail"), headers...)
}

// reflectBody is the schema of an answer type, reflected as the record
// schemas are: every field without omitempty required, no other property.
func reflectBody(v any, title, description string) *jsonschema.Schema {
	r := &jsonschema.Reflector{Anonymous: true, DoNotReference: true, ExpandedStruct: true}
	s := r.ReflectFromType(reflect.TypeOf(v))
	s.Version = ""
	s.Title = title
	s.Description = description
	return s
}

// The forms of the requests that send one, described as the handlers read
// them.
type (
	jsonForm struct {
		JSON string `json:"json" jsonschema_description:"the JSON document, as the application/json body would be"`
	}
	loginForm struct {
		U string `json:"u" jsonschema_description:"the username"`
		P string `json:"p" jsonschema_description:"the password"`
	}
	refreshForm struct {
		RefreshToken string `json:"refresh_token,omitempty" jsonschema_description:"the refresh token, when the bw_rtoken cookie does not carry it (the cookie wins)"`
	}
	// schemaFullBody is the answer of schema.json/full; data holds records
	// of the kind.
	schemaFullBody struct {
		Schema map[string]any `json:"schema" jsonschema_description:"the JSON Schema document, as schema.json answers it"`
		Data   []any          `json:"data" jsonschema_description:"every record of the kind in the account, published or not"`
	}
)

func (b *apiBuilder) build() (*apiDoc, error) {
	if err := b.buildSchemas(); err != nil {
		return nil, err
	}
	for _, kind := range cms.Kinds() {
		b.kindPaths(kind)
		b.historyPaths(kind)
	}
	b.authPaths()
	b.filePaths()
	b.changePaths()
	langs := strings.Join(b.langs.All, ", ")
	return &apiDoc{
		OpenAPI: OpenAPIVersion,
		Info: apiInfo{
			Title:   "bwcms API",
			Version: "2",
			Description: "The REST API /api/bw/v2 of bwcms: Resources (points of interest and tracks), Maps, " +
				"Landings and Proposals of one account, its uploaded files, the history and changes feed of its records, " +
				"its webhooks and audit list, and the tokens that reach them.\n\n" +
				"This document is generated for an account with the languages " + langs + " (" + b.langs.Default +
				" the default): every multi-language field has its bare name for the default language and " +
				"<field>_<lang> for each other one. GET /api/bw/v2/openapi.json answers it for the caller's account.\n\n" +
				"Every answer with a body is JSON (Content-Type: application/json; charset=utf-8), but the bytes of a " +
				"file at its public url. Checks come in " +
				"this order: routing (an unknown path is 404 {\"fail\":\"Not found\"}, a known path with another method " +
				"405 {\"fail\":\"Method not allowed\"} with Allow), then 401 (no valid access token), then 403 (no " +
				"permission: read, write for create, update, clone and batch, delete), then the path options and the " +
				"body (400, 404, 409, 412, 413). Another account's ids behave exactly like missing ones. A request " +
				"that needs the database while it cannot be reached is 503 with Retry-After.\n\n" +
				"Reads take their options as query parameters (the list operation of each kind, for generated " +
				"clients) or as path segments after the kind and its ids (described there in prose), never both.",
		},
		JSONSchemaDialect: cms.SchemaDialect,
		Servers:           b.servers(),
		Security:          []apiSecurity{{"bearer": {}}, {"bearerHeader": {}}},
		Tags: []apiTag{
			{"auth", "Login, token refresh, logout and token validation."},
			{"resource", "Resources: located items (points of interest, tracks and so on)."},
			{"map", "Maps: collections of primary and secondary Resources."},
			{"landing", "Landings: content pages with blocks and hotel sections that show a Map."},
			{"proposal", "Proposals: customer-specific content pages that show a Map."},
			{"file", "Uploaded files: the account's media library, and their bytes at public urls."},
			{"changes", "The changes feed: every change to the account's records, in commit order."},
			{"webhook", "Webhooks: a message to an address for each change, and the log of their deliveries."},
			{"audit", "The audit list: changes to users, permissions, languages and webhooks."},
			{"openapi", "This document."},
		},
		Paths:      b.paths,
		Components: b.components(),
	}, nil
}

// servers is the document's servers list: the builder's server, else a
// {base} variable for the host to fill in.
func (b *apiBuilder) servers() []apiServer {
	if b.server != nil {
		return []apiServer{*b.server}
	}
	return []apiServer{{
		URL:         "{base}",
		Description: "The host that serves the API, with its base path",
		Variables: map[string]apiServerVariable{"base": {
			Default: "http://127.0.0.1:8080",
			Description: "scheme, host and port, then the base path the host mounts the API under " +
				"(transport.Options.BasePath, none by default): http://127.0.0.1:8080/cms for /cms",
		}},
	}}
}

// buildSchemas puts the record schemas, as cms.JSONSchema generates them,
// and the reflected answer bodies into components.
func (b *apiBuilder) buildSchemas() error {
	b.schemas = map[string]any{}
	for _, kind := range cms.Kinds() {
		doc, err := cms.JSONSchema(kind, b.langs)
		if err != nil {
			return err
		}
		var s map[string]json.RawMessage
		if err := json.Unmarshal(doc, &s); err != nil {
			return fmt.Errorf("transport: schema of %s: %w", kind, err)
		}
		delete(s, "$schema") // the document's dialect
		b.schemas[kind.Title()] = s
		if kind == cms.KindResource {
			var props map[string]json.RawMessage
			if err := json.Unmarshal(s["properties"], &props); err != nil {
				return fmt.Errorf("transport: schema of %s: %w", kind, err)
			}
			b.schemas["RecordId"] = props["id"] // the rule of every id, in paths too
		}
	}
	b.schemas["Fail"] = reflectBody(failBody{}, "Failure", `Every error answer: {"fail": text}.`)
	b.schemas["UpsertAnswer"] = reflectBody(upsertBody{}, "Upsert answer", "The answer of a create, update, skip or delete by body.")
	b.schemas["DeleteAnswer"] = reflectBody(deleteBody{}, "Delete answer", "The answer of a delete that deleted some or all of the ids.")
	b.schemas["CloneAnswer"] = reflectBody(cloneBody{}, "Clone answer", "The answer of a clone.")
	b.schemas["BatchReceipt"] = reflectBody(batchReceiptBody{}, "Batch receipt", "The answer of a batch accepted.")
	b.schemas["BatchStatus"] = reflectBody(batchStatusBody{}, "Batch status", "The status of a batch: progress while processing, counts once done, the reason on error.")
	b.schemas["BatchChecked"] = reflectBody(batchCheckedBody{}, "Batch checked", "The answer of a batch checked (dryRun) and found without problems.")
	b.schemas["TokenAnswer"] = reflectBody(tokenBody{}, "Tokens", "A new access token and refresh token (done and jwt in a login's answer only).")
	b.schemas["ValidateAnswer"] = reflectBody(validateBody{}, "Token claims", "The claims of a valid access token.")
	b.schemas["RefreshFail"] = reflectBody(refreshFailBody{}, "Refresh refused", "Every refused refresh (OAuth2's invalid_grant).")
	b.schemas["LogoutAnswer"] = reflectBody(logoutBody{}, "Logged out", "The answer of every logout.")
	b.schemas["JWKS"] = reflectBody(jwksBody{}, "JSON Web Key Set", "The public key access tokens are signed with (EdDSA only).")
	b.schemas["JSONForm"] = reflectBody(jsonForm{}, "Form with a JSON document", "For form-posting clients: the document in the field json.")
	b.schemas["LoginForm"] = reflectBody(loginForm{}, "Login form", "Username and password.")
	b.schemas["RefreshForm"] = reflectBody(refreshForm{}, "Refresh form", "The refresh token, for clients without the cookie.")
	b.fileSchemas()
	b.changeSchemas()
	b.schemas["JSONSchemaDocument"] = &jsonschema.Schema{Type: "object",
		Description: "A JSON Schema document (draft 2020-12): the record schema of the kind " +
			"(as components/schemas has it, with $schema), or the array of them for schema.multiple.json."}
	return nil
}

func (b *apiBuilder) components() apiComponents {
	unauthorized := fail(`No valid access token: {"fail":"Unauthorized"}.`, "WWW-Authenticate")
	forbidden := fail(`The token lacks the permission the operation needs: {"fail":"Forbidden"}.`, "WWW-Authenticate")
	return apiComponents{
		Schemas: b.schemas,
		Responses: map[string]*apiResponse{
			"BadRequest": fail(`A malformed path (an unknown, repeated or misplaced option, a missing or malformed ` +
				`value, an invalid id, an unknown field name, a trailing slash or empty segment) or a body that is not ` +
				`one strict JSON document (duplicate keys, invalid UTF-8, deeper than 32, trailing data): ` +
				`{"fail":"Wrong request"}.`),
			"Unauthorized": unauthorized,
			"Forbidden":    forbidden,
			"RequestTimeout": fail(`The body did not keep coming (each ` + bytesText(DefaultBodyReadChunk) + `, or its end, within ` +
				durationText(DefaultBodyReadTimeout) + ` by default): {"fail":"Request timeout"}; the connection is closed.`),
			"TooLarge": fail(`The body (its declared Content-Length, or what arrived) is over the endpoint's limit: {"fail":"Request too large"}; the connection is closed.`),
			"Internal": fail(`Anything unexpected, never shown in detail: {"fail":"Internal error"}.`),
			"Unavailable": fail(`The database cannot be reached, or a write kept clashing with concurrent writers past its retries: `+
				`{"fail":"Service unavailable"}.`, "Retry-After"),
		},
		Parameters: b.parameters(),
		Headers: withFileHeaders(map[string]*apiHeader{
			"ETag": {Description: "The record's entity tag; it changes exactly when the record does.",
				Schema: &jsonschema.Schema{Type: "string"}},
			"RetryAfter": {Description: "Seconds to wait before trying again.",
				Schema: &jsonschema.Schema{Type: "integer"}},
			"WWWAuthenticate": {Description: `Bearer realm="api/bw/v2", with error="invalid_token" when a token was sent, error="insufficient_scope" on 403.`,
				Schema: &jsonschema.Schema{Type: "string"}},
			"SetCookie": {Description: RefreshCookie + `: the refresh token (Secure, HttpOnly, Path=<base>/api/bw/v2/auth, SameSite=Strict by default); a logout expires it (Max-Age=0).`,
				Schema: &jsonschema.Schema{Type: "string"}},
		}),
		SecuritySchemes: map[string]*apiSecurityScheme{
			"bearer": {Type: "http", Scheme: "bearer", BearerFormat: "JWT",
				Description: "The access token of a login or refresh (HS256, or EdDSA when the server has a key; lifetime " +
					strconv.Itoa(int(AccessTokenLifetime.Seconds())) + " s) in Authorization: Bearer <token>."},
			"bearerHeader": {Type: "apiKey", In: "header", Name: "Authorization-Bearer",
				Description: "The same access token in a header of its own, for clients that cannot set Authorization."},
			"refreshCookie": {Type: "apiKey", In: "cookie", Name: RefreshCookie,
				Description: "The refresh token, in the cookie a login or refresh sets; clients without cookies send it in the body's field refresh_token (a form field or a JSON object)."},
		},
	}
}

// parameters are every parameter of the paths, shared by the kinds: the
// path's, then the read options of the query form (<option>Query).
func (b *apiBuilder) parameters() map[string]*apiParameter {
	no := false
	path := func(name, description string, schema *jsonschema.Schema, example any) *apiParameter {
		p := &apiParameter{Name: name, In: "path", Required: true, Description: description, Schema: schema, Example: example}
		if schema.Type == "array" {
			p.Style, p.Explode = "simple", &no // a,b,c
		}
		return p
	}
	query := func(name, description string, schema *jsonschema.Schema, example any) *apiParameter {
		p := &apiParameter{Name: name, In: "query", Description: description, Schema: schema, Example: example}
		if schema.Type == "array" {
			p.Style, p.Explode = "form", &no // name=a,b,c: a repeated option is 400
		}
		return p
	}
	id := ref("RecordId")
	names := &jsonschema.Schema{Type: "array", MinItems: ptrTo[uint64](1),
		Items: &jsonschema.Schema{Type: "string", Pattern: fieldName.String()}}
	ids := &jsonschema.Schema{Type: "array", Items: id, MinItems: ptrTo[uint64](1), MaxItems: ptrTo[uint64](MaxIDs)}
	params := map[string]*apiParameter{
		"ids": path("ids", "One id: the answer is the record (an object). Several, comma-separated: an array of the "+
			"records in the order asked, the missing or hidden ones left out. Ids are percent-decoded after the "+
			"path is split, so %2C never separates them.", ids, []string{"lake-walk"}),
		"id":      path("id", "The id of the record to clone; left out, Base.", id, "lake-walk"),
		"batchId": path("batchId", "The batchId of the batch's receipt.", id, "3f2a1c9e0b7d4e6f8a5b2c1d0e9f8a7b"),
		"mapId":   path("mapId", "The Map the clone is assigned to as primary.", id, "lakes"),

		"idsQuery": query(queryIDs, "Only these ids (comma-separated), in the order asked, the missing or hidden "+
			"ones left out; the answer is an array even for one id, and 404 when none is found.", ids, []string{"lake-walk"}),
		"publishedQuery": query(cms.OptPublished, "1: published records only (the default); 0: unpublished only; *: all.",
			&jsonschema.Schema{Type: "string", Enum: []any{"1", "0", "*"}}, "*"),
		"fieldsQuery": query(cms.OptFields, "Only these fields (wire names, language variants such as title_"+b.exampleLang()+
			" included); id always. An unknown name is 400.", names, []string{"title"}),
		"ignoreFieldsQuery": query(cms.OptIgnoreFields, "Leave these fields out (applied after fields).", names, []string{"htmlContent"}),
		"excludeFilesQuery": query(cms.OptExcludeFiles, "true (or 1) leaves out every file field (image, multimedia, "+
			"mapLayerFile, trackFile, the custom...File fields, image in items); any other value is 400: leave the "+
			"parameter out instead.", &jsonschema.Schema{Type: "boolean", Enum: []any{true}}, true),
		"mapIdQuery": query(cms.OptMapID, "A Map's id: the Resources assigned to it, in either role.", id, "lakes"),
		"limitQuery": query(cms.OptLimit, "At most this many records, in ascending id (byte) order.",
			&jsonschema.Schema{Type: "integer", Format: "int32", Minimum: json.Number("1"), Maximum: json.Number(strconv.Itoa(MaxIDs))}, 100),
		"afterQuery": query(cms.OptAfter, "Only ids after this one in ascending id (byte) order: the last id of the previous page.", id, "lake-walk"),
		"bboxQuery": query(cms.OptBBox, "minLon,minLat,maxLon,maxLat (plain decimals, no exponent): records located "+
			"inside, edges included; minLon > maxLon crosses the 180° meridian; latitudes within -90..90, minLat <= maxLat.",
			&jsonschema.Schema{Type: "array", MinItems: ptrTo[uint64](4), MaxItems: ptrTo[uint64](4),
				Items: &jsonschema.Schema{Type: "number", Format: "double", Minimum: json.Number("-180"), Maximum: json.Number("180")}},
			[]float64{8.5, 45.5, 9.5, 46.2}),
		"updatedSinceQuery": query(cms.OptUpdatedSince, "Records whose timeLastUpdate is at or after this wall time of the "+
			"service's zone (UTC+1 by default); a time a clock change skips is 400, one that comes twice means "+
			"its earlier moment.", &jsonschema.Schema{Type: "string", Pattern: sincePattern.String()}, "2026-01-01T00:00:00"),
		"searchQuery": query(querySearch, "Words, each the start of a word of the record's id or of its title in any "+
			"language, all required, in any order; case and accents do not matter (Città finds citta, CITTA and cit). "+
			"Words are the runs of letters and digits; the id counts by its parts and as one word of them joined "+
			"(poi-00123 is found by poi, 00123 and poi00123). The answer keeps ascending id order, so limit and "+
			"after page it, and every other option applies too. Empty, without a letter or digit, longer than "+
			strconv.Itoa(cms.MaxSearchLength)+" characters or of more than "+strconv.Itoa(cms.MaxSearchWords)+" words: 400.",
			&jsonschema.Schema{Type: "string", MinLength: ptrTo[uint64](1), MaxLength: ptrTo[uint64](cms.MaxSearchLength)}, "lago como"),
		"dryRunQuery": query(queryDryRun, "Extension. true (or 1): check the body exactly as a submit would (the same 400, "+
			"409 and 413) and store nothing: 200 with the count; false (or 0), or left out: submit. Any other value is 400.",
			&jsonschema.Schema{Type: "boolean"}, true),
		"langsQuery": query("langs", "Without an access token: the languages to describe, comma-separated, the "+
			"default first (default en). With a token it is not read: the caller's account's languages are described.",
			&jsonschema.Schema{Type: "string"}, "en,it"),
		"If-None-Match": {Name: "If-None-Match", In: "header", Schema: &jsonschema.Schema{Type: "string"},
			Description: "An ETag of a one-record read: 304 while the record is unchanged."},
		"If-Match": {Name: "If-Match", In: "header", Schema: &jsonschema.Schema{Type: "string"},
			Description: "An ETag of a read: 412 when the record changed since; * requires that it exists."},
	}
	for name, p := range fileParameters(path, query) {
		params[name] = p
	}
	for name, p := range changeParameters(path, query) {
		params[name] = p
	}
	return params
}

func ptrTo[T any](v T) *T { return &v }

// exampleLang is a language of the document other than the default, for
// examples; the default when there is none.
func (b *apiBuilder) exampleLang() string {
	if o := b.langs.Others(); len(o) > 0 {
		return o[0]
	}
	return b.langs.Default
}

// security lists.
var (
	noSecurity       = &[]apiSecurity{}
	optionalRefresh  = &[]apiSecurity{{"refreshCookie": {}}, {}}
	recordsBase      = "/api/bw/v2/"
	recordCommonFail = []string{"401", "403", "500", "503"}
)

// responses makes a response map of the given ones and the shared ones
// named by status.
func responses(own map[string]*apiResponse, shared ...string) map[string]*apiResponse {
	names := map[string]string{"400": "BadRequest", "401": "Unauthorized", "403": "Forbidden", "408": "RequestTimeout",
		"413": "TooLarge", "500": "Internal", "503": "Unavailable"}
	out := map[string]*apiResponse{}
	for _, status := range shared {
		out[status] = commonResponse(names[status])
	}
	for status, r := range own {
		out[status] = r
	}
	return out
}

// kindPaths adds every path of one kind.
func (b *apiBuilder) kindPaths(kind cms.Kind) {
	k, title, plural := string(kind), kind.Title(), kind.Plural()
	base := recordsBase + k
	tags := []string{k}
	record := ref(title)
	list := arrayOf(ref(title))
	one := &jsonschema.Schema{OneOf: []*jsonschema.Schema{ref(title), arrayOf(ref(title))}}
	jsonBody := func(description string, schema *jsonschema.Schema) *apiRequestBody {
		return &apiRequestBody{Description: description, Required: true, Content: map[string]*apiMedia{
			"application/json":                  {Schema: schema},
			"application/x-www-form-urlencoded": {Schema: ref("JSONForm")},
			"multipart/form-data":               {Schema: ref("JSONForm")},
		}}
	}
	withCommon := func(own map[string]*apiResponse, more ...string) map[string]*apiResponse {
		return responses(own, append(more, recordCommonFail...)...)
	}

	// POST <kind>: create or update.
	b.paths.add(base, http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "upsert" + title, Summary: "Create or update a " + title,
		Description: "Merges the body into the stored " + title + " of its id, or creates it: a field present " +
			"replaces the stored one (a language variant only its language), an absent one is kept, null clears a " +
			"nullable field; read-only fields are ignored, so a record read can be posted back (a Skip). " +
			`"deleteElementIrreversibly": true deletes the record instead (it needs the delete permission). ` +
			"Needs the write permission. Nothing is stored when anything is refused.",
		Parameters: []*apiParameter{param("If-Match")},
		RequestBody: jsonBody("One "+title+", at most "+bytesText(DefaultMaxBody)+" by default (transport.Options.MaxBody), whatever the Content-Type; "+
			"or a form whose field json holds it. An urlencoded body that starts with { or [ is the document itself.", record),
		Responses: withCommon(map[string]*apiResponse{
			"200": jsonAnswer("Skip: the merged record equals the stored one; nothing was written.", ref("UpsertAnswer")),
			"201": jsonAnswer("Created.", ref("UpsertAnswer")),
			"202": jsonAnswer("Updated, or deleted by deleteElementIrreversibly.", ref("UpsertAnswer")),
			"404": fail(`deleteElementIrreversibly for a record that does not exist: {"fail":"No ` + plural + ` to delete"}.`),
			"409": fail("Every problem of the body, one per line (" + title + " <id>: <field>: <problem>); or a delete " +
				"by body that a single reference prevents (with failed)."),
			"412": fail(`If-Match no longer matches: {"fail":"Precondition failed"}.`),
		}, "400", "408", "413"),
	})

	// GET <kind>: every record, or those the query options pick.
	listParams := []*apiParameter{param("idsQuery")}
	for _, opt := range b.readOptions(kind) {
		listParams = append(listParams, param(opt+"Query"))
	}
	listParams = append(listParams, param("searchQuery"))
	b.paths.add(base, http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "list" + plural, Summary: "List " + plural + " (with read options)",
		Description: "Every published " + title + " of the account, streamed in ascending id order ([] when nothing " +
			"matches); the options narrow it. With ids the answer keeps their order, without the missing or hidden " +
			"ones, and is 404 when none is found. Every option is optional and given at most once (a repeated one " +
			"is 400); array values are comma-separated (name=a,b), their commas escaped or not. A query parameter " +
			"that is no option is ignored when no option is given and 400 beside one. search (query form only) keeps " +
			"the records with a word of their id or title starting with each of its words. " +
			"The same options may instead be written as path segments after the kind and its ids, in any order, " +
			"each once: " + b.pathForm(kind) + " (excludeFiles without a value, keywords only as written, values " +
			"percent-decoded after the path is split on / and ,). The two forms are never mixed: a query option on " +
			"a path with option segments is 400." + b.optionScope(kind),
		Parameters: listParams,
		Responses: withCommon(map[string]*apiResponse{
			"200": jsonAnswer("The records, every readable field of each unless fields, ignoreFields or excludeFiles say otherwise.", list),
			"404": fail(`ids given and none of them found (or the published filter hides them all): {"fail":"ERROR: Export fail"}.`),
		}, "400"),
	})

	// GET and DELETE <kind>/{ids}.
	idsPath := base + "/{ids}"
	notFound := fail(`No record of the ids exists (or the published filter hides them all): {"fail":"ERROR: Export fail"}.`)
	b.paths.add(idsPath, http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "read" + plural, Summary: "Read " + plural + " by id",
		Description: "One id answers the record, with every readable field, every language variant and null for " +
			"an unset nullable field, and an ETag; several answer an array in the order asked, without the missing " +
			"or hidden ones. Only published records unless /published says otherwise." + b.proposalCount(kind),
		Parameters: []*apiParameter{param("ids"), param("If-None-Match")},
		Responses: withCommon(map[string]*apiResponse{
			"200": jsonAnswer("The record (one id) or the records (several).", one, "ETag"),
			"304": {Description: "If-None-Match names the record's ETag: unchanged.",
				Headers: map[string]*apiHeader{"ETag": {Ref: headerRef + "ETag"}}},
			"404": notFound,
		}, "400"),
	})
	b.paths.add(idsPath, http.MethodDelete, &apiOperation{
		Tags: tags, OperationID: "delete" + plural, Summary: "Delete " + plural,
		Description: "Deletes the records in one transaction: each leaves every list that names it (those records get " +
			"a new timeLastUpdate) and every assignment. A record named by a single reference (Landing.mapId, " +
			"Proposal.mapId, Map.trackResourceId) is not deleted and is listed in failed. If-Match takes one id: " +
			"with several it is 400. Needs the delete permission.",
		Parameters: []*apiParameter{param("ids"), param("If-Match")},
		Responses: withCommon(map[string]*apiResponse{
			"202": jsonAnswer("Some or all deleted; fail and failed list the others.", ref("DeleteAnswer")),
			"404": fail(`None of the ids exists: {"fail":"No ` + plural + ` to delete"}.`),
			"409": fail(`Some exist, none could be deleted: {"fail":"Deletion of <n> ` + plural + ` not done","failed":[...]}.`),
			"412": fail(`If-Match no longer matches (or the record is gone): {"fail":"Precondition failed"}; nothing is deleted.`),
		}, "400"),
	})

	// Clone, by POST or GET.
	clonePaths := []struct{ path, suffix string }{{base + "/clone", ""}, {base + "/clone/{id}", "ById"}}
	if kind == cms.KindResource {
		clonePaths = append(clonePaths, struct{ path, suffix string }{base + "/clone/map/{mapId}", "ToMap"},
			struct{ path, suffix string }{base + "/clone/{id}/map/{mapId}", "ByIdToMap"})
	}
	for _, cp := range clonePaths {
		var params []*apiParameter
		if strings.Contains(cp.path, "{id}") {
			params = append(params, param("id"))
		}
		if strings.Contains(cp.path, "{mapId}") {
			params = append(params, param("mapId"))
		}
		for _, method := range []string{http.MethodPost, http.MethodGet} {
			verb := map[string]string{http.MethodPost: "clone", http.MethodGet: "cloneByGet"}[method]
			b.paths.add(cp.path, method, &apiOperation{
				Tags: tags, OperationID: verb + title + cp.suffix, Summary: "Clone a " + title + b.cloneSummary(cp.suffix, method),
				Description: "Copies every field and the record's own lists (not the assignments made from the other " +
					"side) into a new, unpublished record whose id and aliases get -copy, then -copy-2, ... The " +
					"record cloned is Base when the path names none." + b.cloneMap(kind) +
					" GET and POST do the same. Needs the write permission.",
				Parameters: params,
				Responses: withCommon(map[string]*apiResponse{
					"201": jsonAnswer("Cloned.", ref("CloneAnswer")),
					"404": fail(`No such record: {"fail":"There is no ` + title + ` <id> to clone"}.`),
					"409": fail(`No new id fits in 80 characters, or the Map does not exist: {"fail":"Not cloned ` + title + ` <id>"}.`),
				}, "400"),
			})
		}
	}

	// Schemas.
	for _, multiple := range []bool{false, true} {
		word, name, what := cms.KeywordSchema, "Schema", "one "+title
		if multiple {
			word, name, what = cms.KeywordSchemaMultiple, "SchemaMultiple", "an array of "+plural+" (a batch body)"
		}
		description := "The JSON Schema (draft 2020-12) of " + what + " for the caller's account's languages as " +
			"they are now (a language added shows at once, even to a token issued before). Needs the read permission."
		b.paths.add(base+"/"+word, http.MethodGet, &apiOperation{
			Tags: tags, OperationID: "get" + title + name, Summary: "JSON Schema of " + what,
			Description: description,
			Responses: withCommon(map[string]*apiResponse{
				"200": jsonAnswer("The schema.", ref("JSONSchemaDocument")),
			}),
		})
		full := reflectBody(schemaFullBody{}, "", "The schema and every record of the kind.")
		if p, ok := full.Properties.Get("data"); ok {
			p.Items = ref(title)
		}
		b.paths.add(base+"/"+word+"/"+cms.KeywordFull, http.MethodGet, &apiOperation{
			Tags: tags, OperationID: "get" + title + name + "Full", Summary: "JSON Schema of " + what + " and every " + title,
			Description: description + " The records are every " + title + " of the account, published or not, streamed.",
			Responses: withCommon(map[string]*apiResponse{
				"200": jsonAnswer("The schema and the records.", full),
			}),
		})
	}

	// Batches.
	b.paths.add(base+"/"+cms.KeywordBatch, http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "submit" + title + "Batch", Summary: "Submit a batch of " + plural,
		Description: "The whole body is checked with the rules and references of single upserts, each record as the " +
			"records before it leave things, then stored; workers apply it a moment later, all records or none, in " +
			"one transaction. Needs the write permission (and delete when a record asks deleteElementIrreversibly). " +
			"With dryRun the body is only checked: nothing is stored or queued.",
		Parameters: []*apiParameter{param("dryRunQuery")},
		RequestBody: jsonBody("An array of "+plural+", at most "+countText(cms.DefaultMaxBatchRecords)+" records (cms.Options.MaxBatchRecords) and "+
			bytesText(DefaultMaxBatchBody)+" (transport.Options.MaxBatchBody) by default.", list),
		Responses: withCommon(map[string]*apiResponse{
			"200": jsonAnswer("Checked (dryRun): no problem found; nothing stored.", ref("BatchChecked")),
			"201": jsonAnswer("Stored; ask its status with batchId.", ref("BatchReceipt")),
			"409": fail("Every problem of every record, one per line; nothing is queued."),
		}, "400", "408", "413"),
	})
	b.paths.add(base+"/"+cms.KeywordBatch+"/{batchId}", http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "get" + title + "BatchStatus", Summary: "Status of a batch of " + plural,
		Description: "waiting, processing (with processed and attempt, extensions: the progress of the current " +
			"attempt, which restarts from 0 when the batch is taken up again), then done (with the counts) or " +
			"error (with the reason). Finished batches " +
			"are kept " + durationText(cms.DefaultBatchRetention) + " by default (cms.Options.BatchRetention). Needs the read permission.",
		Parameters: []*apiParameter{param("batchId")},
		Responses: withCommon(map[string]*apiResponse{
			"200": jsonAnswer("The status (Cache-Control: no-store).", ref("BatchStatus")),
			"404": fail(`No such batch of the account: {"fail":"There is no ` + title + ` <id> to clone"} (the text of a clone, as the contract has it).`),
		}, "400"),
	})
}

// readOptions are the read options of kind in the canonical order.
func (b *apiBuilder) readOptions(kind cms.Kind) []string {
	opts := []string{cms.OptPublished, cms.OptFields, cms.OptIgnoreFields, cms.OptExcludeFiles}
	if kind == cms.KindResource {
		opts = append(opts, cms.OptMapID)
	}
	opts = append(opts, cms.OptLimit, cms.OptAfter)
	if kind == cms.KindResource || kind == cms.KindMap {
		opts = append(opts, cms.OptBBox)
	}
	return append(opts, cms.OptUpdatedSince)
}

// pathForm is the path form of the read options of kind, in prose.
func (b *apiBuilder) pathForm(kind cms.Kind) string {
	form := recordsBase + string(kind) + "[/{ids}]"
	for _, opt := range b.readOptions(kind) {
		if opt == cms.OptExcludeFiles {
			form += "[/" + opt + "]"
			continue
		}
		form += "[/" + opt + "/{" + opt + "}]"
	}
	return form
}

func (b *apiBuilder) optionScope(kind cms.Kind) string {
	switch kind {
	case cms.KindResource:
		return ""
	case cms.KindMap:
		return " mapId applies to Resources only."
	}
	return " mapId applies to Resources only, bbox to Resources and Maps."
}

func (b *apiBuilder) proposalCount(kind cms.Kind) string {
	if kind != cms.KindProposal {
		return ""
	}
	return " Reading a Proposal by one id counts an access (statsAccess + 1, statsLastAccess now)."
}

func (b *apiBuilder) cloneMap(kind cms.Kind) string {
	if kind != cms.KindResource {
		return ""
	}
	return " /map/{mapId} assigns the clone to that Map as primary."
}

func (b *apiBuilder) cloneSummary(suffix, method string) string {
	s := map[string]string{"": " (Base)", "ById": "", "ToMap": " (Base) into a Map", "ByIdToMap": " into a Map"}[suffix]
	if method == http.MethodGet {
		s += " (GET)"
	}
	return s
}

// authPaths adds the token endpoints and this document's.
func (b *apiBuilder) authPaths() {
	tags := []string{"auth"}
	// A form or, by its Content-Type only, a JSON object of the same fields.
	form := func(description string, required bool, schema string) *apiRequestBody {
		return &apiRequestBody{Description: description, Required: required, Content: map[string]*apiMedia{
			"application/json":                  {Schema: ref(schema)},
			"application/x-www-form-urlencoded": {Schema: ref(schema)},
			"multipart/form-data":               {Schema: ref(schema)},
		}}
	}
	refreshBody := form("The refresh token, when the cookie does not carry it, as a form field or a JSON object; at most "+bytesText(MaxAuthBody)+".", false, "RefreshForm")
	crossSite := fail(`A POST the browser marks as cross-site, from an origin not allowed: {"fail":"Forbidden"}, before anything is read.`)
	b.paths.add(recordsBase+"auth", http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "login", Summary: "Log in",
		Description: "Checks the username and password and answers an access token and a refresh token (also set " +
			"in the " + RefreshCookie + " cookie). Credentials in the query string are not read. Every answer has " +
			"Cache-Control: no-store.",
		Security:    noSecurity,
		RequestBody: form("One u and one p, as form fields or a JSON object (by Content-Type), at most "+bytesText(MaxAuthBody)+".", true, "LoginForm"),
		Responses: responses(map[string]*apiResponse{
			"200": withHeaders(jsonAnswer("Logged in.", ref("TokenAnswer")), "Set-Cookie"),
			"401": fail(`Unknown user, wrong password, disabled user, a missing or repeated field, a body not understood: {"fail":"Unauthorized"}, the same in every case.`),
			"403": crossSite,
			"429": fail(`Too many failed logins for the username from this client address (or from all addresses past the ceiling): {"fail":"Too many attempts"}, decided before the password is checked.`, "Retry-After"),
		}, "408", "413", "500", "503"),
	})
	b.paths.add(recordsBase+"auth", http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "validateToken", Summary: "Validate an access token",
		Description: "The claims of a valid access token.",
		Responses: responses(map[string]*apiResponse{
			"200": jsonAnswer("Valid.", ref("ValidateAnswer")),
		}, "401", "500", "503"),
	})
	b.paths.add(recordsBase+"auth/refresh", http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "refresh", Summary: "Refresh the tokens",
		Description: "Spends the refresh token (the cookie, else the body's field refresh_token) and answers a new " +
			"pair of the same family. Presenting a spent token again revokes the family, except within a short " +
			"grace after it was spent.",
		Security:    optionalRefresh,
		RequestBody: refreshBody,
		Responses: responses(map[string]*apiResponse{
			"200": withHeaders(jsonAnswer("Refreshed.", ref("TokenAnswer")), "Set-Cookie"),
			"401": jsonAnswer("Any refused token (unknown, spent, expired, revoked) or none (a body not understood presents none).", ref("RefreshFail")),
			"403": crossSite,
		}, "408", "413", "500", "503"),
	})
	b.paths.add(recordsBase+"auth/logout", http.MethodPost, &apiOperation{
		Tags: tags, OperationID: "logout", Summary: "Log out",
		Description: "Revokes the family of the presented refresh token (cookie or the body's field), if any, and expires " +
			"the cookie. Needs no access token.",
		Security:    optionalRefresh,
		RequestBody: refreshBody,
		Responses: responses(map[string]*apiResponse{
			"200": withHeaders(jsonAnswer("Logged out, whatever token was presented.", ref("LogoutAnswer")), "Set-Cookie"),
			"403": crossSite,
		}, "408", "413", "500", "503"),
	})
	b.paths.add(recordsBase+"auth/jwks.json", http.MethodGet, &apiOperation{
		Tags: tags, OperationID: "getJWKS", Summary: "The public signing key",
		Description: "The JSON Web Key Set of the Ed25519 key access tokens are signed with, when the server signs " +
			"with EdDSA (transport.Options.EdDSAKey); with HS256 there is none.",
		Security: noSecurity,
		Responses: map[string]*apiResponse{
			"200": jsonAnswer("The key set (Cache-Control: public, max-age=300).", ref("JWKS")),
			"404": fail(`The server signs with HS256: {"fail":"Not found"}.`),
		},
	})
	b.paths.add(recordsBase+cms.KeywordOpenAPI, http.MethodGet, &apiOperation{
		Tags: []string{"openapi"}, OperationID: "getOpenAPI", Summary: "This OpenAPI document",
		Description: "With an access token (any valid one): the document for the caller's account's languages as " +
			"they are now. Without one: the document for the languages of langs, with no account data, so a " +
			"generator can fetch it. Its servers entry is the address it was fetched at.",
		Security:   &[]apiSecurity{{"bearer": {}}, {"bearerHeader": {}}, {}},
		Parameters: []*apiParameter{param("langsQuery")},
		Responses: responses(map[string]*apiResponse{
			"200": jsonAnswer("The OpenAPI 3.1 document.", &jsonschema.Schema{Type: "object"}),
			"400": fail(`Without a token, langs is not a list of language codes: {"fail":"Wrong request"}.`),
			"401": fail(`A token was sent and is not valid: {"fail":"Unauthorized"}.`, "WWW-Authenticate"),
		}, "500", "503"),
	})
}

// withHeaders adds the shared headers named (components/headers, the name
// without hyphens) to r.
func withHeaders(r *apiResponse, headers ...string) *apiResponse {
	if r.Headers == nil {
		r.Headers = map[string]*apiHeader{}
	}
	for _, h := range headers {
		r.Headers[h] = &apiHeader{Ref: headerRef + strings.ReplaceAll(h, "-", "")}
	}
	return r
}
