package cms

// Resource is a located item: a point of interest, a track and so on. Field
// order is the contract's; tags drive decoding, validation and the JSON
// Schema alike.
type Resource struct {
	ID                  string              `json:"id" cms:"id" jsonschema:"required" jsonschema_description:"unique key"`
	Published           Opt[bool]           `json:"published" jsonschema_description:"visibility"`
	TimeLastUpdate      string              `json:"timeLastUpdate" cms:"timestamp,readonly" jsonschema_description:"last update (YYYY-MM-DD HH:MM:SS, CET (UTC+1))"`
	Title               Langs[string]       `json:"title" jsonschema:"maxLength=100" jsonschema_description:"title"`
	ShortDescription    Langs[Null[string]] `json:"shortDescription" jsonschema:"maxLength=160" jsonschema_description:"brief snippet"`
	HTMLDescription     Langs[Null[string]] `json:"htmlDescription" cms:"html" jsonschema:"maxLength=1000" jsonschema_description:"summary, HTML allowed"`
	HTMLContent         Langs[Null[string]] `json:"htmlContent" cms:"html" jsonschema:"maxLength=32000" jsonschema_description:"full content, HTML allowed"`
	Image               Null[string]        `json:"image" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"featured image (jpg, png or webp)"`
	Multimedia          Null[[]string]      `json:"multimedia" cms:"image" jsonschema:"maxLength=2000,maxItems=100" jsonschema_description:"gallery images (jpg, png or webp), in the order given"`
	MultimediaTitle     Opt[string]         `json:"multimediaTitle" jsonschema:"maxLength=100" jsonschema_description:"gallery title"`
	URLAlias            Langs[string]       `json:"urlAlias" cms:"alias" jsonschema:"minLength=2,maxLength=500" jsonschema_description:"URL of the record: starts with /, no protocol or host of the service"`
	CanonicalURL        Langs[Null[string]] `json:"canonicalUrl" cms:"uri" jsonschema:"maxLength=500" jsonschema_description:"equivalent external resource"`
	ExternalURL         Langs[Null[string]] `json:"externalUrl" cms:"uri" jsonschema:"maxLength=500" jsonschema_description:"target of the learn-more button"`
	ExternalURLLabel    Langs[Null[string]] `json:"externalUrlLabel" jsonschema:"maxLength=250" jsonschema_description:"label of the learn-more button"`
	RedirectLoadTo      Null[string]        `json:"redirectLoadTo" jsonschema:"maxLength=100" jsonschema_description:"redirect on load: to an external URL, an internal Map, a Landing, or no redirect"`
	LocationLat         Null[float64]       `json:"locationLat" jsonschema:"minimum=-90,maximum=90" jsonschema_description:"latitude"`
	LocationLon         Null[float64]       `json:"locationLon" jsonschema:"minimum=-180,maximum=180" jsonschema_description:"longitude"`
	LocationZoom        Null[int64]         `json:"locationZoom" jsonschema:"minimum=2,maximum=25" jsonschema_description:"zoom level when the record is opened"`
	MapIDs              Null[[]string]      `json:"mapIds" cms:"ref=map,assign" jsonschema_description:"ids of Maps where the Resource is PRIMARY; replaces assignments, so it appears only in these"`
	MapIDsAdd           Null[[]string]      `json:"mapIdsAdd" cms:"ref=map,writeonly" jsonschema_description:"ids of Maps where the Resource is PRIMARY; keeps existing assignments"`
	MapSecondaryIDs     Null[[]string]      `json:"mapSecondaryIds" cms:"ref=map,assign" jsonschema_description:"ids of Maps where the Resource is SECONDARY; replaces assignments"`
	MapSecondaryIDsAdd  Null[[]string]      `json:"mapSecondaryIdsAdd" cms:"ref=map,writeonly" jsonschema_description:"ids of Maps where the Resource is SECONDARY; keeps existing assignments"`
	POIResourceIDs      Null[[]string]      `json:"poiResourceIds" cms:"ref=resource" jsonschema_description:"complementary POI Resource ids, in order; replaces existing"`
	POIResourceIDsAdd   Null[[]string]      `json:"poiResourceIdsAdd" cms:"ref=resource,writeonly" jsonschema_description:"complementary POI Resource ids, in order; added to existing"`
	HideInList          Opt[bool]           `json:"hideInList" jsonschema_description:"hide in widget list (default false)"`
	ResourceType        Opt[string]         `json:"resourceType" jsonschema:"maxLength=100" jsonschema_description:"type of Resource (TRACK is a type)"`
	ResourceCategories  Null[[]string]      `json:"resourceCategories" cms:"term" jsonschema:"maxItems=100" jsonschema_description:"Category term ids, in order; the first defines the marker icon"`
	ResourceRegions     Null[[]string]      `json:"resourceRegions" cms:"term" jsonschema:"maxItems=100" jsonschema_description:"geographic area ids"`
	ResourceStage       Null[[]string]      `json:"resourceStage" cms:"term" jsonschema:"maxItems=100" jsonschema_description:"label ids used as stickers"`
	ResourceMapLayer    Opt[string]         `json:"resourceMapLayerType" jsonschema:"maxLength=100" jsonschema_description:"geographic map layer type used when the Resource is opened"`
	MapLayerFile        Null[string]        `json:"mapLayerFile" cms:"layer" jsonschema:"maxLength=2000" jsonschema_description:"overlay layer: KML or KMZ file up to 2MB"`
	ContactAddress      Null[string]        `json:"contactAddress" jsonschema:"maxLength=200" jsonschema_description:"street address"`
	ContactCity         Null[string]        `json:"contactCity" jsonschema:"maxLength=60" jsonschema_description:"city"`
	ContactPostalCode   Null[string]        `json:"contactPostalCode" jsonschema:"maxLength=8" jsonschema_description:"postal code"`
	ContactProvince     Null[string]        `json:"contactProvince" jsonschema:"maxLength=60" jsonschema_description:"province, state or region"`
	ContactPhone        Null[string]        `json:"contactPhone" jsonschema:"maxLength=40" jsonschema_description:"phone number"`
	ContactEmail        Null[string]        `json:"contactEmail" cms:"email" jsonschema:"maxLength=255" jsonschema_description:"e-mail address"`
	ContactURL          Null[string]        `json:"contactUrl" cms:"uri" jsonschema:"maxLength=2000" jsonschema_description:"website (http:// or https://)"`
	OpeningTimes        Langs[Null[string]] `json:"openingTimes" jsonschema:"maxLength=2000" jsonschema_description:"opening times"`
	CTAOnMap            Null[bool]          `json:"ctaOnMap" jsonschema_description:"floating CTA button on the map"`
	CTAOnImage          Null[bool]          `json:"ctaOnImage" jsonschema_description:"floating CTA button on the image"`
	CTAURL              Null[string]        `json:"ctaUrl" cms:"uri" jsonschema:"maxLength=2000" jsonschema_description:"CTA target"`
	CTALabel            Langs[Null[string]] `json:"ctaLabel" jsonschema:"maxLength=20" jsonschema_description:"CTA text"`
	CTAValuePrefix      Langs[Null[string]] `json:"ctaValuePrefix" jsonschema:"maxLength=20" jsonschema_description:"CTA intro or price prefix"`
	CTAValue            Langs[Null[string]] `json:"ctaValue" jsonschema:"maxLength=20" jsonschema_description:"CTA intro or price label"`
	CTAValueSufix       Langs[Null[string]] `json:"ctaValueSufix" jsonschema:"maxLength=20" jsonschema_description:"CTA intro or price suffix"`
	TrackCircular       Null[bool]          `json:"trackCircular" cms:"track" jsonschema_description:"route is a loop (TRACK only)"`
	TrackEffortDataShow Null[bool]          `json:"trackEffortDataShow" cms:"track" jsonschema_description:"show effort information (TRACK only)"`
	TrackAltitudeShow   Null[bool]          `json:"trackAltitudeShow" jsonschema_description:"show the elevation graph; for track files with elevation data"`
	TrackHoverShow      Null[bool]          `json:"trackHoverShow" jsonschema_description:"true: track shown when hovering or tapping the start marker; false: track always shown"`
	TrackDuration       Null[int64]         `json:"trackDurationMinutes" cms:"track" jsonschema:"minimum=1,maximum=9007199254740991" jsonschema_description:"duration in minutes (TRACK only)"`
	TrackTravelDistance Null[int64]         `json:"trackTravelDistance" cms:"track" jsonschema:"minimum=1,maximum=9007199254740991" jsonschema_description:"length in meters (TRACK only)"`
	TrackSlopeUp        Null[int64]         `json:"trackSlopeUp" cms:"track" jsonschema:"minimum=0,maximum=9007199254740991" jsonschema_description:"ascent in meters (TRACK only)"`
	TrackSlopeDown      Null[int64]         `json:"trackSlopeDown" cms:"track" jsonschema:"minimum=0,maximum=9007199254740991" jsonschema_description:"descent in meters (TRACK only)"`
	TrackDifficulty     Null[int64]         `json:"trackDifficulty" cms:"track" jsonschema:"enum=1,enum=2,enum=3,enum=4,enum=5" jsonschema_description:"difficulty: 1 very low to 5 extreme (TRACK only)"`
	TrackStart          Langs[Null[string]] `json:"trackStart" cms:"track" jsonschema:"maxLength=100" jsonschema_description:"start place name (TRACK only)"`
	TrackEnd            Langs[Null[string]] `json:"trackEnd" cms:"track" jsonschema:"maxLength=100" jsonschema_description:"end place name (TRACK only)"`
	TrackFile           Null[string]        `json:"trackFile" cms:"trackfile,track" jsonschema:"maxLength=2000" jsonschema_description:"track to import: GPX or KML (TRACK only)"`
	HeadTitle           Langs[Null[string]] `json:"headTitle" jsonschema:"maxLength=100" jsonschema_description:"SEO title; falls back to title"`
	HeadDescription     Langs[Null[string]] `json:"headDescription" jsonschema:"maxLength=150" jsonschema_description:"SEO description; falls back to shortDescription"`
	HeadKeywords        Langs[Null[string]] `json:"headKeywords" jsonschema:"maxLength=150" jsonschema_description:"SEO keywords"`
	DeleteIrreversibly  Opt[bool]           `json:"deleteElementIrreversibly" cms:"writeonly" jsonschema_description:"true deletes the Resource irreversibly"`
}

