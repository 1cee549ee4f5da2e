package transport

// The bodies of the answers that have no type where they are written,
// named so that the OpenAPI document (OpenAPI) reflects the same types the
// handlers send.

// deleteBody is the 202 answer of a delete: the count deleted, and the
// ids not deleted when some were.
type deleteBody struct {
	Done   string   `json:"done" jsonschema_description:"Deletion of <n> <Kinds> done"`
	Count  int      `json:"count" jsonschema_description:"how many records were deleted"`
	Fail   string   `json:"fail,omitempty" jsonschema_description:"Deletion of <n> <Kinds> not done, when some were not"`
	Failed []string `json:"failed,omitempty" jsonschema_description:"the ids not deleted (missing, or named by a single reference), in the order asked"`
}

// cloneBody is the 201 answer of a clone.
type cloneBody struct {
	Done string `json:"done" jsonschema_description:"Cloned <Kind> <id> to <Kind> <new id>"`
	ID   string `json:"id" jsonschema_description:"the id of the clone"`
}

// batchReceiptBody is the 201 answer of a batch submitted.
type batchReceiptBody struct {
	Done    string `json:"done" jsonschema_description:"Batch process created"`
	BatchID string `json:"batchId" jsonschema_description:"the id to ask the status with"`
	Count   int    `json:"count" jsonschema_description:"how many records the batch holds"`
}

// logoutBody is the 200 answer of a logout.
type logoutBody struct {
	Message string `json:"message" jsonschema_description:"Successfully logged out"`
}

// validateBody is the 200 answer of GET auth: the token's claims.
type validateBody struct {
	Done string  `json:"done" jsonschema_description:"JWT verified"`
	JWT  *Claims `json:"jwt" jsonschema_description:"the claims of the access token: iss, sub, aud, exp, iat, nbf when set, jti, type (access), perms, lang (the default language), langs, acc (the account)"`
}

// refreshFailBody is the 401 answer of a refresh (OAuth2's error form).
type refreshFailBody struct {
	Error       string `json:"error" jsonschema_description:"invalid_grant"`
	Description string `json:"error_description" jsonschema_description:"Invalid or expired refresh token"`
}

// jwksBody is the JSON Web Key Set of the EdDSA public key (RFC 8037).
type jwksBody struct {
	Keys []jwk `json:"keys" jsonschema_description:"the one signing key"`
}

type jwk struct {
	Kty string `json:"kty" jsonschema_description:"OKP"`
	Crv string `json:"crv" jsonschema_description:"Ed25519"`
	Alg string `json:"alg" jsonschema_description:"EdDSA"`
	Use string `json:"use" jsonschema_description:"sig"`
	Kid string `json:"kid" jsonschema_description:"the key id (the kid header of the tokens)"`
	X   string `json:"x" jsonschema_description:"the public key, base64url"`
}
