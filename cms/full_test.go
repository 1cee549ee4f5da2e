package cms

import (
	"bytes"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
)

// The fully populated fixtures: one record of every kind with every field
// holding a valid value other than its default, in the three languages
// en (default), it and de, with two fully populated items in every nested
// list. They are written out by hand, so that TestFullFixturesSetEveryField
// fails when a field is added to a record type and not here. Write-only
// fields (…Add, deleteElementIrreversibly) are never encoded, so the
// fixtures leave them unset and a round trip gives them back unchanged.

// testLangs are the three languages of the fully populated fixtures.
func testLangs(tb testing.TB) Languages {
	tb.Helper()
	l, err := NewLanguages("en", "en", "it", "de")
	if err != nil {
		tb.Fatal(err)
	}
	return l
}

func mustCodec(tb testing.TB, langs Languages) *Codec {
	tb.Helper()
	c, err := NewCodec(langs)
	if err != nil {
		tb.Fatal(err)
	}
	return c
}

// fullRecord returns the fully populated fixture of kind.
func fullRecord(tb testing.TB, kind Kind) Record {
	tb.Helper()
	switch kind {
	case KindResource:
		return fullResource(tb)
	case KindMap:
		return fullMap(tb)
	case KindLanding:
		return fullLanding(tb)
	case KindProposal:
		return fullProposal(tb)
	}
	tb.Fatalf("no full fixture of kind %q", kind)
	return nil
}

// tr is a multi-language value in en, it and de.
func tr(en, it, de string) Langs[string] { return Langs[string]{"en": en, "it": it, "de": de} }

// trn is a nullable multi-language value in en, it and de.
func trn(en, it, de string) Langs[Null[string]] {
	return Langs[Null[string]]{"en": NullOf(en), "it": NullOf(it), "de": NullOf(de)}
}

