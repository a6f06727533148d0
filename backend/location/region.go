package location

import (
	"regexp"
	"strings"
	"unicode"
)

// Region is which map service answers a call.
type Region string

// The regions: mainland China is Amap's, the rest of the world Google's.
const (
	RegionCN     Region = "cn"
	RegionGlobal Region = "global"
)

// parseRegion reads the tool's region argument; "" means detect.
func parseRegion(s string) (Region, bool) {
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "":
		return "", true
	case "cn", "china", "amap", "mainland":
		return RegionCN, true
	case "global", "google", "world", "intl", "overseas":
		return RegionGlobal, true
	}
	return "", false
}

// mainlandCities are mainland Chinese cities by their pinyin names, so "coffee in
// Chengdu" goes to Amap like "成都的咖啡". Hong Kong, Macau and Taiwan are not on it:
// Google covers them and Amap's coverage there is thin.
var mainlandCities = []string{
	"beijing", "shanghai", "guangzhou", "shenzhen", "chengdu", "chongqing", "hangzhou",
	"wuhan", "xi'an", "xian", "nanjing", "tianjin", "suzhou", "changsha", "zhengzhou",
	"dongguan", "qingdao", "shenyang", "ningbo", "kunming", "dalian", "xiamen", "hefei",
	"foshan", "fuzhou", "harbin", "jinan", "wenzhou", "changchun", "shijiazhuang",
	"guiyang", "nanning", "nanchang", "taiyuan", "urumqi", "lanzhou", "haikou", "sanya",
	"lhasa", "xining", "yinchuan", "hohhot", "guilin", "lijiang", "zhuhai", "wuxi",
	"changzhou", "yangzhou", "luoyang", "datong", "dunhuang", "zhangjiajie", "huangshan",
	"hainan", "yunnan", "sichuan", "guangdong", "zhejiang", "jiangsu", "tibet", "xinjiang",
}

var cityRE = regexp.MustCompile(`(?i)\b(` + strings.Join(quoteAll(mainlandCities), "|") + `)\b`)

func quoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = regexp.QuoteMeta(w)
	}
	return out
}

// detectRegion picks the service for the texts of a call: Chinese text (Han characters
// with no Japanese kana or Korean Hangul beside them) or a mainland city's name means
// Amap, anything else Google.
func detectRegion(texts ...string) Region {
	for _, t := range texts {
		if chinese(t) || cityRE.MatchString(t) {
			return RegionCN
		}
	}
	return RegionGlobal
}

func chinese(s string) bool {
	han := false
	for _, r := range s {
		switch {
		case unicode.In(r, unicode.Hiragana, unicode.Katakana, unicode.Hangul):
			return false
		case unicode.Is(unicode.Han, r):
			han = true
		}
	}
	return han
}
