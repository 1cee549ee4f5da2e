package cms

// Map is a collection of primary and secondary Resources with centring,
// routing, filter and tour settings.
type Map struct {
	ID                           string              `json:"id" cms:"id" jsonschema:"required" jsonschema_description:"unique key"`
	Published                    Opt[bool]           `json:"published" jsonschema_description:"visibility for non-authenticated users"`
	TimeLastUpdate               string              `json:"timeLastUpdate" cms:"timestamp,readonly" jsonschema_description:"last update (YYYY-MM-DD HH:MM:SS, CET (UTC+1))"`
	Title                        Langs[string]       `json:"title" jsonschema:"maxLength=100" jsonschema_description:"title"`
	ShortDescription             Langs[Null[string]] `json:"shortDescription" jsonschema:"maxLength=160" jsonschema_description:"snippet"`
	Image                        Null[string]        `json:"image" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"featured image (jpg, png or webp)"`
	URLAlias                     Langs[string]       `json:"urlAlias" cms:"alias" jsonschema:"minLength=2,maxLength=500" jsonschema_description:"URL: starts with /, no protocol or host of the service"`
	CanonicalURL                 Null[string]        `json:"canonicalUrl" cms:"uri" jsonschema:"maxLength=500" jsonschema_description:"equivalent external resource"`
	LocationLat                  Null[float64]       `json:"locationLat" jsonschema:"minimum=-90,maximum=90" jsonschema_description:"initial centre latitude"`
	LocationLon                  Null[float64]       `json:"locationLon" jsonschema:"minimum=-180,maximum=180" jsonschema_description:"initial centre longitude"`
	LocationZoom                 Null[int64]         `json:"locationZoom" jsonschema:"minimum=2,maximum=25" jsonschema_description:"initial zoom"`
	MapLayerFile                 Null[string]        `json:"mapLayerFile" cms:"layer" jsonschema:"maxLength=2000" jsonschema_description:"overlay layer: KML or KMZ up to 2MB"`
	CTAOnMap                     Null[bool]          `json:"ctaOnMap" jsonschema_description:"floating CTA on map"`
	CTAOnImage                   Null[bool]          `json:"ctaOnImage" jsonschema_description:"floating CTA on image"`
	CTAURL                       Null[string]        `json:"ctaUrl" cms:"uri" jsonschema:"maxLength=1500" jsonschema_description:"CTA target"`
	CTALabel                     Langs[Null[string]] `json:"ctaLabel" jsonschema:"maxLength=20" jsonschema_description:"CTA text"`
	CTAValuePrefix               Langs[Null[string]] `json:"ctaValuePrefix" jsonschema:"maxLength=20" jsonschema_description:"prefix"`
	CTAValue                     Langs[Null[string]] `json:"ctaValue" jsonschema:"maxLength=20" jsonschema_description:"label"`
	CTAValueSufix                Langs[Null[string]] `json:"ctaValueSufix" jsonschema:"maxLength=20" jsonschema_description:"suffix"`
	ResourceIDs                  Null[[]string]      `json:"resourceIds" cms:"ref=resource,assign" jsonschema_description:"PRIMARY Resource ids, in order; replaces all existing"`
	ResourceIDsAdd               Null[[]string]      `json:"resourceIdsAdd" cms:"ref=resource,writeonly" jsonschema_description:"PRIMARY Resource ids, in order; added to existing"`
	TourMultiday                 Opt[[]TourDay]      `json:"tourMultiday" jsonschema_description:"per-day information of a multi-day tour"`
	SecondaryResourceIDs         Null[[]string]      `json:"secondaryResourceIds" cms:"ref=resource,assign" jsonschema_description:"SECONDARY Resource ids, in order; replaces all"`
	SecondaryResourceIDsAdd      Null[[]string]      `json:"secondaryResourceIdsAdd" cms:"ref=resource,writeonly" jsonschema_description:"SECONDARY Resource ids, in order; added"`
	POIResourceIDs               Null[[]string]      `json:"poiResourceIds" cms:"ref=resource" jsonschema_description:"POI Resource ids, in order; replaces all"`
	POIResourceIDsAdd            Null[[]string]      `json:"poiResourceIdsAdd" cms:"ref=resource,writeonly" jsonschema_description:"POI Resource ids, in order; added"`
	BrandedPOIIDs                Null[[]string]      `json:"brandedPoiIds" cms:"ref=resource" jsonschema_description:"branded POI Resource ids, in order; replaces all"`
	TrackResourceID              Null[string]        `json:"trackResourceId" cms:"ref=resource" jsonschema_description:"id of a TRACK-type Resource shown on the map"`
	RoutePlannerAuto             Opt[bool]           `json:"routePlannerAuto" jsonschema_description:"automatic route planner"`
	RoutePlannerMethod           Opt[string]         `json:"routePlannerMethod" jsonschema:"maxLength=100" jsonschema_description:"route calculation method"`
	RoutePlannerColor            Opt[string]         `json:"routePlannerColor" cms:"color" jsonschema_description:"route line colour, HTML hex format #RRGGBB"`
	RoutePlannerWidth            Opt[float64]        `json:"routePlannerWidth" jsonschema:"minimum=1,maximum=4" jsonschema_description:"route line width in pixels"`
	MapClusterize                Null[bool]          `json:"mapClusterize" jsonschema_description:"cluster markers"`
	MapLabel                     Langs[Null[string]] `json:"mapLabel" jsonschema:"maxLength=40" jsonschema_description:"short label"`
	CustomFilterFile             Null[string]        `json:"customFilterFile" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"custom filter icon (jpg, png or webp)"`
	CustomHeaderFile             Null[string]        `json:"customHeaderFile" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"custom header image (jpg, png or webp)"`
	CustomBrandedPOIFile         Null[string]        `json:"customBrandedPoiFile" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"custom branded POI marker icon (jpg, png or webp)"`
	CustomLoaderFile             Null[string]        `json:"customLoaderFile" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"custom loader image (jpg, png or webp)"`
	MapLayerType                 Opt[string]         `json:"mapLayerType" jsonschema:"maxLength=100" jsonschema_description:"geographic layer type at initialization"`
	MapMaxAutozoom               Null[int64]         `json:"mapMaxAutozoom" jsonschema:"minimum=2,maximum=25" jsonschema_description:"maximum zoom of auto-zoom after a filter"`
	MapIsTour                    Null[bool]          `json:"mapIsTour" jsonschema_description:"tour mode"`
	TrackResourceShowEffort      Null[bool]          `json:"trackResourceShowEffort" jsonschema_description:"show effort information for the trackResourceId Resource"`
	MapShowFilter                Null[bool]          `json:"mapShowFilter" jsonschema_description:"enable filter controls"`
	MapFilterType                Opt[string]         `json:"mapFilterType" jsonschema:"maxLength=100" jsonschema_description:"filter control configuration"`
	MapFilterCategorySwitch      Null[bool]          `json:"mapFilterCategorySwitch" jsonschema_description:"filter by Category"`
	MapFilterDifficultySwitch    Null[bool]          `json:"mapFilterDifficultySwitch" jsonschema_description:"filter by difficulty"`
	MapFilterDistanceSwitch      Null[bool]          `json:"mapFilterDistanceSwitch" jsonschema_description:"filter by distance"`
	MapFilterCircularSwitch      Null[bool]          `json:"mapFilterCircularSwitch" jsonschema_description:"filter by circular"`
	MapFilterCategories          Null[[]string]      `json:"mapFilterCategories" cms:"term" jsonschema:"maxItems=100" jsonschema_description:"Categories of the filter, in order; when absent, all Categories used in the map"`
	MapFilterCategoriesSecondary Null[[]string]      `json:"mapFilterCategoriesSecondary" cms:"term" jsonschema:"maxItems=100" jsonschema_description:"secondary filter Categories, in order"`
	MapCategories                Null[[]string]      `json:"mapCategories" cms:"term" jsonschema:"maxItems=100" jsonschema_description:"Categories for sorting and filtering Maps in the admin table, in order"`
	MapShowList                  Null[bool]          `json:"mapShowList" jsonschema_description:"enable the Resource gallery"`
	HeadTitle                    Langs[Null[string]] `json:"headTitle" jsonschema:"maxLength=100" jsonschema_description:"SEO title; falls back to title"`
	HeadDescription              Langs[Null[string]] `json:"headDescription" jsonschema:"maxLength=150" jsonschema_description:"SEO description; falls back to shortDescription"`
	HeadKeywords                 Langs[Null[string]] `json:"headKeywords" jsonschema:"maxLength=150" jsonschema_description:"SEO keywords"`
	DeleteIrreversibly           Opt[bool]           `json:"deleteElementIrreversibly" cms:"writeonly" jsonschema_description:"true deletes the Map irreversibly"`
}