// fullResource is a TRACK Resource, so that the TRACK-only fields may hold
// values. Its texts carry characters the encoder must escape (quotes,
// backslashes, newlines, tabs) and non-ASCII ones it must not mangle.
func fullResource(tb testing.TB) *Resource {
	tb.Helper()
	return &Resource{
		ID:             "full-resource",
		Published:      Some(true),
		TimeLastUpdate: "2026-11-22 12:00:00",
		Title:          tr("Lake Como ring trail", "Anello del Lago di Como", "Comer-See-Rundweg"),
		ShortDescription: trn(
			"A two-day loop above the lake, with views of the \"three branches\".",
			"Un anello di due giorni sopra il lago, con vista sui «tre rami».",
			"Eine zweitägige Runde über dem See mit Blick auf die „drei Arme“.",
		),
		HTMLDescription: trn(
			"<p>Start in <strong>Como</strong>, end in <em>Bellagio</em>; the ferry takes you back.</p>",
			"<p>Partenza da <strong>Como</strong>, arrivo a <em>Bellagio</em>; si torna in battello.</p>",
			"<p>Start in <strong>Como</strong>, Ziel in <em>Bellagio</em>; zurück geht es mit der Fähre.</p>",
		),
		HTMLContent: trn(
			"<h2>Day one</h2>\n<p>From the Broletto square climb to Brunate on the funicular or on foot along the old mule track.\tThe path then follows the ridge to the San Maurizio lighthouse and on to Monte Boletto.</p>\n"+
				"<h2>Day two</h2>\n<p>Descend through chestnut woods to Lasnigo and the Ghisallo pass, where the cyclists' chapel stands.</p>\n<p>Path markers read C\\1 and C\\2; water at every village.</p>",
			"<h2>Primo giorno</h2>\n<p>Dalla piazza del Broletto si sale a Brunate con la funicolare o a piedi lungo la vecchia mulattiera.\tIl sentiero segue poi il crinale fino al faro di San Maurizio e al Monte Boletto.</p>\n"+
				"<h2>Secondo giorno</h2>\n<p>Si scende tra i castagneti verso Lasnigo e il passo del Ghisallo, dove sorge la cappella dei ciclisti.</p>\n<p>Segnavia C\\1 e C\\2; acqua in ogni paese.</p>",
			"<h2>Erster Tag</h2>\n<p>Vom Broletto-Platz steigt man mit der Standseilbahn oder zu Fuß auf dem alten Saumpfad nach Brunate.\tDer Weg folgt dann dem Grat zum Leuchtturm San Maurizio und weiter zum Monte Boletto.</p>\n"+
				"<h2>Zweiter Tag</h2>\n<p>Abstieg durch Kastanienwälder nach Lasnigo und zum Ghisallo-Pass mit der Kapelle der Radfahrer.</p>\n<p>Wegzeichen C\\1 und C\\2; Wasser in jedem Dorf.</p>",
		),
		Image:           NullOf("https://cdn.example.org/img/como-ring.webp"),
		Multimedia:      NullOf([]string{"https://cdn.example.org/img/brunate.jpg", "https://cdn.example.org/img/ghisallo.PNG?w=1200#top"}),
		MultimediaTitle: Some("Along the trail"),
		URLAlias:        tr("/trails/lake-como-ring", "/sentieri/anello-lago-di-como", "/wanderwege/comer-see-rundweg"),
		CanonicalURL: trn("https://www.example.org/en/como-ring", "https://www.example.org/it/anello-como",
			"https://www.example.org/de/comer-see-rundweg"),
		ExternalURL: trn("https://tourism.example.com/en/como?ref=cms", "https://tourism.example.com/it/como?ref=cms",
			"https://tourism.example.com/de/como?ref=cms"),
		ExternalURLLabel:   trn("More about Como", "Scopri Como", "Mehr über Como"),
		RedirectLoadTo:     NullOf("map:lake-como"),
		LocationLat:        NullOf(45.8081),
		LocationLon:        NullOf(9.0852),
		LocationZoom:       NullOf[int64](13),
		MapIDs:             NullOf([]string{"lake-como", "lombardy-trails"}),
		MapSecondaryIDs:    NullOf([]string{"italy-north", "alps-south"}),
		POIResourceIDs:     NullOf([]string{"brunate-funicular", "ghisallo-chapel"}),
		HideInList:         Some(true),
		ResourceType:       Some(ResourceTypeTrack),
		ResourceCategories: NullOf([]string{"hiking", "lakes"}),
		ResourceRegions:    NullOf([]string{"lombardy", "province-of-como"}),
		ResourceStage:      NullOf([]string{"new", "family"}),
		ResourceMapLayer:   Some("terrain"),
		MapLayerFile:       NullOf("https://cdn.example.org/layers/como-ring.kmz"),
		ContactAddress:     NullOf("Piazza Cavour 17"),
		ContactCity:        NullOf("Como"),
		ContactPostalCode:  NullOf("22100"),
		ContactProvince:    NullOf("CO"),
		ContactPhone:       NullOf("+39 031 269712"),
		ContactEmail:       NullOf("info@como-trails.example.org"),
		ContactURL:         NullOf("https://como-trails.example.org/"),
		OpeningTimes: trn("Open all year; the funicular runs 6:00–22:30.", "Aperto tutto l'anno; la funicolare va dalle 6:00 alle 22:30.",
			"Ganzjährig geöffnet; die Standseilbahn fährt 6:00–22:30 Uhr."),
		CTAOnMap:            NullOf(true),
		CTAOnImage:          NullOf(true),
		CTAURL:              NullOf("https://booking.example.com/como-ring?lang=en"),
		CTALabel:            trn("Book a guide", "Prenota guida", "Führer buchen"),
		CTAValuePrefix:      trn("from", "da", "ab"),
		CTAValue:            trn("€ 45", "45 €", "45,00 €"),
		CTAValueSufix:       trn("per person", "a persona", "pro Person"),
		TrackCircular:       NullOf(true),
		TrackEffortDataShow: NullOf(true),
		TrackAltitudeShow:   NullOf(true),
		TrackHoverShow:      NullOf(true),
		TrackDuration:       NullOf[int64](735),
		TrackTravelDistance: NullOf[int64](31250),
		TrackSlopeUp:        NullOf[int64](1480),
		TrackSlopeDown:      NullOf[int64](1475),
		TrackDifficulty:     NullOf[int64](3),
		TrackStart:          trn("Como, Broletto square", "Como, piazza del Broletto", "Como, Broletto-Platz"),
		TrackEnd:            trn("Bellagio ferry pier", "Bellagio, imbarcadero", "Bellagio, Fähranleger"),
		TrackFile:           NullOf("https://cdn.example.org/tracks/como-ring.gpx"),
		HeadTitle:           trn("Lake Como ring trail – two days", "Anello del Lago di Como – due giorni", "Comer-See-Rundweg – zwei Tage"),
		HeadDescription: trn("A two-day hike from Como to Bellagio.", "Due giorni a piedi da Como a Bellagio.",
			"Zwei Tage zu Fuß von Como nach Bellagio."),
		HeadKeywords: trn("lake como, hiking, bellagio", "lago di como, trekking, bellagio", "comer see, wandern, bellagio"),
	}
}

