package cms

// Landing is a content page with content blocks and hotel sections that
// shows a Map.
type Landing struct {
	ID                  string              `json:"id" cms:"id" jsonschema:"required" jsonschema_description:"unique key"`
	Published           Opt[bool]           `json:"published" jsonschema_description:"visibility"`
	TimeLastUpdate      string              `json:"timeLastUpdate" cms:"timestamp,readonly" jsonschema_description:"last update (YYYY-MM-DD HH:MM:SS, CET (UTC+1))"`
	Title               Langs[string]       `json:"title" jsonschema:"maxLength=100" jsonschema_description:"title"`
	ShortDescription    Langs[Null[string]] `json:"shortDescription" jsonschema:"maxLength=160" jsonschema_description:"snippet"`
	HTMLDescription     Langs[Null[string]] `json:"htmlDescription" cms:"html" jsonschema:"maxLength=1000" jsonschema_description:"summary, HTML"`
	HTMLContent         Langs[Null[string]] `json:"htmlContent" cms:"html" jsonschema:"maxLength=32000" jsonschema_description:"full content, HTML"`
	Image               Null[string]        `json:"image" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"featured image (jpg, png or webp)"`
	URLAlias            Langs[string]       `json:"urlAlias" cms:"alias" jsonschema:"minLength=2,maxLength=500" jsonschema_description:"URL: starts with /, no protocol or host of the service"`
	CanonicalURL        Langs[Null[string]] `json:"canonicalUrl" cms:"uri" jsonschema:"maxLength=500" jsonschema_description:"equivalent external Landing"`
	AlternativeView     Null[string]        `json:"alternativeView" jsonschema:"maxLength=100" jsonschema_description:"alternative view (default null)"`
	Proposal            Opt[bool]           `json:"proposal" jsonschema_description:"proposal flag"`
	ProposalSummary     Langs[Null[string]] `json:"proposalSummary" cms:"html" jsonschema:"maxLength=2000" jsonschema_description:"proposal summary, HTML"`
	ProposalCalendar    Langs[Null[string]] `json:"proposalCalendar" cms:"html" jsonschema:"maxLength=2000" jsonschema_description:"proposal calendar, HTML"`
	ProposalDescription Langs[Null[string]] `json:"proposalDescription" cms:"html" jsonschema:"maxLength=2000" jsonschema_description:"proposal description, HTML"`
	LandingCategories   Null[[]string]      `json:"landingCategories" cms:"term" jsonschema:"maxItems=100" jsonschema_description:"Categories for the admin table, in order"`
	LandingBlocks       Opt[[]LandingBlock] `json:"landingBlocks" jsonschema_description:"content blocks"`
	LandingHotels       Opt[[]LandingHotel] `json:"landingHotels" jsonschema_description:"hotels section"`
	ButtonViewMapLabel  Langs[Null[string]] `json:"buttonViewMapLabel" jsonschema:"maxLength=200" jsonschema_description:"view-map button label"`
	MapIntro            Langs[Null[string]] `json:"mapIntro" jsonschema:"maxLength=250" jsonschema_description:"map intro text"`
	MapID               Opt[string]         `json:"mapId" cms:"ref=map" jsonschema_description:"Map displayed (empty: none)"`
	CTAOnMap            Null[bool]          `json:"ctaOnMap" jsonschema_description:"floating CTA on map"`
	CTAURL              Null[string]        `json:"ctaUrl" cms:"uri" jsonschema:"maxLength=2000" jsonschema_description:"CTA target"`
	CTALabel            Langs[Null[string]] `json:"ctaLabel" jsonschema:"maxLength=20" jsonschema_description:"CTA text"`
	CTAValuePrefix      Langs[Null[string]] `json:"ctaValuePrefix" jsonschema:"maxLength=20" jsonschema_description:"prefix"`
	CTAValue            Langs[Null[string]] `json:"ctaValue" jsonschema:"maxLength=20" jsonschema_description:"label"`
	CTAValueSufix       Langs[Null[string]] `json:"ctaValueSufix" jsonschema:"maxLength=20" jsonschema_description:"suffix"`
	HeadTitle           Langs[Null[string]] `json:"headTitle" jsonschema:"maxLength=100" jsonschema_description:"SEO title; falls back to title"`
	HeadDescription     Langs[Null[string]] `json:"headDescription" jsonschema:"maxLength=150" jsonschema_description:"SEO description; falls back to shortDescription"`
	HeadKeywords        Langs[Null[string]] `json:"headKeywords" jsonschema:"maxLength=150" jsonschema_description:"SEO keywords"`
	DeleteIrreversibly  Opt[bool]           `json:"deleteElementIrreversibly" cms:"writeonly" jsonschema_description:"true deletes the Landing irreversibly"`
}

// Kind returns KindLanding.
func (*Landing) Kind() Kind { return KindLanding }

// RecordID returns l.ID.
func (l *Landing) RecordID() string { return l.ID }

// Common points at l's fields every kind has.
func (l *Landing) Common() Common {
	return Common{&l.ID, &l.Published, &l.TimeLastUpdate, &l.Title, &l.URLAlias, &l.DeleteIrreversibly}
}

// LandingBlock is one item of a Landing's landingBlocks list.
type LandingBlock struct {
	Title            Langs[string]       `json:"title" jsonschema:"maxLength=200" jsonschema_description:"block title"`
	ShortDescription Langs[Null[string]] `json:"shortDescription" jsonschema:"maxLength=200" jsonschema_description:"block intro, plain text"`
	HTMLContent      Langs[Null[string]] `json:"htmlContent" cms:"html" jsonschema:"maxLength=32000" jsonschema_description:"block content, HTML"`
	ResourceIDs      Null[[]string]      `json:"resourceIds" cms:"ref=mapOrLanding" jsonschema_description:"ids of Maps or Landings shown in the block, in order"`
}

// LandingHotel is one item of a Landing's landingHotels list.
type LandingHotel struct {
	Title            Langs[string]       `json:"title" jsonschema:"maxLength=200" jsonschema_description:"hotel section title"`
	ShortDescription Langs[Null[string]] `json:"shortDescription" jsonschema:"maxLength=200" jsonschema_description:"hotel section intro, plain text"`
	HTMLContent      Langs[Null[string]] `json:"htmlContent" cms:"html" jsonschema:"maxLength=32000" jsonschema_description:"hotel section content, HTML"`
	ResourceIDs      Null[[]string]      `json:"resourceIds" cms:"ref=resource" jsonschema_description:"ids of hotel Resources, in order"`
}