// Kind returns KindMap.
func (*Map) Kind() Kind { return KindMap }

// RecordID returns m.ID.
func (m *Map) RecordID() string { return m.ID }

// Common points at m's fields every kind has.
func (m *Map) Common() Common {
	return Common{&m.ID, &m.Published, &m.TimeLastUpdate, &m.Title, &m.URLAlias, &m.DeleteIrreversibly}
}

// setCreationDefaults sets the route planner's settings.
func (m *Map) setCreationDefaults() {
	m.RoutePlannerAuto, m.RoutePlannerColor, m.RoutePlannerWidth = Some(false), Some("#3388ff"), Some(3.0)
}

func (m *Map) location() (lat, lon Null[float64]) { return m.LocationLat, m.LocationLon }

func (m *Map) addLists() []addList {
	return []addList{{&m.POIResourceIDs, &m.POIResourceIDsAdd}}
}

// assignment is the Map's side: its Resources.
func (m *Map) assignment() assignmentSide {
	return assignmentSide{other: KindResource,
		primary: &m.ResourceIDs, primaryAdd: &m.ResourceIDsAdd, secondary: &m.SecondaryResourceIDs, secondaryAdd: &m.SecondaryResourceIDsAdd,
		secondaryName: "secondaryResourceIds", secondaryAddName: "secondaryResourceIdsAdd",
		read: assignmentReader.MapResources, write: assignmentWriter.SetMapResources}
}

// TourDay is one item of a Map's tourMultiday list.
type TourDay struct {
	DayLabels        Opt[[]string]       `json:"dayLabels" cms:"daylabel" jsonschema:"maxItems=100" jsonschema_description:"days covered, labels of shape D1, D2, ..."`
	Title            Langs[Null[string]] `json:"title" jsonschema:"maxLength=100" jsonschema_description:"day title"`
	ShortDescription Langs[Null[string]] `json:"shortDescription" jsonschema:"maxLength=160" jsonschema_description:"day intro"`
	HTMLContent      Langs[Null[string]] `json:"htmlContent" cms:"html" jsonschema:"maxLength=32000" jsonschema_description:"day HTML text"`
	Image            Null[string]        `json:"image" cms:"image" jsonschema:"maxLength=2000" jsonschema_description:"gallery image (jpg, png or webp)"`
	ResourceIDs      Null[[]string]      `json:"resourceIds" cms:"ref=resource" jsonschema_description:"Resources visited that day, in order"`
}