// fullMap is a tour Map with two days; its centre is west of Greenwich to
// carry a negative number.
func fullMap(tb testing.TB) *Map {
	tb.Helper()
	return &Map{
		ID:             "full-map",
		Published:      Some(true),
		TimeLastUpdate: "2026-11-22 12:00:00",
		Title:          tr("Camino Portugués", "Cammino portoghese", "Portugiesischer Jakobsweg"),
		ShortDescription: trn("From Porto to Santiago in twelve stages.", "Da Porto a Santiago in dodici tappe.",
			"Von Porto nach Santiago in zwölf Etappen."),
		Image:          NullOf("https://cdn.example.org/img/camino.jpeg"),
		URLAlias:       tr("/maps/camino-portugues", "/mappe/cammino-portoghese", "/karten/portugiesischer-jakobsweg"),
		CanonicalURL:   NullOf("https://www.example.org/camino-portugues"),
		LocationLat:    NullOf(42.2406),
		LocationLon:    NullOf(-8.7207),
		LocationZoom:   NullOf[int64](8),
		MapLayerFile:   NullOf("https://cdn.example.org/layers/camino.kml"),
		CTAOnMap:       NullOf(true),
		CTAOnImage:     NullOf(true),
		CTAURL:         NullOf("https://booking.example.com/camino"),
		CTALabel:       trn("Plan your walk", "Pianifica", "Planen"),
		CTAValuePrefix: trn("only", "solo", "nur"),
		CTAValue:       trn("12 stages", "12 tappe", "12 Etappen"),
		CTAValueSufix:  trn("to go", "da fare", "vor dir"),
		ResourceIDs:    NullOf([]string{"porto-cathedral", "santiago-cathedral"}),
		TourMultiday: Some([]TourDay{
			{
				DayLabels:        Some([]string{"D1"}),
				Title:            trn("Porto to Vilarinho", "Da Porto a Vilarinho", "Von Porto nach Vilarinho"),
				ShortDescription: trn("Out of the city along the coast.", "Fuori città lungo la costa.", "Aus der Stadt an der Küste entlang."),
				HTMLContent: trn("<p>27 km, mostly flat.</p>", "<p>27 km, quasi tutti in piano.</p>",
					"<p>27 km, meist flach.</p>"),
				Image:       NullOf("https://cdn.example.org/img/day1.png"),
				ResourceIDs: NullOf([]string{"porto-cathedral", "vilarinho-albergue"}),
			},
			{
				DayLabels:        Some([]string{"D2", "D3"}),
				Title:            trn("Vilarinho to Barcelos", "Da Vilarinho a Barcelos", "Von Vilarinho nach Barcelos"),
				ShortDescription: trn("Two short days through vineyards.", "Due giorni brevi tra le vigne.", "Zwei kurze Tage durch Weinberge."),
				HTMLContent: trn("<p>Rest day in <em>Barcelos</em>.</p>", "<p>Giorno di riposo a <em>Barcelos</em>.</p>",
					"<p>Ruhetag in <em>Barcelos</em>.</p>"),
				Image:       NullOf("https://cdn.example.org/img/day2.webp"),
				ResourceIDs: NullOf([]string{"barcelos-rooster", "barcelos-market"}),
			},
		}),
		SecondaryResourceIDs:         NullOf([]string{"vigo-bay", "pontevedra-old-town"}),
		POIResourceIDs:               NullOf([]string{"porto-cathedral", "santiago-cathedral"}),
		BrandedPOIIDs:                NullOf([]string{"hotel-partner-1", "hotel-partner-2"}),
		TrackResourceID:              NullOf("camino-track"),
		RoutePlannerAuto:             Some(true),
		RoutePlannerMethod:           Some("foot-hiking"),
		RoutePlannerColor:            Some("#C0FFEE"),
		RoutePlannerWidth:            Some(2.5),
		MapClusterize:                NullOf(true),
		MapLabel:                     trn("Camino", "Cammino", "Jakobsweg"),
		CustomFilterFile:             NullOf("https://cdn.example.org/img/filter.png"),
		CustomHeaderFile:             NullOf("https://cdn.example.org/img/header.jpg"),
		CustomBrandedPOIFile:         NullOf("https://cdn.example.org/img/branded.webp"),
		CustomLoaderFile:             NullOf("https://cdn.example.org/img/loader.jpg"),
		MapLayerType:                 Some("satellite"),
		MapMaxAutozoom:               NullOf[int64](16),
		MapIsTour:                    NullOf(true),
		TrackResourceShowEffort:      NullOf(true),
		MapShowFilter:                NullOf(true),
		MapFilterType:                Some("categories"),
		MapFilterCategorySwitch:      NullOf(true),
		MapFilterDifficultySwitch:    NullOf(true),
		MapFilterDistanceSwitch:      NullOf(true),
		MapFilterCircularSwitch:      NullOf(true),
		MapFilterCategories:          NullOf([]string{"albergue", "church"}),
		MapFilterCategoriesSecondary: NullOf([]string{"food", "water"}),
		MapCategories:                NullOf([]string{"pilgrimage", "portugal"}),
		MapShowList:                  NullOf(true),
		HeadTitle:                    trn("Camino Portugués map", "Mappa del Cammino portoghese", "Karte des Portugiesischen Jakobswegs"),
		HeadDescription:              trn("Stages, hostels and sights.", "Tappe, ostelli e luoghi.", "Etappen, Herbergen und Sehenswertes."),
		HeadKeywords:                 trn("camino, porto, santiago", "cammino, porto, santiago", "jakobsweg, porto, santiago"),
	}
}

