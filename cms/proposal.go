package cms

// Proposal is a customer-specific content page with related contents and
// hotel sections that shows a Map.
type Proposal struct {
	ID                 string                `json:"id" cms:"id" jsonschema:"required" jsonschema_description:"unique key"`
	Published          Opt[bool]             `json:"published" jsonschema_description:"visibility"`
	TimeLastUpdate     string                `json:"timeLastUpdate" cms:"timestamp,readonly" jsonschema_description:"last update (YYYY-MM-DD HH:MM:SS, CET (UTC+1))"`
	Title              Langs[string]         `json:"title" jsonschema:"maxLength=100" jsonschema_description:"title"`
	ShortDescription   Langs[Null[string]]   `json:"shortDescription" jsonschema:"maxLength=160" jsonschema_description:"snippet"`
	HTMLDescription    Langs[Null[string]]   `json:"htmlDescription" cms:"html" jsonschema:"maxLength=1000" jsonschema_description:"summary, HTML"`
	HTMLContent        Langs[Null[string]]   `json:"htmlContent" cms:"html" jsonschema:"maxLength=32000" jsonschema_description:"full content, HTML"`
	Image              Null[string]          `json:"image" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"featured image (jpg, png or webp)"`
	URLAlias           Langs[string]         `json:"urlAlias" cms:"alias" jsonschema:"minLength=2,maxLength=500" jsonschema_description:"URL: starts with /, no protocol or host of the service"`
	CanonicalURL       Langs[Null[string]]   `json:"canonicalUrl" cms:"uri" jsonschema:"maxLength=500" jsonschema_description:"equivalent external Proposal"`
	InfoSummary        Langs[Null[string]]   `json:"infoSummary" cms:"html" jsonschema:"maxLength=2000" jsonschema_description:"summary, HTML"`
	RelatedContents    Opt[[]RelatedContent] `json:"relatedContents" jsonschema_description:"related content"`
	Hotels             Opt[[]Hotel]          `json:"hotels" jsonschema_description:"hotel sections"`
	ButtonViewMapLabel Langs[Null[string]]   `json:"buttonViewMapLabel" jsonschema:"maxLength=200" jsonschema_description:"view-map button label"`
	MapID              Opt[string]           `json:"mapId" cms:"ref=map" jsonschema_description:"Map displayed (empty: none)"`
	CTAURL             Null[string]          `json:"ctaUrl" cms:"uri" jsonschema:"maxLength=2000" jsonschema_description:"CTA target"`
	CTALabel           Langs[Null[string]]   `json:"ctaLabel" jsonschema:"maxLength=20" jsonschema_description:"CTA text"`
	CTAValuePrefix     Langs[Null[string]]   `json:"ctaValuePrefix" jsonschema:"maxLength=20" jsonschema_description:"prefix"`
	CTAValue           Langs[Null[string]]   `json:"ctaValue" jsonschema:"maxLength=20" jsonschema_description:"label"`
	CTAValueSufix      Langs[Null[string]]   `json:"ctaValueSufix" jsonschema:"maxLength=20" jsonschema_description:"suffix"`
	CustomerID         Null[string]          `json:"customerId" jsonschema:"minLength=3,maxLength=80" jsonschema_description:"customer of the Proposal; template Proposals have none"`
	GroupName          Null[string]          `json:"groupName" jsonschema:"maxLength=100" jsonschema_description:"group name"`
	TripDates          Null[string]          `json:"tripDates" jsonschema:"maxLength=100" jsonschema_description:"trip dates"`
	PaxNum             Null[string]          `json:"paxNum" jsonschema:"maxLength=100" jsonschema_description:"number of passengers"`
	RoomsNum           Null[string]          `json:"roomsNum" jsonschema:"maxLength=100" jsonschema_description:"number of rooms"`
	Pricing            Null[string]          `json:"pricing" cms:"html" jsonschema:"maxLength=1000" jsonschema_description:"pricing, HTML"`
	ExpireDate         Null[string]          `json:"expireDate" cms:"date" jsonschema_description:"expiry date (YYYY-MM-DD)"`
	TypeSchema         Opt[string]           `json:"typeSchema" jsonschema:"maxLength=100" jsonschema_description:"type of the Proposal"`
	StatsAccess        int64                 `json:"statsAccess" cms:"readonly" jsonschema:"minimum=0,maximum=9007199254740991" jsonschema_description:"number of accesses"`
	StatsLastAccess    Null[string]          `json:"statsLastAccess" cms:"timestamp,readonly" jsonschema_description:"last access (YYYY-MM-DD HH:MM:SS, CET (UTC+1))"`
	DeleteIrreversibly Opt[bool]             `json:"deleteElementIrreversibly" cms:"writeonly" jsonschema_description:"true deletes the Proposal irreversibly"`
}

// Kind returns KindProposal.
func (*Proposal) Kind() Kind { return KindProposal }

// RecordID returns p.ID.
func (p *Proposal) RecordID() string { return p.ID }

// Common points at p's fields every kind has.
func (p *Proposal) Common() Common {
	return Common{&p.ID, &p.Published, &p.TimeLastUpdate, &p.Title, &p.URLAlias, &p.DeleteIrreversibly}
}

// setStats sets the read-only access counters, which the store keeps
// beside the document.
func (p *Proposal) setStats(count int64, last Null[string]) {
	p.StatsAccess, p.StatsLastAccess = count, last
}

// RelatedContent is one item of a Proposal's relatedContents list.
type RelatedContent struct {
	Title            Langs[string]       `json:"title" jsonschema:"maxLength=200" jsonschema_description:"related content title"`
	ShortDescription Langs[Null[string]] `json:"shortDescription" jsonschema:"maxLength=200" jsonschema_description:"related content intro, plain text"`
	HTMLContent      Langs[Null[string]] `json:"htmlContent" cms:"html" jsonschema:"maxLength=32000" jsonschema_description:"related content, HTML"`
}

// Hotel is one item of a Proposal's hotels list.
type Hotel struct {
	Title            Langs[string]       `json:"title" jsonschema:"maxLength=200" jsonschema_description:"hotel section title"`
	ShortDescription Langs[Null[string]] `json:"shortDescription" jsonschema:"maxLength=200" jsonschema_description:"hotel section intro, plain text"`
	HTMLContent      Langs[Null[string]] `json:"htmlContent" cms:"html" jsonschema:"maxLength=32000" jsonschema_description:"hotel section content, HTML"`
	ResourceIDs      Null[[]string]      `json:"resourceIds" cms:"ref=resource" jsonschema_description:"hotel Resource ids, in order"`
}