// ResourceTypeTrack is the resourceType that marks a track; the TRACK-only
// fields may hold values only on such Resources.
const ResourceTypeTrack = "TRACK"

// Kind returns KindResource.
func (*Resource) Kind() Kind { return KindResource }

// RecordID returns r.ID.
func (r *Resource) RecordID() string { return r.ID }

// Common points at r's fields every kind has.
func (r *Resource) Common() Common {
	return Common{&r.ID, &r.Published, &r.TimeLastUpdate, &r.Title, &r.URLAlias, &r.DeleteIrreversibly}
}

func (r *Resource) setCreationDefaults() { r.HideInList = Some(false) }

func (r *Resource) location() (lat, lon Null[float64]) { return r.LocationLat, r.LocationLon }

func (r *Resource) addLists() []addList {
	return []addList{{&r.POIResourceIDs, &r.POIResourceIDsAdd}}
}

// assignment is the Resource's side: its Maps.
func (r *Resource) assignment() assignmentSide {
	return assignmentSide{other: KindMap,
		primary: &r.MapIDs, primaryAdd: &r.MapIDsAdd, secondary: &r.MapSecondaryIDs, secondaryAdd: &r.MapSecondaryIDsAdd,
		secondaryName: "mapSecondaryIds", secondaryAddName: "mapSecondaryIdsAdd",
		read: assignmentReader.ResourceMaps, write: assignmentWriter.SetResourceMaps}
}