func fullLanding(tb testing.TB) *Landing {
	tb.Helper()
	return &Landing{
		ID:               "full-landing",
		Published:        Some(true),
		TimeLastUpdate:   "2026-11-22 12:00:00",
		Title:            tr("Winter in the Dolomites", "Inverno nelle Dolomiti", "Winter in den Dolomiten"),
		ShortDescription: trn("Skiing, snowshoes and huts.", "Sci, ciaspole e rifugi.", "Ski, Schneeschuhe und Hütten."),
		HTMLDescription: trn("<p>Everything for a <b>white</b> week.</p>", "<p>Tutto per una settimana <b>bianca</b>.</p>",
			"<p>Alles für eine <b>weiße</b> Woche.</p>"),
		HTMLContent: trn("<p>Twelve valleys, one ski pass.</p>", "<p>Dodici valli, uno skipass.</p>",
			"<p>Zwölf Täler, ein Skipass.</p>"),
		Image:               NullOf("https://cdn.example.org/img/dolomites.jpg"),
		URLAlias:            tr("/winter-dolomites", "/inverno-dolomiti", "/winter-dolomiten"),
		CanonicalURL:        trn("https://www.example.org/en/winter", "https://www.example.org/it/inverno", "https://www.example.org/de/winter"),
		AlternativeView:     NullOf("gallery"),
		Proposal:            Some(true),
		ProposalSummary:     trn("<p>7 nights, half board.</p>", "<p>7 notti, mezza pensione.</p>", "<p>7 Nächte, Halbpension.</p>"),
		ProposalCalendar:    trn("<ul><li>Dec–Apr</li></ul>", "<ul><li>dic–apr</li></ul>", "<ul><li>Dez–Apr</li></ul>"),
		ProposalDescription: trn("<p>Hotel and ski pass.</p>", "<p>Hotel e skipass.</p>", "<p>Hotel und Skipass.</p>"),
		LandingCategories:   NullOf([]string{"winter", "mountains"}),
		LandingBlocks: Some([]LandingBlock{
			{
				Title:            tr("Ski areas", "Comprensori", "Skigebiete"),
				ShortDescription: trn("1,200 km of slopes.", "1.200 km di piste.", "1.200 km Pisten."),
				HTMLContent:      trn("<p>Sella Ronda.</p>", "<p>Sellaronda.</p>", "<p>Sellarunde.</p>"),
				ResourceIDs:      NullOf([]string{"map-sella-ronda", "landing-val-gardena"}),
			},
			{
				Title:            tr("Huts", "Rifugi", "Hütten"),
				ShortDescription: trn("Lunch at 2,000 m.", "Pranzo a 2.000 m.", "Mittagessen auf 2.000 m."),
				HTMLContent:      trn("<p>Try the <i>canederli</i>.</p>", "<p>Prova i <i>canederli</i>.</p>", "<p>Probier die <i>Knödel</i>.</p>"),
				ResourceIDs:      NullOf([]string{"map-huts", "landing-food"}),
			},
		}),
		LandingHotels: Some([]LandingHotel{
			{
				Title:            tr("Ski-in hotels", "Hotel sulle piste", "Hotels an der Piste"),
				ShortDescription: trn("Step out onto the snow.", "Si esce sulla neve.", "Direkt auf den Schnee."),
				HTMLContent:      trn("<p>Breakfast from 7.</p>", "<p>Colazione dalle 7.</p>", "<p>Frühstück ab 7.</p>"),
				ResourceIDs:      NullOf([]string{"hotel-ciasa", "hotel-sella"}),
			},
			{
				Title:            tr("Family hotels", "Hotel per famiglie", "Familienhotels"),
				ShortDescription: trn("Kids' club included.", "Miniclub incluso.", "Kinderclub inklusive."),
				HTMLContent:      trn("<p>Pool and sauna.</p>", "<p>Piscina e sauna.</p>", "<p>Pool und Sauna.</p>"),
				ResourceIDs:      NullOf([]string{"hotel-family-1", "hotel-family-2"}),
			},
		}),
		ButtonViewMapLabel: trn("Show the map", "Mostra la mappa", "Karte zeigen"),
		MapIntro:           trn("All areas at a glance.", "Tutte le aree in un colpo d'occhio.", "Alle Gebiete auf einen Blick."),
		MapID:              Some("dolomites-winter"),
		CTAOnMap:           NullOf(true),
		CTAURL:             NullOf("https://booking.example.com/dolomites"),
		CTALabel:           trn("Book now", "Prenota ora", "Jetzt buchen"),
		CTAValuePrefix:     trn("from", "da", "ab"),
		CTAValue:           trn("€ 890", "890 €", "890,00 €"),
		CTAValueSufix:      trn("per week", "a settimana", "pro Woche"),
		HeadTitle:          trn("Winter in the Dolomites", "Inverno nelle Dolomiti", "Winter in den Dolomiten"),
		HeadDescription:    trn("Ski weeks in the Dolomites.", "Settimane bianche nelle Dolomiti.", "Skiwochen in den Dolomiten."),
		HeadKeywords:       trn("dolomites, ski", "dolomiti, sci", "dolomiten, ski"),
	}
}

