package location

import "testing"

func TestDetectRegion(t *testing.T) {
	cases := []struct {
		texts []string
		want  Region
	}{
		{[]string{"北京市朝阳区阜通东大街6号"}, RegionCN},
		{[]string{"coffee", "成都"}, RegionCN},
		{[]string{"hot pot in Chengdu"}, RegionCN},
		{[]string{"The Bund, SHANGHAI"}, RegionCN},
		{[]string{"Xi'an city wall"}, RegionCN},
		{[]string{"Eiffel Tower, Paris"}, RegionGlobal},
		{[]string{"1600 Amphitheatre Parkway"}, RegionGlobal},
		{[]string{"東京タワー"}, RegionGlobal}, // Japanese: kana beside the kanji
		{[]string{"서울 명동"}, RegionGlobal},
		{[]string{"Shanghainese restaurant in London"}, RegionGlobal}, // a word containing a city is not the city
		{[]string{"39.9,116.4"}, RegionGlobal},                        // coordinates alone decide nothing
		{[]string{"", "Hong Kong"}, RegionGlobal},
	}
	for _, c := range cases {
		if got := detectRegion(c.texts...); got != c.want {
			t.Errorf("%q: %s, want %s", c.texts, got, c.want)
		}
	}
}

func TestParseRegion(t *testing.T) {
	for in, want := range map[string]Region{"": "", "cn": RegionCN, "Amap": RegionCN, "global": RegionGlobal, "google": RegionGlobal} {
		if got, ok := parseRegion(in); !ok || got != want {
			t.Errorf("%q: %s %v", in, got, ok)
		}
	}
	if _, ok := parseRegion("mars"); ok {
		t.Error("mars accepted")
	}
}