func fullProposal(tb testing.TB) *Proposal {
	tb.Helper()
	return &Proposal{
		ID:             "full-proposal",
		Published:      Some(true),
		TimeLastUpdate: "2026-11-22 12:00:00",
		Title:          tr("Tuscany for the Rossi family", "Toscana per la famiglia Rossi", "Toskana für Familie Rossi"),
		ShortDescription: trn("A week between Siena and the sea.", "Una settimana tra Siena e il mare.",
			"Eine Woche zwischen Siena und dem Meer."),
		HTMLDescription: trn("<p>Prepared for you.</p>", "<p>Preparato per voi.</p>", "<p>Für Sie vorbereitet.</p>"),
		HTMLContent:     trn("<p>Day by day.</p>", "<p>Giorno per giorno.</p>", "<p>Tag für Tag.</p>"),
		Image:           NullOf("https://cdn.example.org/img/tuscany.webp"),
		URLAlias:        tr("/p/rossi-tuscany", "/p/rossi-toscana", "/p/rossi-toskana"),
		CanonicalURL:    trn("https://www.example.org/en/p/rossi", "https://www.example.org/it/p/rossi", "https://www.example.org/de/p/rossi"),
		InfoSummary:     trn("<p>Flights not included.</p>", "<p>Voli non inclusi.</p>", "<p>Flüge nicht inbegriffen.</p>"),
		RelatedContents: Some([]RelatedContent{
			{
				Title:            tr("Siena (city)", "Siena (città)", "Siena (Stadt)"),
				ShortDescription: trn("The Palio city.", "La città del Palio.", "Die Stadt des Palio."),
				HTMLContent:      trn("<p>Piazza del Campo.</p>", "<p>Piazza del Campo, il cuore.</p>", "<p>Der Campo.</p>"),
			},
			{
				Title:            tr("The coast", "La costa", "Die Küste"),
				ShortDescription: trn("Beaches near Grosseto.", "Spiagge vicino a Grosseto.", "Strände bei Grosseto."),
				HTMLContent:      trn("<p>Sea and pines.</p>", "<p>Mare e pini.</p>", "<p>Meer und Pinien.</p>"),
			},
		}),
		Hotels: Some([]Hotel{
			{
				Title:            tr("In Siena", "A Siena", "In der Altstadt von Siena"),
				ShortDescription: trn("Inside the walls.", "Dentro le mura.", "Innerhalb der Mauern."),
				HTMLContent:      trn("<p>Three nights.</p>", "<p>Tre notti.</p>", "<p>Drei Nächte.</p>"),
				ResourceIDs:      NullOf([]string{"hotel-siena-1", "hotel-siena-2"}),
			},
			{
				Title:            tr("By the sea", "Al mare", "Am Meer"),
				ShortDescription: trn("A family resort.", "Un resort per famiglie.", "Ein Familienresort."),
				HTMLContent:      trn("<p>Four nights.</p>", "<p>Quattro notti.</p>", "<p>Vier Nächte.</p>"),
				ResourceIDs:      NullOf([]string{"resort-maremma", "hotel-castiglione"}),
			},
		}),
		ButtonViewMapLabel: trn("See the route", "Vedi il percorso", "Route ansehen"),
		MapID:              Some("tuscany-rossi"),
		CTAURL:             NullOf("https://booking.example.com/p/rossi"),
		CTALabel:           trn("Confirm", "Conferma", "Bestätigen"),
		CTAValuePrefix:     trn("total", "totale", "gesamt"),
		CTAValue:           trn("€ 3,480", "3.480 €", "3.480,00 €"),
		CTAValueSufix:      trn("for four", "per quattro", "für vier"),
		CustomerID:         NullOf("customer-rossi-042"),
		GroupName:          NullOf("Rossi family"),
		TripDates:          NullOf("2027-07-10 to 2027-07-17"),
		PaxNum:             NullOf("2 adults, 2 children"),
		RoomsNum:           NullOf("2"),
		Pricing:            NullOf("<p>€ 3,480 <small>all taxes included</small></p>"),
		ExpireDate:         NullOf("2027-03-31"),
		TypeSchema:         Some("family"),
		StatsAccess:        7,
		StatsLastAccess:    NullOf("2026-11-21 18:45:10"),
	}
}

// unsetFields lists the paths of the fields of struct v (a record or a
// nested item) that do not hold a value other than their default: a plain
// field at its zero value, an Opt or Null not set, a null, a false, an
// empty string, list or number, a multi-language field missing one of
// langs, holding a language outside langs, or the same text in two
// languages. Nested item lists must hold two items, each checked alike.
// Write-only fields are the other way round: they must be unset, since
// they are never encoded.
func unsetFields(v reflect.Value, langs []string, prefix string) []string {
	var unset []string
	t := v.Type()
	for i := range t.NumField() {
		sf := t.Field(i)
		fv := v.Field(i)
		path := prefix + sf.Name
		if slices.Contains(strings.Split(sf.Tag.Get("cms"), ","), "writeonly") {
			if !fv.IsZero() {
				unset = append(unset, path+" (write-only, must be unset)")
			}
			continue
		}
		unset = append(unset, unsetValue(fv, langs, path)...)
	}
	return unset
}

func unsetValue(fv reflect.Value, langs []string, path string) []string {
	switch {
	case fv.Kind() == reflect.Map: // Langs
		var unset []string
		seen := map[string]string{}
		for _, lang := range langs {
			lv := fv.MapIndex(reflect.ValueOf(lang))
			if !lv.IsValid() {
				unset = append(unset, path+"["+lang+"] (missing)")
				continue
			}
			unset = append(unset, unsetValue(lv, langs, path+"["+lang+"]")...)
			text := fmt.Sprint(lv.Interface())
			if other, ok := seen[text]; ok {
				unset = append(unset, path+"["+lang+"] (same as "+other+")")
			}
			seen[text] = lang
		}
		for _, key := range fv.MapKeys() {
			if !slices.Contains(langs, key.String()) {
				unset = append(unset, path+"["+key.String()+"] (not a configured language)")
			}
		}
		return unset
	case fv.Kind() == reflect.Struct && fv.FieldByName("Set").IsValid(): // Opt, Null
		if !fv.FieldByName("Set").Bool() {
			return []string{path + " (not set)"}
		}
		if valid := fv.FieldByName("Valid"); valid.IsValid() && !valid.Bool() {
			return []string{path + " (null)"}
		}
		return unsetValue(fv.FieldByName("Value"), langs, path)
	case fv.Kind() == reflect.Slice && fv.Type().Elem().Kind() == reflect.Struct: // nested items
		if fv.Len() != 2 {
			return []string{fmt.Sprintf("%s (%d items, want 2)", path, fv.Len())}
		}
		var unset []string
		for i := range fv.Len() {
			unset = append(unset, unsetFields(fv.Index(i), langs, fmt.Sprintf("%s[%d].", path, i))...)
		}
		return unset
	case fv.Kind() == reflect.Slice:
		if fv.Len() == 0 {
			return []string{path + " (empty list)"}
		}
		var unset []string
		for i := range fv.Len() {
			unset = append(unset, unsetValue(fv.Index(i), langs, fmt.Sprintf("%s[%d]", path, i))...)
		}
		return unset
	case fv.IsZero():
		return []string{path + " (zero)"}
	}
	return nil
}

// TestFullFixturesSetEveryField guards the fixtures: a field added to a
// record type (or to a nested item) and not to its fixture fails here.
// Example, which the storage conformance suite stores, is held to the same
// standard.
func TestFullFixturesSetEveryField(t *testing.T) {
	t.Parallel()
	langs := testLangs(t)
	for _, kind := range Kinds() {
		if got := unsetFields(reflect.ValueOf(fullRecord(t, kind)).Elem(), langs.All, ""); len(got) > 0 {
			t.Errorf("%s fixture leaves fields unset:\n%s", kind, strings.Join(got, "\n"))
		}
		// Example truncates its texts to the field's size, so short fields
		// may repeat one text in every language; only that is forgiven.
		got := unsetFields(reflect.ValueOf(SampleRecord(kind, langs)).Elem(), langs.All, "")
		got = slices.DeleteFunc(got, func(s string) bool { return strings.Contains(s, "(same as ") })
		if len(got) > 0 {
			t.Errorf("%s Example leaves fields unset:\n%s", kind, strings.Join(got, "\n"))
		}
	}
	if r := fullResource(t); r.ResourceType.Value != ResourceTypeTrack {
		t.Errorf("fullResource: resourceType %q, want TRACK so the TRACK-only fields may hold values", r.ResourceType.Value)
	}
}

// TestUnsetFieldsFinds checks the checker: each way of leaving a field
// unset is reported.
func TestUnsetFieldsFinds(t *testing.T) {
	t.Parallel()
	langs := testLangs(t).All
	for _, tc := range []struct {
		name  string
		spoil func(m *Map)
		want  string
	}{
		{"opt unset", func(m *Map) { m.Published = Opt[bool]{} }, "Published (not set)"},
		{"false", func(m *Map) { m.Published = Some(false) }, "Published (zero)"},
		{"null", func(m *Map) { m.Image = Nil[string]() }, "Image (null)"},
		{"plain zero", func(m *Map) { m.TimeLastUpdate = "" }, "TimeLastUpdate (zero)"},
		{"empty list", func(m *Map) { m.MapCategories = NullOf([]string{}) }, "MapCategories (empty list)"},
		{"empty list item", func(m *Map) { m.MapCategories.Value[1] = "" }, "MapCategories[1] (zero)"},
		{"language missing", func(m *Map) { delete(m.Title, "de") }, "Title[de] (missing)"},
		{"language null", func(m *Map) { m.MapLabel["it"] = Nil[string]() }, "MapLabel[it] (null)"},
		{"language unknown", func(m *Map) { m.MapLabel["fr"] = NullOf("Chemin") }, "MapLabel[fr] (not a configured language)"},
		{"language copied", func(m *Map) { m.MapLabel["de"] = m.MapLabel["it"] }, "MapLabel[de] (same as it)"},
		{"one item", func(m *Map) { m.TourMultiday.Value = m.TourMultiday.Value[:1] }, "TourMultiday (1 items, want 2)"},
		{"item field", func(m *Map) { m.TourMultiday.Value[1].Image = Null[string]{} }, "TourMultiday[1].Image (not set)"},
		{"item language", func(m *Map) { delete(m.TourMultiday.Value[0].Title, "it") }, "TourMultiday[0].Title[it] (missing)"},
		{"write-only set", func(m *Map) { m.ResourceIDsAdd = Nil[[]string]() }, "ResourceIDsAdd (write-only, must be unset)"},
	} {
		m := fullMap(t)
		tc.spoil(m)
		if got := unsetFields(reflect.ValueOf(m).Elem(), langs, ""); !slices.Contains(got, tc.want) {
			t.Errorf("%s: got %q, want it to contain %q", tc.name, got, tc.want)
		}
	}
}

// TestRoundTrip: every full fixture is valid, decodes from its own
// encoding to a deeply equal record (nothing lost) and encodes again to the
// same bytes.
func TestRoundTrip(t *testing.T) {
	t.Parallel()
	c := mustCodec(t, testLangs(t))
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			want := fullRecord(t, kind)
			if err := c.Validate(want); err != nil {
				t.Fatalf("full fixture invalid: %v", err)
			}
			first := c.Marshal(want)
			got := NewRecord(kind)
			if err := c.Decode(first, got); err != nil {
				t.Fatalf("decode own output: %v\n%s", err, first)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decode(encode(x)) differs from x\n got: %+v\nwant: %+v", got, want)
			}
			if second := c.Marshal(got); !bytes.Equal(second, first) {
				t.Fatalf("second encoding differs:\n%s\n%s", first, second)
			}
			if appended := c.Append([]byte("prefix"), got); !bytes.Equal(appended, append([]byte("prefix"), first...)) {
				t.Fatalf("Append differs from Marshal:\n%s\n%s", appended, first)
			}
		})
	}
}

// TestDocumentRoundTrip: the storage form keeps everything but the
// read-only, write-only and assignment fields, whatever the languages.
func TestDocumentRoundTrip(t *testing.T) {
	t.Parallel()
	c := mustCodec(t, testLangs(t))
	docs := NewDocumentCodec()
	for _, kind := range Kinds() {
		want := fullRecord(t, kind)
		got := NewRecord(kind)
		if err := docs.Decode(docs.Marshal(want), got); err != nil {
			t.Fatalf("%s: document round trip: %v", kind, err)
		}
		if gotJSON, wantJSON := c.Marshal(got), c.Marshal(withoutStoredElsewhere(want)); !bytes.Equal(gotJSON, wantJSON) {
			t.Errorf("%s: document round trip lost data:\n got: %s\nwant: %s", kind, gotJSON, wantJSON)
		}
	}
}

// withoutStoredElsewhere clears what a document does not hold.
func withoutStoredElsewhere(rec Record) Record {
	switch r := rec.(type) {
	case *Resource:
		c := *r
		c.TimeLastUpdate, c.MapIDs, c.MapSecondaryIDs = "", Null[[]string]{}, Null[[]string]{}
		return &c
	case *Map:
		c := *r
		c.TimeLastUpdate, c.ResourceIDs, c.SecondaryResourceIDs = "", Null[[]string]{}, Null[[]string]{}
		return &c
	case *Landing:
		c := *r
		c.TimeLastUpdate = ""
		return &c
	case *Proposal:
		c := *r
		c.TimeLastUpdate, c.StatsAccess, c.StatsLastAccess = "", 0, Null[string]{}
		return &c
	}
	return rec
}

// nullEveryNullable sets every readable nullable field of struct v, in
// every language and in every nested item, to an explicit null, and
// returns how many wire members that makes.
func nullEveryNullable(v reflect.Value) int {
	n := 0
	t := v.Type()
	for i := range t.NumField() {
		fv := v.Field(i)
		if slices.Contains(strings.Split(t.Field(i).Tag.Get("cms"), ","), "writeonly") {
			continue
		}
		switch {
		case fv.Kind() == reflect.Struct && fv.FieldByName("Valid").IsValid(): // Null
			fv.Set(reflect.Zero(fv.Type()))
			fv.FieldByName("Set").SetBool(true)
			n++
		case fv.Type() == reflect.TypeFor[Langs[Null[string]]]():
			for _, key := range fv.MapKeys() {
				fv.SetMapIndex(key, reflect.ValueOf(Nil[string]()))
				n++
			}
		case fv.Kind() == reflect.Struct && fv.Field(0).Kind() == reflect.Slice && fv.Field(0).Type().Elem().Kind() == reflect.Struct:
			for j := range fv.Field(0).Len() {
				n += nullEveryNullable(fv.Field(0).Index(j))
			}
		}
	}
	return n
}

// TestRoundTripKeepsNulls: a record whose nullable fields are all explicit
// nulls is valid, encodes each as null and decodes to explicit nulls again
// (not to absent fields, which an update would read as "keep").
func TestRoundTripKeepsNulls(t *testing.T) {
	t.Parallel()
	c := mustCodec(t, testLangs(t))
	for _, kind := range Kinds() {
		t.Run(string(kind), func(t *testing.T) {
			t.Parallel()
			want := fullRecord(t, kind)
			wantNulls := nullEveryNullable(reflect.ValueOf(want).Elem())
			if err := c.Validate(want); err != nil {
				t.Fatalf("all-null record invalid: %v", err)
			}
			first := c.Marshal(want)
			if gotNulls := countNulls(t, first); gotNulls != wantNulls {
				t.Errorf("encoding holds %d nulls, want %d:\n%s", gotNulls, wantNulls, first)
			}
			got := NewRecord(kind)
			if err := c.Decode(first, got); err != nil {
				t.Fatalf("decode: %v\n%s", err, first)
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("decode(encode(x)) differs from x\n got: %+v\nwant: %+v", got, want)
			}
			if second := c.Marshal(got); !bytes.Equal(second, first) {
				t.Fatalf("second encoding differs:\n%s\n%s", first, second)
			}
		})
	}

	// The same by hand, on a few fields of each shape.
	want := &Resource{ID: "nulls", URLAlias: tr("/n", "/n-it", "/n-de"), Image: Nil[string](), Multimedia: Nil[[]string](),
		LocationZoom: Nil[int64](), LocationLat: Nil[float64](), CTAOnMap: Nil[bool](),
		ShortDescription: Langs[Null[string]]{"en": Nil[string](), "it": NullOf("breve"), "de": Nil[string]()}}
	got := &Resource{}
	if err := c.Decode(c.Marshal(want), got); err != nil {
		t.Fatal(err)
	}
	if got.Image != Nil[string]() || got.LocationZoom != Nil[int64]() || got.LocationLat != Nil[float64]() || got.CTAOnMap != Nil[bool]() {
		t.Errorf("got image %+v, locationZoom %+v, locationLat %+v, ctaOnMap %+v, want explicit nulls",
			got.Image, got.LocationZoom, got.LocationLat, got.CTAOnMap)
	}
	if !got.Multimedia.Set || got.Multimedia.Valid || got.Multimedia.Value != nil {
		t.Errorf("got multimedia %+v, want an explicit null", got.Multimedia)
	}
	if got.ShortDescription["en"] != Nil[string]() || got.ShortDescription["it"] != NullOf("breve") || got.ShortDescription["de"] != Nil[string]() {
		t.Errorf("got shortDescription %+v, want en and de null, it \"breve\"", got.ShortDescription)
	}
}

// countNulls counts the null literals in a JSON text.
func countNulls(tb testing.TB, data []byte) int {
	tb.Helper()
	dec := jsontext.NewDecoder(bytes.NewReader(data))
	n := 0
	for {
		tok, err := dec.ReadToken()
		if err != nil {
			return n
		}
		if tok.Kind() == 'n' {
			n++
		}
	}
}

// resourceContractFields are the readable fields of the contract's Resource
// table, in its order (write-only mapIdsAdd, mapSecondaryIdsAdd,
// poiResourceIdsAdd and deleteElementIrreversibly left out), and
// resourceContractMultiLang its list of multi-language Resource fields,
// both copied from the API's specification.
const (
	resourceContractFields = `id published timeLastUpdate title shortDescription htmlDescription htmlContent image
		multimedia multimediaTitle urlAlias canonicalUrl externalUrl externalUrlLabel redirectLoadTo locationLat
		locationLon locationZoom mapIds mapSecondaryIds poiResourceIds hideInList resourceType resourceCategories
		resourceRegions resourceStage resourceMapLayerType mapLayerFile contactAddress contactCity contactPostalCode
		contactProvince contactPhone contactEmail contactUrl openingTimes ctaOnMap ctaOnImage ctaUrl ctaLabel
		ctaValuePrefix ctaValue ctaValueSufix trackCircular trackEffortDataShow trackAltitudeShow trackHoverShow
		trackDurationMinutes trackTravelDistance trackSlopeUp trackSlopeDown trackDifficulty trackStart trackEnd
		trackFile headTitle headDescription headKeywords`
	resourceContractMultiLang = `title, shortDescription, htmlDescription, htmlContent, urlAlias, canonicalUrl,
		externalUrl, externalUrlLabel, ctaValuePrefix, ctaValue, ctaValueSufix, ctaLabel, openingTimes, trackStart,
		trackEnd, headKeywords, headTitle, headDescription`
)

// TestFullResourceJSON: the encoded full Resource in en, it and de is a
// body of about 3 KB or more holding exactly the contract's keys, in the
// contract's order (each language right after the default one), each with
// a value other than its default.
func TestFullResourceJSON(t *testing.T) {
	t.Parallel()
	langs := testLangs(t)
	c := mustCodec(t, langs)
	body := c.Marshal(fullResource(t))
	t.Logf("full Resource in en, it, de: %d bytes", len(body))
	if len(body) < 3000 {
		t.Errorf("full Resource is %d bytes, want at least 3000", len(body))
	}

	multiLang := strings.Fields(strings.ReplaceAll(resourceContractMultiLang, ",", " "))
	var want []string
	for _, name := range strings.Fields(resourceContractFields) {
		want = append(want, name)
		if slices.Contains(multiLang, name) {
			for _, lang := range langs.Others() {
				want = append(want, name+"_"+lang)
			}
		}
	}

	var got []string
	dec := jsontext.NewDecoder(bytes.NewReader(body))
	if _, err := dec.ReadToken(); err != nil {
		t.Fatal(err)
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, name.String())
		value, err := dec.ReadValue()
		if err != nil {
			t.Fatal(err)
		}
		switch string(value) {
		case "null", `""`, "[]", "false", "0":
			t.Errorf("%s: default value %s", name.String(), value)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("keys differ from the contract's\n got: %q\nwant: %q", got, want)
		for _, name := range want {
			if !slices.Contains(got, name) {
				t.Errorf("missing key %s", name)
			}
		}
		for _, name := range got {
			if !slices.Contains(want, name) {
				t.Errorf("key %s is not in the contract", name)
			}
		}
	}
}
